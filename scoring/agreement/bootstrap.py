"""Percentile bootstrap confidence intervals, resampling units.

Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13
(percentile interval). The resampled entity is the unit (item, poem), as the
units are the sampled objects in reliability data; raters stay fixed. This
differs from Hayes & Krippendorff (2007), who resample pairable values
for alpha; resampling units keeps every coefficient on one footing.

Replicates in which a coefficient is undefined (e.g. every resampled unit got
one value, so alpha is 0/0) are dropped; ``n_valid`` says how many remained.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from .results import NAN, AgreementResult, ConfidenceInterval

if TYPE_CHECKING:
    from .table import FloatArray, IntArray, RatingTable

Seed = int | np.random.Generator | None
#: Upper bound on replicates x units held in memory at once (float64 cells).
CHUNK_CELLS = 2_000_000


def rng_from(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def draw_chunks(rng: np.random.Generator, n_items: int, n_boot: int) -> Iterator[IntArray]:
    """Yield (chunk x n_items) arrays of resampled item indices.

    Row b of the concatenation is replicate b; the stream is the same whatever
    the chunk size, so the generic and the vectorised paths agree exactly.
    """
    per_chunk = max(1, CHUNK_CELLS // max(n_items, 1))
    done = 0
    while done < n_boot:
        size = min(per_chunk, n_boot - done)
        yield rng.integers(0, n_items, size=(size, n_items))
        done += size


def draw_weights(draws: IntArray, n_items: int) -> FloatArray:
    """How many times each item was drawn in each replicate (chunk x n_items)."""
    rows = draws.shape[0]
    offset = (np.arange(rows, dtype=np.int64) * n_items)[:, None]
    flat = np.bincount((draws + offset).ravel(), minlength=rows * n_items)
    return flat.reshape(rows, n_items).astype(np.float64)


def percentile_interval(replicates: FloatArray, level: float, n_boot: int) -> ConfidenceInterval:
    """The (1-level)/2 and (1+level)/2 quantiles of the defined replicates."""
    if not 0 < level < 1:
        raise ValueError("confidence level must be between 0 and 1")
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return ConfidenceInterval(NAN, NAN, level, n_boot, 0)
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return ConfidenceInterval(float(low), float(high), level, n_boot, int(finite.size))


def bootstrap_ci(
    table: RatingTable,
    statistic: Callable[[RatingTable], float | AgreementResult],
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: Seed = None,
) -> ConfidenceInterval:
    """Generic percentile bootstrap over the table's units.

    ``statistic`` maps a RatingTable to a number (or an AgreementResult, whose
    ``value`` is used). Each replicate draws ``n_units`` units with
    replacement; a unit drawn twice enters twice, as a distinct unit.
    ``level`` here is the confidence level, not the level of measurement.
    """
    rng = rng_from(seed)
    out = np.full(n_boot, NAN)
    if table.n_units == 0 or n_boot <= 0:
        return percentile_interval(out, level, n_boot)
    b = 0
    for chunk in draw_chunks(rng, table.n_units, n_boot):
        for draws in chunk:
            value = statistic(table.resample_units(draws))
            out[b] = value.value if isinstance(value, AgreementResult) else float(value)
            b += 1
    return percentile_interval(out, level, n_boot)


@dataclass(frozen=True)
class Plan:
    """A point estimate plus how to bootstrap it.

    ``units`` are the indices of the resampled units (in the order the
    replicate function expects); ``replicate`` maps a (chunk x len(units))
    matrix of draw counts to one value per row. Plans over the same units
    share one stream of draws (``with_intervals``), so computing several
    coefficients costs one resampling pass, and each equals its standalone
    interval for the same seed.
    """

    result: AgreementResult
    units: IntArray | None = None
    replicate: Callable[[FloatArray], FloatArray] | None = None


def with_intervals(
    plans: list[Plan], *, n_boot: int, confidence: float, seed: Seed
) -> list[AgreementResult]:
    """Each plan's result with its percentile CI (n_boot > 0 and defined).

    Results with an analytic standard error get their t interval at ``confidence``.
    """
    out = [plan.result.with_t(confidence) for plan in plans]
    if n_boot <= 0:
        return out
    groups: dict[bytes, list[int]] = {}
    for i, plan in enumerate(plans):
        if plan.replicate is not None and plan.units is not None and plan.units.size:
            groups.setdefault(plan.units.tobytes(), []).append(i)
    for members in groups.values():
        n_items = int(cast("IntArray", plans[members[0]].units).size)
        values: dict[int, list[FloatArray]] = {i: [] for i in members}
        for chunk in draw_chunks(rng_from(seed), n_items, n_boot):
            weights = draw_weights(chunk, n_items)
            for i in members:
                values[i].append(
                    cast("Callable[[FloatArray], FloatArray]", plans[i].replicate)(weights)
                )
        for i in members:
            ci = percentile_interval(np.concatenate(values[i]), confidence, n_boot)
            out[i] = out[i].with_ci(ci)
    return out
