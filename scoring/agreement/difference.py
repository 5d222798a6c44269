"""Difference of two independent means with a stratified percentile-bootstrap CI.

For the report's rules-vs-ratings gap (the "echo chamber" test): the mean rating of
poems that pass a rule minus the mean rating of poems that fail it. Each replicate
draws, with replacement, as many values from ``a`` as ``a`` has and as many from
``b`` as ``b`` has (a stratified bootstrap: both sample sizes stay fixed), and takes
the difference of the two means; the interval is the (1 − c)/2 and (1 + c)/2
quantiles of the replicates (Efron & Tibshirani 1993, ch. 13, percentile interval;
two-sample case ch. 8). The values are typically per-item means, so the resampled
entity is the item.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .bootstrap import Seed, rng_from
from .table import FloatArray

NAN = math.nan
#: Upper bound on replicates x values drawn at once.
CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class MeanDifference:
    """mean(a) − mean(b) with its bootstrap interval (NaN where undefined)."""

    diff: float
    ci_low: float
    ci_high: float
    mean_a: float
    mean_b: float
    n_a: int
    n_b: int
    confidence: float
    n_boot: int


def _clean(values: Iterable[float | None]) -> FloatArray:
    arr = np.asarray([NAN if v is None else float(v) for v in values], dtype=np.float64)
    return arr[np.isfinite(arr)]


def replicate_means(rng: np.random.Generator, x: FloatArray, n_boot: int) -> FloatArray:
    """``n_boot`` means of ``x.size`` values drawn from ``x`` with replacement."""
    out = np.empty(n_boot, dtype=np.float64)
    per_chunk = max(1, CHUNK_CELLS // max(x.size, 1))
    for start in range(0, n_boot, per_chunk):
        size = min(per_chunk, n_boot - start)
        draws = rng.integers(0, x.size, size=(size, x.size))
        out[start : start + size] = x[draws].mean(axis=1)
    return out


def bootstrap_mean_difference(
    a: Iterable[float | None],
    b: Iterable[float | None],
    *,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
) -> MeanDifference:
    """mean(a) − mean(b), CI from ``n_boot`` stratified resamples (seedable).

    Missing values are dropped. Either side empty: NaN throughout. A side with one
    value resamples to itself (its mean is fixed); ``n_boot=0`` gives no interval.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    x, y = _clean(a), _clean(b)
    if x.size == 0 or y.size == 0:
        mean_x = float(x.mean()) if x.size else NAN
        mean_y = float(y.mean()) if y.size else NAN
        return MeanDifference(
            NAN, NAN, NAN, mean_x, mean_y, int(x.size), int(y.size), confidence, n_boot
        )
    diff = float(x.mean() - y.mean())
    low = high = NAN
    if n_boot > 0:
        rng = rng_from(seed)
        reps = replicate_means(rng, x, n_boot) - replicate_means(rng, y, n_boot)
        q = np.quantile(reps, [(1 - confidence) / 2, (1 + confidence) / 2])
        low, high = float(q[0]), float(q[1])
    return MeanDifference(
        diff,
        low,
        high,
        float(x.mean()),
        float(y.mean()),
        int(x.size),
        int(y.size),
        confidence,
        n_boot,
    )
