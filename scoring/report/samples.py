"""The ``samples`` table: how much a model's rule scores move across repeated generations.

Benchmarks such as CCiV generate several samples per prompt and model (``Item.sample``).
Per rule rater (name, version) × metric × model (the item's source) × prompt condition:

* ``summary = sample``: each sample's mean over its poems (``n`` poems);
* ``summary = spread``: over the samples' means, their mean, standard deviation (n − 1),
  minimum, maximum and range, with the number of samples;
* ``summary = ranking`` (``model`` empty): how stable the models' order is from sample to
  sample — Kendall's coefficient of concordance W over the samples (each sample ranks
  the models by its mean, average ranks for ties, W with the tie correction; Kendall &
  Babington Smith 1939; Siegel & Castellan 1988, §9.4; W = χ²_F / (m (k − 1)) with χ²_F
  Friedman's statistic) and the mean Spearman correlation between the samples' rankings,
  over the models every sample has.

Poems with no sample number, or of no model, are left out.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from scoring.report.data import StudyData
from scoring.report.rule_rates import rule_frame

COLUMNS = [
    "rule",
    "version",
    "field",
    "model",
    "condition",
    "summary",
    "sample",
    "n",
    "n_samples",
    "mean",
    "sd",
    "min",
    "max",
    "range",
    "kendall_w",
    "spearman_mean",
    "n_models",
]


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _scored(data: StudyData) -> pd.DataFrame:
    rules = rule_frame(data)
    items = data.items
    keep = items.loc[items["sample"].notna() & (items["source_model"].astype(str) != "")]
    frame = rules.loc[rules["item"].isin(keep.index)].copy()
    frame["model"] = keep.loc[frame["item"], "source_model"].astype(str).to_numpy()
    frame["condition"] = keep.loc[frame["item"], "condition"].fillna("").astype(str).to_numpy()
    frame["sample"] = keep.loc[frame["item"], "sample"].astype(int).to_numpy()
    return frame


def kendall_w(table: np.ndarray) -> float:
    """Kendall's W of an m × n table (m rankers — here samples —, n objects — models),
    ranks averaged over ties, with the tie correction."""
    m, n = table.shape
    if m < 2 or n < 2:
        return float("nan")
    ranks = np.vstack([rankdata(row) for row in table])
    sums = ranks.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = 0.0
    for row in table:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts**3 - counts).sum())
    denominator = m * m * (n**3 - n) - m * ties
    return 12 * s / denominator if denominator > 0 else float("nan")


def _spearman_mean(table: np.ndarray) -> float:
    ranks = [rankdata(row) for row in table]
    values = []
    for a, b in combinations(ranks, 2):
        if np.ptp(a) > 0 and np.ptp(b) > 0:
            values.append(float(np.corrcoef(a, b)[0, 1]))
    return float(np.mean(values)) if values else float("nan")


def _model_rows(key: dict[str, Any], part: pd.DataFrame) -> list[dict[str, Any]]:
    means = part.groupby("sample")["value"].agg(["mean", "count"])
    rows = [
        {**key, "summary": "sample", "sample": int(s), "n": int(c), "mean": float(mu)}
        for s, (mu, c) in means.iterrows()
    ]
    values = means["mean"].to_numpy(dtype=np.float64)
    rows.append(
        {
            **key,
            "summary": "spread",
            "n": int(means["count"].sum()),
            "n_samples": len(values),
            "mean": float(values.mean()),
            "sd": _number(values.std(ddof=1)) if len(values) > 1 else None,
            "min": float(values.min()),
            "max": float(values.max()),
            "range": float(values.max() - values.min()),
        }
    )
    return rows


def _ranking_row(key: dict[str, Any], part: pd.DataFrame) -> dict[str, Any] | None:
    wide = part.groupby(["sample", "model"])["value"].mean().unstack("model").dropna(axis=1)
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        return None
    table = wide.to_numpy(dtype=np.float64)
    return {
        **key,
        "model": "",
        "summary": "ranking",
        "n_samples": int(table.shape[0]),
        "n_models": int(table.shape[1]),
        "kendall_w": _number(kendall_w(table)),
        "spearman_mean": _number(_spearman_mean(table)),
    }


def sample_rows(data: StudyData) -> list[dict[str, Any]]:
    frame = _scored(data)
    rows: list[dict[str, Any]] = []
    if frame.empty:
        return rows
    cells = ["rule", "version", "field", "condition"]
    for (rule, version, fld, condition), part in frame.groupby(cells, sort=True):
        key = {"rule": rule, "version": version, "field": fld, "condition": condition}
        for model, own in part.groupby("model", sort=True):
            rows += _model_rows({**key, "model": model}, own)
        if (ranking := _ranking_row(key, part)) is not None:
            rows.append(ranking)
    return rows
