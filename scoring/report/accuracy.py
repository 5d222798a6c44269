"""The ``accuracy`` table and an LLM's accuracy beside each human group (with percentile).

accuracy(task, field, rater set) = (number of keyed responses that are correct) /
(number of keyed responses) over the set's raters, attention checks and exclusions
removed; CI = Wilson score interval (``scoring.agreement.wilson_interval``). For
``multi`` and ``best_worst`` tasks the field ``*`` counts one response per
(rater, item): right when every keyed part of the item was answered and right.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement import percentile_rank, wilson_interval
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet, groups_of, single_models
from studies.kinds import ALL_PARTS


def field_order(fields: list[str]) -> list[str]:
    first = [f for f in ("answer", "best", "worst") if f in fields]
    rest = sorted(f for f in fields if f not in first and f != ALL_PARTS)
    return first + rest + ([ALL_PARTS] if ALL_PARTS in fields else [])


def per_rater(data: StudyData) -> pd.DataFrame:
    """Successes and keyed responses per (task, field, rater), including field ``*``."""
    frame = data.responses
    keyed = frame.loc[frame["correct"].notna(), ["task", "item", "rater", "field", "correct"]]
    grouped = keyed.groupby(["task", "field", "rater"], observed=True)["correct"]
    parts = grouped.agg(successes="sum", n="count").reset_index()
    parts["field"] = parts["field"].astype(str)
    multi = [t.id for t in data.tasks.values() if t.has_all_parts]
    sub = keyed.loc[keyed["task"].isin(multi)]
    if not sub.empty:
        per_item = sub.groupby(["task", "rater", "item"], observed=True)["correct"].sum()
        per_item = per_item.reset_index()
        needed = data.items["n_keyed"].reindex(per_item["item"]).to_numpy()
        per_item["right"] = (per_item["correct"].to_numpy() == needed).astype(np.float64)
        whole = per_item.groupby(["task", "rater"])["right"].agg(successes="sum", n="count")
        whole = whole.reset_index()
        whole["field"] = ALL_PARTS
        parts = pd.concat([parts, whole[["task", "field", "rater", "successes", "n"]]])
    return parts.reset_index(drop=True)


def _set_totals(rates: pd.DataFrame, rater_set: RaterSet) -> pd.DataFrame:
    rows = rates.loc[rates["rater"].isin(rater_set.raters)]
    return rows.groupby(["task", "field"]).agg(
        successes=("successes", "sum"), n=("n", "sum"), n_raters=("rater", "nunique")
    )


def accuracy_rows(
    data: StudyData, sets: list[RaterSet], rates: pd.DataFrame, *, confidence: float = 0.95
) -> list[dict[str, Any]]:
    totals = {s.name: _set_totals(rates, s) for s in sets}
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        fields = field_order(sorted(set(rates.loc[rates["task"] == task.id, "field"])))
        for fld in fields:
            for s in sets:
                t = totals[s.name]
                if (task.id, fld) not in t.index:
                    continue
                successes, n, n_raters = (int(x) for x in t.loc[(task.id, fld)])
                ci = wilson_interval(successes, n, confidence=confidence)
                rows.append(
                    {
                        "task": task.slug,
                        "field": fld,
                        "rater_set": s.name,
                        "n_raters": n_raters,
                        "n_responses": n,
                        "value": successes / n,
                        "ci_low": ci.ci_low,
                        "ci_high": ci.ci_high,
                        "successes": successes,
                    }
                )
    return rows


def model_vs_groups(
    data: StudyData, sets: list[RaterSet], rates: pd.DataFrame
) -> list[dict[str, Any]]:
    """Each model's accuracy beside each group's, and its percentile among the members.

    The percentile is the mid-rank percentile rank (docs/statistics.md §9) of the
    model's accuracy among the group members' own accuracies on the same task and field.
    """
    rates = rates.assign(value=rates["successes"] / rates["n"])
    human_sets = [s for s in sets if s.name == "humans"] + groups_of(sets)
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        here = rates.loc[rates["task"] == task.id]
        for fld in field_order(sorted(set(here["field"]))):
            cell = here.loc[here["field"] == fld]
            for model in single_models(sets):
                m = cell.loc[cell["rater"].isin(model.raters)]
                if m.empty:
                    continue
                m_value = float(m["successes"].sum() / m["n"].sum())
                for group in human_sets:
                    members = cell.loc[cell["rater"].isin(group.raters)]
                    if members.empty:
                        continue
                    rows.append(
                        {
                            "task": task.slug,
                            "field": fld,
                            "model": model.name,
                            "model_value": m_value,
                            "group": group.name,
                            "group_value": float(members["successes"].sum() / members["n"].sum()),
                            "n_members": int(members["rater"].nunique()),
                            "percentile": percentile_rank(m_value, members["value"].tolist()),
                        }
                    )
    return rows
