"""The admin's upload page: any kind of file, loaded now or as a background job.

Loaded now, the page shows the summary or every problem; in the background, the file
is saved under DATA_DIR/uploads, a Job is created, and the page redirects to the job's
admin page (which shows its progress, then its summary or its file's problems).

Each kind of file needs the permissions of what it writes, and goes only into a study
the user may see (``jobs.upload_rights``); staff with no such right get a 403.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobs.forms import UploadForm
from jobs.loads import file_load
from jobs.models import Job
from jobs.presenting import summary_table
from jobs.services import load_submit
from jobs.upload_rights import upload_kinds
from studies.loading.problems import LoadError
from studies.loading.readers import Source


class JobUploadForm(UploadForm):
    background = forms.BooleanField(
        label=gettext_lazy("Run in the background"),
        required=False,
        help_text=gettext_lazy(
            "For large files: load as a job and follow its progress on the job's page."
        ),
    )


def _large_file_note(job: Job, lines: int) -> str:
    """What the job's page says of a large file run as a job: loaded in the background
    while its job waits or runs; already loaded when it ran at once (no broker: Celery
    runs it in this process before the page is sent)."""
    job.refresh_from_db(fields=["status"])
    if job.finished:
        return _("This file has %(n)d lines: it was loaded as a job, which has finished.") % {
            "n": lines
        }
    return _("This file has %(n)d lines: it is loaded in the background.") % {"n": lines}


def upload_view(request: HttpRequest) -> HttpResponse:
    """Upload a study, pool, LLM outputs or responses file through the same loaders. A
    file of more than ``UPLOAD_BACKGROUND_LINES`` lines always runs as a job, whose page
    shows its progress."""
    if not request.user.is_staff:
        return redirect("admin:login")
    if not upload_kinds(request.user):
        raise PermissionDenied
    form = JobUploadForm(request.POST or None, request.FILES or None, user=request.user)
    problems = None
    summary = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["file"]
        source = Source.from_upload(
            upload.name, upload, encoding=data.get("encoding"), sheet=data.get("sheet")
        )
        large = source.line_count > settings.UPLOAD_BACKGROUND_LINES
        if data["background"] or large:
            job = load_submit(
                kind=data["kind"],
                name=source.name,
                content=source.content,
                study=data.get("study"),
                dry_run=data["dry_run"],
                encoding=source.encoding,
                sheet=source.sheet,
                user=request.user,
            )
            messages.info(request, _("Job %(id)d created.") % {"id": job.pk})
            if large and not data["background"]:
                messages.info(request, _large_file_note(job, source.line_count))
            return redirect("admin:jobs_job_change", job.pk)
        try:
            loaded = file_load(
                kind=data["kind"],
                source=source,
                study=data.get("study"),
                dry_run=data["dry_run"],
                user=request.user,
            )
        except LoadError as exc:
            problems = exc.problems
            messages.error(
                request, _("%(n)d problem(s) found; nothing was loaded.") % {"n": len(problems)}
            )
        else:
            summary = summary_table(loaded.as_dict())
            done = (
                _("Dry run: the file is valid; nothing was written.")
                if loaded.dry_run
                else _("File loaded.")
            )
            messages.success(request, done)
    context: dict[str, Any] = {
        **admin.site.each_context(request),
        "title": _("Upload a file"),
        "form": form,
        "problems": problems,
        "summary": summary,
        "background_lines": settings.UPLOAD_BACKGROUND_LINES,
    }
    return TemplateResponse(request, "admin/upload.html", context)
