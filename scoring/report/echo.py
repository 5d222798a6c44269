"""The ``echo_chamber`` and ``self_preference`` tables (domain.md §1.2).

echo_chamber: for each rating task × dimension × rule metric (``rule:<name>/<metric>``,
pass as in ``rule_vs_rating``: ≥ 1 for a 0/1 metric, ≥ ``pass_threshold`` for a graded
one) × judge set (``models``, each model) × people set (``humans``, each group), on the
machine-written poems (``poems = machine``: source kind ``model``), on the people's
(``poems = human``) and on all poems (``poems = all``): the judges' gap (mean rating of passing minus failing poems), the
people's gap and their difference, on the poems both sides rated, with Welch's t
intervals over poems corrected for skewness (``scoring.agreement.gaps``,
``WELCH_HALL``: the stratified bootstrap covered a true zero 86 % of the time at 5 poems
a side, Welch's t 96 %, but only 89 % at 3 against 20 skewed poems, where the correction
covers 94–95 %). A side with fewer than ``min_side`` poems (4: the smallest side at
which the corrected interval covers 93–97 % in every simulated shape, docs/statistics.md
§24.2), or no variation on either side: no interval,
``reason`` says why ("not estimable").

self_preference: for each rating task × dimension × model judge whose model also wrote
poems of the study: its mean rating of its own model's poems against other models'
poems, the difference (own − others) with the skewness-corrected Welch interval, not
estimable below ``min_side`` poems on a side; and the difference **controlled for
quality**: the same difference minus the other model judges' difference on the same poems
(``controlled_diff``, its interval and reason).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.gaps import (
    WELCH_HALL,
    GapDifference,
    corrected_difference,
    gap_differences,
)
from scoring.report.correlation import rule_means
from scoring.report.data import StudyData
from scoring.report.ratings import rating_cells
from scoring.report.rule_tables import pass_threshold
from scoring.report.sets import HUMANS, MODELS, RaterSet, groups_of, single_models
from scoring.report.settings import ReportSettings

#: The poems of an ``echo_chamber`` row: machine-written, people's, all of them (so a
#: split by source, which would separate them, adds nothing: the table accepts none).
POEMS = ("machine", "human", "all")


def _means(cell: pd.DataFrame, s: RaterSet) -> pd.Series:
    return cell.loc[np.isin(cell["rater"].to_numpy(), s.raters)].groupby("item")["value"].mean()


def echo_chamber_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    judges = [s for s in sets if s.name == MODELS] + single_models(sets)
    people = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    kinds = data.items["source_kind"].to_numpy()
    machine = data.items.index[kinds == "model"]
    human = data.items.index[kinds == "human"]
    rows: list[dict[str, Any]] = []
    task_ids = {t.slug: t.id for t in data.tasks.values()}
    for task, dim, cell in rating_cells(data):
        rules = rule_means(data, sets, task_ids[task])
        judge_means = {j.name: _means(cell, j) for j in judges}
        people_means = {p.name: _means(cell, p) for p in people}
        # Every set's item means on one sorted item axis (the order an inner join of
        # the per-set means gives), so each pair's poems are a mask, not a join.
        index = pd.Index(np.unique(cell["item"].to_numpy()))
        jv = {k: v.reindex(index).to_numpy(dtype=np.float64) for k, v in judge_means.items()}
        pv = {k: v.reindex(index).to_numpy(dtype=np.float64) for k, v in people_means.items()}
        subsets = {"machine": index.isin(machine), "human": index.isin(human)}
        for rule, scores in sorted(rules.items()):
            cut = pass_threshold(scores, opts.pass_threshold)
            sv = scores.reindex(index).to_numpy(dtype=np.float64)
            rated = np.isfinite(sv)
            jobs: list[tuple[str, str, str, np.ndarray]] = []
            for judge, jm in jv.items():
                by_judge = rated & np.isfinite(jm)
                for person, pm in pv.items():
                    both = by_judge & np.isfinite(pm)
                    if not both.any():
                        continue
                    for poems in POEMS:
                        mask = both & subsets[poems] if poems in subsets else both
                        if mask.any():
                            jobs.append((judge, person, poems, mask))
            found = _gaps(jobs, jv, pv, sv >= cut, opts)
            for (judge, person, poems, _mask), g in zip(jobs, found, strict=True):
                rows.append(_echo_row(task, dim, rule, cut, poems, judge, person, g, opts))
    return rows


def _gaps(
    jobs: list[tuple[str, str, str, np.ndarray]],
    judges: dict[str, np.ndarray],
    people: dict[str, np.ndarray],
    passed: np.ndarray,
    opts: ReportSettings,
) -> list[GapDifference]:
    """Each job's gap difference; jobs on the same poems share one set of bootstrap draws
    (``gap_differences``: the same figures as one call each, a fraction of the time)."""
    by_poems: dict[bytes, list[int]] = {}
    for k, (_j, _p, _poems, mask) in enumerate(jobs):
        by_poems.setdefault(mask.tobytes(), []).append(k)
    out: list[GapDifference | None] = [None] * len(jobs)
    for members in by_poems.values():
        mask = jobs[members[0]][3]
        cols = np.column_stack(
            [col[mask] for k in members for col in (judges[jobs[k][0]], people[jobs[k][1]])]
        )
        up = passed[mask]
        found = gap_differences(
            cols[up],
            cols[~up],
            min_side=opts.min_side,
            n_boot=opts.n_boot,
            confidence=opts.confidence,
            seed=opts.seed,
            method="welch_hall",
        )
        for k, g in zip(members, found, strict=True):
            out[k] = g
    return [g for g in out if g is not None]


def _echo_row(
    task: str,
    dim: str,
    rule: str,
    cut: float,
    poems: str,
    judge: str,
    person: str,
    g: GapDifference,
    opts: ReportSettings,
) -> dict[str, Any]:
    return {
        "task": task,
        "field": dim,
        "rule": rule,
        "threshold": cut,
        "poems": poems,
        "judges": judge,
        "people": person,
        "n_pass": g.n_pass,
        "n_fail": g.n_fail,
        "judges_pass": g.judge_pass,
        "judges_fail": g.judge_fail,
        "judges_gap": g.judge_gap,
        "judges_ci_low": g.judge_ci[0],
        "judges_ci_high": g.judge_ci[1],
        "people_pass": g.people_pass,
        "people_fail": g.people_fail,
        "people_gap": g.people_gap,
        "people_ci_low": g.people_ci[0],
        "people_ci_high": g.people_ci[1],
        "difference": g.difference,
        "ci_low": g.difference_ci[0],
        "ci_high": g.difference_ci[1],
        "ci_method": WELCH_HALL if g.estimable else "",
        "estimable": g.estimable,
        "reason": g.reason,
    }


def _own_name(reason: str | None) -> str | None:
    return reason.replace("n_pass", "n_own").replace("n_fail", "n_other") if reason else None


def self_preference_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    """Each judge's own-minus-others difference, raw and controlled for quality.

    Raw: the judge's mean rating of its own model's poems minus of other models' poems
    (skewness-corrected Welch interval over poems). Controlled: the same difference of the judge's
    rating *minus the other model judges' mean rating of the same poem* — the other
    judges' own-minus-others difference on those poems is subtracted, so poems that are
    simply better or worse do not count as bias (the same interval over the per-poem
    differences, on the poems at least one other judge rated)."""
    items = data.items
    is_model = items["source_kind"].to_numpy() == "model"
    authors = pd.Series(items["source_model"].to_numpy()[is_model], index=items.index[is_model])
    writers = set(authors.tolist())
    judges = single_models(sets)
    rows: list[dict[str, Any]] = []
    for task, dim, cell in rating_cells(data):
        for judge in judges:
            name = str(data.raters.loc[judge.raters[0], "name"])
            if name not in writers:
                continue
            means = _means(cell, judge)
            wrote = authors.reindex(means.index)
            own_mask = (wrote == name).to_numpy()
            other_mask = (wrote.notna() & (wrote != name)).to_numpy()
            own, other = means.loc[own_mask], means.loc[other_mask]
            if own.empty and other.empty:
                continue
            d = corrected_difference(
                own.to_numpy(), other.to_numpy(), confidence=opts.confidence,
                min_side=opts.min_side,
            )  # fmt: skip
            rest = [j for j in judges if j.name != judge.name]
            controls = (
                pd.concat([_means(cell, j) for j in rest], axis=1).mean(axis=1)
                if rest
                else pd.Series(dtype=np.float64)
            )
            gap = means - controls.reindex(means.index)
            c = corrected_difference(
                gap.loc[own_mask].to_numpy(), gap.loc[other_mask].to_numpy(),
                confidence=opts.confidence, min_side=opts.min_side,
            )  # fmt: skip
            ctrl = controls.reindex(means.index)
            c_reason = _own_name(c.reason) if rest else "no other model judge rated these poems"
            rows.append(
                {
                    "task": task,
                    "field": dim,
                    "judge": judge.name,
                    "model": name,
                    "n_own": d.n_a,
                    "n_other": d.n_b,
                    "mean_own": d.mean_a,
                    "mean_other": d.mean_b,
                    "diff": d.diff,
                    "ci_low": d.ci_low,
                    "ci_high": d.ci_high,
                    "ci_method": WELCH_HALL if d.reason is None else "",
                    "reason": _own_name(d.reason),
                    "others_diff": float(ctrl.loc[own_mask].mean() - ctrl.loc[other_mask].mean()),
                    "controlled_diff": c.diff,
                    "controlled_ci_low": c.ci_low,
                    "controlled_ci_high": c.ci_high,
                    "n_controlled": c.n_a + c.n_b,
                    "controlled_reason": c_reason,
                }
            )
    return rows
