from django.urls import path

from research.api import views

app_name = "api"
urlpatterns = [
    path("studies/", views.StudyList.as_view(), name="studies"),
    path("studies/<int:study_id>/", views.StudyDetail.as_view(), name="study"),
    path("studies/<int:study_id>/items/", views.ItemList.as_view(), name="items"),
    path("studies/<int:study_id>/responses/", views.ResponseList.as_view(), name="responses"),
    path("studies/<int:study_id>/report/", views.ReportView.as_view(), name="report"),
    path("studies/<int:study_id>/plan/", views.PlanView.as_view(), name="plan"),
    path(
        "studies/<int:study_id>/exports/report/",
        views.ReportExport.as_view(),
        name="export-report",
    ),
    path(
        "studies/<int:study_id>/exports/paper/<slug:layout>/",
        views.PaperExport.as_view(),
        name="export-paper",
    ),
    path(
        "studies/<int:study_id>/exports/responses/",
        views.ResponsesExport.as_view(),
        name="export-responses",
    ),
]
