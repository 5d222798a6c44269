"""Background jobs (loads, rule scoring, exports, reports).

``jobs`` sits on top of every app (studies ← annotation ← scoring ← research), so a job
may run any loader, scoring or report of any of them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from studies.models import LoadKind, Study


class Job(models.Model):
    """One background job: what it does, how far it got, and what came out."""

    class Kind(models.TextChoices):
        """Work other than loading a file (file loads are ``LoadKind``'s kinds)."""

        RULE_SCORES = "rule_scores", _("Rule scores")
        EXPORT = "export", _("Export")
        REPORT = "report", _("Report")

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    kind = models.CharField(
        max_length=20, choices=[*LoadKind.choices, *Kind.choices], verbose_name=_("kind")
    )
    study = models.ForeignKey(
        Study,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="jobs",
        verbose_name=_("study"),
    )
    status = models.CharField(
        max_length=10,
        choices=Status.choices,
        default=Status.QUEUED,
        db_index=True,
        verbose_name=_("status"),
    )
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("What the job was asked."),
        verbose_name=_("parameters"),
    )
    stage = models.CharField(
        max_length=40, blank=True, help_text=_("e.g. validating, writing"), verbose_name=_("stage")
    )
    done = models.PositiveIntegerField(default=0, verbose_name=_("done"))
    total = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("total"))
    message = models.TextField(blank=True, verbose_name=_("message"))
    summary = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("What the job did, or the problems found."),
        verbose_name=_("summary"),
    )
    # Relative to DATA_DIR (which job workers may mount elsewhere): exports/…, reports/….
    result_file = models.CharField(max_length=500, blank=True, verbose_name=_("result file"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    # Background reports (jobs.reports): the study and report settings the job computes
    # (``report:<study>:<settings digest>``); at most one queued or running job per key.
    key = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text=_("What the job computes, for jobs that must not run twice at once."),
        verbose_name=_("key"),
    )
    heartbeat_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("The last sign of life of the job's runner."),
        verbose_name=_("last sign of life"),
    )

    class Meta:
        verbose_name = _("job")
        verbose_name_plural = _("jobs")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["kind", "status"], name="job_kind_status")]
        constraints = [
            models.UniqueConstraint(
                fields=["key"],
                condition=models.Q(status__in=["queued", "running"]) & ~models.Q(key=""),
                name="job_one_active_per_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.get_status_display()})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def percent(self) -> int | None:
        if self.status == self.Status.DONE:
            return 100
        if not self.total:
            return None
        return min(100, int(100 * self.done / self.total))
