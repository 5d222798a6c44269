"""Background reports as the researchers' pages see them: the last complete report for a
study and its settings, how old it is, and whether a newer one is being computed.

A report is never computed inside a web request: a background job does it
(``jobs.reports``, one job at a time per study and settings) and stores the result. The
jobs app sits above research in the layers, so it registers its implementation here
when it is ready (``register``) and the pages ask through ``report_state``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
class HeavyTables:
    """What a heavy-table job leaves behind (``jobs.reports``): the report's heavy tables
    (``scoring.report.registry.HEAVY_TABLES``) computed on one state of the data."""

    tables: dict[str, Rows]
    fingerprint: str  # the study's data fingerprint they were computed on
    answers: int  # the study's responses then
    computed_at: datetime


@dataclass(frozen=True)
class StoredReport:
    """What a report job leaves behind: the report and the dashboard's extra tables.

    The dashboard's report job leaves the heavy tables to a job of their own: its report
    lists them in ``report.pending`` (their rows empty) until ``with_heavy`` fills them in
    from that job's result."""

    report: Report
    fingerprint: str  # the study's data fingerprint it was computed on
    answers: int  # the study's responses then
    computed_at: datetime
    rule_rates_by_form: Rows | None = None  # the heatmaps' per-form rule rates
    plan_rows: list[dict[str, Any]] | None = None  # the planning panel's rows
    #: pending tables shown meanwhile with an older heavy job's rows, computed on other
    #: data (``with_heavy``): each name with that job's result (its age and answers)
    stale_tables: dict[str, HeavyTables] | None = None

    @property
    def pending(self) -> tuple[str, ...]:
        """The heavy tables this report still lacks for its own data."""
        return self.report.pending


def with_heavy(stored: StoredReport, heavy: HeavyTables | None) -> StoredReport:
    """``stored`` with the heavy tables it was stored without filled in from ``heavy``:
    computed on the same data (fingerprint), they complete it; computed on other data,
    their rows are shown meanwhile, named in ``stale_tables``, and the tables stay
    pending (downloads and the API wait for the current ones)."""
    if heavy is None or not stored.report.pending:
        return stored
    names = [n for n in stored.report.pending if n in heavy.tables]
    if not names:
        return stored
    tables = {**stored.report.tables, **{n: heavy.tables[n] for n in names}}
    if heavy.fingerprint == stored.fingerprint:
        still = tuple(n for n in stored.report.pending if n not in names)
        return replace(stored, report=replace(stored.report, tables=tables, pending=still))
    stale = {**(stored.stale_tables or {}), **dict.fromkeys(names, heavy)}
    return replace(stored, report=replace(stored.report, tables=tables), stale_tables=stale)


@dataclass(frozen=True)
class StaleTable:
    """A pending table shown meanwhile with the rows of a heavy-table job computed on
    other data: its name, and when and on how many answers those rows were computed."""

    name: str
    computed_at: datetime
    answers: int


@dataclass(frozen=True)
class ReportHead:
    """What a page shows of a stored report without reading it (its age, what it was
    computed on, which heavy tables are still pending and which of them are shown with
    older rows): kept in the summaries of its job and of the heavy-table job, so a view
    during collection does not load a report of a million responses to say how old it
    is. ``heavy_job``: the heavy-table job whose rows the report is shown with."""

    fingerprint: str
    answers: int
    computed_at: datetime
    pending: tuple[str, ...] = ()
    stale: tuple[StaleTable, ...] = ()
    heavy_job: int | None = None

    @classmethod
    def of(cls, stored: StoredReport) -> ReportHead:
        stale = tuple(
            StaleTable(name, heavy.computed_at, heavy.answers)
            for name, heavy in sorted((stored.stale_tables or {}).items())
            if name in stored.pending
        )
        return cls(stored.fingerprint, stored.answers, stored.computed_at, stored.pending, stale)


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
    heavy_job_id: int | None = None  # the job computing the stored report's pending tables
    heavy_status_url: str | None = None  # that job's state as JSON
    heavy_failed: str = ""  # the last job for the pending tables failed (and none runs): why
    #: reads the stored report (with its heavy tables filled in as far as they are)
    load: Callable[[], StoredReport | None] = field(default=_nothing, repr=False, compare=False)

    @cached_property
    def stored(self) -> StoredReport | None:
        """The last complete report itself, read when first asked for (``load``)."""
        return self.load() if self.head is not None else None

    @property
    def current(self) -> bool:
        """The stored report is of the study's data now (its heavy tables may be pending)."""
        return self.head is not None and self.head.fingerprint == self.fingerprint

    @property
    def computing(self) -> bool:
        return self.job_id is not None

    @property
    def answers_since(self) -> int:
        return max(0, self.answers - self.head.answers) if self.head is not None else 0

    @property
    def pending(self) -> tuple[str, ...]:
        """The stored report's heavy tables not yet computed for its data."""
        return self.head.pending if self.head is not None else ()

    @property
    def complete(self) -> bool:
        """The stored report is current with every table: what downloads and the API give."""
        return self.current and not self.pending

    @property
    def wait_job_id(self) -> int | None:
        """The job a download waits for: the report's, else (the report being current)
        its pending tables'."""
        if self.job_id is not None or not self.current:
            return self.job_id
        return self.heavy_job_id

    @property
    def wait_status_url(self) -> str | None:
        if self.job_id is not None or not self.current:
            return self.status_url
        return self.heavy_status_url

    @property
    def wait_failed(self) -> str:
        """Why what a download waits for failed (and nothing computes it now), if it did."""
        if self.job_id is not None:
            return ""
        if self.failed or not self.current:
            return self.failed
        return self.heavy_failed if self.heavy_job_id is None else ""


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
