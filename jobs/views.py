"""A job's state as JSON for the dashboard to poll, and its result file.

Visible to whoever may see the job's study (``research.access``: superusers all, a
researcher the studies shared with them), a job of no study to its creator; 404 to anyone
else (a job's creator too, once its study is no longer shared with them). The researcher
is the session's user, or the API token's (``Authorization: Token …``, DRF's own
authentication): the API's 202 replies name these URLs as their ``status_url``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from jobs.models import Job
from jobs.progress import live_progress
from jobs.services import job_fail_if_runner_gone
from research.access import visible_studies


def job_for(user: Any, job_id: int) -> Job:
    job = Job.objects.select_related("study").filter(pk=job_id).first()
    if job is None or not user.is_authenticated:
        raise Http404("No such job")
    # a job of a study follows the study's sharing (its creator included: a researcher
    # removed from a study no longer reads its reports or exports); one of no study
    # (a study file's load) is its creator's
    mine = job.study_id is None and job.created_by_id is not None and job.created_by_id == user.pk
    shared = job.study_id is not None and visible_studies(user).filter(pk=job.study_id).exists()
    if not (mine or shared or user.is_superuser):
        raise Http404("No such job")
    return job


def job_json(job: Job) -> dict[str, Any]:
    progress = live_progress(job)
    return {
        "id": job.pk,
        "kind": job.kind,
        "study": job.study.slug if job.study else None,
        "status": job.status,
        "status_label": job.get_status_display(),
        "finished": job.finished,
        **progress,
        "message": job.message,
        "summary": job.summary,
        "result": reverse("jobs:job-download", args=[job.pk]) if job.result_file else None,
        "created_at": job.created_at.isoformat(),
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


def result_file(job: Job) -> Path | None:
    """The job's result file under this process's DATA_DIR (the row names it relative to
    DATA_DIR), or None when there is none there."""
    if not job.result_file:
        return None
    root = Path(settings.DATA_DIR).resolve()
    path = (root / job.result_file).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


def requester(request: HttpRequest) -> Any:
    """The session's user, else the user of a valid API token in the request's
    ``Authorization`` header (an invalid or missing one: the anonymous user, so 404)."""
    if request.user.is_authenticated:
        return request.user
    try:
        found = TokenAuthentication().authenticate(request)  # type: ignore[arg-type]
    except AuthenticationFailed:
        found = None
    return found[0] if found is not None else request.user


@require_GET
def job_status(request: HttpRequest, job_id: int) -> JsonResponse:
    job = job_for(requester(request), job_id)
    job_fail_if_runner_gone(job)
    return JsonResponse(job_json(job))


@require_GET
def job_download(request: HttpRequest, job_id: int) -> FileResponse:
    job = job_for(requester(request), job_id)
    path = result_file(job)
    if job.status != Job.Status.DONE or path is None:
        raise Http404("No result file")
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
