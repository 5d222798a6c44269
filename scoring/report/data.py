"""Selectors for the report: a study's responses as compact arrays (one query, streamed).

Responses are read per (task, field) with a ``values_list`` query streamed in chunks
and turned into numpy columns chunk by chunk (fields as categorical codes), so memory
is a few dozen bytes per response whatever the study's size. Exclusions are applied here and counted,
never silently: flagged participants' responses (when ``Study.exclude_flagged``),
responses to attention-check items, and model samples after the first (``sample > 0``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from django.db import connections
from django.db.models import QuerySet
from django.utils.translation import gettext_noop

from annotation.models import AggregateResult, Rater, Response
from annotation.quality import (
    EXCLUSION_REASONS,
    KEPT_REASONS,
    PLAN_REASONS,
    by_plan_rules,
    excluded_by_decision,
    kept_by_decision,
)
from annotation.selectors import (
    failed_qualification,
    flagged_rater_ids,
    practice_answers,
    test_rater_ids,
)
from scoring.report.prereg import exclusion_rules
from studies.kinds import KINDS
from studies.models import Item, Study, Task
from studies.provenance import source_label

CHUNK = 50_000
_NUMERIC = ("item_id", "rater_id", "value", "correct", "sample")


@dataclass(frozen=True)
class TaskInfo:
    id: int
    slug: str
    title: str
    kind: str
    dimensions: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def is_rating(self) -> bool:
        """Rated on the task's dimensions: ordinal agreement, correlations, rules."""
        return KINDS[self.kind].scale

    @property
    def has_all_parts(self) -> bool:
        """The accuracy table adds field ``*``: every keyed part of an item right."""
        return KINDS[self.kind].all_parts

    def scale(self, key: str) -> list[int] | None:
        dim = next((d for d in self.dimensions if d.get("key") == key), None)
        if dim is None or "min" not in dim or "max" not in dim:
            return None
        return list(range(int(dim["min"]), int(dim["max"]) + 1))

    def label(self, key: str) -> str:
        dim = next((d for d in self.dimensions if d.get("key") == key), None)
        return str(dim.get("label") or key) if dim else key


@dataclass
class StudyData:
    """Everything the tables need, as plain data.

    ``responses`` columns: task, item, rater (ids), field (categorical), value and
    correct (float; correct is 1/0, NaN where nothing is keyed). Raters: kind, name,
    run, group (slug or ""). Items: see ``_items``.
    """

    study: Study
    tasks: dict[int, TaskInfo]
    items: pd.DataFrame
    raters: pd.DataFrame
    responses: pd.DataFrame
    group_slugs: list[str]
    exclusions: list[dict[str, Any]] = field(default_factory=list)


def _tasks(study: Study, only: tuple[str, ...] = ()) -> dict[int, TaskInfo]:
    rows = Task.objects.filter(study=study).order_by("position", "slug")
    if only:
        rows = rows.filter(slug__in=only)
    return {
        t.pk: TaskInfo(t.pk, t.slug, t.title, t.kind, list(t.dimensions or []), dict(t.meta or {}))
        for t in rows
    }


def _choices(kind: str, options: Any, parts: Any) -> dict[str, tuple[str, ...]]:
    """Field -> option texts of an item, as its kind asks them (nothing for scales)."""
    spec = KINDS[kind]
    if spec.scale:
        return {}
    item = Item(options=options or [], parts=parts or [])
    return {
        f.key: tuple(str(o.get("text", "")) for o in f.options)
        for f in spec.field_specs(item, Task(kind=kind))
    }


def _cluster_keys(pk: int, model: str, condition: str, prompt: Any) -> tuple[str, str]:
    """(unit, prompt): the item's clusters for the report's intervals (``cluster``).

    A generation's prompt (``meta.prompt``, an object) is its prompt cluster, shared by
    every model and sample given it; its unit is that prompt for that model and
    condition, so the repeated samples of one prompt are one item cluster, not
    independent items. Other items are their own unit and prompt."""
    if not isinstance(prompt, dict) or not prompt:
        own = f"i:{pk}"
        return own, own
    key = json.dumps(prompt, sort_keys=True, ensure_ascii=False, default=str)
    return f"u:{model}|{condition}|{key}", f"p:{key}"


def _items(study: Study) -> pd.DataFrame:
    """One row per item: its external id, task, number of keyed fields, attention check, the answer key
    (a dict or None), the option texts of each field it asks (``choices``: field ->
    tuple, through the kinds registry; empty for ratings), the poem's raw source
    (``poem_source``) and its provenance (the split keys ``source``, ``condition``,
    ``sample``, ``form``, ``category``: None when unknown; ``source_kind`` and
    ``source_model``), and its clusters (``unit``, ``prompt``: ``_cluster_keys``)."""
    kinds = dict(Task.objects.filter(study=study).values_list("pk", "kind"))
    rows = Item.objects.filter(study=study).values_list(
        "pk",
        "external_id",
        "task_id",
        "options",
        "parts",
        "answer",
        "is_attention_check",
        "poem_form",
        "poem_source",
        "source_kind",
        "source_model",
        "poem_condition",
        "sample",
        "category",
        "meta__prompt",
    )
    records = [
        (
            pk,
            ext,
            task,
            len(answer) if isinstance(answer, dict) else 0,
            answer if isinstance(answer, dict) else None,
            _choices(kinds[task], options, parts),
            check,
            form,
            raw_source,
            kind,
            model,
            source_label(kind, model),
            condition or None,
            sample,
            category or None,
            *_cluster_keys(pk, model, condition, prompt),
        )
        for (
            pk,
            ext,
            task,
            options,
            parts,
            answer,
            check,
            form,
            raw_source,
            kind,
            model,
            condition,
            sample,
            category,
            prompt,
        ) in rows.iterator(chunk_size=CHUNK)
    ]
    columns = [
        "id",
        "external_id",
        "task",
        "n_keyed",
        "answer",
        "choices",
        "attention",
        "form",
        "poem_source",
        "source_kind",
        "source_model",
        "source",
        "condition",
        "sample",
        "category",
        "unit",
        "prompt",
    ]
    frame = pd.DataFrame.from_records(records, columns=columns).set_index("id")
    frame["sample"] = frame["sample"].astype("Int64")
    return frame


def _raters(study: Study) -> pd.DataFrame:
    # A human rater's group is its participant's (a LEFT JOIN: models and rules have none).
    rows = Rater.objects.filter(study=study).values_list(
        "pk", "kind", "name", "run", "participant__group__slug"
    )
    records = [(pk, k, n, r, g or "") for pk, k, n, r, g in rows.iterator(chunk_size=CHUNK)]
    return pd.DataFrame.from_records(
        records, columns=["id", "kind", "name", "run", "group"]
    ).set_index("id")


def float_blocks(query: QuerySet[Any], chunk_size: int = CHUNK) -> Iterator[np.ndarray]:
    """A numeric ``values_list`` query's rows as 2-d float arrays, one per fetched chunk.

    A cursor over the queryset's own SQL: no model instances, no per-row converters
    (None becomes NaN, booleans 1.0/0.0).
    """
    sql, params = query.query.sql_with_params()
    width = len(query.query.values_select) or 1
    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(chunk_size):
            yield np.array(rows, dtype=np.float64).reshape(-1, width)


def _read_responses(study: Study, chunk_size: int, task_ids: list[int]) -> pd.DataFrame:
    """One streamed query per (task, field): numeric columns straight into float arrays.

    The (task, field) pairs come from the ``response_task_field`` index; each pair's
    rows are fetched in chunks with a cursor over the queryset's own SQL, so Django's
    per-row converters (about half the time at a million rows) are skipped and each
    chunk becomes one 2-d float array in C. Fields become categorical codes.
    """
    base = Response.objects.filter(study=study, task_id__in=task_ids).order_by()
    pairs = sorted(set(base.values_list("task_id", "field").distinct()))
    columns: list[np.ndarray] = []
    task_codes: list[np.ndarray] = []
    field_codes: list[np.ndarray] = []
    fields: dict[str, int] = {}
    for task_id, fld in pairs:
        query = base.filter(task_id=task_id, field=fld).values_list(*_NUMERIC)
        code = fields.setdefault(fld, len(fields))
        for block in float_blocks(query, chunk_size):
            columns.append(block)
            task_codes.append(np.full(len(block), task_id, dtype=np.int64))
            field_codes.append(np.full(len(block), code, dtype=np.int32))
    block = np.concatenate(columns) if columns else np.empty((0, len(_NUMERIC)))
    categories = sorted(fields, key=fields.__getitem__)
    codes = np.concatenate(field_codes) if field_codes else np.empty(0, dtype=np.int32)
    return pd.DataFrame(
        {
            "task": np.concatenate(task_codes) if task_codes else np.empty(0, dtype=np.int64),
            "item": block[:, 0].astype(np.int64),
            "rater": block[:, 1].astype(np.int64),
            "field": pd.Categorical.from_codes(codes, categories=categories),
            "value": block[:, 2],
            "correct": block[:, 3],  # 1.0 / 0.0, NaN where nothing is keyed
            "sample": block[:, 4].astype(np.int32),
        }
    )


@dataclass(frozen=True)
class RaterExclusions:
    """The participants the report leaves out whole, each in one place, with why: the
    one rule the report (``study_data``), the long table and the bundle's ``design.json``
    read (a researcher's decision wins over the flag and over the plan's rules)."""

    flagged: list[int]  # flagged and not kept by a researcher
    by_study: list[int]  # ``flagged`` when ``Study.exclude_flagged``, else none
    decided: dict[str, list[int]]  # reason -> excluded by a researcher
    planned: dict[str, list[int]]  # rule -> excluded by the frozen plan (nobody decided)
    kept_against_plan: dict[str, list[int]]  # rule -> kept by a researcher though it names them

    def basis(self) -> dict[int, str]:
        """Rater -> ``flagged``, ``decision`` or ``plan`` (the first that applies)."""
        out: dict[int, str] = dict.fromkeys(self.by_study, "flagged")
        for ids in self.decided.values():
            for r in ids:
                out.setdefault(r, "decision")
        for ids in self.planned.values():
            for r in ids:
                out.setdefault(r, "plan")
        return out


def rater_exclusions(study: Study) -> RaterExclusions:
    kept = set(kept_by_decision(study))
    flagged = [r for r in flagged_rater_ids(study) if r not in kept]
    by_study = flagged if study.exclude_flagged else []
    outcome = by_plan_rules(study, exclusion_rules(study))
    out_already = set(by_study)
    planned = {
        rule: [r for r in ids if r not in out_already] for rule, ids in outcome.excluded.items()
    }
    return RaterExclusions(
        flagged, by_study, dict(sorted(excluded_by_decision(study).items())), planned, outcome.kept
    )


def _plan_exclusions(
    out: RaterExclusions,
    frame: pd.DataFrame,
    drop: np.ndarray,
    exclusions: list[dict[str, Any]],
) -> np.ndarray:
    """The frozen plan's exclusion rules (``prereg.exclusion_rules``): one row per rule
    with the participants it excludes that no earlier row did (a researcher's decision
    wins: those kept are listed in rows of their own). Returns ``drop`` widened."""
    raters = frame["rater"].to_numpy()
    for reason, ids in out.planned.items():
        hit = np.isin(raters, np.asarray(ids, dtype=np.int64)) & ~drop
        exclusions.append(
            {
                "reason": PLAN_REASONS[reason],
                "basis": "plan",
                "n_participants": len(ids),
                "n_responses": int(hit.sum()),
                "applies_to": "every table",
            }
        )
        drop = drop | hit
    for reason, ids in out.kept_against_plan.items():
        exclusions.append(
            {
                "reason": KEPT_REASONS[reason],
                "basis": "decision",
                "n_participants": len(ids),
                "n_responses": 0,
                "applies_to": "every table",
            }
        )
    return drop


def study_data(study: Study, *, chunk_size: int = CHUNK, tasks: tuple[str, ...] = ()) -> StudyData:
    """Read a study for the report (only the ``tasks`` slugs when given), apply the
    exclusions and record what they removed."""
    task_info, items, raters = _tasks(study, tasks), _items(study), _raters(study)
    frame = _read_responses(study, chunk_size, list(task_info))
    exclusions: list[dict[str, Any]] = []
    # Staff's preview (test mode) never counts: its answers leave before anything else.
    tests = np.asarray(test_rater_ids(study), dtype=np.int64)
    if tests.size:
        trial = np.isin(frame["rater"].to_numpy(), tests)
        exclusions.append(
            {
                "reason": gettext_noop("test participants (preview and test mode)"),
                "basis": "study",
                "n_participants": int(tests.size),
                "n_responses": int(trial.sum()),
                "applies_to": "every table",
            }
        )
        frame = frame.loc[~trial].reset_index(drop=True)
    # Practice and qualification (annotation.services.warmup): never stored as responses,
    # so nothing leaves the frame; the rows say how many there were.
    if study.practice_task:
        n_people, n_answers = practice_answers(study)
        exclusions.append(
            {
                "reason": gettext_noop("practice answers (never counted)"),
                "basis": "study",
                "n_participants": n_people,
                "n_responses": n_answers,
                "applies_to": "every table",
            }
        )
    if (study.qualification or {}).get("task"):
        exclusions.append(
            {
                "reason": gettext_noop("failed qualification"),
                "basis": "study",
                "n_participants": failed_qualification(study),
                "n_responses": 0,
                "applies_to": "every table",
            }
        )
    # A researcher's decision on a participant (annotation.quality) wins over the flag.
    out = rater_exclusions(study)
    drop = np.isin(frame["rater"].to_numpy(), np.asarray(out.by_study, dtype=np.int64))
    exclusions.append(
        {
            # English in the report (stable values for scripts); the dashboard translates them.
            "reason": gettext_noop("flagged participants")
            if study.exclude_flagged
            else gettext_noop("flagged participants (kept: study.exclude_flagged is off)"),
            "basis": "study",
            "n_participants": len(out.flagged),
            "n_responses": int(drop.sum()),
            "applies_to": "every table",
        }
    )
    for reason, decided_ids in out.decided.items():
        decided = (
            np.isin(frame["rater"].to_numpy(), np.asarray(decided_ids, dtype=np.int64)) & ~drop
        )
        exclusions.append(
            {
                "reason": EXCLUSION_REASONS.get(reason, f"excluded by a researcher: {reason}"),
                "basis": "decision",
                "n_participants": len(decided_ids),
                "n_responses": int(decided.sum()),
                "applies_to": "every table",
            }
        )
        drop |= decided
    drop = _plan_exclusions(out, frame, drop, exclusions)
    checks = items.index[items["attention"].to_numpy(dtype=bool)].to_numpy()
    attention = np.isin(frame["item"].to_numpy(), checks) & ~drop
    exclusions.append(
        {
            "reason": gettext_noop("attention-check items"),
            "basis": "study",
            "n_participants": 0,
            "n_responses": int(attention.sum()),
            "n_items": int(checks.size),
            "applies_to": "every table",
        }
    )
    samples = (frame["sample"].to_numpy() > 0) & ~drop & ~attention
    exclusions.append(
        {
            "reason": gettext_noop("model samples after the first (sample > 0)"),
            "basis": "study",
            "n_participants": 0,
            "n_responses": int(samples.sum()),
            "applies_to": "every table",
        }
    )
    keep = ~(drop | attention | samples)
    frame = frame.loc[keep].drop(columns="sample").reset_index(drop=True)
    frame["field"] = frame["field"].cat.remove_unused_categories()
    groups = list(study.groups.order_by("position", "slug").values_list("slug", flat=True))
    return StudyData(study, task_info, items, raters, frame, groups, exclusions)


def aggregate_rows(study: Study) -> list[dict[str, Any]]:
    """Published results (``AggregateResult``): listed beside, never mixed in."""
    rows = AggregateResult.objects.filter(study=study).order_by("task", "model", "metric", "run")
    return [
        {
            "model": a.model,
            "task": a.task,
            "metric": a.metric,
            "value": a.value,
            "n": a.n,
            "run": a.run,
            "source": a.source,
        }
        for a in rows
    ]
