"""RatingTable: sparse storage of reliability data for agreement statistics.

Reliability data in the sense of Krippendorff (2011, "Computing Krippendorff's
Alpha-Reliability", section A): raters (coders) assign values to units; a
missing rating is simply an absent row. The table stores one row per rating as
three parallel integer arrays (unit, rater, value codes), so memory grows with
the number of ratings, never with raters x units. From it come the
units x values count matrix (the ``value_counts`` of the ``krippendorff``
package, the n_ik table of Fleiss 1971 and Gwet 2014) and the paired ratings of
two raters (Cohen 1960).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from operator import itemgetter
from typing import cast

import numpy as np
import numpy.typing as npt

from .coding import (
    LEVELS,
    FloatArray,
    IntArray,
    Level,
    check_level,
    factorize,
    is_missing,
    may_hold_missing,
    sorted_domain,
)

__all__ = ["LEVELS", "FloatArray", "IntArray", "Level", "RatingTable", "check_level"]


@dataclass(frozen=True, eq=False)
class RatingTable:
    """Ratings as parallel code arrays; build with ``from_rows`` or ``from_wide``.

    ``domain`` is the ordered list of possible values: the declared scale when
    one was given (e.g. 1..5), otherwise the sorted observed values.
    """

    level: Level
    units: tuple[Hashable, ...]
    raters: tuple[Hashable, ...]
    domain: tuple[Hashable, ...]
    unit_codes: IntArray
    rater_codes: IntArray
    value_codes: IntArray

    # -- construction -------------------------------------------------------
    @classmethod
    def from_rows(
        cls,
        rows: Iterable[tuple[Hashable, Hashable, object]],
        *,
        level: str = "nominal",
        domain: Sequence[Hashable] | None = None,
    ) -> RatingTable:
        """Build from long rows ``(unit, rater, value)``.

        A value of ``None`` or NaN is a missing rating and is dropped. A rater
        rating the same unit twice is an error (ValueError). ``domain``
        declares the scale (its order is the ordinal order); every observed
        value must belong to it.
        """
        lvl = check_level(level)
        data = rows if isinstance(rows, list) else list(rows)
        if set(map(len, data)) - {3}:
            raise ValueError("rows must be (unit, rater, value) triples")
        units: Sequence[Hashable] = list(map(itemgetter(0), data))
        raters: Sequence[Hashable] = list(map(itemgetter(1), data))
        values: Sequence[Hashable] = list(map(itemgetter(2), data))
        if may_hold_missing(set(map(type, values))):
            keep = [not is_missing(v) for v in values]
            units = tuple(x for x, k in zip(units, keep, strict=True) if k)
            raters = tuple(x for x, k in zip(raters, keep, strict=True) if k)
            values = tuple(x for x, k in zip(values, keep, strict=True) if k)
        return cls._build(units, raters, values, lvl, domain)

    @classmethod
    def from_arrays(
        cls,
        units: npt.ArrayLike,
        raters: npt.ArrayLike,
        values: npt.ArrayLike,
        *,
        level: str = "nominal",
        domain: Sequence[Hashable] | None = None,
    ) -> RatingTable:
        """Build from three equal-length arrays (fast path for large tables).

        NaN (float values) or None (object values) marks a missing rating.
        """
        lvl = check_level(level)
        u, r, v = np.asarray(units), np.asarray(raters), np.asarray(values)
        if not u.shape == r.shape == v.shape or u.ndim != 1:
            raise ValueError("units, raters and values must be 1-d and of equal length")
        if v.dtype.kind == "f":
            keep = ~np.isnan(v)
        elif v.dtype.kind == "O":
            keep = np.asarray([not is_missing(x) for x in v.tolist()], dtype=bool)
        else:
            keep = np.ones(v.shape, dtype=bool)
        if not keep.all():
            u, r, v = u[keep], r[keep], v[keep]
        return cls._build(u, r, v, lvl, domain)

    @classmethod
    def from_wide(
        cls,
        columns: Mapping[Hashable, Sequence[object] | npt.NDArray[np.generic]],
        *,
        units: Sequence[Hashable] | None = None,
        level: str = "nominal",
        domain: Sequence[Hashable] | None = None,
    ) -> RatingTable:
        """Build from one column per rater (``{rater: [value per unit]}``; a column may be a
        numpy array, whose NaN is a missing value)."""
        lengths = {len(col) for col in columns.values()}
        if len(lengths) > 1:
            raise ValueError("every rater column must have one entry per unit")
        n = lengths.pop() if lengths else 0
        unit_ids: Sequence[Hashable] = list(range(n)) if units is None else units
        if len(unit_ids) != n:
            raise ValueError("units must have one label per row")
        rows = ((unit_ids[i], rater, col[i]) for rater, col in columns.items() for i in range(n))
        return cls.from_rows(rows, level=level, domain=domain)

    @classmethod
    def _build(
        cls,
        units: Sequence[Hashable] | npt.NDArray[np.generic],
        raters: Sequence[Hashable] | npt.NDArray[np.generic],
        values: Sequence[Hashable] | npt.NDArray[np.generic],
        level: Level,
        domain: Sequence[Hashable] | None,
    ) -> RatingTable:
        unit_labels, unit_codes = factorize(units)
        rater_labels, rater_codes = factorize(raters)
        value_labels, raw_codes = factorize(values)
        if domain is None:
            dom = sorted_domain(value_labels, level)
        else:
            dom = tuple(dict.fromkeys(domain))
            if level in ("interval", "ratio"):
                dom = sorted_domain(dom, level)
            unknown = [v for v in value_labels if v not in set(dom)]
            if unknown:
                raise ValueError(f"values outside the declared domain: {unknown[:5]!r}")
        position = {v: i for i, v in enumerate(dom)}
        remap = np.asarray([position[v] for v in value_labels], dtype=np.int64)
        value_codes = remap[raw_codes] if raw_codes.size else raw_codes
        if level == "ratio" and any(float(cast(Real, v)) < 0 for v in dom):
            raise ValueError("ratio data cannot be negative")
        if unit_codes.size:
            key = unit_codes * len(rater_labels) + rater_codes
            ordered = np.sort(key)
            repeated = ordered[1:][ordered[1:] == ordered[:-1]]
            if repeated.size:
                i = int(np.flatnonzero(key == repeated[0])[0])
                raise ValueError(
                    f"rater {rater_labels[int(rater_codes[i])]!r} rated unit "
                    f"{unit_labels[int(unit_codes[i])]!r} more than once"
                )
        return cls(level, unit_labels, rater_labels, dom, unit_codes, rater_codes, value_codes)

    # -- shape --------------------------------------------------------------
    @property
    def n_ratings(self) -> int:
        return int(self.value_codes.size)

    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_raters(self) -> int:
        return len(self.raters)

    def with_level(self, level: str) -> RatingTable:
        """The same ratings read at another level of measurement."""
        lvl = check_level(level)
        if lvl != "nominal":
            sorted_domain(self.domain, lvl)  # raises unless numeric
        return RatingTable(
            lvl,
            self.units,
            self.raters,
            self.domain,
            self.unit_codes,
            self.rater_codes,
            self.value_codes,
        )

    def numeric_domain(self) -> FloatArray:
        """The domain as floats (ValueError for non-numeric labels)."""
        try:
            return np.asarray([float(cast(Real, v)) for v in self.domain], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError("this statistic needs numeric values") from exc

    # -- derived matrices ---------------------------------------------------
    def ratings_per_unit(self) -> IntArray:
        return np.bincount(self.unit_codes, minlength=self.n_units).astype(np.int64, copy=False)

    def counts(self) -> IntArray:
        """Units x domain values: how many raters gave unit i the value k.

        This is ``value_counts`` for ``krippendorff.alpha`` and the n_ik of
        Fleiss (1971). Memory: n_units x len(domain) integers.
        """
        v = len(self.domain)
        flat = np.bincount(self.unit_codes * v + self.value_codes, minlength=self.n_units * v)
        return flat.reshape(self.n_units, v).astype(np.int64, copy=False)

    def pairs(self, rater_a: Hashable, rater_b: Hashable) -> tuple[IntArray, IntArray]:
        """Domain positions given by two raters to the units both rated."""
        _, a, b = self.paired_units(rater_a, rater_b)
        return a, b

    def paired_units(
        self, rater_a: Hashable, rater_b: Hashable
    ) -> tuple[IntArray, IntArray, IntArray]:
        """(unit codes, positions by a, positions by b) over units both rated."""
        codes = {r: i for i, r in enumerate(self.raters)}
        if rater_a not in codes or rater_b not in codes:
            raise KeyError(f"unknown rater: {rater_a!r} or {rater_b!r}")
        sel_a = self.rater_codes == codes[rater_a]
        sel_b = self.rater_codes == codes[rater_b]
        units, ia, ib = np.intersect1d(
            self.unit_codes[sel_a], self.unit_codes[sel_b], return_indices=True
        )
        return units.astype(np.int64), self.value_codes[sel_a][ia], self.value_codes[sel_b][ib]

    def wide(self) -> FloatArray:
        """Raters x units matrix of numeric values, NaN where missing.

        Dense: meant for small tables and cross-checks only.
        """
        out = np.full((self.n_raters, self.n_units), np.nan)
        out[self.rater_codes, self.unit_codes] = self.numeric_domain()[self.value_codes]
        return out

    def resample_units(self, draws: IntArray) -> RatingTable:
        """A table whose i-th unit is a copy of unit ``draws[i]`` (bootstrap)."""
        order = np.argsort(self.unit_codes, kind="stable")
        per_unit = self.ratings_per_unit()
        starts = np.concatenate(([0], np.cumsum(per_unit)[:-1]))
        lens = per_unit[draws]
        total = int(lens.sum())
        new_unit = np.repeat(np.arange(draws.size, dtype=np.int64), lens)
        offsets = np.cumsum(lens) - lens
        within = np.arange(total, dtype=np.int64) - np.repeat(offsets, lens)
        idx = order[np.repeat(starts[draws], lens) + within]
        return RatingTable(
            self.level,
            tuple(range(draws.size)),
            self.raters,
            self.domain,
            new_unit,
            self.rater_codes[idx],
            self.value_codes[idx],
        )
