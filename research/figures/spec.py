"""One spec per chart: what is drawn (the rows, their labels and order, the axis limits),
shared by the dashboard's SVG (``research.figures.svg``) and the print renderer
(``research.figures.printed``), so both draw the same rows under the same names.

A spec holds every row of the table behind it; a renderer that shows fewer says so on
the figure (``cut_note``) and the print renderer pages through all of them (``pages``).
Labels name every ``--by`` split value a row has, so no two rows share a label
(``distinct``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _

from research.figures.drawing import Interval, Series
from research.scatter import Point
from scoring.report import BY_KEYS

#: Columns that split a row besides the report's --by keys (validation's generator).
SPLIT_KEYS = (*BY_KEYS, "generator")


@dataclass(frozen=True)
class Forest:
    """Point estimates with intervals, one row each (``Interval``)."""

    title: str
    rows: tuple[Interval, ...]
    x_label: str = ""
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Bars:
    """Grouped vertical bars: one bar per series in each category."""

    title: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    y_label: str = ""
    y_max: float = 1.0
    note: str = ""


@dataclass(frozen=True)
class Heatmap:
    """A rows × columns grid of values (with their n when ``counts`` is given)."""

    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: Mapping[tuple[str, str], float | None]
    low: float = 0.0
    high: float = 1.0
    diverging: bool = False
    counts: Mapping[tuple[str, str], int | None] | None = None
    note: str = ""


@dataclass(frozen=True)
class Scatter:
    """Labelled points, x against y."""

    title: str
    points: tuple[Point, ...]
    x_label: str = ""
    y_label: str = ""
    note: str = field(default="")


Spec = Forest | Bars | Heatmap | Scatter


def size(spec: Spec) -> int:
    """How many rows (bars: categories; scatter: points) the spec has."""
    if isinstance(spec, Forest | Heatmap):
        return len(spec.rows)
    if isinstance(spec, Bars):
        return len(spec.categories)
    return len(spec.points)


def part(spec: Spec, start: int, stop: int) -> Spec:
    """The rows ``start:stop`` of the spec (a scatter is never split)."""
    if isinstance(spec, Forest):
        return replace(spec, rows=spec.rows[start:stop])
    if isinstance(spec, Heatmap):
        return replace(spec, rows=spec.rows[start:stop])
    if isinstance(spec, Bars):
        series = tuple(_series_part(s, start, stop) for s in spec.series)
        return replace(spec, categories=spec.categories[start:stop], series=series)
    return spec


def _series_part(s: Series, start: int, stop: int) -> Series:
    def cut(values: Sequence[Any] | None) -> Sequence[Any] | None:
        return None if values is None else list(values)[start:stop]

    return Series(s.name, list(s.values)[start:stop], cut(s.low), cut(s.high), cut(s.n))


def pages(spec: Spec, per_page: int) -> list[Spec]:
    """The spec in pages of at most ``per_page`` rows, every row on one page."""
    n = size(spec)
    if isinstance(spec, Scatter) or n <= per_page:
        return [spec]
    return [part(spec, k, k + per_page) for k in range(0, n, per_page)]


def cut_note(shown: int, total: int) -> str:
    """What a figure showing fewer rows than its table says about it ('' when none cut)."""
    if shown >= total:
        return ""
    return _("showing %(shown)s of %(total)s rows; download the full figure") % {
        "shown": shown,
        "total": total,
    }


def page_note(number: int, count: int, first: int, last: int, total: int) -> str:
    """A printed page's footer: which page and which rows of how many."""
    if count <= 1:
        return ""
    return _("page %(page)s of %(pages)s: rows %(first)s–%(last)s of %(total)s") % {
        "page": number,
        "pages": count,
        "first": first,
        "last": last,
        "total": total,
    }


def split_label(row: Mapping[str, Any], show: Any) -> str:
    """The row's split values (``--by`` keys, ``*`` named "all", and the generating model
    of a validation row that has one), as the reader names them, joined with · ('' when
    the row has none)."""
    parts = []
    for key in SPLIT_KEYS:
        value = row.get(key)
        if value in (None, "") or (key == "generator" and value == "*"):
            continue  # validation's rows over every generator: its usual rows, unmarked
        parts.append(str(show(key, value, row)))
    return " · ".join(parts)


def with_split(label: str, row: Mapping[str, Any], show: Any) -> str:
    split = split_label(row, show)
    return f"{split} · {label}" if split else label


def distinct(labels: list[str], rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The labels, each repeated one extended by the text columns that tell its rows
    apart (so two rows never share a label); unique labels are kept as they are."""
    seen: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        seen[label].append(i)
    out = list(labels)
    for label, where in seen.items():
        if len(where) < 2:
            continue
        keys = _differing(rows, where)
        for i in where:
            extra = ", ".join(f"{k}={rows[i].get(k)}" for k in keys)
            out[i] = f"{label} ({extra or f'#{where.index(i) + 1}'})"
    return out


def _differing(rows: Sequence[Mapping[str, Any]], where: list[int]) -> list[str]:
    keys = [k for k, v in rows[where[0]].items() if isinstance(v, str | type(None))]
    return [k for k in keys if len({str(rows[i].get(k)) for i in where}) > 1]
