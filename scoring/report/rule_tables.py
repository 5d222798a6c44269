"""Rule scores against ratings: the ``rule_vs_rating`` table and rule scores per form.

rule_vs_rating (the "echo chamber" test, domain.md §1.2): for each rating task ×
dimension × rule metric × rater set, items are split by the rule into pass and fail;
``mean_pass`` and ``mean_fail`` are means over items of the set's item-level mean
rating, ``diff = mean_pass − mean_fail``, and its CI Welch's t over items corrected for
skewness (``scoring.agreement.gaps.corrected_difference``, Hall 1992; the stratified
bootstrap it replaces under-covered on small sides, Welch's t alone with a small side
against a large one on skewed data), not estimable (null, with the reason) when a side has
fewer than ``min_side`` poems or neither side varies. Pass: value ≥ 1 for a metric whose
observed values are all 0 or 1 (structural, rhyme), value ≥ ``threshold`` (default
0.8) for a graded one (tonal, pattern). ``rule_scores``: mean rule score per poem form
(e.g. ``ci:浣溪沙``) × poem source (``human``, ``model:<name>``), for the heatmap.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.gaps import MIN_SIDE, WELCH_HALL, corrected_difference
from scoring.report.correlation import item_means, rule_means
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet, by_kind
from scoring.report.settings import PASS_THRESHOLD


def pass_threshold(scores: pd.Series, graded: float = PASS_THRESHOLD) -> float:
    values = scores.to_numpy(dtype=np.float64)
    return 1.0 if np.isin(values, (0.0, 1.0)).all() else graded


def rule_vs_rating_rows(
    data: StudyData,
    sets: list[RaterSet],
    *,
    confidence: float = 0.95,
    threshold: float = PASS_THRESHOLD,
    min_side: int = MIN_SIDE,
) -> list[dict[str, Any]]:
    frame = data.responses
    raters = by_kind(sets, "human", "model")
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        if not task.is_rating:
            continue
        rules = rule_means(data, sets, task.id)
        if not rules:
            continue
        here = frame.loc[frame["task"] == task.id]
        for dim in (d["key"] for d in task.dimensions):
            cell = here.loc[here["field"] == dim]
            if cell.empty:
                continue
            for s in raters:
                means = item_means(cell, s)
                if means.empty:
                    continue
                for rule, scores in sorted(rules.items()):
                    cut = pass_threshold(scores, threshold)
                    passed = scores.index[scores.to_numpy() >= cut]
                    both = means.index.intersection(scores.index)
                    good = means.loc[both.intersection(passed)]
                    bad = means.loc[both.difference(passed)]
                    d = corrected_difference(
                        good.to_numpy(), bad.to_numpy(), confidence=confidence, min_side=min_side
                    )
                    rows.append(
                        {
                            "task": task.slug,
                            "field": dim,
                            "rule": f"{rule}",
                            "rater_set": s.name,
                            "n_pass": d.n_a,
                            "n_fail": d.n_b,
                            "mean_pass": d.mean_a,
                            "mean_fail": d.mean_b,
                            "diff": d.diff,
                            "ci_low": d.ci_low,
                            "ci_high": d.ci_high,
                            "threshold": cut,
                            "ci_method": WELCH_HALL if d.reason is None else "",
                            "reason": d.reason,
                        }
                    )
    return rows


def rule_score_rows(data: StudyData, sets: list[RaterSet]) -> list[dict[str, Any]]:
    frame = data.responses
    items = data.items[["form", "poem_source"]].rename(columns={"poem_source": "source"})
    rows: list[dict[str, Any]] = []
    for rule in by_kind(sets, "rule"):
        scored = frame.loc[frame["rater"].isin(rule.raters) & frame["value"].notna()]
        if scored.empty:
            continue
        scored = scored.join(items, on="item")
        scored["form"] = scored["form"].replace("", "(none)")
        scored["source"] = scored["source"].replace("", "(unknown)")
        grouped = scored.groupby(["field", "form", "source"], observed=True)["value"]
        for (metric, form, source), part in grouped:
            rows.append(
                {
                    "rule": rule.name,
                    "field": str(metric),
                    "form": form,
                    "source": source,
                    "n": int(part.size),
                    "mean": float(part.mean()),
                }
            )
    return rows
