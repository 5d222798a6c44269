"""The researcher-facing pages, under /research/."""

from django.urls import path

from research import docs, poems, quality, recruit
from research.dashboard import views as dashboard

app_name = "research"
urlpatterns = [
    path("", dashboard.study_list, name="studies"),
    path("studies/<int:study_id>/", dashboard.dashboard, name="dashboard"),
    path(
        "studies/<int:study_id>/report.<str:fmt>",
        dashboard.download_report,
        name="download-report",
    ),
    path(
        "studies/<int:study_id>/paper/<slug:layout>.<str:fmt>",
        dashboard.download_paper,
        name="download-paper",
    ),
    path(
        "studies/<int:study_id>/responses.<str:fmt>",
        dashboard.download_responses,
        name="download-responses",
    ),
    path(
        "studies/<int:study_id>/chart/<slug:name>.<str:fmt>",
        dashboard.download_chart,
        name="download-chart",
    ),
    path("studies/<int:study_id>/quality/", quality.quality, name="quality"),
    path("poems/<int:item_id>/", poems.poem_detail, name="poem"),
    path("docs/", docs.doc_index, name="docs"),
    path("docs/<slug:name>/", docs.doc, name="doc"),
    path(
        "studies/<int:study_id>/recruit/<slug:key>/",
        recruit.recruit_print,
        name="recruit-print",
    ),
]
