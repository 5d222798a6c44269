"""The ``correlation`` table: rater sets compared on item-level mean ratings.

For each rating task × dimension, each set's mean rating of every item is computed
(mean over the set's raters who rated it); two sets are paired on the items both rated
and compared with Pearson's r, Spearman's rho, Kendall's tau-b and
mean_diff = mean(a − b), the leniency of a relative to b
(``scoring.agreement.correlations``). Pairs: each model set (and ``models``) against
``humans`` and each group; each later group against each earlier one (``group:C`` vs
``group:A``); each rule metric against ``humans`` and each group, where a is named
``rule:<name>/<metric>`` (its 0–1 scale differs from the ratings: read mean_diff there
only as a difference of scales); each model judge against each earlier one (judge vs
judge) and each rule metric against each model judge (rule vs judge).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement import correlations
from scoring.report.data import StudyData
from scoring.report.sets import HUMANS, MODELS, RaterSet, by_kind, groups_of, single_models

Means = dict[str, pd.Series]


def item_means(cell: pd.DataFrame, rater_set: RaterSet) -> pd.Series:
    rows = cell.loc[cell["rater"].isin(rater_set.raters) & cell["value"].notna()]
    return rows.groupby("item")["value"].mean()


def rule_means(data: StudyData, sets: list[RaterSet], task_id: int) -> Means:
    """Mean rule score per item for every ``rule:<name>/<metric>`` on one task's items."""
    frame = data.responses
    here = frame.loc[(frame["task"] == task_id) & frame["value"].notna()]
    out: Means = {}
    for rule in by_kind(sets, "rule"):
        rows = here.loc[here["rater"].isin(rule.raters)]
        for metric, part in rows.groupby("field", observed=True):
            out[f"{rule.name}/{metric}"] = part.groupby("item")["value"].mean()
    return out


def pairs(sets: list[RaterSet], rules: list[str]) -> list[tuple[str, str]]:
    refs = [s.name for s in sets if s.name == HUMANS] + [g.name for g in groups_of(sets)]
    judges = [s.name for s in sets if s.name == MODELS] + [m.name for m in single_models(sets)]
    groups = [g.name for g in groups_of(sets)]
    models = [m.name for m in single_models(sets)]
    out = [(j, r) for j in judges for r in refs]
    out += [(groups[j], groups[i]) for i in range(len(groups)) for j in range(i + 1, len(groups))]
    out += [(rule, r) for rule in rules for r in refs]
    # judge vs judge, and rule vs judge (Tang's step 1 against step 2)
    out += [(models[j], models[i]) for i in range(len(models)) for j in range(i + 1, len(models))]
    out += [(rule, m) for rule in rules for m in models]
    return out


def correlation_row(
    task: str, fld: str, a: str, b: str, xa: np.ndarray, xb: np.ndarray
) -> dict[str, Any]:
    """One pair's row from the two sets' item means on one item axis (NaN: not rated)."""
    both = np.isfinite(xa) & np.isfinite(xb)
    c = correlations(xa[both], xb[both])
    return {
        "task": task,
        "field": fld,
        "a": a,
        "b": b,
        "pearson": c.pearson,
        "spearman": c.spearman,
        "kendall": c.kendall,
        "mean_diff": c.mean_diff,
        "n": c.n,
        "pearson_p": c.pearson_p,
    }


def correlation_rows(data: StudyData, sets: list[RaterSet]) -> list[dict[str, Any]]:
    frame = data.responses
    rated = [s for s in sets if s.kind != "rule"]
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        if not task.is_rating:
            continue
        here = frame.loc[frame["task"] == task.id]
        rules = rule_means(data, sets, task.id)
        dims = [d["key"] for d in task.dimensions]
        for fld in dims:
            cell = here.loc[here["field"] == fld]
            if cell.empty:
                continue
            means: Means = {s.name: item_means(cell, s) for s in rated}
            means = {k: v for k, v in means.items() if not v.empty}
            means.update(rules)
            if not means:
                continue
            # every set's means on one sorted item axis: a pair is a mask, not a join
            axis = pd.Index(np.unique(np.concatenate([m.index.to_numpy() for m in means.values()])))
            aligned = {k: v.reindex(axis).to_numpy(dtype=np.float64) for k, v in means.items()}
            for a, b in pairs([s for s in sets if s.name in means], sorted(rules)):
                if a in means and b in means:
                    rows.append(correlation_row(task.slug, fld, a, b, aligned[a], aligned[b]))
    return rows
