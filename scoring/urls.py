from django.urls import include, path

from scoring import poem_view
from scoring.dashboard import views as dashboard

app_name = "scoring"
urlpatterns = [
    path("", dashboard.study_list, name="studies"),
    path("studies/<int:study_id>/", dashboard.dashboard, name="dashboard"),
    path(
        "studies/<int:study_id>/report.<str:fmt>",
        dashboard.download_report,
        name="download-report",
    ),
    path(
        "studies/<int:study_id>/responses.<str:fmt>",
        dashboard.download_responses,
        name="download-responses",
    ),
    path("poems/<int:item_id>/", poem_view.poem_detail, name="poem"),
    path("jobs/", include("scoring.jobs.urls")),  # background jobs' state and results
]
