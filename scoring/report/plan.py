"""Planning a study from its data so far: how many more volunteers each goal needs.

Read by ``manage.py plan``, the researcher API and the dashboard's planning panel. Three
kinds of row (``target``), each with the goal, where the study stands (``now``) and
``status`` (``met`` or ``short``); the methods are in ``scoring.agreement.plan``
(simulation from a logistic model with crossed person and item intercepts fitted to the
data so far; docs/statistics.md, planning):

* ``accuracy``: per keyed task (its headline field: ``*`` for all-parts tasks) × human
  set: ``now`` is the half-width of the report's people × items clustered interval;
  ``n_needed`` the volunteers per group whose simulated studies' mean half-width meets
  the goal, with ``coverage`` (of the model's share) and ``assurance`` (studies meeting
  the goal) there; ``sim_now``: the simulated mean half-width at the current number;
* ``two_groups``: per pair of human groups and keyed task: ``now`` the simulated power
  of the people × items clustered t test of their difference at the current numbers,
  ``p_now`` that test on the data, ``n_needed`` volunteers per group for the goal power;
* ``alpha_width``: per task field × human set, Krippendorff's alpha (nominal for
  choices, ordinal for ratings): ``now`` the width of its bootstrap interval on the data,
  ``n_needed`` the items for ``ASSURANCE`` of simulated studies to reach the goal width
  (``n_needed_mean``: for the mean width), ``assurance`` there.

``status`` is ``met`` exactly when the data's own interval (or, for two groups, the
simulated power at the current numbers) meets the goal; then ``n_more`` is 0. A short
row's ``n_needed`` is above the current number (or None with the reason).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.alpha import alpha_plan
from scoring.agreement.compare import cohens_h
from scoring.agreement.crossed import ClusteredCI, clustered_difference
from scoring.agreement.plan import (
    PEOPLE_GRID,
    Components,
    Design,
    alpha_assurance,
    logistic_components,
    plan_half_width,
    plan_power,
)
from scoring.report import clusters
from scoring.report.accuracy import keyed_answers
from scoring.report.agreement import cell_table
from scoring.report.data import StudyData, study_data
from scoring.report.sets import HUMANS, RaterSet, groups_of, rater_sets
from scoring.report.settings import SEED
from studies.kinds import KINDS
from studies.models import Study

PLAN_CLUSTER = "person+item"  # the report's default clustering, which the plan sizes for
ASSURANCE = 0.8  # alpha: the share of simulated studies that must reach the width


@dataclass(frozen=True)
class Goals:
    half_width: float = 0.05  # accuracy: half-width of the people × items interval
    power: float = 0.8  # two groups: power
    alpha: float = 0.05  # two groups: significance level
    alpha_width: float = 0.2  # agreement: width of alpha's interval
    confidence: float = 0.95
    n_sims: int = (
        200  # simulated studies per size (alpha: half as many, each with half as many resamples)
    )
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


def _design(part: pd.DataFrame, pool: int) -> Design:
    per_person = round(float(part.groupby("rater").size().median()))
    return Design(max(per_person, 1), max(pool, 1))


def _labels(data: StudyData, raters: np.ndarray, items: np.ndarray) -> dict[str, np.ndarray]:
    """The clusters of ``clusters.labels`` as integer codes (the intervals depend only on
    which answers share a cluster; integer codes are sorted many times faster than the
    items' text labels)."""
    groups = clusters.labels(data, PLAN_CLUSTER, raters, items)
    return {dim: pd.factorize(labels, use_na_sentinel=False)[0] for dim, labels in groups.items()}


def _crossed(data: StudyData, part: pd.DataFrame, confidence: float) -> ClusteredCI:
    groups = _labels(data, part["rater"].to_numpy(), part["item"].to_numpy())
    return clusters.interval(
        part["right"].to_numpy(), groups, confidence=confidence, proportion=True
    )


def _components(ci: ClusteredCI) -> Components:
    return logistic_components(
        ci.value, ci.icc.get("person", math.nan), ci.icc.get("item", math.nan)
    )


def _more(needed: int | None, now: int, met: bool) -> tuple[int | None, int | None]:
    if met:
        return now, 0
    return needed, (needed - now if needed is not None else None)


def _accuracy(data: StudyData, sets: list[RaterSet], goals: Goals) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    humans = _human_sets(sets)
    answers = keyed_answers(data)
    for task in data.tasks.values():
        headline = KINDS[task.kind].headline
        if headline is None or task.is_rating:
            continue
        cell = answers.loc[(answers["task"] == task.id) & (answers["field"] == headline)]
        pool = int(cell["item"].nunique())
        fitted: dict[str, tuple[pd.DataFrame, ClusteredCI, Components]] = {}
        for s in humans:
            part = cell.loc[np.isin(cell["rater"].to_numpy(), s.raters)]
            if part.empty:
                continue
            ci = _crossed(data, part, goals.confidence)
            comp = _components(ci)
            fitted[s.name] = (part, ci, comp)
            people = int(part["rater"].nunique())
            half_now = (ci.ci_high - ci.ci_low) / 2
            met = math.isfinite(half_now) and half_now <= goals.half_width
            plan = plan_half_width(
                comp,
                _design(part, pool),
                goals.half_width,
                people,
                confidence=goals.confidence,
                reps=goals.n_sims,
                seed=goals.seed,
            )
            needed, more = _more(plan.n_needed, people, met)
            at = plan.at_now if met else plan.at_needed
            rows.append(
                {
                    "target": "accuracy",
                    "task": task.slug,
                    "field": headline,
                    "rater_set": s.name,
                    "value": ci.value,
                    "n_now": people,
                    "answers_now": len(part),
                    "now": half_now,
                    "sim_now": plan.at_now.mean,
                    "goal": goals.half_width,
                    "n_needed": needed,
                    "n_more": more,
                    "coverage": at.coverage if at else None,
                    "assurance": at.assurance if at else None,
                    "icc_person": ci.icc.get("person", math.nan),
                    "icc_item": ci.icc.get("item", math.nan),
                    "method": f"{ci.method}; simulated from a crossed logistic model",
                    "status": _status(met),
                    "reason": None
                    if met or needed is not None
                    else (
                        f"not met with up to {PEOPLE_GRID[-1]} volunteers on this task's "
                        f"{pool} items: the items' own variation bounds the interval "
                        "(more items are needed)"
                    ),
                }
            )
        for a, b in combinations(list(fitted), 2):
            rows.append(
                _two_groups(data, task.slug, headline, pool, fitted[a], fitted[b], a, b, goals)
            )
    return rows


def _two_groups(
    data: StudyData,
    slug: str,
    headline: str,
    pool: int,
    side_a: tuple[pd.DataFrame, ClusteredCI, Components],
    side_b: tuple[pd.DataFrame, ClusteredCI, Components],
    name_a: str,
    name_b: str,
    goals: Goals,
) -> dict[str, Any]:
    (part_a, ci_a, comp_a), (part_b, ci_b, comp_b) = side_a, side_b
    both = pd.concat([part_a, part_b], ignore_index=True)
    side = np.arange(len(both)) < len(part_a)
    groups = _labels(data, both["rater"].to_numpy(), both["item"].to_numpy())
    test = clustered_difference(both["right"].to_numpy(), side, groups, confidence=goals.confidence)
    people = min(int(part_a["rater"].nunique()), int(part_b["rater"].nunique()))
    row: dict[str, Any] = {
        "target": "two_groups",
        "task": slug,
        "field": headline,
        "rater_set": name_a,
        "set_b": name_b,
        "value": ci_a.value - ci_b.value,
        "effect_h": cohens_h(ci_a.value, ci_b.value),
        "n_now": people,
        "p_now": test.p_value,
        "goal": goals.power,
        "method": f"{test.method} of the difference; simulated from a crossed logistic model",
    }
    if ci_a.value == ci_b.value:
        reason = "the two shares are equal so far: no sample size tells them apart"
        return {**row, "status": "short", "reason": reason}
    plan = plan_power(
        comp_a,
        comp_b,
        _design(both, pool),
        goals.power,
        people,
        alpha=goals.alpha,
        reps=goals.n_sims,
        seed=goals.seed,
    )
    met = plan.at_now.mean >= goals.power
    needed, more = _more(plan.n_needed, people, met)
    return {
        **row,
        "now": plan.at_now.mean,
        "n_needed": needed,
        "n_more": more,
        "status": _status(met),
        "reason": None
        if met or needed is not None
        else f"power {goals.power:.0%} not reached with up to {PEOPLE_GRID[-1]} per group",
    }


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
                sim = alpha_assurance(
                    plan.replicate,
                    units,
                    goals.alpha_width,
                    confidence=goals.confidence,
                    assurance=ASSURANCE,
                    n_sims=max(10, goals.n_sims // 2),
                    n_inner=max(10, goals.n_sims // 2),
                    seed=goals.seed,
                    search_if_met=False,
                )
                met = math.isfinite(sim.width_now) and sim.width_now <= goals.alpha_width
                needed, more = _more(sim.n_needed, units, met)
                at = units if met else sim.n_needed
                rows.append(
                    {
                        **where,
                        "value": plan.result.value,
                        "n_now": units,
                        "now": sim.width_now,
                        "sim_now": sim.mean_width.get(units),
                        "n_needed": needed,
                        "n_more": more,
                        "n_needed_mean": units if met else sim.n_needed_mean,
                        "assurance": sim.assurance.get(at) if at is not None else None,
                        "method": "bootstrap over items; studies simulated from the observed items",
                        "status": _status(met),
                        "reason": None
                        if met or needed is not None
                        else f"not met in {ASSURANCE:.0%} of studies within 10,000 items",
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
    "answers_now",
    "now",
    "p_now",
    "sim_now",
    "goal",
    "n_needed",
    "n_more",
    "n_needed_mean",
    "coverage",
    "assurance",
    "icc_person",
    "icc_item",
    "status",
    "method",
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
    return _accuracy(data, sets, goals) + _alpha(data, sets, goals)
