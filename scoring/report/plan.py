"""Planning a study from its data so far: how many more volunteers each goal needs.

Read by ``manage.py plan`` and the dashboard's planning panel. Three kinds of row
(``target``), each with the goal, where the study stands and ``status`` (``met`` or
``short``); the methods are in ``scoring.agreement.plan``:

* ``accuracy``: per keyed task (its headline field: ``*`` for all-parts tasks) × group,
  the Wilson half-width now and the answers (and volunteers, at the task's items per
  participant) needed for the goal half-width at the share observed so far;
* ``two_groups``: per pair of groups and keyed task, the answers per group for the
  goal power to tell their shares apart at ``alpha`` (and the power now);
* ``alpha_width``: per task field × human set, Krippendorff's alpha (nominal for
  choices, ordinal for ratings) now, its simulated interval width at the items rated
  so far and the number of items for the goal width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from scoring.agreement.alpha import alpha_plan
from scoring.agreement.plan import (
    alpha_units_for_width,
    two_group_n,
    wilson_half_width,
    wilson_n,
)
from scoring.report.accuracy import accuracy_rows, per_rater
from scoring.report.agreement import cell_table
from scoring.report.data import StudyData, study_data
from scoring.report.sets import HUMANS, RaterSet, groups_of, rater_sets
from scoring.report.settings import SEED
from studies.kinds import KINDS
from studies.models import Study, Task


@dataclass(frozen=True)
class Goals:
    half_width: float = 0.05  # accuracy: Wilson half-width
    power: float = 0.8  # two groups: power
    alpha: float = 0.05  # two groups: significance level
    alpha_width: float = 0.2  # agreement: width of alpha's interval
    confidence: float = 0.95
    n_sims: int = 200
    seed: int = SEED

    def __post_init__(self) -> None:
        checks = (
            ("half_width", 0 < self.half_width < 0.5, "a number between 0 and 0.5"),
            ("power", 0 < self.power < 1, "a number between 0 and 1"),
            ("alpha", 0 < self.alpha < 1, "a number between 0 and 1"),
            ("alpha_width", 0 < self.alpha_width < 2, "a number between 0 and 2"),
            ("confidence", 0 < self.confidence < 1, "a number between 0 and 1"),
            ("n_sims", 10 <= self.n_sims <= 10_000, "a whole number from 10 to 10000"),
        )
        for name, ok, what in checks:
            if not ok:
                raise ValueError(f"{name}: {what}")


def _status(ok: bool) -> str:
    return "met" if ok else "short"


def _human_sets(sets: list[RaterSet]) -> list[RaterSet]:
    groups = groups_of(sets)
    return groups or [s for s in sets if s.name == HUMANS]


def _accuracy(
    data: StudyData, sets: list[RaterSet], goals: Goals, per: dict[str, int]
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    humans = {s.name for s in _human_sets(sets)}
    acc = accuracy_rows(data, sets, per_rater(data), confidence=goals.confidence)
    for task in data.tasks.values():
        headline = KINDS[task.kind].headline
        if headline is None or task.is_rating:
            continue
        mine = [r for r in acc if r["task"] == task.slug and r["field"] == headline]
        mine = [r for r in mine if r["rater_set"] in humans]
        for r in mine:
            n, p = int(r["n_responses"]), float(r["value"])
            needed = wilson_n(p, goals.half_width, confidence=goals.confidence)
            more = max(0, needed - n)
            rows.append(
                {
                    "target": "accuracy",
                    "task": task.slug,
                    "field": headline,
                    "rater_set": r["rater_set"],
                    "value": p,
                    "n_now": n,
                    "volunteers_now": int(r["n_raters"]),
                    "now": wilson_half_width(p, n, confidence=goals.confidence),
                    "goal": goals.half_width,
                    "n_needed": needed,
                    "n_more": more,
                    "volunteers_more": math.ceil(more / per.get(task.slug, 1)),
                    "status": _status(more == 0),
                }
            )
        for a, b in combinations(mine, 2):
            pair = two_group_n(
                float(a["value"]),
                float(b["value"]),
                power=goals.power,
                alpha=goals.alpha,
                n1_now=int(a["n_responses"]),
                n2_now=int(b["n_responses"]),
            )
            n_needed = math.ceil(pair.n_per_group) if math.isfinite(pair.n_per_group) else None
            pair_more: int | None = (
                max(0, n_needed - min(int(a["n_responses"]), int(b["n_responses"])))
                if n_needed is not None
                else None
            )
            rows.append(
                {
                    "target": "two_groups",
                    "task": task.slug,
                    "field": headline,
                    "rater_set": a["rater_set"],
                    "set_b": b["rater_set"],
                    "value": float(a["value"]) - float(b["value"]),
                    "effect_h": pair.effect_h,
                    "n_now": min(int(a["n_responses"]), int(b["n_responses"])),
                    "now": pair.power_now,
                    "goal": goals.power,
                    "n_needed": n_needed,
                    "n_more": pair_more,
                    "volunteers_more": (
                        math.ceil(pair_more / per.get(task.slug, 1))
                        if pair_more is not None
                        else None
                    ),
                    "status": _status(pair_more == 0),
                    "reason": (
                        "the two shares are equal so far: no sample size tells them apart"
                        if n_needed is None
                        else None
                    ),
                }
            )
    return rows


def _alpha(data: StudyData, sets: list[RaterSet], goals: Goals) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    frame = data.responses
    frame = frame.loc[frame["value"].notna() & (frame["field"] != "*")]
    cells = frame.groupby(["task", "field"], observed=True).indices
    chosen = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    for task in data.tasks.values():
        for fld in sorted(str(f) for t, f in cells if t == task.id):
            part = frame.iloc[cells[(task.id, fld)]]
            level = "ordinal" if task.is_rating else "nominal"
            scale = task.scale(fld) if task.is_rating else None
            for s in chosen:
                mine = part.loc[np.isin(part["rater"].to_numpy(), s.raters)]
                if mine.empty:
                    continue
                table = cell_table(
                    mine["item"].to_numpy(),
                    mine["rater"].to_numpy(),
                    mine["value"].to_numpy(),
                    level,
                    scale,
                )
                plan = alpha_plan(table)
                where = {
                    "target": "alpha_width",
                    "task": task.slug,
                    "field": fld,
                    "rater_set": s.name,
                    "level": level,
                    "goal": goals.alpha_width,
                }
                units = 0 if plan.units is None else int(plan.units.size)
                if plan.replicate is None or units < 2:
                    why = plan.result.reason or "fewer than 2 items rated by two or more"
                    rows.append({**where, "n_now": units, "status": "short", "reason": why})
                    continue
                sim = alpha_units_for_width(
                    plan.replicate,
                    units,
                    goals.alpha_width,
                    confidence=goals.confidence,
                    n_sims=goals.n_sims,
                    seed=goals.seed,
                )
                needed = sim.n_units_needed
                rows.append(
                    {
                        **where,
                        "value": plan.result.value,
                        "n_now": units,
                        "now": sim.width_now,
                        "n_needed": needed,
                        "n_more": max(0, needed - units) if needed is not None else None,
                        "status": _status(needed is not None and needed <= units),
                        "reason": None if needed is not None else "not met within 10,000 items",
                    }
                )
    return rows


COLUMNS = (
    "target",
    "task",
    "field",
    "rater_set",
    "set_b",
    "level",
    "value",
    "effect_h",
    "n_now",
    "volunteers_now",
    "now",
    "goal",
    "n_needed",
    "n_more",
    "volunteers_more",
    "status",
    "reason",
)


def plan_rows(
    study: Study, goals: Goals | None = None, data: StudyData | None = None
) -> list[dict[str, Any]]:
    """Every planning row of ``study`` (module doc), from the data collected so far;
    ``data``: the study already read with every task (``study_data(study)``)."""
    goals = goals or Goals()
    data = study_data(study) if data is None else data
    sets = rater_sets(data.raters, data.group_slugs)
    per = dict(Task.objects.filter(study=study).values_list("slug", "per_participant"))
    return _accuracy(data, sets, goals, per) + _alpha(data, sets, goals)
