"""The report of a study (and its planning rows), cached until its data change.

The cache key carries a fingerprint of everything the report reads (responses,
raters, items, which participants are flagged, aggregates, the study's own settings), so a new
answer or a changed flag gives a new key; stale entries simply expire.

A page that needs several of these (the dashboard: its report, the per-form rule rates
of the heatmaps, the planning rows) passes one ``StudyReader``, so whatever is not
cached yet is built from a single read of the responses.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max

from annotation.models import AggregateResult, Participant, QualityDecision
from annotation.selectors import (
    ResponseTotals,
    failed_qualification,
    flagged_rater_ids,
    practice_answers,
    response_totals,
)
from scoring.report.abilities import PreviousFits
from scoring.report.build import Report, Rows, build_report
from scoring.report.data import StudyData, study_data
from scoring.report.plan import Goals, plan_rows
from scoring.report.prereg import deviations_record
from scoring.report.settings import ReportSettings
from studies.models import AnalysisPlan, Item, PlanDeviation, Study

TIMEOUT = 60 * 60
STARTS_TIMEOUT = 7 * 24 * 3600  # the IRT fits' warm starts (``IrtStarts``)


def fingerprint(study: Study, totals: ResponseTotals | None = None) -> str:
    """A digest of everything the report reads; ``totals``: the study's responses'
    ``response_totals`` when the caller has read them (one scan serves the page)."""
    if totals is None:
        totals = response_totals(study)
    parts = [
        {"n": totals.n, "at": totals.at},
        Item.objects.filter(study=study).aggregate(n=Count("pk"), at=Max("updated_at")),
        flagged_rater_ids(study),
        # practice and qualification (annotation.services.warmup): the exclusions' rows
        failed_qualification(study) if study.qualification else 0,
        practice_answers(study) if study.practice_task else 0,
        AggregateResult.objects.filter(study=study).aggregate(n=Count("pk"), m=Max("pk")),
        study.updated_at,
        study.exclude_flagged,
        study.groups.count(),
        study.raters.aggregate(n=Count("pk"), m=Max("pk")),
        # researchers' keep/exclude decisions (annotation.quality) change the exclusions
        QualityDecision.objects.filter(participant__study=study).aggregate(
            n=Count("pk"), at=Max("decided_at")
        ),
        # a plan's exclusion rules read the quality flags: enrolments (device, address)
        Participant.objects.filter(study=study).aggregate(n=Count("pk"), at=Max("consented_at")),
        # a frozen analysis plan, and the deviations from it recorded so far
        AnalysisPlan.objects.filter(study=study).aggregate(n=Count("pk"), m=Max("pk")),
        PlanDeviation.objects.filter(plan__study=study).aggregate(n=Count("pk")),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


class StudyReader:
    """The study's data, read when first asked for and then shared by every report and
    planning table of one request. One task selection is held at a time (asking for
    another drops the first before reading), so memory stays that of one read."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.reads = 0
        self._tasks: tuple[str, ...] | None = None
        self._data: StudyData | None = None

    def data(self, tasks: tuple[str, ...] = ()) -> StudyData:
        if self._data is None or self._tasks != tasks:
            self._data = None  # free the other selection before reading this one
            self._data = study_data(self.study, tasks=tasks)
            self._tasks = tasks
            self.reads += 1
        return self._data


class TableCache:
    """The tables that read no setting but the tasks and ``by`` (``TableSpec.data_only``:
    ``item_analysis``, ``abilities`` and its IRT fits), cached per study fingerprint, so
    a change of confidence, resamples or threshold on the dashboard rebuilds only the
    tables it affects."""

    def __init__(self, study: Study, fp: str) -> None:
        self.prefix = f"report-table:{study.pk}:{fp}"

    def key(self, name: str, opts: ReportSettings) -> str:
        data = hashlib.sha256(repr((opts.tasks, opts.by)).encode()).hexdigest()[:16]
        return f"{self.prefix}:{name}:{data}"

    def get(self, name: str, opts: ReportSettings) -> Rows | None:
        rows: Rows | None = cache.get(self.key(name, opts))
        return rows

    def put(self, name: str, opts: ReportSettings, rows: Rows) -> None:
        cache.set(self.key(name, opts), rows, TIMEOUT)


class IrtStarts:
    """The last IRT fits of each task of a study (``abilities.FitStarts``), kept in the
    cache per study and task — not per fingerprint, so the fit after new answers starts
    from the one before (``abilities`` checks the units are the same)."""

    def __init__(self, study: Study) -> None:
        self.prefix = f"irt-start:{study.pk}"

    def get(self, task: str) -> PreviousFits | None:
        found: PreviousFits | None = cache.get(f"{self.prefix}:{task}")
        return found

    def put(self, task: str, fits: PreviousFits) -> None:
        cache.set(f"{self.prefix}:{task}", fits, STARTS_TIMEOUT)


def report_for(
    study: Study,
    settings: ReportSettings | None = None,
    only: tuple[str, ...] = (),
    fp: str | None = None,
    reader: StudyReader | None = None,
) -> Report:
    """The study's report with ``settings``, from the cache when nothing changed (every
    setting is part of the key: ``ReportSettings.cache_key``); ``only``: just those
    tables (``build_report``), cached apart; ``fp``: the study's ``fingerprint`` when the
    caller has just computed it (it scans the responses); ``reader``: read the study
    through it when the report must be built (shared with the page's other tables)."""
    opts = settings or ReportSettings()
    settings_hash = hashlib.sha256(f"{opts.cache_key()}|{only}".encode()).hexdigest()[:16]
    fp = fp or fingerprint(study)
    key = f"report:{study.pk}:{fp}:{settings_hash}"
    cached: Report | None = cache.get(key)
    if cached is None:
        if deviations_record(study, opts):  # a departure from the frozen plan, seen first now
            fp = fingerprint(study)
            key = f"report:{study.pk}:{fp}:{settings_hash}"
        data = reader.data(opts.tasks) if reader is not None else None
        cached = build_report(study, opts, only, reuse=TableCache(study, fp), data=data, fp=fp)
        cache.set(key, cached, TIMEOUT)
    return cached


def plan_for(
    study: Study, goals: Goals, fp: str | None = None, reader: StudyReader | None = None
) -> list[dict[str, Any]]:
    """The study's planning rows (``scoring.report.plan``) for ``goals``, cached like the
    report; ``fp`` and ``reader`` as for ``report_for`` (the plan reads every task)."""
    fp = fp or fingerprint(study)
    digest = hashlib.sha256(repr(goals).encode()).hexdigest()[:16]
    key = f"plan:{study.pk}:{fp}:{digest}"
    rows: list[dict[str, Any]] | None = cache.get(key)
    if rows is None:
        rows = plan_rows(study, goals, reader.data() if reader is not None else None)
        cache.set(key, rows, TIMEOUT)
    return rows
