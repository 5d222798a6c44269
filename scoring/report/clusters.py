"""The report's ``cluster`` setting: which clusterings an accuracy, rate or mean's interval
accounts for (docs/statistics.md §22), and the columns every such row carries.

* ``person``: the rater; ``item``: the item's unit (an item, or the repeated samples of
  one generation prompt by one model together: ``data._cluster_keys``); ``prompt``:
  the generation prompt (shared by every model given it), else the item.
* ``person+item`` (default), ``person+prompt``: the two crossed; ``none``: answers
  independent (Wilson's interval for shares, the old default).

A clustering with one member in the cell (one model; one item) is conditioned on, and a
clustering whose every cluster holds one answer changes nothing (it is left out, so a
rule's rate over distinct poems keeps Wilson's interval).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.crossed import ClusteredCI, clustered_mean
from scoring.report.data import StudyData

#: The columns every clustered row adds (after ``ci_low``/``ci_high``).
COLUMNS = ("ci_method", "design_effect", "icc_person", "icc_item")


def dimensions(setting: str) -> tuple[str, ...]:
    return () if setting == "none" else tuple(setting.split("+"))


def labels(
    data: StudyData, setting: str, raters: np.ndarray, items: np.ndarray
) -> dict[str, np.ndarray]:
    """The cluster label of each answer (given its rater and item ids) per dimension.
    Singleton clusterings (every label distinct) are left out."""
    out: dict[str, np.ndarray] = {}
    for dim in dimensions(setting):
        if dim == "person":
            codes = np.asarray(raters)
        else:
            column = "unit" if dim == "item" else "prompt"
            codes = data.items[column].reindex(np.asarray(items)).to_numpy()
        if len(pd.unique(codes)) < len(codes):  # hashing: text labels sort slowly
            out[dim] = codes
    return out


def interval(
    values: np.ndarray,
    groups: dict[str, np.ndarray],
    *,
    confidence: float,
    proportion: bool,
    weights: np.ndarray | None = None,
) -> ClusteredCI:
    return clustered_mean(
        values, groups, weights=weights, confidence=confidence, proportion=proportion
    )


def ci_columns(ci: ClusteredCI, prefix: str = "") -> dict[str, Any]:
    """ci_low, ci_high, ci_method, design effect and ICCs of one estimate (``prefix``
    names them for a row with several estimates, e.g. ``model_``)."""
    item_icc = ci.icc.get("item", ci.icc.get("prompt", math.nan))
    return {
        f"{prefix}ci_low": ci.ci_low,
        f"{prefix}ci_high": ci.ci_high,
        f"{prefix}ci_method": ci.method,
        f"{prefix}design_effect": ci.design_effect,
        f"{prefix}icc_person": ci.icc.get("person", math.nan),
        f"{prefix}icc_item": item_icc,
    }
