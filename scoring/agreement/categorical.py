"""Percent agreement, Fleiss' kappa, Gwet's AC1/AC2 and Brennan-Prediger for many raters.

Sources: J. L. Fleiss (1971), "Measuring nominal scale agreement among many
raters", Psychological Bulletin 76(5):378-382; K. L. Gwet (2008), "Computing
inter-rater reliability and its variance in the presence of high agreement",
British Journal of Mathematical and Statistical Psychology 61:29-48;
R. L. Brennan & D. J. Prediger (1981), "Coefficient kappa: some uses, misuses,
and alternatives", Educational and Psychological Measurement 41:687-699
(= Bennett, Alpert & Goldstein's 1954 S); K. L. Gwet (2014), "Handbook of
Inter-Rater Reliability", 4th ed., ch. 2-5 (the forms for missing ratings, the
weighted forms and the variances, as implemented in Gwet's irrCAC package:
``pa.coeff.raw``, ``fleiss.kappa.raw``, ``gwet.ac1.raw``, ``bp.coeff.raw``).

With r_ik raters putting unit i in category k, r_i = sum_k r_ik, agreement
weights w_kl (weights.py; identity when unweighted) and r*_ik = sum_l w_kl r_il:

    p_a  = mean over units with r_i >= 2 of sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))
    pi_k = mean over units with r_i >= 1 of r_ik / r_i
    Fleiss: p_e = sum_kl w_kl pi_k pi_l;  AC1/AC2: p_e = T_w sum_k pi_k (1 - pi_k) / (q (q - 1))
    Brennan-Prediger: p_e = T_w / q^2;  T_w = sum_kl w_kl (= q unweighted)
    coefficient = (p_a - p_e) / (1 - p_e)

p_a is (weighted) percent agreement. With the same number of raters on every
unit and no weights these are exactly Fleiss (1971) and Gwet (2008). Units rated
once enter pi_k (they say how often categories are used) but not p_a (they have
no pair), as in Gwet (2014). q is the number of categories in the domain (the
declared scale, or the observed values). The analytic standard errors are in
analytic.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .analytic import Influence, analytic_se
from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, RatingTable
from .weights import WeightName, category_scores, check_weights, weight_matrix

#: Metric names; the unweighted AC1 is "gwet_ac1", the weighted one "gwet_ac2".
CATEGORICAL = ("percent_agreement", "fleiss_kappa", "gwet_ac1", "gwet_ac2", "brennan_prediger")


@dataclass(frozen=True)
class _Parts:
    # Per unit (units with >= 1 rating), columns: r_uk / r_u for each category,
    # then the unit's pair agreement (0 if r_u < 2), then [r_u >= 2]. Every
    # ingredient is a weighted column sum, so a chunk of bootstrap replicates
    # is one matrix product.
    columns: FloatArray
    counts: FloatArray  # r_uk of the same units
    n_units: int  # units with >= 2 ratings
    n_raters: int
    n_ratings: int


def _parts(table: RatingTable, w: FloatArray) -> _Parts:
    counts = table.counts().astype(np.float64)
    r = counts.sum(axis=1)
    weighted = counts @ w.T  # r*_uk = sum_l w_kl r_ul
    with np.errstate(divide="ignore", invalid="ignore"):
        agree = (counts * (weighted - 1)).sum(axis=1) / (r * (r - 1))
    agree = np.where(r >= 2, agree, 0.0)
    in_pairs = (r >= 2)[table.unit_codes]
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = counts / r[:, None]
    columns = np.column_stack([shares, agree, (r >= 2).astype(np.float64)])
    rated = r >= 1
    return _Parts(
        columns=columns[rated],
        counts=counts[rated],
        n_units=int((r >= 2).sum()),
        n_raters=int(np.count_nonzero(np.bincount(table.rater_codes[in_pairs]))),
        n_ratings=int(r[r >= 2].sum()),
    )


def _ingredients(parts: _Parts, w: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(p_a, pi) for each row of draw weights w (or a single weight vector)."""
    sums = w @ parts.columns
    total = w.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_a: FloatArray = sums[..., -2] / sums[..., -1]
        pi: FloatArray = sums[..., :-2] / total[..., None]
    return p_a, pi


def _kappa_like(p_a: FloatArray, p_e: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(p_e < 1 - 1e-12, (p_a - p_e) / (1 - p_e), np.nan)
    return out


Chance = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True)
class _Chance:
    """p_e from pi (batched) and each unit's share of it (for the variance)."""

    of: Chance
    per_unit: Callable[[FloatArray, FloatArray], FloatArray]  # (counts, pi) -> pe_i


def _fleiss_chance(w: FloatArray) -> _Chance:
    def of(pi: FloatArray) -> FloatArray:
        out: FloatArray = np.einsum("...k,kl,...l->...", pi, w, pi)
        return out

    def per_unit(counts: FloatArray, pi: FloatArray) -> FloatArray:
        pi_w = (w @ pi + w.T @ pi) / 2
        out: FloatArray = (counts @ pi_w) / counts.sum(axis=1)
        return out

    return _Chance(of, per_unit)


def _ac_chance(w: FloatArray) -> _Chance:
    # A one-category domain makes q - 1 = 0, but then every pi_k is 0 or 1 and
    # the numerator is 0 too; p_e = 0 is the limit, so use q >= 2.
    q = max(w.shape[0], 2)
    scale = float(w.sum()) / (q * (q - 1)) if w.shape[0] >= 2 else 1.0

    def of(pi: FloatArray) -> FloatArray:
        out: FloatArray = scale * (pi * (1 - pi)).sum(axis=-1)
        return out

    def per_unit(counts: FloatArray, pi: FloatArray) -> FloatArray:
        out: FloatArray = scale * (counts @ (1 - pi)) / counts.sum(axis=1)
        return out

    return _Chance(of, per_unit)


def _bp_chance(w: FloatArray) -> _Chance:
    q = w.shape[0]
    p_e = float(w.sum()) / q**2 if q >= 2 else 0.0

    def of(pi: FloatArray) -> FloatArray:
        return np.full(pi.shape[:-1], p_e)

    def per_unit(counts: FloatArray, pi: FloatArray) -> FloatArray:
        return np.full(counts.shape[0], p_e)

    return _Chance(of, per_unit)


def _pa_chance(w: FloatArray) -> _Chance:
    def of(pi: FloatArray) -> FloatArray:
        return np.zeros(pi.shape[:-1])

    def per_unit(counts: FloatArray, pi: FloatArray) -> FloatArray:
        return np.zeros(counts.shape[0])

    return _Chance(of, per_unit)


_CHANCES: dict[str, Callable[[FloatArray], _Chance]] = {
    "percent_agreement": _pa_chance,
    "fleiss_kappa": _fleiss_chance,
    "gwet_ac1": _ac_chance,
    "gwet_ac2": _ac_chance,
    "brennan_prediger": _bp_chance,
}


def _level(table: RatingTable, weights: WeightName) -> str:
    return "nominal" if weights == "none" else table.level


def categorical_plan(table: RatingTable, metric: str, weights: str = "none") -> Plan:
    """Point estimate, analytic SE and bootstrap recipe for one coefficient."""
    wname = check_weights(weights)
    if metric in ("gwet_ac1", "gwet_ac2"):
        metric = "gwet_ac1" if wname == "none" else "gwet_ac2"
    level = _level(table, wname)
    shown = None if wname == "none" else wname
    try:
        w = weight_matrix(category_scores(table.domain), wname)
    except ValueError as exc:
        return Plan(undefined(metric, level, str(exc), weights=shown))
    parts = _parts(table, w)
    if parts.n_units == 0:
        why = "empty table" if table.n_ratings == 0 else "no unit has two or more ratings"
        return Plan(undefined(metric, level, why, n_raters=parts.n_raters, weights=shown))
    chance = _CHANCES[metric](w)
    p_a_arr, pi = _ingredients(parts, np.ones(parts.columns.shape[0]))
    p_a = float(p_a_arr)
    p_e = float(chance.of(pi))
    value = p_a if metric == "percent_agreement" else float(_kappa_like(p_a_arr, np.asarray(p_e)))
    reason: str | None = None
    if np.isnan(value):
        reason = "chance agreement p_e = 1 (every rating in one category): kappa = 0/0"
    result = AgreementResult(
        metric=metric,
        level=level,
        value=value,
        n_units=parts.n_units,
        n_raters=parts.n_raters,
        n_ratings=parts.n_ratings,
        observed=p_a,
        expected=p_e if metric != "percent_agreement" else float("nan"),
        weights=shown,
        reason=reason,
    )
    if not np.isnan(value):
        pa_i = parts.columns[:, -2]
        pairable = parts.columns[:, -1]
        pe_i = chance.per_unit(parts.counts, pi)
        result = result.with_se(*analytic_se(Influence(value, p_e, pa_i, pairable, pe_i)))

    def replicate(draw: FloatArray) -> FloatArray:
        pa, pis = _ingredients(parts, draw)
        return pa if metric == "percent_agreement" else _kappa_like(pa, chance.of(pis))

    return Plan(result, np.arange(parts.columns.shape[0]), replicate)


def _compute(
    table: RatingTable,
    metric: str,
    *,
    weights: str,
    n_boot: int,
    confidence: float,
    seed: Seed,
) -> AgreementResult:
    plan = categorical_plan(table, metric, weights)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]


def percent_agreement(
    table: RatingTable,
    *,
    weights: str = "none",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Share of agreeing rater pairs within a unit (weighted: credit w_kl), over units with >= 2."""
    return _compute(
        table, "percent_agreement", weights=weights, n_boot=n_boot, confidence=confidence, seed=seed
    )


def fleiss_kappa(
    table: RatingTable,
    *,
    weights: str = "none",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Fleiss' kappa (Fleiss 1971), Gwet's (2014) form for varying raters and weights."""
    return _compute(
        table, "fleiss_kappa", weights=weights, n_boot=n_boot, confidence=confidence, seed=seed
    )


def gwet_ac1(
    table: RatingTable,
    *,
    weights: str = "none",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Gwet's AC1 (Gwet 2008; 2014, ch. 4); with weights, his AC2 (metric ``gwet_ac2``)."""
    return _compute(
        table, "gwet_ac1", weights=weights, n_boot=n_boot, confidence=confidence, seed=seed
    )


def gwet_ac2(
    table: RatingTable,
    *,
    weights: str = "quadratic",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Gwet's AC2: AC1 with agreement weights (Gwet 2014, ch. 4); quadratic by default."""
    return _compute(
        table, "gwet_ac2", weights=weights, n_boot=n_boot, confidence=confidence, seed=seed
    )


def brennan_prediger(
    table: RatingTable,
    *,
    weights: str = "none",
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> AgreementResult:
    """Brennan & Prediger (1981) / Bennett's S: chance agreement T_w / q^2 (uniform use)."""
    return _compute(
        table, "brennan_prediger", weights=weights, n_boot=n_boot, confidence=confidence, seed=seed
    )
