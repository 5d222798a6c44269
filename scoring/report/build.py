"""Build the statistics report (formats.md §5) of one study."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from scoring.report import registry
from scoring.report.data import StudyData, study_data
from scoring.report.provenance import provenance
from scoring.report.registry import PAPER_TABLES, TABLES
from scoring.report.sets import RaterSet, rater_sets
from scoring.report.settings import N_BOOT, SEED, ReportSettings
from scoring.report.splits import split_data
from studies.models import Study
from studies.values import EXCERPT

if TYPE_CHECKING:
    from scoring.report.abilities import FitStarts

Rows = list[dict[str, Any]]


@dataclass
class Context:
    """What a table is built from: the (possibly split) data, the rater sets, settings."""

    data: StudyData
    sets: list[RaterSet]
    opts: ReportSettings
    full: StudyData  # the whole study (for tables comparing with published figures)
    #: the IRT fits' previous fits to warm-start from (``abilities.FitStarts``); only
    #: for the whole study: a split's units differ from the kept fits'
    starts: FitStarts | None = None

    @cached_property
    def answers(self) -> pd.DataFrame:
        from scoring.report.accuracy import keyed_answers

        return keyed_answers(self.data)

    @cached_property
    def class_tables(self) -> tuple[Rows, Rows]:
        """The ``classes`` and ``confusion`` tables' rows, computed together."""
        from scoring.report.classes import class_tables

        return class_tables(self.data, self.sets)

    @cached_property
    def rates(self) -> pd.DataFrame:
        from scoring.report.accuracy import per_rater

        return per_rater(self.data, self.answers)


__all__ = ["N_BOOT", "PAPER_TABLES", "SEED", "TABLES", "Report", "ReportSettings", "build_report"]


@dataclass
class Report:
    study: str
    generated_at: str
    settings: ReportSettings
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: Where the report came from (``scoring.report.provenance``).
    provenance: dict[str, Any] = field(default_factory=dict)
    #: Tables left out for a job of their own (``build_report``'s ``defer``): empty here.
    pending: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The report as strict-JSON data: NaN and infinities become null."""
        out: dict[str, Any] = {
            "study": self.study,
            "generated_at": self.generated_at,
            "settings": self.settings.as_json(),
            "provenance": self.provenance,
        }
        for name in TABLES:
            out[name] = [{k: _clean(v) for k, v in row.items()} for row in self.tables[name]]
        return out


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def unknown_tasks(study: Study, slugs: tuple[str, ...]) -> list[str]:
    """The slugs that name no task of ``study``, for a message: each cut to ``EXCERPT``
    characters, at most five then "…" (a 300 KB ``tasks=`` is not echoed back whole)."""
    known = set(study.tasks.values_list("slug", flat=True))
    missing = [s if len(s) <= EXCERPT else s[: EXCERPT - 1] + "…" for s in slugs if s not in known]
    return missing if len(missing) <= 5 else [*missing[:5], "…"]


class TableStore(Protocol):
    """Where ``build_report`` keeps the tables that depend on the data alone (a cache
    keyed by the study's fingerprint: ``scoring.report.service``)."""

    def get(self, name: str, opts: ReportSettings) -> Rows | None: ...

    def put(self, name: str, opts: ReportSettings, rows: Rows) -> None: ...


def build_report(
    study: Study,
    settings: ReportSettings | None = None,
    only: tuple[str, ...] = (),
    reuse: TableStore | None = None,
    data: StudyData | None = None,
    fp: str | None = None,
    defer: tuple[str, ...] = (),
    starts: FitStarts | None = None,
) -> Report:
    """Every table of the report for ``study`` (exclusions applied and listed); with
    ``only``, just those tables (the others empty), e.g. the dashboard's per-form rates.
    ``reuse``: tables that read no setting but the tasks and ``by`` (``data_only``) are
    taken from it when there and put in it when built. ``data``: the study already read
    with the same ``tasks`` (``study_data(study, tasks=settings.tasks)``), so several
    reports of one page share one read (``scoring.report.service.StudyReader``). ``fp``:
    the study's data fingerprint when the caller has it (else computed for the
    report's ``provenance``). ``defer``: tables not built here (the dashboard's report
    job leaves the heavy ones to a job of their own, ``jobs.reports``): taken from
    ``reuse`` when there, else left empty and listed in the report's ``pending``.
    ``starts``: the IRT fits' previous fits (``abilities.FitStarts``) for warm starts;
    without it every fit starts cold (the CLI: the same numbers for the same data)."""
    opts = settings or ReportSettings()
    if missing := unknown_tasks(study, opts.tasks):
        raise ValueError(f"tasks: no task {', '.join(map(repr, missing))} in {study.slug}")
    if data is None:
        data = study_data(study, tasks=opts.tasks)
    sets = rater_sets(data.raters, data.group_slugs)
    whole = Context(data, sets, opts, data, starts=starts)
    tables: dict[str, Rows] = {}
    pending: list[str] = []
    splits: dict[tuple[str, ...], list[tuple[dict[str, Any], Context]]] = {}
    for spec in registry.SPECS:
        name = spec.name
        if only and name not in only:
            tables[name] = []
            continue
        kept = reuse.get(name, opts) if reuse is not None and spec.data_only else None
        if kept is not None:
            tables[name] = kept
            continue
        if name in defer:
            tables[name] = []
            pending.append(name)
            continue
        keys = spec.split_keys(opts.by)
        if not keys:
            tables[name] = spec.build(whole)
        else:
            if keys not in splits:
                splits[keys] = [
                    (combo, Context(part, sets, opts, data))
                    for combo, part in split_data(data, keys)
                ]
            tables[name] = [
                {**combo, **row} for combo, ctx in splits[keys] for row in spec.build(ctx)
            ]
        if reuse is not None and spec.data_only:
            reuse.put(name, opts, tables[name])
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return Report(
        study=study.slug,
        generated_at=now,
        settings=opts,
        tables=tables,
        provenance={**provenance(study, fp), "by": split_record(opts.by, only)},
        pending=tuple(pending),
    )


def split_record(by: tuple[str, ...], only: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """What ``--by`` did to each table built (the report's ``provenance["by"]``): the keys
    it was ``split`` by, the keys it has as columns of its own (``own_columns``), and the
    tables ``once``: computed on the whole study, no key asked for applying to them.
    None without ``by``."""
    if not by:
        return None
    split: dict[str, list[str]] = {}
    own: dict[str, list[str]] = {}
    once: list[str] = []
    for spec in registry.SPECS:
        if only and spec.name not in only:
            continue
        keys, native = spec.split_keys(by), spec.own_keys(by)
        if keys:
            split[spec.name] = list(keys)
        if native:
            own[spec.name] = list(native)
        if not keys and not native:
            once.append(spec.name)
    return {"asked": list(by), "split": split, "own_columns": own, "once": once}
