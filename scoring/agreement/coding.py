"""Coding ratings: levels of measurement, missing values, factorised ids and domains.

Levels of measurement after Stevens (1946) as used by Krippendorff (2011):
nominal, ordinal, interval, ratio. A missing rating (None or NaN) is absent
data, never a value (Krippendorff 2011, section C). Helpers of RatingTable.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from numbers import Real
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def check_level(level: str) -> Level:
    """Return ``level`` as a Level, or raise ValueError naming the valid ones."""
    for known in LEVELS:  # returns the Literal itself: no narrowing by `in` needed
        if level == known:
            return known
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def is_missing(value: object) -> bool:
    """None or a float NaN, including numpy's (np.float64 from arrays, np.float32)."""
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def may_hold_missing(kinds: Iterable[type]) -> bool:
    """Whether values of these types can include a missing marker (None or NaN)."""
    return any(k is type(None) or issubclass(k, float | np.floating) for k in kinds)


def factorize(
    items: Sequence[Hashable] | npt.NDArray[np.generic],
) -> tuple[tuple[Hashable, ...], IntArray]:
    """Distinct labels (sorted where the fast paths apply) and each item's code."""
    arr: npt.NDArray[np.generic] | None = None
    if isinstance(items, np.ndarray):
        arr = items
    else:
        kinds = set(map(type, items))
        if kinds <= {int} or kinds <= {str}:
            # Homogeneous ints or strings: numpy beats a Python loop (the
            # benchmark feeds 200,000-row tables).
            try:
                arr = np.asarray(items)
            except OverflowError:
                arr = None
    if arr is not None and arr.dtype.kind in "iu" and arr.size:
        low, high = int(arr.min()), int(arr.max())
        if high - low <= 4 * arr.size + 1024:
            # Dense integer ids (database keys): a presence map, no sort.
            present = np.zeros(high - low + 1, dtype=bool)
            present[arr - low] = True
            code_of = np.cumsum(present, dtype=np.int64) - 1
            labels = np.flatnonzero(present) + low
            return tuple(labels.tolist()), code_of[arr - low]
    if arr is not None and arr.dtype.kind in "iufU":
        uniq, codes = np.unique(arr, return_inverse=True)
        return tuple(uniq.tolist()), codes.astype(np.int64).reshape(-1)
    index: dict[Hashable, int] = {}
    codes_list = [index.setdefault(item, len(index)) for item in items]
    return tuple(index), np.asarray(codes_list, dtype=np.int64)


def sorted_domain(values: Iterable[Hashable], level: Level) -> tuple[Hashable, ...]:
    distinct = list(dict.fromkeys(values))
    if level != "nominal":
        for v in distinct:
            if not isinstance(v, Real) or isinstance(v, bool):
                raise ValueError(
                    f"{level} data need numeric values (or a declared ordered domain); got {v!r}"
                )
        return tuple(sorted(distinct, key=lambda v: float(cast(Real, v))))
    try:
        return tuple(sorted(distinct))  # type: ignore[type-var]
    except TypeError:  # mixed, unorderable labels: keep first-seen order
        return tuple(distinct)


MISSING_MARKERS = frozenset({"", ".", "na", "n/a", "nan", "null", "none", "-"})


def parse_cell(text: str | None) -> int | float | str | None:
    """A CSV cell as a rating: missing markers -> None, numbers -> int/float, else the text.

    Missing markers (case-insensitive, after stripping): empty, ".", "NA",
    "N/A", "NaN", "null", "None", "-" (Krippendorff 2011 writes "." for a
    missing value). "3" -> 3, "2.5" -> 2.5, "好" -> "好".
    """
    if text is None:
        return None
    stripped = text.strip()
    if stripped.lower() in MISSING_MARKERS:
        return None
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        number = float(stripped)
    except ValueError:
        return stripped
    return number if math.isfinite(number) else stripped
