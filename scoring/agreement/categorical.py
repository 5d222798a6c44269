"""Percent agreement, Fleiss' kappa and Gwet's AC1 for many raters.

Sources: J. L. Fleiss (1971), "Measuring nominal scale agreement among many
raters", Psychological Bulletin 76(5):378-382; K. L. Gwet (2008), "Computing
inter-rater reliability and its variance in the presence of high agreement",
British Journal of Mathematical and Statistical Psychology 61:29-48;
K. L. Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed., ch. 2 and 4
(the forms for missing ratings, as implemented in Gwet's irrCAC package).

All three treat values as unordered categories. With r_ik raters putting
unit i in category k and r_i = sum_k r_ik:

    p_a  = mean over units with r_i >= 2 of sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))
    pi_k = mean over units with r_i >= 1 of r_ik / r_i
    Fleiss: p_e = sum_k pi_k^2;  AC1: p_e = sum_k pi_k (1 - pi_k) / (q - 1)
    coefficient = (p_a - p_e) / (1 - p_e)

p_a is percent agreement. With the same number of raters on every unit these
are exactly Fleiss (1971) and Gwet (2008). Units rated once enter pi_k (they
say how often categories are used) but not p_a (they have no pair), as in
Gwet (2014). q is the number of categories in the domain (the declared
scale, or the observed values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .bootstrap import Plan, Seed, with_intervals
from .results import AgreementResult, undefined
from .table import FloatArray, RatingTable


@dataclass(frozen=True)
class _Parts:
    # Per unit (units with >= 1 rating), columns: r_uk / r_u for each category,
    # then the unit's pair agreement (0 if r_u < 2), then [r_u >= 2]. Every
    # ingredient is a weighted column sum, so a chunk of bootstrap replicates
    # is one matrix product.
    columns: FloatArray
    n_units: int  # units with >= 2 ratings
    n_raters: int
    n_ratings: int


def _parts(table: RatingTable) -> _Parts:
    counts = table.counts().astype(np.float64)
    r = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        agree = (counts * (counts - 1)).sum(axis=1) / (r * (r - 1))
    agree = np.where(r >= 2, agree, 0.0)
    in_pairs = (r >= 2)[table.unit_codes]
    columns = np.column_stack([counts / r[:, None], agree, (r >= 2).astype(np.float64)])
    return _Parts(
        columns=columns,
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


def _fleiss_chance(pi: FloatArray) -> FloatArray:
    out: FloatArray = (pi**2).sum(axis=-1)
    return out


def _ac1_chance(q: int) -> Chance:
    # A one-category domain makes q - 1 = 0, but then every pi_k is 0 or 1 and
    # the numerator is 0 too; p_e = 0 is the limit, so use q >= 2.
    def chance(pi: FloatArray) -> FloatArray:
        out: FloatArray = (pi * (1 - pi)).sum(axis=-1) / (max(q, 2) - 1)
        return out

    return chance


def categorical_plan(table: RatingTable, metric: str) -> Plan:
    """Point estimate and bootstrap recipe for one of the three coefficients."""
    chances: dict[str, Chance | None] = {
        "percent_agreement": None,
        "fleiss_kappa": _fleiss_chance,
        "gwet_ac1": _ac1_chance(len(table.domain)),
    }
    chance = chances[metric]
    parts = _parts(table)
    if parts.n_units == 0:
        why = "empty table" if table.n_ratings == 0 else "no unit has two or more ratings"
        return Plan(undefined(metric, "nominal", why, n_raters=parts.n_raters))
    p_a_arr, pi = _ingredients(parts, np.ones(parts.columns.shape[0]))
    p_a = float(p_a_arr)
    if chance is None:
        value, p_e = p_a, float("nan")
    else:
        p_e = float(chance(pi))
        value = float(_kappa_like(np.asarray(p_a), np.asarray(p_e)))
    reason: str | None = None
    if np.isnan(value):
        reason = "chance agreement p_e = 1 (every rating in one category): kappa = 0/0"
    result = AgreementResult(
        metric=metric,
        level="nominal",
        value=value,
        n_units=parts.n_units,
        n_raters=parts.n_raters,
        n_ratings=parts.n_ratings,
        observed=p_a,
        expected=p_e,
        reason=reason,
    )

    def replicate(w: FloatArray) -> FloatArray:
        pa, pis = _ingredients(parts, w)
        return pa if chance is None else _kappa_like(pa, chance(pis))

    return Plan(result, np.arange(parts.columns.shape[0]), replicate)


def _compute(
    table: RatingTable, metric: str, *, n_boot: int, confidence: float, seed: Seed
) -> AgreementResult:
    plan = categorical_plan(table, metric)
    return with_intervals([plan], n_boot=n_boot, confidence=confidence, seed=seed)[0]


def percent_agreement(
    table: RatingTable, *, n_boot: int = 0, confidence: float = 0.95, seed: Seed = None
) -> AgreementResult:
    """Share of agreeing rater pairs within a unit, averaged over units with >= 2 ratings."""
    return _compute(table, "percent_agreement", n_boot=n_boot, confidence=confidence, seed=seed)


def fleiss_kappa(
    table: RatingTable, *, n_boot: int = 0, confidence: float = 0.95, seed: Seed = None
) -> AgreementResult:
    """Fleiss' kappa (Fleiss 1971), Gwet's (2014) form for varying raters per unit."""
    return _compute(table, "fleiss_kappa", n_boot=n_boot, confidence=confidence, seed=seed)


def gwet_ac1(
    table: RatingTable, *, n_boot: int = 0, confidence: float = 0.95, seed: Seed = None
) -> AgreementResult:
    """Gwet's AC1 (Gwet 2008; 2014, ch. 4), multi-rater form with missing ratings."""
    return _compute(table, "gwet_ac1", n_boot=n_boot, confidence=confidence, seed=seed)
