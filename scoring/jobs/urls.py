"""Job URLs, included under /research/ in the ``scoring`` namespace."""

from django.urls import path

from scoring.jobs import views

urlpatterns = [
    path("<int:job_id>/", views.job_status, name="job"),
    path("<int:job_id>/download/", views.job_download, name="job-download"),
]
