"""Cronbach's alpha for rating scales: internal consistency of raters (or of units).

Source: L. J. Cronbach (1951), "Coefficient alpha and the internal structure of
tests", Psychometrika 16(3):297-334. For a cases x items matrix X with k items,

    alpha = k / (k - 1) * (1 - sum_j var(X_.j) / var(sum_j X_.j))   (variances with ddof 1)

which is what ``pingouin.cronbach_alpha`` computes (listwise deletion).

Orientation (``items``):
- ``"raters"`` (default): the units (poems) are the cases and each rater is an
  item. alpha says how consistently the raters order the poems, i.e. the
  reliability of the raters' summed (or mean) score of a poem. Additive
  differences between raters (one rater always 1 point higher) do not lower it:
  it is a consistency measure, not agreement; it equals the ICC(3,k) of the
  same matrix.
- ``"units"``: the raters are the cases and each unit (poem) is an item, as when
  a set of poems is read as a test and each person's ratings as their answers.

Only complete cases enter (every item rated): units rated by every rater for
``"raters"``, raters who rated every unit for ``"units"``. Needs numeric values
(ordinal, interval or ratio data). NaN with a reason when there are fewer than
two items or two complete cases, or the total score has no variance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, RatingTable

METRIC = "cronbach_alpha"
Items = Literal["raters", "units"]
#: Above this many cases x items, no bootstrap (memory of the per-case products).
CELL_BUDGET = 4_000_000


def _complete(table: RatingTable, items: Items) -> tuple[FloatArray, FloatArray]:
    """(cases x items matrix of the complete cases, the cases' unit codes or NaNs).

    Built from the complete cases only, never the dense raters x units matrix.
    """
    values = table.numeric_domain()[table.value_codes]
    if items == "raters":
        case, item, n_items = table.unit_codes, table.rater_codes, table.n_raters
    else:
        case, item, n_items = table.rater_codes, table.unit_codes, table.n_units
    per_case = np.bincount(case, minlength=1)
    complete = np.flatnonzero(per_case == n_items)
    row = np.full(per_case.size, -1)
    row[complete] = np.arange(complete.size)
    keep = row[case] >= 0
    x = np.zeros((complete.size, n_items))
    x[row[case[keep]], item[keep]] = values[keep]
    return x, complete.astype(np.float64)


def _alpha(
    n: FloatArray, s1: FloatArray, s2: FloatArray, t1: FloatArray, t2: FloatArray
) -> FloatArray:
    """alpha from weighted sums: n cases, per-item sums s1, s2, total-score sums t1, t2."""
    k = s1.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        item_var = ((s2 - s1**2 / n[..., None]) / (n[..., None] - 1)).sum(axis=-1)
        total_var = (t2 - t1**2 / n) / (n - 1)
        out: FloatArray = k / (k - 1) * (1 - item_var / total_var)
    return np.where(total_var > 1e-12 * np.maximum(1.0, np.abs(t1 / n)) ** 2, out, np.nan)


def cronbach_plan(table: RatingTable, items: Items = "raters") -> Plan:
    """Point estimate and bootstrap recipe (see ``cronbach_alpha``)."""
    if items not in ("raters", "units"):
        raise ValueError(f"items must be 'raters' or 'units', not {items!r}")
    weights = f"items={items}"
    if table.level == "nominal":
        why = "Cronbach's alpha needs numeric ratings (ordinal, interval or ratio)"
        return Plan(undefined(METRIC, table.level, why, weights=weights))
    try:
        x, cases = _complete(table, items)
    except ValueError as exc:
        return Plan(undefined(METRIC, table.level, str(exc), weights=weights))
    n_cases, k = x.shape
    cases_name = (
        "units rated by every rater" if items == "raters" else "raters who rated every unit"
    )
    if k < 2 or n_cases < 2:
        why = f"needs two or more items and two or more complete cases ({cases_name}); has {k} and {n_cases}"
        return Plan(undefined(METRIC, table.level, why, weights=weights))
    total = x.sum(axis=1)
    value = float(
        _alpha(
            np.asarray(float(n_cases)),
            x.sum(axis=0),
            (x**2).sum(axis=0),
            np.asarray(total.sum()),
            np.asarray((total**2).sum()),
        )
    )
    n_units, n_raters = (n_cases, k) if items == "raters" else (k, n_cases)
    result = AgreementResult(
        metric=METRIC,
        level=table.level,
        value=value,
        n_units=n_units,
        n_raters=n_raters,
        n_ratings=n_cases * k,
        weights=weights,
        reason=None if value == value else "the total score has no variance: alpha = 0/0",
    )
    if items != "raters" or n_cases * k > CELL_BUDGET:
        return Plan(result)  # the bootstrap resamples units; here they are the items
    return Plan(result, cases.astype(np.int64), _replicate(x))


def _replicate(x: FloatArray) -> Callable[[FloatArray], FloatArray]:
    total = x.sum(axis=1)
    columns = np.column_stack([x, x**2, total, total**2])
    k = x.shape[1]

    def replicate(draw: FloatArray) -> FloatArray:
        s = draw @ columns
        n = draw.sum(axis=1)
        return _alpha(n, s[:, :k], s[:, k : 2 * k], s[:, -2], s[:, -1])

    return replicate


def cronbach_alpha(
    table: RatingTable,
    *,
    items: Items = "raters",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Cronbach's (1951) alpha of the complete cases; ``items`` says what the items are.

    ``weights`` in the result records the orientation (``items=raters`` or
    ``items=units``). ``n_boot > 0`` adds a percentile bootstrap CI over the
    complete units (``items="raters"`` only: with ``"units"`` the units are the
    items, and resampling items is not the sampling design).
    """
    plan = cronbach_plan(table, items)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]
