"""Per-category kappa (Fleiss 1971): how reliably raters use each category.

Source: J. L. Fleiss (1971), "Measuring nominal scale agreement among many
raters", Psychological Bulletin 76(5):378-382, eq. 9-10 (kappa_j), as printed by
R's ``irr::kappam.fleiss(detail = TRUE)``. With n_ij raters putting unit i in
category j out of r_i, and pi_j the mean share of category j (units with >= 1
rating, as Fleiss' kappa in categorical.py):

    kappa_j = 1 - mean over units with r_i >= 2 of n_ij (r_i - n_ij) / (r_i (r_i - 1))
                  / (pi_j (1 - pi_j))

With m raters on every unit this is Fleiss' 1 - sum_i n_ij (m - n_ij) / (N m (m - 1) p_j q_j).
A category nobody used (pi_j = 0), or the only one used (pi_j = 1), has no kappa_j:
NaN with the reason. The overall Fleiss kappa is the p_j q_j-weighted mean of the kappa_j.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, RatingTable

METRIC = "fleiss_category_kappa"


def _columns(table: RatingTable) -> FloatArray:
    """Per rated unit: shares r_ij / r_i, disagreements n_ij (r_i - n_ij) / (r_i (r_i - 1)), [r_i >= 2]."""
    counts = table.counts().astype(np.float64)
    r = counts.sum(axis=1)
    counts, r = counts[r >= 1], r[r >= 1]
    pairs = r >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        disagree = (
            np.where(pairs[:, None], counts * (r[:, None] - counts), 0.0) / (r * (r - 1))[:, None]
        )
    disagree[~pairs] = 0.0
    return np.column_stack([counts / r[:, None], disagree, pairs.astype(np.float64)])


def _kappas(sums: FloatArray, total: FloatArray, q: int) -> FloatArray:
    """kappa_j for each row of column sums (B x columns) with B unit totals."""
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = sums[..., :q] / total[..., None]
        disagree = sums[..., q : 2 * q] / sums[..., -1:]
        out: FloatArray = 1.0 - disagree / (pi * (1.0 - pi))
    return np.where((pi > 0) & (pi < 1), out, np.nan)


def category_plans(table: RatingTable) -> list[Plan]:
    """One plan per category of the domain, in domain order (see ``fleiss_category_kappa``)."""
    q = len(table.domain)
    columns = _columns(table)
    n_pairs = int(columns[:, -1].sum()) if columns.size else 0
    if n_pairs == 0:
        why = "no unit has two or more ratings"
        return [_undefined(table, j, why) for j in range(q)]
    kappa = _kappas(columns.sum(axis=0), np.asarray(float(columns.shape[0])), q)
    pi = columns[:, :q].mean(axis=0)
    units = np.arange(columns.shape[0])
    raters = int(np.unique(table.rater_codes).size)
    plans = []
    for j in range(q):
        if not 0 < pi[j] < 1:
            why = "category never used" if pi[j] == 0 else "every rating is in this category"
            plans.append(_undefined(table, j, f"{why}: kappa_j = 0/0"))
            continue
        result = AgreementResult(
            metric=METRIC,
            level="nominal",
            value=float(kappa[j]),
            n_units=n_pairs,
            n_raters=raters,
            n_ratings=table.n_ratings,
            observed=float(columns[:, q + j].sum() / n_pairs),
            expected=float(pi[j] * (1 - pi[j])),
            category=str(table.domain[j]),
        )
        plans.append(Plan(result, units, _replicate(columns, q, j)))
    return plans


def _undefined(table: RatingTable, j: int, why: str) -> Plan:
    return Plan(replace(undefined(METRIC, "nominal", why), category=str(table.domain[j])))


def _replicate(columns: FloatArray, q: int, j: int) -> Callable[[FloatArray], FloatArray]:
    def replicate(draw: FloatArray) -> FloatArray:
        out: FloatArray = _kappas(draw @ columns, draw.sum(axis=1), q)[:, j]
        return out

    return replicate


def fleiss_category_kappa(
    table: RatingTable, *, n_boot: int = 0, confidence: float = 0.95, seed: Seed = None
) -> list[AgreementResult]:
    """Fleiss' (1971) kappa_j for each category of the domain, ``category`` naming it.

    ``observed`` is the mean within-unit disagreement on the category, ``expected``
    pi_j (1 - pi_j). ``n_boot > 0`` adds percentile bootstrap CIs over units.
    """
    plans = category_plans(table)
    return with_intervals(plans, n_boot=n_boot, confidence=confidence, seed=seed)
