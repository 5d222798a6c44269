"""Descriptive helpers for the report: proportions, means, correlations, ranks.

Sources: E. B. Wilson (1927), "Probable inference, the law of succession, and
statistical inference", JASA 22:209-212, and R. G. Newcombe (1998), "Two-sided
confidence intervals for the single proportion", Statistics in Medicine
17:857-872 (Wilson score interval); the normal-approximation mean +- 1.96 SE
(as CCiV reports) or Student's t interval; Pearson's r, Spearman's rho and
Kendall's tau-b via ``scipy.stats`` (Kendall 1945 for tau-b with ties);
percentile rank as the mid-rank definition (share strictly below plus half the
ties), e.g. Crocker & Algina (1986), "Introduction to Classical and Modern
Test Theory", ch. 19.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from .table import FloatArray

NAN = math.nan


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    return float(stats.norm.ppf((1 + confidence) / 2))


def _clean(values: Iterable[float | None]) -> FloatArray:
    arr = np.asarray([NAN if v is None else float(v) for v in values], dtype=np.float64)
    return arr[np.isfinite(arr)]


@dataclass(frozen=True)
class ProportionCI:
    value: float
    ci_low: float
    ci_high: float
    successes: int
    n: int
    confidence: float
    method: str = "wilson"


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> ProportionCI:
    """Wilson score interval for successes / n (no continuity correction).

    n = 0 gives NaN throughout. The interval stays within [0, 1] and is not
    degenerate at 0 or n successes, unlike the Wald interval.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError("need 0 <= successes <= n")
    if n == 0:
        return ProportionCI(NAN, NAN, NAN, 0, 0, confidence)
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return ProportionCI(
        p, max(0.0, centre - half), min(1.0, centre + half), successes, n, confidence
    )


@dataclass(frozen=True)
class MeanCI:
    mean: float
    ci_low: float
    ci_high: float
    n: int
    sd: float  # sample standard deviation (n - 1 denominator)
    se: float
    confidence: float
    method: str


def mean_ci(
    values: Iterable[float | None],
    *,
    confidence: float = 0.95,
    method: Literal["normal", "t"] = "normal",
) -> MeanCI:
    """Mean with CI: mean +- z * SE ("normal", 1.96 at 95%) or +- t(n-1) * SE ("t").

    Missing (None/NaN) values are dropped. n = 0: all NaN; n = 1: the mean
    with a NaN interval (no spread to estimate).
    """
    x = _clean(values)
    n = int(x.size)
    if n == 0:
        return MeanCI(NAN, NAN, NAN, 0, NAN, NAN, confidence, method)
    mean = float(x.mean())
    if n == 1:
        return MeanCI(mean, NAN, NAN, 1, NAN, NAN, confidence, method)
    sd = float(x.std(ddof=1))
    se = sd / math.sqrt(n)
    if method == "normal":
        crit = _z(confidence)
    elif method == "t":
        crit = float(stats.t.ppf((1 + confidence) / 2, n - 1))
    else:
        raise ValueError("method must be 'normal' or 't'")
    return MeanCI(mean, mean - crit * se, mean + crit * se, n, sd, se, confidence, method)


def mean_difference_ci(
    a: Iterable[float | None], b: Iterable[float | None], *, confidence: float = 0.95
) -> MeanCI:
    """mean(a) - mean(b) of two independent samples, +- z * sqrt(s_a^2/n_a + s_b^2/n_b).

    The unpooled (Welch) standard error with a normal critical value; ``n`` is
    n_a + n_b. NaN interval unless both samples have two or more values.
    """
    x, y = _clean(a), _clean(b)
    n = int(x.size + y.size)
    if x.size == 0 or y.size == 0:
        return MeanCI(NAN, NAN, NAN, n, NAN, NAN, confidence, "normal (Welch SE)")
    diff = float(x.mean() - y.mean())
    if x.size < 2 or y.size < 2:
        return MeanCI(diff, NAN, NAN, n, NAN, NAN, confidence, "normal (Welch SE)")
    se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    z = _z(confidence)
    return MeanCI(diff, diff - z * se, diff + z * se, n, NAN, se, confidence, "normal (Welch SE)")


@dataclass(frozen=True)
class Correlation:
    """Association of paired ratings a, b; mean_diff = mean(a - b) (leniency of a)."""

    pearson: float
    spearman: float
    kendall: float
    mean_diff: float
    n: int
    pearson_p: float = NAN
    spearman_p: float = NAN
    kendall_p: float = NAN


def _floats(values: Sequence[float | None] | FloatArray) -> FloatArray:
    if isinstance(values, np.ndarray):
        return np.asarray(values, dtype=np.float64)
    return np.asarray([NAN if v is None else float(v) for v in values], dtype=np.float64)


def correlations(
    a: Sequence[float | None] | FloatArray, b: Sequence[float | None] | FloatArray
) -> Correlation:
    """Pearson, Spearman and Kendall tau-b of paired values, and mean(a - b).

    Pairs with a missing side are dropped. Fewer than two pairs, or a constant
    side, leave the coefficients NaN (they are 0/0); mean_diff needs one pair.
    """
    if len(a) != len(b):
        raise ValueError("a and b must be paired (equal length)")
    x, y = _floats(a), _floats(b)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = int(x.size)
    mean_diff = float((x - y).mean()) if n else NAN
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(NAN, NAN, NAN, mean_diff, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = stats.pearsonr(x, y)
        sr = stats.spearmanr(x, y)
        kt = stats.kendalltau(x, y)
    return Correlation(
        pearson=float(pr.statistic),
        spearman=float(sr.statistic),
        kendall=float(kt.statistic),
        mean_diff=mean_diff,
        n=n,
        pearson_p=float(pr.pvalue),
        spearman_p=float(sr.pvalue),
        kendall_p=float(kt.pvalue),
    )


def percentile_rank(value: float, population: Iterable[float | None]) -> float:
    """Percentile (0-100) of ``value`` among ``population``: (below + ties / 2) / n x 100.

    The mid-rank definition: a value equal to every member sits at 50, above
    all at 100, below all at 0. Missing members are dropped; an empty
    population gives NaN.
    """
    pop = _clean(population)
    if pop.size == 0 or not math.isfinite(value):
        return NAN
    below = float((pop < value).sum())
    ties = float((pop == value).sum())
    return 100.0 * (below + ties / 2) / pop.size
