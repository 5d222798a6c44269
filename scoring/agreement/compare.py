"""Comparing two raters (or rater sets) on the items both answered, with inference.

* **McNemar's exact test** (McNemar 1947; the exact binomial form of Edwards 1948 /
  Fay 2010): for two raters who each answered every shared item once, right/wrong, only
  the discordant items count: n10 (a right, b wrong) and n01; under no difference n10 ~
  Binomial(n10 + n01, 1/2). p = scipy's two-sided ``binomtest``.
* **Paired cluster bootstrap** of a difference of means (Davison & Hinkley 1997, §3.8;
  crossed: Owen 2007): each replicate draws the shared items with replacement (each
  with every answer both sides gave it: the pairing is kept) and, independently, the
  people of each side (a side with one rater — a model — keeps it); an answer's weight
  is (times its item was drawn) × (times its person was drawn); each side's mean is
  recomputed (a ratio of weighted sums: an accuracy, a mean rating). Percentile interval;
  the p-value is the Wald p of the difference over the bootstrap standard error.
* **Effect sizes**: the risk difference (accuracy a − accuracy b) and Cohen's (1988) h
  = 2 asin √p_a − 2 asin √p_b.
* **Multiplicity**: Holm's (1979) step-down and Benjamini & Hochberg's (1995) step-up
  adjusted p-values across a family of comparisons (NaN p-values stay NaN and are not
  counted).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse, stats

from .bootstrap import Seed, draw_weights, rng_from
from .table import FloatArray

NAN = math.nan
BOOTSTRAP = "paired item × person bootstrap (percentile)"
#: A bootstrap standard error (or a difference) at most this share of the values' level
#: (mean |replicate|, or |diff| if larger) is zero up to rounding: replicates that all
#: agree leave std ~1e-17, not 0. Not ``crossed.ZERO_VARIANCE``, which is a share of a
#: variance (squared units) of the independent-answers variance; this is a share in the
#: values' own units of their size, as a standard error compares with the difference.
ZERO_SPREAD = 1e-9


@dataclass(frozen=True)
class McNemar:
    n10: int  # a right, b wrong
    n01: int  # a wrong, b right
    p_value: float


def mcnemar_exact(a: Sequence[float] | FloatArray, b: Sequence[float] | FloatArray) -> McNemar:
    """McNemar's exact test of two paired 0/1 vectors (a[i], b[i]: the same item)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError("a and b must pair up: the same items in the same order")
    n10 = int(((x == 1) & (y == 0)).sum())
    n01 = int(((x == 0) & (y == 1)).sum())
    if n10 + n01 == 0:
        return McNemar(n10, n01, 1.0)
    p = float(stats.binomtest(n10, n10 + n01, 0.5).pvalue)
    return McNemar(n10, n01, min(1.0, p))


def cohens_h(p_a: float, p_b: float) -> float:
    return 2 * math.asin(math.sqrt(p_a)) - 2 * math.asin(math.sqrt(p_b))


@dataclass(frozen=True)
class PairedDifference:
    value_a: float
    value_b: float
    diff: float
    ci_low: float
    ci_high: float
    se: float
    p_value: float
    n_items: int
    n_valid: int


def _ratio(
    values: FloatArray,
    item_w: FloatArray,
    person_w: FloatArray,
    items: np.ndarray,
    people: np.ndarray,
) -> FloatArray:
    """Each replicate's weighted mean Σ c_item e_person y / Σ c_item e_person, through
    people × items sparse sums (memory: replicates × items, not × answers)."""
    shape = (person_w.shape[1], item_w.shape[1])
    sums = sparse.csr_array((values, (people, items)), shape=shape)
    counts = sparse.csr_array((np.ones_like(values), (people, items)), shape=shape)
    num = np.einsum("rj,jr->r", item_w, sums.T @ person_w.T)
    den = np.einsum("rj,jr->r", item_w, counts.T @ person_w.T)
    return np.asarray(num / den, dtype=np.float64)


def paired_bootstrap(
    values: Sequence[float] | FloatArray,
    items: Sequence[int] | np.ndarray,
    people: Sequence[int] | np.ndarray,
    side: Sequence[int] | np.ndarray,
    *,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
) -> PairedDifference:
    """mean(values | side 0) − mean(values | side 1) over the shared items, with the
    paired item × person bootstrap (module doc). ``items`` and ``people`` are codes
    (any integers); ``side`` is 0 or 1 per answer."""
    y = np.asarray(values, dtype=np.float64)
    s = np.asarray(side)
    _, it = np.unique(np.asarray(items), return_inverse=True)
    n_items = int(it.max()) + 1 if it.size else 0
    a, b = s == 0, s == 1
    mean_a = float(y[a].mean()) if a.any() else NAN
    mean_b = float(y[b].mean()) if b.any() else NAN
    diff = mean_a - mean_b
    if n_boot <= 0 or n_items < 2 or not (a.any() and b.any()):
        return PairedDifference(mean_a, mean_b, diff, NAN, NAN, NAN, NAN, n_items, 0)
    rng = rng_from(seed)
    item_w = draw_weights(rng.integers(0, n_items, (n_boot, n_items)), n_items)
    reps = np.zeros(n_boot)
    for mask, sign in ((a, 1.0), (b, -1.0)):
        _, pe = np.unique(np.asarray(people)[mask], return_inverse=True)
        g = int(pe.max()) + 1
        person_w = (
            draw_weights(rng.integers(0, g, (n_boot, g)), g) if g > 1 else np.ones((n_boot, 1))
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            reps += sign * _ratio(y[mask], item_w, person_w, it[mask], pe)
    ok = reps[np.isfinite(reps)]
    if ok.size < max(10, n_boot // 2):
        return PairedDifference(mean_a, mean_b, diff, NAN, NAN, NAN, NAN, n_items, int(ok.size))
    q = np.quantile(ok, [(1 - confidence) / 2, (1 + confidence) / 2])
    se = float(ok.std(ddof=1))
    # every replicate the same up to rounding: no spread, as at 0
    tiny = ZERO_SPREAD * max(float(np.abs(ok).mean()), abs(diff), np.finfo(float).tiny)
    if se <= tiny:
        p = 1.0 if abs(diff) <= tiny else 0.0
    else:
        p = float(2 * stats.norm.sf(abs(diff) / se))
    return PairedDifference(
        mean_a, mean_b, diff, float(q[0]), float(q[1]), se, p, n_items, int(ok.size)
    )


def _ascending(p_values: Sequence[float] | FloatArray) -> tuple[FloatArray, np.ndarray]:
    """The p-values as floats, and the positions of the finite ones from the smallest up
    (ties in their order): the family an adjustment counts (NaN is not counted)."""
    p = np.asarray(p_values, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(p))
    return p, ok[np.argsort(p[ok], kind="stable")]


def holm(p_values: Sequence[float] | FloatArray) -> FloatArray:
    """Holm's (1979) step-down adjusted p-values (NaN kept, not counted)."""
    p, order = _ascending(p_values)
    out = np.full(p.shape, NAN)
    m = order.size
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def benjamini_hochberg(p_values: Sequence[float] | FloatArray) -> FloatArray:
    """Benjamini & Hochberg's (1995) step-up adjusted p-values (NaN kept, not counted)."""
    p, order = _ascending(p_values)
    out = np.full(p.shape, NAN)
    m = order.size
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m * p[i] / (rank + 1))
        out[i] = min(1.0, running)
    return out
