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

Krippendorff's alpha (``alpha_se``; Gwet 2014, ch. 5, as irrCAC's ``krippen.alpha.raw``)
in the same frame: over the n units with r_i >= 2 ratings (mean r-bar, total R), with
agreement weights w (identity for nominal data), r*_ik = sum_l w_kl r_il,

    p_a'   = (1/n) sum_i sum_k r_ik (r*_ik - 1) / (r-bar (r_i - 1)),  p_a = (1 - 1/R) p_a' + 1/R
    pi_k   = (1/n) sum_i r_ik / r-bar,   p_e = sum_kl w_kl pi_k pi_l
    alpha  = (p_a - p_e) / (1 - p_e),    alpha' = (p_a' - p_e) / (1 - p_e)
    a_i    = (p_a,i - p_e) / (1 - p_e),  p_a,i = sum_k r_ik (r*_ik - 1) / (r-bar (r_i - 1))
                                                 - p_a' (r_i - r-bar) / r-bar
    p_e,i  = sum_k r_ik pi^w_k / r-bar - p_e (r_i - r-bar) / r-bar,  pi^w = (W + W') pi / 2
    a*_i   = a_i - 2 (1 - alpha') (p_e,i - p_e) / (1 - p_e)
    var    = sum_i (a*_i - alpha')^2 / (n (n - 1))

with t degrees of freedom (units with any rating) - 1, as irrCAC. alpha equals
Krippendorff's (2011) coefficient when 1 - w is the level's distance scaled to [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
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


def alpha_se(counts: FloatArray, weights: FloatArray, n_rated: int) -> tuple[float, int]:
    """Gwet's linearisation SE of Krippendorff's alpha (module doc): ``counts`` units ×
    values of the units with two or more ratings, ``weights`` the values' agreement
    weights, ``n_rated`` the units with any rating (the t degrees of freedom + 1).
    (standard error, degrees of freedom); NaN when fewer than two units or p_e = 1."""
    c = np.asarray(counts, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    n = int(c.shape[0])
    if n < 2:
        return math.nan, max(n_rated - 1, 0)
    r = c.sum(axis=1)
    r_bar = float(r.mean())
    agree = (c * (c @ w.T - 1.0)).sum(axis=1) / (r_bar * (r - 1.0))
    pa_prime = float(agree.mean())
    pi = c.mean(axis=0) / r_bar
    pe = float(pi @ w @ pi)
    if not pe < 1 - 1e-12:
        return math.nan, max(n_rated - 1, 0)
    one = 1.0 - pe
    alpha_prime = (pa_prime - pe) / one
    size = (r - r_bar) / r_bar
    a_i = (agree - pa_prime * size - pe) / one
    pe_i = c @ ((w + w.T) @ pi / 2.0) / r_bar - pe * size
    linear = a_i - 2.0 * (1.0 - alpha_prime) * (pe_i - pe) / one
    var = float(((linear - alpha_prime) ** 2).sum()) / (n * (n - 1))
    return math.sqrt(var), n_rated - 1


#: A coefficient's standard error at most this is zero up to rounding (a variance of
#: ~1e-33 from cancelling sums): no spread was estimated, so no interval.
ZERO_SE = 1e-12


def t_interval(value: float, se: float, df: int, confidence: float) -> tuple[float, float]:
    """value +- t_(df) se, the upper end capped at 1; NaN when se or df is missing, or
    when se is zero up to rounding (every unit's contribution the same, e.g. perfect
    agreement on every unit): a zero-width interval would be spurious."""
    if not (math.isfinite(se) and math.isfinite(value)) or df < 1 or se <= ZERO_SE:
        return math.nan, math.nan
    half = float(stats.t.ppf((1 + confidence) / 2, df)) * se
    return value - half, min(1.0, value + half)
