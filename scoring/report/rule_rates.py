"""The ``rule_rates`` table: each stored rule metric per rule rater × source × condition.

Whatever rule raters a study stores (``Rater.kind == "rule"``: its name, its version as
the run, one response per item and metric field) are read as they are. Per rule rater
(name and version) × metric × poem source × prompt condition (× form with
``--by form``, × the other ``--by`` keys as usual):

* a metric whose stored values are all 0 or 1 (``structural``…) gives the **rate** of
  poems scoring 1, with the Wilson (1927) score interval;
* a graded metric (``tonal``, a share of positions) gives the **mean** over poems, with
  a percentile bootstrap interval resampling poems (``n_boot``, seeded).

This is CCiV's Table 2 (structural and tonal accuracy, standard and variant-aware, per
model × prompt condition), FuxiBench's per-model CiG/CG structure rates, and, with
``--by form``, the per-cipai heatmap of one condition.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement import wilson_interval
from scoring.agreement.bootstrap import percentile_interval, rng_from
from scoring.agreement.difference import replicate_means
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet
from scoring.report.settings import ReportSettings
from scoring.report.splits import combination_codes, item_labels, order

WILSON = "wilson"
BOOTSTRAP = "item bootstrap (percentile)"


def rule_frame(data: StudyData) -> pd.DataFrame:
    """Rule responses with a value: rule name, version, field, item, value."""
    frame = data.responses
    raters = data.raters
    rule_ids = raters.index[raters["kind"].to_numpy() == "rule"].to_numpy()
    part = frame.loc[np.isin(frame["rater"].to_numpy(), rule_ids) & frame["value"].notna()]
    names = raters.loc[part["rater"].to_numpy(), ["name", "run"]].to_numpy()
    return pd.DataFrame(
        {
            "rule": names[:, 0] if len(part) else [],
            "version": names[:, 1] if len(part) else [],
            "field": part["field"].astype(str).to_numpy(),
            "item": part["item"].to_numpy(),
            "value": part["value"].to_numpy(dtype=np.float64),
        }
    )


def is_binary(values: np.ndarray) -> bool:
    return bool(np.isin(values, (0.0, 1.0)).all())


def estimate(values: np.ndarray, binary: bool, opts: ReportSettings) -> dict[str, Any]:
    """The rate (Wilson) or the mean (item bootstrap) of one cell's per-poem values."""
    n = int(values.size)
    if binary:
        successes = int((values == 1.0).sum())
        ci = wilson_interval(successes, n, confidence=opts.confidence)
        return {
            "n": n,
            "kind": "rate",
            "value": ci.value,
            "ci_low": ci.ci_low,
            "ci_high": ci.ci_high,
            "ci_method": WILSON,
            "successes": successes,
        }
    low = high = float("nan")
    if opts.n_boot > 0 and n > 1:
        reps = replicate_means(rng_from(opts.seed), values, opts.n_boot)
        ci_b = percentile_interval(reps, opts.confidence, opts.n_boot)
        low, high = ci_b.low, ci_b.high
    return {
        "n": n,
        "kind": "mean",
        "value": float(values.mean()) if n else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "ci_method": BOOTSTRAP,
        "successes": None,
    }


def rule_rate_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    scores = rule_frame(data)
    if scores.empty:
        return []
    keys = ["source", "condition"] + (["form"] if "form" in opts.by else [])
    labels = item_labels(data, keys)
    codes, combos = combination_codes(labels.reindex(scores["item"].to_numpy()))
    scores["combo"] = codes
    rows: list[dict[str, Any]] = []
    for (rule, version, metric), part in scores.groupby(["rule", "version", "field"], sort=True):
        binary = is_binary(part["value"].to_numpy())
        cells = part.groupby("combo", sort=False).indices
        for code in sorted(cells, key=lambda c: order(combos[c])):
            values = part["value"].to_numpy()[cells[code]]
            rows.append(
                {
                    "rule": rule,
                    "version": version,
                    "field": metric,
                    **dict(zip(keys, combos[code], strict=True)),
                    **estimate(values, binary, opts),
                }
            )
    return rows
