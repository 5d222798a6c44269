"""Classical item analysis of keyed questions: difficulty, discrimination, distractors.

Sources: F. M. Lord & M. R. Novick (1968), *Statistical Theories of Mental Test Scores*,
ch. 15 (item difficulty as the proportion right; the item–test point-biserial, and its
correction for the item's own part in the total); T. L. Kelley (1939), "The selection of
upper and lower groups for the validation of test items", J. Educ. Psych. 30:17-24 (the
upper and lower 27 % groups and the discrimination index D = p_upper − p_lower);
S. M. Haladyna & M. C. Rodriguez (2013), *Developing and Validating Test Items*, ch. 17
(distractor analysis: a distractor should draw the weak more than the strong, i.e. a
negative point-biserial).

Inputs are one response per (person, unit): a *unit* is a keyed question part (an
item's field). For each response the person's **rest score** is their share right on
their other responses of the same test (so that it stays comparable when people answer
different subsets of a large pool; with a complete design it is the corrected total
divided by a constant, which leaves correlations unchanged):

* ``difficulty`` p: the share right;
* ``discrimination``: the corrected item–rest point-biserial, Pearson's r between
  right (1/0) and the rest score over the unit's respondents with another response;
* ``d_index``: Kelley's D with upper and lower groups the top and bottom 27 % of
  people by their share right on the whole test;
* per option: the share choosing it, its point-biserial with the rest score, and its
  share among the upper and the lower group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .table import FloatArray

NAN = math.nan
KELLEY = 0.27


@dataclass(frozen=True)
class ItemStats:
    n: np.ndarray  # respondents per unit
    difficulty: FloatArray
    discrimination: FloatArray  # corrected item–rest point-biserial
    n_rest: np.ndarray  # respondents with a rest score (another response)
    d_index: FloatArray
    n_upper: np.ndarray
    n_lower: np.ndarray


@dataclass(frozen=True)
class OptionStats:
    share: FloatArray  # units × options
    point_biserial: FloatArray
    share_upper: FloatArray
    share_lower: FloatArray


def _pearson(
    groups: np.ndarray, x: FloatArray, y: FloatArray, n_groups: int
) -> tuple[FloatArray, np.ndarray]:
    """Pearson's r of x and y within each group (vectorised sums); NaN when undefined."""
    n = np.bincount(groups, minlength=n_groups).astype(np.float64)
    sx = np.bincount(groups, x, n_groups)
    sy = np.bincount(groups, y, n_groups)
    sxx = np.bincount(groups, x * x, n_groups)
    syy = np.bincount(groups, y * y, n_groups)
    sxy = np.bincount(groups, x * y, n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        cov = sxy - sx * sy / n
        vx = sxx - sx * sx / n
        vy = syy - sy * sy / n
        r = cov / np.sqrt(vx * vy)
    tiny = (vx <= 1e-12 * np.maximum(n, 1)) | (vy <= 1e-12 * np.maximum(n, 1)) | (n < 2)
    r = np.where(tiny, NAN, np.clip(r, -1.0, 1.0))
    return r.astype(np.float64), n.astype(np.int64)


def rest_scores(person: np.ndarray, correct: FloatArray) -> FloatArray:
    """Each response's person's share right on their other responses (NaN: none)."""
    codes, p = np.unique(person, return_inverse=True)
    total = np.bincount(p, correct, codes.size)
    count = np.bincount(p, minlength=codes.size).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = (total[p] - correct) / (count[p] - 1)
    return np.where(count[p] > 1, rest, NAN).astype(np.float64)


def kelley_groups(person: np.ndarray, correct: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """Per response: is its person in the upper / lower 27 % by share right on the test.

    People are ordered by share right (ties broken by person id, so the groups have
    exactly round(27 % × people) members each); with fewer than 4 people both are empty.
    """
    codes, p = np.unique(person, return_inverse=True)
    share = np.bincount(p, correct, codes.size) / np.bincount(p, minlength=codes.size)
    size = round(KELLEY * codes.size) if codes.size >= 4 else 0
    order = np.lexsort((codes, share))  # ascending share
    lower = np.zeros(codes.size, dtype=bool)
    upper = np.zeros(codes.size, dtype=bool)
    if size:
        lower[order[:size]] = True
        upper[order[-size:]] = True
    return upper[p], lower[p]


def item_analysis(
    person: np.ndarray,
    unit: np.ndarray,
    correct: FloatArray,
    n_units: int,
) -> ItemStats:
    """Difficulty and discrimination of each unit (codes 0..n_units-1; module doc)."""
    x = np.asarray(correct, dtype=np.float64)
    u = np.asarray(unit, dtype=np.int64)
    n = np.bincount(u, minlength=n_units)
    with np.errstate(divide="ignore", invalid="ignore"):
        difficulty = np.where(n > 0, np.bincount(u, x, n_units) / n, NAN)
    rest = rest_scores(person, x)
    has = np.isfinite(rest)
    r, n_rest = _pearson(u[has], x[has], rest[has], n_units)
    upper, lower = kelley_groups(person, x)
    n_up = np.bincount(u[upper], minlength=n_units)
    n_lo = np.bincount(u[lower], minlength=n_units)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_up = np.bincount(u[upper], x[upper], n_units) / n_up
        p_lo = np.bincount(u[lower], x[lower], n_units) / n_lo
    d = np.where((n_up > 0) & (n_lo > 0), p_up - p_lo, NAN)
    return ItemStats(n, difficulty.astype(np.float64), r, n_rest, d, n_up, n_lo)


def option_analysis(
    person: np.ndarray,
    unit: np.ndarray,
    correct: FloatArray,
    chosen: np.ndarray,
    n_units: int,
    n_options: int,
) -> OptionStats:
    """Share, point-biserial with the rest score, and upper/lower shares of every option
    of every unit (arrays units × options; ``chosen`` is each response's option index)."""
    x = np.asarray(correct, dtype=np.float64)
    u = np.asarray(unit, dtype=np.int64)
    c = np.asarray(chosen, dtype=np.int64)
    if np.any((c < 0) | (c >= n_options)):
        raise ValueError(f"an option index outside 0..{n_options - 1}")
    n = np.bincount(u, minlength=n_units).astype(np.float64)
    cell = u * n_options + c
    size = n_units * n_options
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.bincount(cell, minlength=size).reshape(n_units, n_options) / n[:, None]
    rest = rest_scores(person, x)
    has = np.isfinite(rest)
    pbis = np.full((n_units, n_options), NAN)
    for o in range(n_options):
        picked = (c[has] == o).astype(np.float64)
        r, _ = _pearson(u[has], picked, rest[has], n_units)
        pbis[:, o] = r
    upper, lower = kelley_groups(person, x)

    def shares(mask: np.ndarray) -> FloatArray:
        counts = np.bincount(cell[mask], minlength=size).reshape(n_units, n_options)
        total = np.bincount(u[mask], minlength=n_units).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (counts / total[:, None]).astype(np.float64)

    return OptionStats(share.astype(np.float64), pbis, shares(upper), shares(lower))
