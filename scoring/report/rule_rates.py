"""The ``rule_rates`` table: each stored rule metric per rule rater × source × condition.

Whatever rule raters a study stores (``Rater.kind == "rule"``: its name, its version as
the run, one response per item and metric field) are read as they are. Per rule rater
(name and version) × metric × poem source × prompt condition (× form with
``--by form``, × the other ``--by`` keys as usual):

* a metric whose stored values are all 0 or 1 (``structural``…) gives the **rate** of
  poems scoring 1, with the Wilson (1927) score interval;
* a graded metric (``tonal``, a share of positions) gives the **mean** over poems, with
  a percentile bootstrap interval resampling poems (``n_boot``, seeded);
* when poems of a cell share a generation prompt (repeated samples; or, with
  ``cluster=prompt``, one prompt given to several models), the poems are not
  independent: the interval is clustered in the prompts (``scoring.agreement.crossed``;
  Wilson's at the effective n for a rate, t for a mean), and says so in ``ci_method``.

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
from scoring.report import clusters
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet
from scoring.report.settings import ReportSettings
from scoring.report.splits import combination_codes, item_labels, order

NAN = float("nan")
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


def estimate(
    values: np.ndarray,
    binary: bool,
    opts: ReportSettings,
    groups: dict[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """The rate or the mean of one cell's per-poem values. With ``groups`` (repeated
    generations of one prompt: ``clusters.labels``) the interval is clustered in them;
    otherwise Wilson's for a rate, an item bootstrap for a mean."""
    n = int(values.size)
    successes = int((values == 1.0).sum()) if binary else None
    extra: dict[str, Any] = {"design_effect": 1.0, "icc_person": NAN, "icc_item": NAN}
    if groups:
        ci = clusters.interval(values, groups, confidence=opts.confidence, proportion=binary)
        low, high, method = ci.ci_low, ci.ci_high, ci.method
        extra = {k: v for k, v in clusters.ci_columns(ci).items() if k in extra}
    elif binary:
        w = wilson_interval(int(successes or 0), n, confidence=opts.confidence)
        low, high, method = w.ci_low, w.ci_high, WILSON
    else:
        low = high = NAN
        method = BOOTSTRAP
        if opts.n_boot > 0 and n > 1:
            reps = replicate_means(rng_from(opts.seed), values, opts.n_boot)
            ci_b = percentile_interval(reps, opts.confidence, opts.n_boot)
            low, high = ci_b.low, ci_b.high
    return {
        "n": n,
        "kind": "rate" if binary else "mean",
        "value": float(values.mean()) if n else NAN,
        "ci_low": low,
        "ci_high": high,
        "ci_method": method,
        **extra,
        "successes": successes,
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
            items = part["item"].to_numpy()[cells[code]]
            groups = clusters.labels(data, opts.cluster, np.zeros(items.size), items)
            groups.pop("person", None)  # one rule rater: its rates are about it
            rows.append(
                {
                    "rule": rule,
                    "version": version,
                    "field": metric,
                    **dict(zip(keys, combos[code], strict=True)),
                    **estimate(values, binary, opts, groups),
                }
            )
    return rows
