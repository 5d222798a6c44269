"""Agreement weights between categories: the family of Gwet (2014) and his irrCAC package.

Source: K. L. Gwet (2014), "Handbook of Inter-Rater Reliability", 4th ed., ch. 3
(weighted coefficients, table 3.6.1), as implemented in irrCAC's ``weights.gen.r``.
A weight w_kl in [0, 1] says how much a pair of ratings (k, l) counts as agreement;
w_kk = 1. The scores x_k are the categories' numeric values when the domain is
numeric, else their positions 1..q (so a declared scale 1..5 gives the same weights
either way). With x_min, x_max the extreme scores:

    identity   w = [k == l]                      (the unweighted coefficients)
    linear     1 - |x_k - x_l| / (x_max - x_min)
    quadratic  1 - (x_k - x_l)^2 / (x_max - x_min)^2
    radical    1 - sqrt|x_k - x_l| / sqrt(x_max - x_min)
    ratio      1 - ((x_k - x_l) / (x_k + x_l))^2 / ((x_max - x_min) / (x_max + x_min))^2
    circular   1 - sin^2(pi (x_k - x_l) / U) / max, U = x_max - x_min + 1
    bipolar    1 - d_kl / max d, d_kl = (x_k - x_l)^2 / ((x_k + x_l - 2 x_min)(2 x_max - x_k - x_l))
    ordinal    1 - m_kl / max m, m_kl = C(|k - l| + 1, 2) on positions (values ignored)
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Literal, cast

import numpy as np

from .coding import FloatArray

WeightName = Literal[
    "none", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"
]
#: Every weighting, "none" (identity) first; the order is the report's.
WEIGHT_NAMES: tuple[WeightName, ...] = (
    "none",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)


def check_weights(name: str) -> WeightName:
    """``name`` as a WeightName, or ValueError naming the valid ones."""
    if name in WEIGHT_NAMES:
        return cast(WeightName, name)
    raise ValueError(f"weights must be one of {', '.join(WEIGHT_NAMES)}, not {name!r}")


def _scaled_off_diagonal(d: FloatArray) -> FloatArray:
    """1 - d / max(d); identity when every d is 0 (a single category)."""
    top = float(d.max()) if d.size else 0.0
    out: FloatArray = 1.0 - d / top if top > 0 else np.eye(d.shape[0])
    return out


def _span(x: FloatArray) -> float:
    return float(x.max() - x.min()) if x.size else 0.0


def _linear(x: FloatArray) -> FloatArray:
    return _scaled_off_diagonal(np.abs(x[:, None] - x[None, :]))


def _quadratic(x: FloatArray) -> FloatArray:
    return _scaled_off_diagonal((x[:, None] - x[None, :]) ** 2)


def _radical(x: FloatArray) -> FloatArray:
    return _scaled_off_diagonal(np.sqrt(np.abs(x[:, None] - x[None, :])))


def _ratio(x: FloatArray) -> FloatArray:
    if np.any(x <= 0) and x.size > 1:
        raise ValueError("ratio weights need positive category values (x_k + x_l > 0)")
    s = x[:, None] + x[None, :]
    d = ((x[:, None] - x[None, :]) / s) ** 2
    top = (_span(x) / float(x.max() + x.min())) ** 2 if x.size else 0.0
    out: FloatArray = 1.0 - d / top if top > 0 else np.eye(x.size)
    return out


def _circular(x: FloatArray) -> FloatArray:
    u = _span(x) + 1.0
    return _scaled_off_diagonal(np.sin(np.pi * (x[:, None] - x[None, :]) / u) ** 2)


def _bipolar(x: FloatArray) -> FloatArray:
    lo, hi = float(x.min()), float(x.max())
    s = x[:, None] + x[None, :]
    den = (s - 2 * lo) * (2 * hi - s)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(np.eye(x.size, dtype=bool), 0.0, (x[:, None] - x[None, :]) ** 2 / den)
    return _scaled_off_diagonal(d)


def _ordinal(x: FloatArray) -> FloatArray:
    i = np.arange(x.size, dtype=np.float64)
    n = np.abs(i[:, None] - i[None, :]) + 1.0
    return _scaled_off_diagonal(n * (n - 1.0) / 2.0)


_BUILDERS: dict[str, Callable[[FloatArray], FloatArray]] = {
    "linear": _linear,
    "quadratic": _quadratic,
    "ordinal": _ordinal,
    "radical": _radical,
    "ratio": _ratio,
    "circular": _circular,
    "bipolar": _bipolar,
}


def weight_matrix(scores: FloatArray, name: str) -> FloatArray:
    """The q x q agreement-weight matrix of ``name`` for categories with these scores.

    ``scores`` are the categories' values in domain order (positions 1..q for
    labels). A single category gives the 1 x 1 identity.
    """
    weights = check_weights(name)
    x = np.asarray(scores, dtype=np.float64)
    if weights == "none" or x.size < 2:
        return np.eye(x.size)
    return _BUILDERS[weights](x)


def category_scores(domain: tuple[object, ...]) -> FloatArray:
    """Numeric values of the categories when all are numbers, else positions 1..q."""
    if all(isinstance(v, Real) and not isinstance(v, bool) for v in domain):
        return np.asarray([float(cast(Real, v)) for v in domain], dtype=np.float64)
    return np.arange(1, len(domain) + 1, dtype=np.float64)
