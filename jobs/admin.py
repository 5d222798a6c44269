"""Jobs in the admin: a list with progress bars, filters by status and kind, and a
read-only page per job with its summary or its file's problems (refreshed while it runs).
Anyone but a superuser sees the jobs of the studies shared with them and their own."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.timesince import timesince
from django.utils.translation import gettext_lazy as _

from jobs.models import Job
from jobs.presenting import (
    is_load_summary,
    outcome_text,
    parameter_rows,
    stage_label,
    stage_labels,
    summary_table,
)
from jobs.progress import last_sign_of_life, live_progress
from jobs.services import RUNNER_LOST, job_fail_if_runner_gone
from studies.admin_display import pretty_json
from studies.admin_scope import StudyScoped, scoped_filters
from studies.loading.problems import problem_shown

FIELDS = (
    "kind",
    "study",
    "status_shown",
    "progress_bar",
    "sign_of_life",
    "outcome",
    "problems_table",
    "result_link",
    "summary_block",
    "params_block",
    "created_by",
    "created_at",
    "started_at",
    "finished_at",
)


@admin.register(Job)
class JobAdmin(StudyScoped, admin.ModelAdmin):
    own_path = "created_by"
    list_display = (
        "number",
        "kind",
        "study",
        "status",
        "progress_bar",
        "sign_of_life",
        "short_message",
        "created_by",
        "created_at",
        "finished_at",
    )
    list_display_links = ("number", "kind")
    list_filter = ("status", "kind", *scoped_filters("study"))
    search_fields = ("message",)
    list_select_related = ("study", "created_by")
    fields = FIELDS
    readonly_fields = FIELDS
    change_form_template = "admin/jobs/job/change_form.html"
    change_list_template = "admin/jobs/job/change_list.html"

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        """The list refreshes itself while any job is queued or running."""
        jobs = self.get_queryset(request)
        busy = jobs.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING]).exists()
        return super().changelist_view(request, {**(extra_context or {}), "refresh": busy})

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # jobs are created by uploads, commands and the dashboard

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a job's record is what happened: read-only

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> Any:
        """The page follows a running job: its script polls the job's state (jobs.views),
        a meta refresh does without JavaScript."""
        context = {**(extra_context or {}), "stage_labels": stage_labels()}
        return super().change_view(request, object_id, form_url, context)

    @admin.display(description=_("No."), ordering="pk")
    def number(self, job: Job) -> int:
        return job.pk

    @admin.display(description=_("status"))
    def status_shown(self, job: Job) -> SafeString:
        """The status, which the page's script (job_progress.js) keeps up with the job's
        as it moves the bar: queued, then running, then done or failed."""
        return format_html(
            '<span class="job-status" data-status="{}">{}</span>',
            job.status,
            job.get_status_display(),
        )

    @admin.display(description=_("progress"))
    def progress_bar(self, job: Job) -> SafeString:
        p = live_progress(job)
        stage = stage_label(p["stage"])
        count = f"{p['done']}/{p['total']}" if p["total"] else str(p["done"] or "")
        url = reverse("jobs:job", args=[job.pk])
        if p["percent"] is None:
            bar = format_html('<progress aria-label="{}"></progress>', _("progress"))
            text = f"{stage} {count}"
        else:
            bar = format_html(
                '<progress max="100" value="{}" aria-label="{}">{}%</progress>',
                p["percent"],
                _("progress"),
                p["percent"],
            )
            text = f"{p['percent']}% {stage} {count}"
        return format_html(
            '<span class="job-progress" data-url="{}">{} <span class="job-progress-text" '
            'role="status">{}</span></span>',
            url,
            bar,
            text.strip(),
        )

    @admin.display(description=_("sign of life"))
    def sign_of_life(self, job: Job) -> str:
        """A running job's last heartbeat; a job whose runner died is marked failed here
        (``jobs.services.job_fail_if_runner_gone``) and says so."""
        job_fail_if_runner_gone(job)
        if (job.summary or {}).get("error") == RUNNER_LOST:
            return str(_("runner gone: failed"))
        last = last_sign_of_life(job) if job.status == Job.Status.RUNNING else None
        return str(_("%(time)s ago") % {"time": timesince(last)}) if last else "—"

    @admin.display(description=_("message"))
    def short_message(self, job: Job) -> str:
        first = outcome_text(job) if job.finished else ""
        return first[:120]

    @admin.display(description=_("outcome"))
    def outcome(self, job: Job) -> str:
        return outcome_text(job) or "—"

    @admin.display(description=_("summary"))
    def summary_block(self, job: Job) -> SafeString | str:
        summary = job.summary or {}
        if summary.get("problems") or summary.get("error"):
            return "—"  # the problems table, or the outcome, says it
        return summary_table(summary) if is_load_summary(summary) else pretty_json(summary)

    @admin.display(description=_("parameters"))
    def params_block(self, job: Job) -> SafeString | str:
        rows = parameter_rows(job.params or {})
        if not rows:
            return "—"
        body = format_html_join("", '<tr><th scope="row">{}</th><td>{}</td></tr>', rows)
        return format_html('<table id="parameters">{}</table>', body)

    @admin.display(description=_("problems"))
    def problems_table(self, job: Job) -> SafeString | str:
        problems = (job.summary or {}).get("problems") or []
        if not problems:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (p.get("file"), p.get("line") or "", p.get("field") or "", problem_shown(p))
                for p in problems
            ),
        )
        head = format_html(
            "<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
            _("File"),
            _("Line"),
            _("Field"),
            _("Problem"),
        )
        return format_html('<table id="problems">{}{}</table>', head, rows)

    @admin.display(description=_("result"))
    def result_link(self, job: Job) -> SafeString | str:
        if not job.result_file or job.status != Job.Status.DONE:
            return "—"
        url = reverse("jobs:job-download", args=[job.pk])
        return format_html('<a href="{}">{}</a>', url, _("Download"))
