"""Conger's kappa for two or more raters, unweighted or weighted.

Sources: A. J. Conger (1980), "Integration and generalization of kappas for
multiple raters", Psychological Bulletin 88(2):322-328; K. L. Gwet (2014),
"Handbook of Inter-Rater Reliability", 4th ed., ch. 2 and 5 (missing ratings,
weights and the variance), as implemented in irrCAC's ``conger.kappa.raw``.

p_a is Fleiss' (weighted) percent agreement (categorical.py). Chance agreement
averages the r (r - 1) / 2 Cohen-type pairwise chance agreements: with p_gk the
share of rater g's ratings in category k, pbar_k their mean over the r raters and
s2_kl = (sum_g p_gk p_gl - r pbar_k pbar_l) / (r - 1),

    p_e = sum_kl w_kl (pbar_k pbar_l - s2_kl / r),   kappa = (p_a - p_e) / (1 - p_e).

With two raters and complete data this is Cohen's kappa. The standard error is
Gwet's linearisation (analytic.py), each unit's chance share being his lambda term.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .analytic import Influence, analytic_se
from .bootstrap import Plan, Seed, with_intervals
from .categorical import categorical_plan
from .results import AgreementResult, undefined
from .table import FloatArray, RatingTable
from .weights import category_scores, check_weights, weight_matrix

METRIC = "conger_kappa"
#: Above this many units x raters x categories cells, no SE or bootstrap (memory).
CELL_BUDGET = 4_000_000


@dataclass(frozen=True)
class _Design:
    """Indicators of the rated units (units with >= 1 rating)."""

    delta: FloatArray  # units x raters x categories: [rating of g on i is k]
    w: FloatArray  # agreement weights


def _design(table: RatingTable, w: FloatArray) -> _Design:
    counts = table.ratings_per_unit()
    rated = np.flatnonzero(counts >= 1)
    index = np.full(table.n_units, -1)
    index[rated] = np.arange(rated.size)
    q = len(table.domain)
    delta = np.zeros((rated.size, table.n_raters, q))
    delta[index[table.unit_codes], table.rater_codes, table.value_codes] = 1.0
    return _Design(delta, w)


def _chance(classif: FloatArray, w: FloatArray) -> FloatArray:
    """p_e from (... x raters x categories) rating counts per rater."""
    r = classif.shape[-2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = classif / classif.sum(axis=-1, keepdims=True)
    mean = p.mean(axis=-2)
    outer = np.einsum("...k,...l->...kl", mean, mean)
    s2 = (np.einsum("...gk,...gl->...kl", p, p) - r * outer) / (r - 1)
    out: FloatArray = np.einsum("kl,...kl->...", w, outer - s2 / r)
    return out


def _chance_per_unit(d: _Design) -> FloatArray:
    """Gwet's (2014) per-unit chance terms pe_i (irrCAC's lambda_ig)."""
    n, r, _ = d.delta.shape
    n_g = d.delta.sum(axis=(0, 2))
    p = d.delta.sum(axis=0) / n_g[:, None]  # raters x categories
    eps = d.delta.sum(axis=2)  # units x raters: [g rated i]
    inner = d.delta - (eps - n_g / n)[:, :, None] * p[None, :, :]
    lam_k = (n / n_g)[None, :, None] * (inner @ d.w.T)
    lam = (lam_k * (p.sum(axis=0)[None, None, :] - p[None, :, :])).sum(axis=2)
    out: FloatArray = lam.sum(axis=1) / (r * (r - 1))
    return out


def conger_plan(table: RatingTable, weights: str = "none") -> Plan:
    """Point estimate, analytic SE and bootstrap recipe (see ``conger_kappa``)."""
    wname = check_weights(weights)
    shown = None if wname == "none" else wname
    level = "nominal" if wname == "none" else table.level
    base = categorical_plan(table, "percent_agreement", wname)
    if not base.result.defined or base.units is None:
        why = base.result.reason or "percent agreement is undefined"
        return Plan(undefined(METRIC, level, why, n_raters=base.result.n_raters, weights=shown))
    if table.n_raters < 2:
        return Plan(undefined(METRIC, level, "Conger's kappa needs two or more raters"))
    w = weight_matrix(category_scores(table.domain), wname)
    cells = table.n_units * table.n_raters * len(table.domain)
    design = _design(table, w) if cells <= CELL_BUDGET else None
    classif = np.zeros((table.n_raters, len(table.domain)))
    np.add.at(classif, (table.rater_codes, table.value_codes), 1.0)
    p_a, p_e = base.result.value, float(_chance(classif, w))
    value = (p_a - p_e) / (1 - p_e) if p_e < 1 - 1e-12 else float("nan")
    result = AgreementResult(
        metric=METRIC,
        level=level,
        value=value,
        n_units=base.result.n_units,
        n_raters=base.result.n_raters,
        n_ratings=base.result.n_ratings,
        observed=p_a,
        expected=p_e,
        weights=shown,
        reason=None if value == value else "chance agreement p_e = 1: kappa = 0/0",
    )
    if design is None or value != value:
        return Plan(result)
    result = result.with_se(*analytic_se(_influence(table, design, value, p_e, wname)))
    return Plan(result, base.units, _replicate(base, design, w))


def _influence(
    table: RatingTable, design: _Design, value: float, p_e: float, weights: str
) -> Influence:
    counts = design.delta.sum(axis=1)
    r = counts.sum(axis=1)
    weighted = counts @ design.w.T
    with np.errstate(divide="ignore", invalid="ignore"):
        pa_i = np.where(r >= 2, (counts * (weighted - 1)).sum(axis=1) / (r * (r - 1)), 0.0)
    return Influence(value, p_e, pa_i, (r >= 2).astype(np.float64), _chance_per_unit(design))


def _replicate(base: Plan, design: _Design, w: FloatArray) -> Callable[[FloatArray], FloatArray]:
    n, r, q = design.delta.shape
    flat = design.delta.reshape(n, r * q)
    pa_replicate = base.replicate
    assert pa_replicate is not None

    def replicate(draw: FloatArray) -> FloatArray:
        p_a = pa_replicate(draw)
        p_e = _chance((draw @ flat).reshape(-1, r, q), w)
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = np.where(p_e < 1 - 1e-12, (p_a - p_e) / (1 - p_e), np.nan)
        return out

    return replicate


def conger_kappa(
    table: RatingTable,
    *,
    weights: str = "none",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Conger's (1980) kappa over all the table's raters; Gwet's (2014) missing-data form.

    NaN with a reason when no unit has two ratings or p_e = 1. ``n_boot > 0``
    adds a percentile bootstrap CI over units; the analytic SE and t interval
    are always there when defined.
    """
    plan = conger_plan(table, weights)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]
