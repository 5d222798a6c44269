"""The report of a study, cached until its data change.

The cache key carries a fingerprint of everything the report reads (responses,
raters, items, which participants are flagged, aggregates, the study's own settings), so a new
answer or a changed flag gives a new key; stale entries simply expire.
"""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db.models import Count, Max

from annotation.models import AggregateResult, Response
from annotation.selectors import flagged_rater_ids
from scoring.report.build import Report, Rows, build_report
from scoring.report.settings import ReportSettings
from studies.models import Item, Study

TIMEOUT = 60 * 60


def fingerprint(study: Study) -> str:
    parts = [
        Response.objects.filter(study=study).aggregate(n=Count("pk"), at=Max("updated_at")),
        Item.objects.filter(study=study).aggregate(n=Count("pk"), at=Max("updated_at")),
        flagged_rater_ids(study),
        AggregateResult.objects.filter(study=study).aggregate(n=Count("pk"), m=Max("pk")),
        study.updated_at,
        study.exclude_flagged,
        study.groups.count(),
        study.raters.aggregate(n=Count("pk"), m=Max("pk")),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


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


def report_for(
    study: Study,
    settings: ReportSettings | None = None,
    only: tuple[str, ...] = (),
    fp: str | None = None,
) -> Report:
    """The study's report with ``settings``, from the cache when nothing changed (every
    setting is part of the key: ``ReportSettings.cache_key``); ``only``: just those
    tables (``build_report``), cached apart; ``fp``: the study's ``fingerprint`` when the
    caller has just computed it (it scans the responses)."""
    opts = settings or ReportSettings()
    settings_hash = hashlib.sha256(f"{opts.cache_key()}|{only}".encode()).hexdigest()[:16]
    fp = fp or fingerprint(study)
    key = f"report:{study.pk}:{fp}:{settings_hash}"
    cached: Report | None = cache.get(key)
    if cached is None:
        cached = build_report(study, opts, only, reuse=TableCache(study, fp))
        cache.set(key, cached, TIMEOUT)
    return cached
