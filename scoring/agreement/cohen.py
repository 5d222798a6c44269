"""Cohen's kappa for two raters, unweighted or with any of Gwet's agreement weights.

Sources: J. Cohen (1960), "A coefficient of agreement for nominal scales",
Educational and Psychological Measurement 20:37-46; J. Cohen (1968),
"Weighted kappa", Psychological Bulletin 70(4):213-220; J. L. Fleiss &
J. Cohen (1973) for the quadratic weights.

From the k x k table of proportions p_ij of units that rater A put in
category i and rater B in category j, with margins p_i. and p_.j and
agreement weights w_ij:

    p_o = sum_ij w_ij p_ij,  p_e = sum_ij w_ij p_i. p_.j,  kappa = (p_o - p_e) / (1 - p_e)

Weights are Gwet's (2014) family (weights.py: linear, quadratic, ordinal,
radical, ratio, circular, bipolar) on the categories' scores: their values when
the domain (the declared scale, else the sorted observed values) is numeric, else
their positions. On an evenly spaced scale linear is 1 - |i - j| / (k - 1) and
quadratic 1 - (i - j)^2 / (k - 1)^2 as in Stata's ``kap``. Only units rated by
both raters are used.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, IntArray, RatingTable
from .weights import WeightName, category_scores, check_weights, weight_matrix

Weights = WeightName
METRIC = "cohen_kappa"


def agreement_weights(k: int, weights: str, scores: FloatArray | None = None) -> FloatArray:
    """The k x k agreement-weight matrix (1 on the diagonal) on ``scores`` (default 1..k)."""
    x = np.arange(1, k + 1, dtype=np.float64) if scores is None else scores
    return weight_matrix(x, weights)


def kappa_from_table(
    confusion: FloatArray, weights: str = "none", scores: FloatArray | None = None
) -> tuple[float, float, float]:
    """(kappa, p_o, p_e) from a k x k table of counts; kappa NaN when p_e = 1."""
    table = np.asarray(confusion, dtype=np.float64)
    w = agreement_weights(table.shape[0], weights, scores)
    p = table / table.sum()
    p_o = float((w * p).sum())
    p_e = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 - 1e-12 else float("nan")
    return kappa, p_o, p_e


def _batch_kappa(tables: FloatArray, w: FloatArray) -> FloatArray:
    """kappa for a stack of B x k x k count tables."""
    total = tables.sum(axis=(1, 2))[:, None, None]
    with np.errstate(divide="ignore", invalid="ignore"):  # a replicate that drew no unit
        p = tables / total
    p_o = (w * p).sum(axis=(1, 2))
    p_e = np.einsum("ij,bi,bj->b", w, p.sum(axis=2), p.sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(p_e < 1 - 1e-12, (p_o - p_e) / (1 - p_e), np.nan)
    return out


def cohen_kappa(
    table: RatingTable,
    *,
    weights: str = "none",
    raters: tuple[Hashable, Hashable] | None = None,
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Cohen's kappa between two raters (the table's only two, or ``raters``).

    NaN with a reason when there are not exactly two raters, no unit rated
    by both, or p_e = 1 (both raters used one and the same category).
    ``n_boot > 0`` adds a percentile bootstrap CI over the paired units.
    """
    plan = cohen_plan(table, weights=weights, raters=raters)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]


def cohen_plan(
    table: RatingTable,
    *,
    weights: str = "none",
    raters: tuple[Hashable, Hashable] | None = None,
) -> Plan:
    """Point estimate and bootstrap recipe (see ``cohen_kappa``)."""
    check_weights(weights)
    level = "nominal" if weights == "none" else table.level
    if raters is None:
        if table.n_raters != 2:
            why = f"Cohen's kappa needs exactly two raters; the table has {table.n_raters}"
            return Plan(undefined(METRIC, level, why, n_raters=table.n_raters, weights=weights))
        raters = (table.raters[0], table.raters[1])
    units, a, b = table.paired_units(*raters)
    n = int(a.size)
    if n == 0:
        why = "no unit was rated by both raters"
        return Plan(undefined(METRIC, level, why, n_raters=2, weights=weights))
    k = len(table.domain)
    codes: IntArray = a * k + b
    confusion = np.bincount(codes, minlength=k * k).reshape(k, k).astype(np.float64)
    scores = category_scores(table.domain)
    try:
        kappa, p_o, p_e = kappa_from_table(confusion, weights, scores)
    except ValueError as exc:  # e.g. ratio weights on a scale with 0
        return Plan(undefined(METRIC, level, str(exc), n_raters=2, weights=weights))
    result = AgreementResult(
        metric=METRIC,
        level=level,
        value=kappa,
        n_units=n,
        n_raters=2,
        n_ratings=2 * n,
        observed=p_o,
        expected=p_e,
        weights=weights,
        reason=None if kappa == kappa else "p_e = 1 (both raters used a single category): 0/0",
    )
    w = agreement_weights(k, weights, scores)
    order = np.argsort(codes, kind="stable")
    cells, starts = np.unique(codes[order], return_index=True)

    def replicate(draw_w: FloatArray) -> FloatArray:
        # draw_w[b, u] = times paired unit u was drawn in replicate b
        tables = np.zeros((draw_w.shape[0], k * k))
        tables[:, cells] = np.add.reduceat(draw_w[:, order], starts, axis=1)
        return _batch_kappa(tables.reshape(-1, k, k), w)

    return Plan(result, units, replicate)
