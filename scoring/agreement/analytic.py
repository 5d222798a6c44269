"""Analytic standard errors of the chance-corrected coefficients (Gwet 2014), t intervals.

Source: K. L. Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed., ch. 5
(linearisation variances for many raters and missing ratings), as implemented in
irrCAC (``pa.coeff.raw``, ``fleiss.kappa.raw``, ``gwet.ac1.raw``, ``bp.coeff.raw``,
``conger.kappa.raw``). For n units with at least one rating, n2 of them with two or
more, a coefficient kappa = (p_a - p_e) / (1 - p_e), each unit's pair agreement
p_a,i and its share of chance agreement p_e,i:

    kappa_i  = (n / n2) (p_a,i - p_e [r_i >= 2]) / (1 - p_e)
    kappa*_i = kappa_i - 2 (1 - kappa) (p_e,i - p_e) / (1 - p_e)
    var      = (1 - f) / (n (n - 1)) sum_i (kappa*_i - kappa)^2,  f = 0 (infinite population)

and the interval is kappa +- t_(n-1) se, its upper end capped at 1 (as irrCAC).
Percent agreement is the case p_e = p_e,i = 0; Brennan-Prediger has p_e,i = p_e.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from .coding import FloatArray


@dataclass(frozen=True)
class Influence:
    """The per-unit ingredients of one coefficient (units with >= 1 rating)."""

    value: float
    p_e: float
    pa_i: FloatArray  # pair agreement of each unit, 0 when it has one rating
    pairable: FloatArray  # 1.0 where the unit has >= 2 ratings
    pe_i: FloatArray  # each unit's chance agreement


def analytic_se(inf: Influence) -> tuple[float, int]:
    """(standard error, degrees of freedom n - 1); NaN when n < 2 or p_e = 1."""
    n = int(inf.pa_i.size)
    n2 = float(inf.pairable.sum())
    if n < 2 or n2 == 0 or not inf.p_e < 1 - 1e-12:
        return math.nan, max(n - 1, 0)
    one = 1.0 - inf.p_e
    kappa_i = (n / n2) * (inf.pa_i - inf.p_e * inf.pairable) / one
    linear = kappa_i - 2.0 * (1.0 - inf.value) * (inf.pe_i - inf.p_e) / one
    var = float(((linear - inf.value) ** 2).sum()) / (n * (n - 1))
    return math.sqrt(var), n - 1


def t_interval(value: float, se: float, df: int, confidence: float) -> tuple[float, float]:
    """value +- t_(df) se, the upper end capped at 1; NaN when se or df is missing."""
    if not (math.isfinite(se) and math.isfinite(value)) or df < 1:
        return math.nan, math.nan
    half = float(stats.t.ppf((1 + confidence) / 2, df)) * se
    return value - half, min(1.0, value + half)
