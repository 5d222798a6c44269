"""The ``accuracy`` table and an LLM's accuracy beside each human group (with percentile).

accuracy(task, field, rater set) = (number of keyed responses that are correct) /
(number of keyed responses) over the set's raters, attention checks and exclusions
removed; CI clustered in people and items as the ``cluster`` setting says
(``scoring.agreement.crossed``; ``none``: the Wilson score interval). For
``multi`` and ``best_worst`` tasks the field ``*`` counts one response per
(rater, item): right when every keyed part of the item was answered and right.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement import percentile_rank
from scoring.agreement.crossed import ClusteredCI
from scoring.report import clusters
from scoring.report.data import StudyData
from scoring.report.sets import HUMANS, RaterSet, groups_of, single_models
from studies.kinds import ALL_PARTS


def field_order(fields: list[str]) -> list[str]:
    first = [f for f in ("answer", "best", "worst") if f in fields]
    rest = sorted(f for f in fields if f not in first and f != ALL_PARTS)
    return first + rest + ([ALL_PARTS] if ALL_PARTS in fields else [])


def keyed_answers(data: StudyData) -> pd.DataFrame:
    """One row per keyed answer: task, field (text), rater, item, right (1.0/0.0); for
    ``multi`` and ``best_worst`` tasks also field ``*``, one row per (rater, item)."""
    frame = data.responses
    keyed = frame.loc[frame["correct"].notna()]
    parts = pd.DataFrame(
        {
            "task": keyed["task"].to_numpy(),
            "field": keyed["field"].astype(str).to_numpy(),
            "rater": keyed["rater"].to_numpy(),
            "item": keyed["item"].to_numpy(),
            "right": keyed["correct"].to_numpy(dtype=np.float64),
        }
    )
    multi = [t.id for t in data.tasks.values() if t.has_all_parts]
    sub = parts.loc[parts["task"].isin(multi)]
    if sub.empty:
        return parts
    per_item = sub.groupby(["task", "rater", "item"])["right"].sum().reset_index()
    needed = data.items["n_keyed"].reindex(per_item["item"]).to_numpy()
    per_item["right"] = (per_item["right"].to_numpy() == needed).astype(np.float64)
    per_item["field"] = ALL_PARTS
    return pd.concat([parts, per_item[list(parts.columns)]], ignore_index=True)


def per_rater(data: StudyData, answers: pd.DataFrame | None = None) -> pd.DataFrame:
    """Successes and keyed responses per (task, field, rater), including field ``*``."""
    answers = keyed_answers(data) if answers is None else answers
    grouped = answers.groupby(["task", "field", "rater"])["right"]
    return grouped.agg(successes="sum", n="count").reset_index()


def _cells(answers: pd.DataFrame) -> dict[tuple[int, str], pd.DataFrame]:
    return {
        (int(task), str(fld)): part
        for (task, fld), part in answers.groupby(["task", "field"], sort=False)
    }


def _share(data: StudyData, part: pd.DataFrame, cluster: str, confidence: float) -> ClusteredCI:
    raters, items = part["rater"].to_numpy(), part["item"].to_numpy()
    groups = clusters.labels(data, cluster, raters, items)
    return clusters.interval(
        part["right"].to_numpy(), groups, confidence=confidence, proportion=True
    )


def accuracy_rows(
    data: StudyData,
    sets: list[RaterSet],
    rates: pd.DataFrame,
    *,
    confidence: float = 0.95,
    cluster: str = "none",
    answers: pd.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """One row per task × field × rater set; the interval clustered as ``cluster`` says
    (``none``: Wilson's, answers taken as independent)."""
    cells = _cells(keyed_answers(data) if answers is None else answers)
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        fields = field_order(sorted(set(rates.loc[rates["task"] == task.id, "field"])))
        for fld in fields:
            cell = cells.get((task.id, fld))
            if cell is None:
                continue
            rater_col = cell["rater"].to_numpy()
            for s in sets:
                mask = np.isin(rater_col, s.raters)
                if not mask.any():
                    continue
                part = cell.loc[mask]
                ci = _share(data, part, cluster, confidence)
                successes, n = int(part["right"].sum()), len(part)
                rows.append(
                    {
                        "task": task.slug,
                        "field": fld,
                        "rater_set": s.name,
                        "n_raters": int(part["rater"].nunique()),
                        "n_responses": n,
                        "value": successes / n,
                        **clusters.ci_columns(ci),
                        "successes": successes,
                    }
                )
    return rows


def model_vs_groups(
    data: StudyData,
    sets: list[RaterSet],
    rates: pd.DataFrame,
    *,
    confidence: float = 0.95,
    cluster: str = "none",
    answers: pd.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """Each model's accuracy beside each group's, and its percentile among the members.

    The percentile is the mid-rank percentile rank (docs/statistics.md §9) of the
    model's accuracy among the group members' own accuracies on the same task and field.
    Both accuracies carry their interval (``model_``/``group_`` columns): the model's
    over its items (its repeated generations' prompts as one), the group's clustered
    as ``cluster`` says.
    """
    cells = _cells(keyed_answers(data) if answers is None else answers)
    rates = rates.assign(value=rates["successes"] / rates["n"])
    human_sets = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        here = rates.loc[rates["task"] == task.id]
        for fld in field_order(sorted(set(here["field"]))):
            cell = here.loc[here["field"] == fld]
            answers_here = cells[(task.id, fld)]
            rater_col = answers_here["rater"].to_numpy()
            present = {}
            for group in human_sets:
                members = cell.loc[cell["rater"].isin(group.raters)]
                if not members.empty:
                    g_part = answers_here.loc[np.isin(rater_col, group.raters)]
                    present[group.name] = (members, _share(data, g_part, cluster, confidence))
            for model in single_models(sets):
                m_part = answers_here.loc[np.isin(rater_col, model.raters)]
                if m_part.empty:
                    continue
                m_ci = _share(data, m_part, cluster, confidence)
                for group in human_sets:
                    if group.name not in present:
                        continue
                    members, g_ci = present[group.name]
                    rows.append(
                        {
                            "task": task.slug,
                            "field": fld,
                            "model": model.name,
                            "model_value": m_ci.value,
                            "model_ci_low": m_ci.ci_low,
                            "model_ci_high": m_ci.ci_high,
                            "group": group.name,
                            "group_value": g_ci.value,
                            "group_ci_low": g_ci.ci_low,
                            "group_ci_high": g_ci.ci_high,
                            "n_members": int(members["rater"].nunique()),
                            "percentile": percentile_rank(m_ci.value, members["value"].tolist()),
                            "ci_method": g_ci.method,
                            "design_effect": g_ci.design_effect,
                            "icc_person": g_ci.icc.get("person", math.nan),
                            "icc_item": g_ci.icc.get("item", g_ci.icc.get("prompt", math.nan)),
                        }
                    )
    return rows
