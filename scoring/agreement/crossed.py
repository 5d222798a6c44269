"""Intervals for a mean or a share whose answers are clustered in people and items.

A study's answers are not independent: one person's answers share that person's skill
or leniency, one item's answers share its difficulty (people and items are *crossed*
random factors: Baayen, Davidson & Bates 2008). Treating the answers as independent
(Wilson's interval, a t over answers) understates the uncertainty by the design effect.

Estimator: the multiway cluster-robust variance of Cameron, Gelbach & Miller (2011,
"Robust inference with multiway clustering", JBES 29:238-249), here for a (weighted)
mean θ = Σ w y / Σ w, whose linearised contributions are u_k = w_k (y_k − θ) / Σ w:

* one clustering g:     V_g = G/(G − 1) · Σ_clusters (Σ_k∈cluster u_k)²
* two (people × items): V = V_person + V_item − V_person∩item   (CGM eq. 2.12)

each term with its own small-sample factor G/(G − 1) (CGM §2.3). When the two-way
estimate is not positive, the larger one-way variance is used (CGM §2.3 discuss
negative estimates). V is not floored otherwise: an earlier version took the maximum of
V, the one-way variances and the independent-answers variance, which biases an unbiased
but noisy V upwards exactly when a dimension adds nothing (a person ICC of 0: V_person
then estimates the independent-answers variance on min(G) − 1 degrees of freedom, and
max(V, V_independent) is larger on average), so those intervals covered 97–98 %
(docs/statistics.md §23). The critical value is Student's t with min(G) − 1 degrees of freedom (Cameron & Miller
2015, §VI.C; CGM §2.3). For a share, the interval is Wilson's score interval at the
effective sample size n / deff with that t (Korn & Graubard 1998), so it stays in
[0, 1] and is not degenerate at 0 % or 100 %; for a mean, θ ± t · √V.

The design effect (Kish 1965) is V / V_independent; the intraclass correlation of a
dimension is the moment estimate Cov(y_k, y_l | same cluster, k ≠ l) / Var(y) over
pairs of answers sharing a cluster (for binary answers on the observed 0/1 scale).

Why not the pigeonhole bootstrap (Owen 2007)? Resampling people and items
independently counts the residual variance about three times (Owen 2007, Thm 1;
McCullagh 2000 showed no resampling scheme is exactly unbiased for crossed designs),
so its intervals over-cover on the sparse designs of volunteer studies; CGM's
inclusion–exclusion removes the double count, is deterministic and costs one pass.
A crossed random-intercepts mixed model (statsmodels ``MixedLM`` with variance
components) estimates the same variance under normality and balance; the tests
compare the two (``tests/agreement/test_crossed.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .table import FloatArray

NAN = math.nan

#: A variance at most this share of the independent-answers variance is zero up to
#: rounding (the sums of scores cancel to ~1e-32): it is treated as not positive.
ZERO_VARIANCE = 1e-9

#: The reason on an interval whose clustered variance is zero (every cluster's mean the
#: same): nothing can be estimated about clustering, and the answers are taken as
#: independent (``design_effect`` NaN; the method keeps its name and its t).
ZERO_NOTE = "design effect not estimable: clustered variance zero, taken as 1"


@dataclass(frozen=True)
class ClusteredCI:
    value: float
    ci_low: float
    ci_high: float
    se: float  # the clustered standard error of the estimate
    se_independent: float  # the standard error treating answers as independent
    design_effect: float  # (se / se_independent)²
    df: float  # degrees of freedom of the t critical value
    n: int
    n_clusters: dict[str, int] = field(default_factory=dict)
    icc: dict[str, float] = field(default_factory=dict)
    method: str = ""
    reason: str | None = None


def _codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Each label's code (its rank among the distinct labels, as ``np.unique`` numbers
    them) and the number of distinct labels: by hashing, then sorting only the distinct
    labels (``np.unique`` sorts every label: 5 s of a 1,000,000-answer report's text ids)."""
    codes, uniq = pd.factorize(np.asarray(labels).ravel(), sort=True, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), len(uniq)


def _one_way(u: FloatArray, codes: np.ndarray, g: int) -> float:
    sums = np.bincount(codes, weights=u, minlength=g)
    return float(g / (g - 1) * np.dot(sums, sums)) if g > 1 else NAN


def _clustered_variance(
    u: FloatArray, used: Mapping[str, tuple[np.ndarray, int]], v_ind: float
) -> tuple[float, bool]:
    """``multiway_variance`` of the contributions ``u`` over the clusterings ``used``,
    and whether it is zero up to rounding (``ZERO_VARIANCE`` of the independent-answers
    variance ``v_ind``) while the answers vary. Then every cluster's mean is the same
    (e.g. 2 people with 1 of 3 right each) and n / deff would be ~1e32 answers, a
    zero-width interval: nothing is estimated about clustering, the variance is
    ``v_ind`` (design effect 1, as at 0 % or 100 %; docs/statistics.md §22)."""
    zero = ZERO_VARIANCE * v_ind if v_ind > 0 else 0.0
    v = multiway_variance(u, used, zero)
    flat = v_ind > 0 and v <= zero
    return (v_ind if flat else v), flat


def multiway_variance(
    u: FloatArray, used: Mapping[str, tuple[np.ndarray, int]], zero: float = 0.0
) -> float:
    """CGM's cluster-robust variance of Σ u over one or two clusterings (codes, count),
    each with more than one cluster: one-way V_g, or V_1 + V_2 − V_1∩2 when that is
    positive and the larger one-way variance when it is not (CGM 2011, eq. 2.12, §2.3).
    ``zero``: a two-way estimate at most this large is zero up to rounding, not positive."""
    one = [_one_way(u, c, g) for c, g in used.values()]
    if len(one) == 1:
        return one[0]
    (c1, _), (c2, _) = used.values()
    both, g12 = _codes(c1 * (int(c2.max()) + 1) + c2)
    two = sum(one) - _one_way(u, both, g12)
    return two if two > zero else max(one)


def pairwise_icc(y: FloatArray, codes: np.ndarray, g: int) -> float:
    """Moment estimate of the intraclass correlation of one clustering: the mean
    product of residuals over ordered pairs of distinct answers in one cluster,
    over their variance; clipped at 0. NaN without a pair or without variance."""
    r = y - y.mean()
    total = float(np.dot(r, r) / r.size) if r.size else NAN
    sums = np.bincount(codes, weights=r, minlength=g)
    sizes = np.bincount(codes, minlength=g).astype(np.float64)
    pairs = float(np.dot(sizes, sizes - 1))
    if pairs <= 0 or not total > 0:
        return NAN
    cov = (float(np.dot(sums, sums)) - float(np.dot(r, r))) / pairs
    return max(0.0, cov / total)


def t_critical(confidence: float, df: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    q = (1 + confidence) / 2
    return float(stats.t.ppf(q, df)) if math.isfinite(df) else float(stats.norm.ppf(q))


def wilson_bounds(p: float, n: float, crit: float) -> tuple[float, float]:
    """Wilson's score interval of a share p over n answers (n may be fractional)."""
    if not n > 0:
        return NAN, NAN
    c2 = crit * crit
    denom = 1 + c2 / n
    centre = (p + c2 / (2 * n)) / denom
    half = crit / denom * math.sqrt(max(p * (1 - p) / n + c2 / (4 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered_mean(
    values: Sequence[float] | FloatArray,
    clusters: Mapping[str, Sequence[object] | np.ndarray],
    *,
    weights: Sequence[float] | FloatArray | None = None,
    confidence: float = 0.95,
    proportion: bool = False,
) -> ClusteredCI:
    """The (weighted) mean of ``values`` with a cluster-robust interval.

    ``clusters``: zero, one or two named clusterings (e.g. ``{"person": raters,
    "item": items}``), each a label per value. A clustering with a single cluster (one
    model, one item) is conditioned on: the interval is about that person or item, and
    the clustering is left out (``n_clusters`` still lists it). No clustering: the
    independent-answers interval (Wilson for a share, t over answers for a mean).
    ``proportion``: values are 0/1 and the interval is Wilson's at the effective n.
    """
    y = np.asarray(values, dtype=np.float64)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(clusters) > 2:
        raise ValueError("at most two clusterings (people and items)")
    n = int(y.size)
    if n == 0 or not np.all(np.isfinite(y)):
        return ClusteredCI(NAN, NAN, NAN, NAN, NAN, NAN, NAN, n, reason="no answers")
    total_w = float(w.sum())
    theta = float(np.dot(w, y) / total_w)
    u = w * (y - theta) / total_w
    v_ind = float(n / (n - 1) * np.dot(u, u)) if n > 1 else NAN
    coded = {name: _codes(np.asarray(labels)) for name, labels in clusters.items()}
    sizes = {name: g for name, (_, g) in coded.items()}
    used = {name: cg for name, cg in coded.items() if cg[1] > 1}
    icc = {name: pairwise_icc(y, c, g) if g > 1 else NAN for name, (c, g) in coded.items()}
    flat = False  # clustered variance zero up to rounding while the answers vary
    if not used:
        # Wilson's own z for a share; Student's t over the answers for a mean.
        v, df, label = v_ind, (math.inf if proportion else float(n - 1)), "independent answers"
    else:
        v, flat = _clustered_variance(u, used, v_ind)
        df = float(min(g for _, g in used.values()) - 1)
        label = "+".join(used)
    se = math.sqrt(v) if v >= 0 else NAN
    se_ind = math.sqrt(v_ind) if v_ind >= 0 else NAN
    deff = v / v_ind if v_ind > 0 and not flat else NAN
    if not df >= 1 or (n < 2 and not (proportion and not used)):
        return ClusteredCI(
            theta, NAN, NAN, se, se_ind, deff, df, n, sizes, icc, label,
            reason="not estimable: fewer than two clusters or answers",
        )  # fmt: skip
    crit = t_critical(confidence, df)
    if proportion:
        n_eff = n / deff if math.isfinite(deff) and deff > 0 else float(n)
        low, high = wilson_bounds(theta, n_eff, crit)
        method = "Wilson" if not used else f"{label}-clustered Wilson (CGM)"
    else:
        if not se > 0 or np.ptp(y) == 0:  # every value equal: zero width is spurious
            return ClusteredCI(
                theta, NAN, NAN, se, se_ind, deff, df, n, sizes, icc, label,
                reason="not estimable: every value the same",
            )  # fmt: skip
        low, high = theta - crit * se, theta + crit * se
        method = "t over answers" if not used else f"{label}-clustered t (CGM)"
    return ClusteredCI(
        theta, low, high, se, se_ind, deff, df, n, sizes, icc, method,
        reason=ZERO_NOTE if flat else None,
    )  # fmt: skip


@dataclass(frozen=True)
class Difference:
    """The difference of two groups' shares (or means) with its crossed-clustered test."""

    value: float  # mean of a − mean of b
    se: float
    df: float
    t: float
    p_value: float
    ci_low: float
    ci_high: float
    design_effect: float
    method: str


def clustered_difference(
    values: Sequence[float] | FloatArray,
    side: Sequence[bool] | np.ndarray,
    clusters: Mapping[str, Sequence[object] | np.ndarray],
    *,
    confidence: float = 0.95,
) -> Difference:
    """Mean of side a (``side`` True) minus mean of side b, with the same multiway
    cluster-robust variance as ``clustered_mean`` (the linearised contributions
    u_k = (y_k − ȳ_a)/N_a on side a and −(y_k − ȳ_b)/N_b on side b; people are nested in
    the sides, items crossed with both), the same fallback when not positive, and Student's t with
    min(G) − 1 degrees of freedom: the test of two groups' accuracies over people and
    items (Cameron, Gelbach & Miller 2011)."""
    y = np.asarray(values, dtype=np.float64)
    a = np.asarray(side, dtype=bool)
    n_a, n_b = int(a.sum()), int((~a).sum())
    if n_a == 0 or n_b == 0:
        raise ValueError("both sides need answers")
    m_a, m_b = float(y[a].mean()), float(y[~a].mean())
    u = np.where(a, (y - m_a) / n_a, -(y - m_b) / n_b)
    n = y.size
    v_ind = float(n / (n - 1) * np.dot(u, u))
    coded = {name: _codes(np.asarray(labels)) for name, labels in clusters.items()}
    used = {name: cg for name, cg in coded.items() if 1 < cg[1] < n}
    v, df = v_ind, float(n - 2)
    flat = False
    if used:
        v, flat = _clustered_variance(u, used, v_ind)
        df = float(min(g for _, g in used.values()) - 1)
    se = math.sqrt(v)
    diff = m_a - m_b
    label = "+".join(used) + "-clustered t (CGM)" if used else "t over answers"
    deff = v / v_ind if v_ind > 0 and not flat else math.nan
    if not se > 0 or np.ptp(y) == 0:  # no answer varies: no test, no interval
        return Difference(diff, se, df, NAN, NAN, NAN, NAN, deff, label)
    t = diff / se
    p = float(2 * stats.t.sf(abs(t), df))
    crit = t_critical(confidence, df)
    return Difference(diff, se, df, t, p, diff - crit * se, diff + crit * se, deff, label)
