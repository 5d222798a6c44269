"""Background reports as the researchers' pages see them: the last complete report for a
study and its settings, how old it is, and whether a newer one is being computed.

A report is never computed inside a web request: a background job does it
(``jobs.reports``, one job at a time per study and settings) and stores the result. The
jobs app sits above research in the layers, so it registers its implementation here
when it is ready (``register``) and the pages ask through ``report_state``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol

from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.selectors import ResponseTotals
from scoring.report.build import Report, Rows
from scoring.report.settings import ReportSettings
from studies.models import Study


@dataclass(frozen=True)
class StoredReport:
    """What a report job leaves behind: the report and the dashboard's extra tables."""

    report: Report
    fingerprint: str  # the study's data fingerprint it was computed on
    answers: int  # the study's responses then
    computed_at: datetime
    rule_rates_by_form: Rows | None = None  # the heatmaps' per-form rule rates
    plan_rows: list[dict[str, Any]] | None = None  # the planning panel's rows


@dataclass(frozen=True)
class ReportHead:
    """What a page shows of a stored report without reading it (its age and what it was
    computed on): kept in its job's summary, so a view during collection does not load a
    report of a million responses to say how old it is."""

    fingerprint: str
    answers: int
    computed_at: datetime

    @classmethod
    def of(cls, stored: StoredReport) -> ReportHead:
        return cls(stored.fingerprint, stored.answers, stored.computed_at)


def _nothing() -> StoredReport | None:
    return None


@dataclass(frozen=True)
class ReportState:
    """Where the report of one study and settings stands for this request."""

    head: ReportHead | None  # the last complete report (current or stale), if any
    fingerprint: str  # the study's data fingerprint now
    answers: int  # the study's responses now
    job_id: int | None = None  # the job computing it (queued or running), if any
    status_url: str | None = None  # that job's state as JSON
    failed: str = ""  # the last job for these settings failed (and none runs): why
    started: bool = False  # this request started the job
    load: Callable[[], StoredReport | None] = field(default=_nothing, repr=False, compare=False)

    @cached_property
    def stored(self) -> StoredReport | None:
        """The last complete report itself, read when first asked for (``load``)."""
        return self.load() if self.head is not None else None

    @property
    def current(self) -> bool:
        return self.head is not None and self.head.fingerprint == self.fingerprint

    @property
    def computing(self) -> bool:
        return self.job_id is not None

    @property
    def answers_since(self) -> int:
        return max(0, self.answers - self.head.answers) if self.head is not None else 0


class ReportRateLimited(Exception):
    """The user started too many report computations in the last hour."""

    def __init__(self, retry_at: datetime, limit: int) -> None:
        self.retry_at = retry_at
        self.limit = limit
        super().__init__(self.message)

    @property
    def retry_after(self) -> int:
        """Seconds until a computation may be started again (at least 1)."""
        return max(1, int((self.retry_at - timezone.now()).total_seconds()) + 1)

    @property
    def message(self) -> str:
        at = timezone.localtime(self.retry_at).strftime("%H:%M:%S")
        return _(
            "You started %(limit)d report computations in the last hour, the most allowed. "
            "Try again after %(at)s (in %(seconds)d s), or use settings whose report is "
            "already computed."
        ) % {"limit": self.limit, "at": at, "seconds": self.retry_after}


class ReportBackend(Protocol):
    def state(
        self,
        study: Study,
        settings: ReportSettings,
        user: Any,
        *,
        start: bool,
        totals: ResponseTotals | None = None,
    ) -> ReportState: ...


_backend: ReportBackend | None = None


def register(backend: ReportBackend) -> None:
    """Called by the jobs app when it is ready (``jobs.apps``)."""
    global _backend
    _backend = backend


def report_state(
    study: Study,
    settings: ReportSettings,
    user: Any,
    *,
    start: bool = True,
    totals: ResponseTotals | None = None,
) -> ReportState:
    """The stored report of ``study`` with ``settings`` and its age; when it is missing or
    stale and no job computes it, ``start`` starts one (``ReportRateLimited`` when the
    user may start no more). Never computes the report itself. ``totals``: the study's
    ``response_totals`` when the page has read them (its fingerprint reads them)."""
    if _backend is None:
        raise RuntimeError("no report backend registered (is the jobs app installed?)")
    return _backend.state(study, settings, user, start=start, totals=totals)
