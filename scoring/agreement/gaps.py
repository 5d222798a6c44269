"""The "echo chamber" test: do judges forgive rule-breaking that people punish?

Poems are split by a rule into pass and fail. On the poems both the judges and the people
rated, with each poem's mean rating from each side:

    judge_gap  = mean judge rating of passing poems − of failing poems
    people_gap = the same for the people
    difference = judge_gap − people_gap   (negative: the judges punish rule-breaking less)

Interval (``method``): ``welch_hall`` (the report's): Welch's t interval of each gap and
of the difference (per poem, judge − people), corrected for skewness by Hall's (1992)
transformation with the skewness of the difference estimated from both sides' pooled
residuals (``skew_corrected_columns``; the same as Welch's with equal sides). Welch's
alone (``welch``) under-covers a small side against a large one on skewed data (89–93 %
at 3 poems against 10–20 on a gamma gap); the correction covers 93–97 % there
(bench/bench_welch.py, docs/statistics.md §24). On small sides the bootstrap below
covers a true zero only 81–86 % of the time at 3–5 poems a side (bench/bench_coverage.py);
``bootstrap``: a stratified percentile bootstrap over poems
(Efron & Tibshirani 1993, ch. 13; two samples, ch. 8): each replicate draws as many passing poems as there are, with
replacement, and as many failing ones, each drawn poem bringing both its judge and its
people mean (the poem is the cluster), and recomputes the three figures. With fewer than
``min_side`` poems on a side the interval is not estimable (a one-poem side would be
redrawn as itself every time, giving a spuriously tight interval): the point estimates
are kept and the intervals are NaN with the reason.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .bootstrap import Seed, draw_weights, percentile_interval, rng_from
from .table import FloatArray

NAN = math.nan
#: Fewest poems on a side for an interval, chosen by the coverage it gives: the smallest
#: side at which the skewness-corrected Welch interval covers 93–97 % in every simulated
#: cell of docs/statistics.md §24 (normal, skewed and 1–5 data, small against large sides,
#: unequal SDs: 93.5–96.8 % from 4 poems a side; at 3, 92.5–92.9 % with 3 poems against
#: 20–40 on normal and 1–5 data; bench/bench_welch.py --grid minside, §24.2).
MIN_SIDE = 4
CHUNK_CELLS = 2_000_000
METHOD = "stratified item bootstrap (percentile)"
WELCH = "Welch's t"
#: The report's interval for a difference of two means on small sides (§24).
WELCH_HALL = "Welch's t, skewness-corrected (Hall 1992)"
NO_VARIATION = (
    "not estimable: no variation on either side (a zero-width interval would be spurious)"
)


@dataclass(frozen=True)
class WelchCI:
    """mean(a) − mean(b) with Welch's (1947) t interval (unequal variances)."""

    diff: float
    ci_low: float
    ci_high: float
    se: float
    df: float
    mean_a: float
    mean_b: float
    n_a: int
    n_b: int
    reason: str | None


def welch_difference(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    *,
    confidence: float = 0.95,
    min_side: int = MIN_SIDE,
) -> WelchCI:
    """mean(a) − mean(b) of independent samples with Welch's t interval (scipy's
    ``ttest_ind(equal_var=False)``; Welch 1947, Satterthwaite 1946 degrees of freedom).

    Not estimable (NaN interval, the reason said) with fewer than ``min_side`` (at least
    2) values on a side, or when neither side varies: a zero-width interval is no
    interval."""
    return _welch_finite(_finite(a), _finite(b), confidence, min_side)


def _finite(values: Sequence[float] | FloatArray) -> FloatArray:
    x = np.asarray(values, dtype=np.float64)
    return x[np.isfinite(x)]


def _welch_finite(x: FloatArray, y: FloatArray, confidence: float, min_side: int) -> WelchCI:
    """``welch_difference`` of two samples already without non-finite values."""
    mx = float(x.mean()) if x.size else NAN
    my = float(y.mean()) if y.size else NAN
    reason = not_estimable(int(x.size), int(y.size), max(min_side, 2))
    if reason is None and np.ptp(x) == 0 and np.ptp(y) == 0:
        reason = NO_VARIATION
    if reason is not None:
        return WelchCI(mx - my, NAN, NAN, NAN, NAN, mx, my, int(x.size), int(y.size), reason)
    with warnings.catch_warnings():
        # one side constant (every poem rated 5): scipy warns of precision loss in its
        # variance, which is exactly 0 there; the interval comes from the other side
        warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
        res = stats.ttest_ind(x, y, equal_var=False)
        ci = res.confidence_interval(confidence)
    se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    return WelchCI(
        mx - my, float(ci.low), float(ci.high), se, float(res.df), mx, my,
        int(x.size), int(y.size), None,
    )  # fmt: skip


def corrected_difference(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    *,
    confidence: float = 0.95,
    min_side: int = MIN_SIDE,
) -> WelchCI:
    """mean(a) − mean(b) with Welch's t interval corrected for skewness (Hall's 1992
    transformation, the skewness of the difference from both sides' pooled residuals:
    ``skew_corrected_columns``) — the report's interval (method ``WELCH_HALL``). With
    equal sides it is Welch's interval (``welch_difference``). Not estimable as there."""
    x, y = _finite(a), _finite(b)
    w = _welch_finite(x, y, confidence, min_side)
    if w.reason is not None:
        return w
    low, high, _ = skew_corrected_columns(x[:, None], y[:, None], confidence=confidence)
    return WelchCI(
        w.diff, float(low[0]), float(high[0]), w.se, w.df, w.mean_a, w.mean_b, w.n_a, w.n_b,
        None,
    )  # fmt: skip


@dataclass(frozen=True)
class GapDifference:
    n_pass: int
    n_fail: int
    judge_pass: float
    judge_fail: float
    people_pass: float
    people_fail: float
    judge_gap: float
    people_gap: float
    difference: float
    judge_ci: tuple[float, float]
    people_ci: tuple[float, float]
    difference_ci: tuple[float, float]
    reason: str | None

    @property
    def estimable(self) -> bool:
        return self.reason is None


def not_estimable(n_pass: int, n_fail: int, min_side: int) -> str | None:
    """Why a pass/fail interval cannot be estimated, or None when it can."""
    short = [
        f"{name} = {n}" for name, n in (("n_pass", n_pass), ("n_fail", n_fail)) if n < min_side
    ]
    if not short:
        return None
    return f"not estimable: fewer than {min_side} poems on a side ({', '.join(short)})"


def _means(rng: np.random.Generator, cols: FloatArray, n_boot: int) -> FloatArray:
    """n_boot x cols.shape[1] means of rows drawn with replacement (one draw for all cols):
    each chunk of draws as counts per row, times the rows, in one matrix product."""
    n = cols.shape[0]
    out = np.empty((n_boot, cols.shape[1]))
    per_chunk = max(1, CHUNK_CELLS // max(n, 1))
    for start in range(0, n_boot, per_chunk):
        size = min(per_chunk, n_boot - start)
        draws = rng.integers(0, n, size=(size, n))
        out[start : start + size] = draw_weights(draws, n) @ cols / n
    return out


def gap_difference(
    judge_pass: Sequence[float],
    people_pass: Sequence[float],
    judge_fail: Sequence[float],
    people_fail: Sequence[float],
    *,
    min_side: int = MIN_SIDE,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
    method: str = "bootstrap",
) -> GapDifference:
    """The judges' gap, the people's gap and their difference, with item-bootstrap CIs.

    ``judge_pass[i]`` and ``people_pass[i]`` are the same passing poem's means (and so
    for the failing poems).
    """
    passing = np.column_stack([np.asarray(judge_pass, float), np.asarray(people_pass, float)])
    failing = np.column_stack([np.asarray(judge_fail, float), np.asarray(people_fail, float)])
    return gap_differences(
        passing,
        failing,
        min_side=min_side,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
        method=method,
    )[0]


def _pair(
    sizes: tuple[int, int],
    mp: FloatArray,
    mf: FloatArray,
    j: int,
    cis: Sequence[tuple[float, float]],
    reason: str | None,
) -> GapDifference:
    """Pair j's result (its judge means in column 2j, its people means in 2j + 1)."""
    a, b = 2 * j, 2 * j + 1
    judge_gap, people_gap = float(mp[a] - mf[a]), float(mp[b] - mf[b])
    return GapDifference(
        sizes[0],
        sizes[1],
        float(mp[a]),
        float(mf[a]),
        float(mp[b]),
        float(mf[b]),
        judge_gap,
        people_gap,
        judge_gap - people_gap,
        cis[0],
        cis[1],
        cis[2],
        reason,
    )


def gap_differences(
    passing: FloatArray,
    failing: FloatArray,
    *,
    min_side: int = MIN_SIDE,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
    method: str = "bootstrap",
) -> list[GapDifference]:
    """``gap_difference`` for several (judge, people) pairs rated on the same poems:
    column 2k is pair k's judge means, column 2k + 1 its people means (rows: the passing,
    resp. failing, poems). One set of bootstrap draws serves every pair, exactly the
    draws ``gap_difference`` makes for one pair with the same seed, so each result
    equals its own call, at the cost of one matrix product for all of them."""
    n_pass, n_fail = passing.shape[0], failing.shape[0]
    k = passing.shape[1] // 2
    mp = passing.mean(axis=0) if n_pass else np.full(2 * k, NAN)
    mf = failing.mean(axis=0) if n_fail else np.full(2 * k, NAN)
    reason = not_estimable(n_pass, n_fail, min_side)
    if method in ("welch", "welch_hall"):
        return _welch_gaps(passing, failing, mp, mf, min_side, confidence, method)
    reps = None
    if reason is None and n_boot > 0:
        rng = rng_from(seed)
        reps = _means(rng, passing, n_boot) - _means(rng, failing, n_boot)
    bounds = None
    if reps is not None:
        # judge gap, people gap, their difference: 3 columns per pair, all quantiles at once
        # (the same as ``percentile_interval`` column by column when every replicate is
        # finite, which means of finite ratings are; otherwise column by column)
        stack = np.concatenate([reps[:, 0::2], reps[:, 1::2], reps[:, 0::2] - reps[:, 1::2]], 1)
        if np.isfinite(stack).all():
            bounds = np.quantile(stack, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
        else:
            each = [percentile_interval(c, confidence, n_boot) for c in stack.T]
            bounds = np.array([[ci.low for ci in each], [ci.high for ci in each]])
    out = []
    for j in range(k):
        nan2 = (NAN, NAN)
        cis = [nan2, nan2, nan2]
        if bounds is not None:
            cis = [(float(bounds[0, c]), float(bounds[1, c])) for c in (j, k + j, 2 * k + j)]
        out.append(_pair((n_pass, n_fail), mp, mf, j, cis, reason))
    return out


def _flat(a: FloatArray, b: FloatArray, se2: FloatArray) -> np.ndarray:
    """Columns where neither side varies (as ``welch_difference`` decides it: every value
    equal, not a variance of 0, which rounding of the mean makes ~1e-34 instead)."""
    same = (np.ptp(a, axis=0) == 0) & (np.ptp(b, axis=0) == 0)
    return np.asarray(same | ~(se2 > 0))


def welch_columns(
    a: FloatArray, b: FloatArray, *, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray, np.ndarray]:
    """Welch's t interval of mean(a[:, k]) − mean(b[:, k]) for every column k at once
    (the arithmetic of scipy's ``ttest_ind(equal_var=False)``, vectorised; tested equal):
    (low, high, no_variation). Both sides need 2 or more rows."""
    diff, se, t, flat = _welch_parts(a, b, confidence, "t")
    half = t * se
    low = np.where(flat, NAN, diff - half)
    high = np.where(flat, NAN, diff + half)
    return low, high, flat


def _welch_parts(
    a: FloatArray, b: FloatArray, confidence: float, critical: str
) -> tuple[FloatArray, FloatArray, FloatArray, np.ndarray]:
    """Per column: the difference of the means, Welch's SE, the critical value (Student's
    t on Satterthwaite's df, ``critical="t"``, or the normal one, ``"z"``) and whether
    neither side varies (``_flat``)."""
    n1, n2 = a.shape[0], b.shape[0]
    v1 = a.var(axis=0, ddof=1) / n1
    v2 = b.var(axis=0, ddof=1) / n2
    se2 = v1 + v2
    flat = _flat(a, b, se2)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = se2**2 / (v1**2 / (n1 - 1) + v2**2 / (n2 - 1))
        if critical == "t":
            c = stats.t.ppf((1 + confidence) / 2, df)
        else:
            c = np.full_like(se2, stats.norm.ppf((1 + confidence) / 2))
    return a.mean(axis=0) - b.mean(axis=0), np.sqrt(se2), c, flat


def _welch_gaps(
    passing: FloatArray,
    failing: FloatArray,
    mp: FloatArray,
    mf: FloatArray,
    min_side: int,
    confidence: float,
    method: str = "welch",
) -> list[GapDifference]:
    """Welch's t intervals of each pair's judge gap, people gap and their difference (the
    difference as the Welch interval of the per-poem judge − people means), every pair's
    columns at once (``welch_columns``; ``method="welch_hall"``: corrected for skewness,
    ``skew_corrected_columns``)."""
    k = passing.shape[1] // 2
    n_pass, n_fail = passing.shape[0], failing.shape[0]
    reason = not_estimable(n_pass, n_fail, max(min_side, 2))
    nan = np.full(3 * k, NAN)
    low, high, flat = nan, nan, np.zeros(3 * k, dtype=bool)
    if reason is None:
        cols_p = np.concatenate([passing, passing[:, 0::2] - passing[:, 1::2]], axis=1)
        cols_f = np.concatenate([failing, failing[:, 0::2] - failing[:, 1::2]], axis=1)
        columns = skew_corrected_columns if method == "welch_hall" else welch_columns
        low, high, flat = columns(cols_p, cols_f, confidence=confidence)
    out = []
    for j in range(k):
        a, b, d = 2 * j, 2 * j + 1, 2 * k + j
        why = reason if reason is not None else (NO_VARIATION if flat[d] else None)
        cis = [(float(low[c]), float(high[c])) for c in (a, b, d)]
        out.append(_pair((n_pass, n_fail), mp, mf, j, cis, why))
    return out


def _third_cumulant(x: FloatArray) -> FloatArray:
    """The unbiased third cumulant k3 = n Σ(x − x̄)³ / ((n − 1)(n − 2)) of each column."""
    n = x.shape[0]
    k3 = n * ((x - x.mean(axis=0)) ** 3).sum(axis=0) / ((n - 1) * (n - 2))
    return np.asarray(k3, dtype=np.float64)


def pooled_skewness(a: FloatArray, b: FloatArray) -> FloatArray:
    """The adjusted sample skewness G1 = √(n(n − 1))/(n − 2) · m3/m2^1.5 of the residuals
    of both sides pooled (each side centred on its own mean; n = n_a + n_b), per column;
    0 where the residuals do not vary."""
    res = np.concatenate([a - a.mean(axis=0), b - b.mean(axis=0)], axis=0)
    n = res.shape[0]
    m2, m3 = (res**2).mean(axis=0), (res**3).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = np.where(m2 > 0, m3 / m2**1.5, 0.0)
    return np.asarray(g1 * math.sqrt(n * (n - 1)) / (n - 2), dtype=np.float64)


def difference_skewness(a: FloatArray, b: FloatArray, moments: str = "shape") -> FloatArray:
    """An estimate of the skewness λ of D = mean(a) − mean(b), per column.

    λ = (κ3(a)/n_a² − κ3(b)/n_b²) / (σ²_a/n_a + σ²_b/n_b)^1.5. ``shape`` (the default):
    both sides share one shape and one scale, so λ = γ (1/n_a² − 1/n_b²) /
    (1/n_a + 1/n_b)^1.5 with γ the pooled skewness (``pooled_skewness``): 0 with equal
    sides, and the small side's skewness judged from both sides' residuals. ``k3``: each
    side's unbiased third cumulant and variance; ``m3``: their plug-in third moments;
    ``pooled``: one standardised skewness of both sides' standardised residuals, each side
    its own variance."""
    n1, n2 = a.shape[0], b.shape[0]
    if moments == "shape":
        scale = (1 / n1**2 - 1 / n2**2) / (1 / n1 + 1 / n2) ** 1.5
        return np.asarray(pooled_skewness(a, b) * scale, dtype=np.float64)
    s1, s2 = a.var(axis=0, ddof=1), b.var(axis=0, ddof=1)
    if moments == "k3":
        k1, k2 = _third_cumulant(a), _third_cumulant(b)
    elif moments == "m3":
        k1 = ((a - a.mean(axis=0)) ** 3).mean(axis=0)
        k2 = ((b - b.mean(axis=0)) ** 3).mean(axis=0)
    elif moments == "pooled":
        with np.errstate(divide="ignore", invalid="ignore"):
            r1 = np.where(s1 > 0, ((a - a.mean(axis=0)) / np.sqrt(s1)) ** 3, 0.0)
            r2 = np.where(s2 > 0, ((b - b.mean(axis=0)) / np.sqrt(s2)) ** 3, 0.0)
        count = np.maximum((s1 > 0) * n1 + (s2 > 0) * n2, 1)
        gamma = (r1.sum(axis=0) + r2.sum(axis=0)) / count
        k1, k2 = gamma * s1**1.5, gamma * s2**1.5
    else:
        raise ValueError(f"unknown moments: {moments!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (k1 / n1**2 - k2 / n2**2) / (s1 / n1 + s2 / n2) ** 1.5
    return np.where(np.isfinite(lam), lam, 0.0)


def hall_quantile(u: FloatArray | float, lam: FloatArray) -> FloatArray:
    """The inverse of Hall's (1992) transformation g(t) = t + λt²/3 + λ²t³/27 + λ/6
    (= ((1 + λt/3)³ − 1)/λ + λ/6, increasing for every λ):
    t = 3((1 + λ(u − λ/6))^⅓ − 1)/λ, and u itself at λ = 0."""
    small = np.abs(lam) < 1e-12
    safe = np.where(small, 1.0, lam)
    t = 3 * (np.cbrt(1 + safe * (u - safe / 6)) - 1) / safe
    return np.where(small, u, t)


def skew_corrected_columns(
    a: FloatArray,
    b: FloatArray,
    *,
    confidence: float = 0.95,
    moments: str = "shape",
    critical: str = "t",
) -> tuple[FloatArray, FloatArray, np.ndarray]:
    """Welch's t interval of mean(a[:, k]) − mean(b[:, k]) corrected for skewness, every
    column at once: (low, high, no_variation). Both sides need 2 or more rows (3 for
    ``moments="k3"``).

    T = (D − δ)/SE, D the difference of the means and SE Welch's, has E T ≈ −λ/2 and
    third cumulant ≈ −2λ, λ the skewness of D (as the one-sample studentised mean,
    whose λ is γ/√n). Hall's (1992) monotone cubic g(T) = T + λT²/3 + λ²T³/27 + λ/6
    removes that O(n^-½) skewness; with λ estimated (``difference_skewness``) the
    interval is [D − SE·g⁻¹(c), D − SE·g⁻¹(−c)], c Welch's t quantile on Satterthwaite's
    df (``critical="t"``) or the normal one (``"z"``, Hall's own). With equal sides and
    ``moments="shape"`` λ = 0 and it is Welch's interval. Chosen by simulation
    (bench/bench_welch.py, docs/statistics.md §24)."""
    diff, se, c, flat = _welch_parts(a, b, confidence, critical)
    lam = np.where(flat, 0.0, difference_skewness(a, b, moments))
    low = np.where(flat, NAN, diff - se * hall_quantile(c, lam))
    high = np.where(flat, NAN, diff - se * hall_quantile(-c, lam))
    return low, high, flat
