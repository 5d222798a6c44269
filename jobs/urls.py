"""Job URLs (state and result files), under /research/jobs/ in the ``jobs`` namespace."""

from django.urls import path

from jobs import views

app_name = "jobs"
urlpatterns = [
    path("<int:job_id>/", views.job_status, name="job"),
    path("<int:job_id>/download/", views.job_download, name="job-download"),
]
