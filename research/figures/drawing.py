"""Server-side SVG charts for the dashboard: no JavaScript, no CDN, works offline.

Every label is drawn with a CJK-capable font stack, so Chinese task and dimension names
render wherever the viewer has any CJK font. A chart is built as data, a list of
``Shape`` (an element's tag, attributes, tooltip and text, one of ``ELEMENTS``), and written by the autoescaped
template ``research/svg/chart.svg``: no markup is assembled from strings here, and every
label, tooltip and attribute value is escaped by the template. Each function returns the
``<svg>`` (a SafeString, from the template) with a ``<title>``/``aria-label`` for screen
readers; missing values (None/NaN) are drawn as gaps or grey cells.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

# Family names of identifiers only, so the stack needs no quotes (CSS Fonts §5.1).
FONT = (
    "Noto Sans CJK SC,Source Han Sans SC,PingFang SC,Hiragino Sans GB,"
    "Microsoft YaHei,WenQuanYi Micro Hei,Noto Serif CJK SC,sans-serif"
)
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#8a2b1d",
    "#b07aa1",
    "#76b7b2",
    "#edc948",
    "#9c755f",
    "#e15759",
    "#bab0ac",
)
MISSING = "#eeeeee"


def _ok(v: float | None) -> TypeGuard[float]:
    return v is not None and math.isfinite(v)


#: The elements a chart draws and the attributes each may have: the template
#: (``research/svg/chart.svg``) writes exactly these, one branch per element.
ELEMENTS = {
    "text": {"x", "y", "font-size", "text-anchor", "font-weight", "fill", "transform"},
    "rect": {"x", "y", "width", "height", "fill"},
    "line": {"x1", "y1", "x2", "y2", "stroke", "stroke-width"},
    "circle": {"cx", "cy", "r", "fill"},
}
#: One element as data: its tag, its attributes (``-`` written ``_``), its tooltip
#: (``title``) and text, every value a string the template escapes.
Shape = dict[str, str]


def _fmt(value: object) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def _el(tag: str, attrs: Mapping[str, object], *, title: str = "", text: str = "") -> Shape:
    """An element of one of the kinds the template draws, with its own attributes only;
    the values, tooltip and text may be anything (the template escapes them)."""
    if tag not in ELEMENTS or not set(attrs) <= ELEMENTS[tag]:
        raise ValueError(f"not an element the chart template draws: {tag} {sorted(attrs)}")
    shape = {name.replace("-", "_"): _fmt(value) for name, value in attrs.items()}
    return {**shape, "tag": tag, "title": title, "text": text}


def _text(
    x: float,
    y: float,
    s: str,
    *,
    size: int = 12,
    anchor: str = "start",
    rotate: float = 0,
    weight: str = "normal",
    fill: str = "#1b1b1b",
) -> Shape:
    attrs: dict[str, object] = {"x": float(x), "y": float(y), "font-size": size}
    attrs |= {"text-anchor": anchor, "font-weight": weight, "fill": fill}
    if rotate:
        attrs["transform"] = f"rotate({rotate} {x:.1f} {y:.1f})"
    return _el("text", attrs, text=s)


def _svg(
    width: float, height: float, title: str, body: list[Shape], rows: tuple[int, int] | None = None
) -> SafeString:
    """The chart's ``<svg>``; ``rows`` = (rows drawn, rows in the table) of a chart of
    rows, written as ``data-rows`` and ``data-of`` (a cut shows in the markup too)."""
    context = {
        "width": f"{width:.0f}",
        "height": f"{height:.0f}",
        "title": title,
        "font": FONT,
        "shapes": body,
        "rows": rows,
    }
    return SafeString(render_to_string("research/svg/chart.svg", context))


def _width(label: str, size: int = 12) -> float:
    """Approximate drawn width: CJK characters are full-width, others about half."""
    return sum(size if ord(ch) > 0x2E80 else size * 0.6 for ch in label)


def nice_ticks(low: float, high: float, target: int = 5) -> list[float]:
    """Round axis ticks covering [low, high] (steps of 1, 2, 2.5 or 5 × 10^k), with 0
    among them whenever the range crosses or touches it (Heckbert, "Nice numbers for graph
    labels", Graphics Gems, 1990)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high < low:
        low, high = high, low
    if high == low:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / max(target - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw - 1e-12)
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    count = round((last - first) / step)
    return [round(first + k * step, 10) + 0.0 for k in range(count + 1)]


def tick_label(v: float) -> str:
    return f"{v:g}"


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]
    low: Sequence[float | None] | None = None
    high: Sequence[float | None] | None = None
    n: Sequence[int | None] | None = None  # the count behind each value, drawn beside it


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    y_max: float = 1.0,
    y_label: str = "",
    note: str = "",
) -> SafeString:
    """Vertical bars per category, one colour per series, with CI whiskers; the legend
    below in as many columns as its longest name leaves room for (never overlapping),
    and ``note`` (e.g. rows cut) in the title's line below it."""
    n_cat, n_ser = max(len(categories), 1), max(len(series), 1)
    bar = 14.0 if n_ser > 4 else 18.0
    slot = n_ser * bar + 16
    left, top, plot_h = 48.0, 28.0 + (16 if note else 0), 220.0
    label_h = max([_width(c) * 0.71 for c in categories] + [20]) + 12
    width = max(left + n_cat * slot + 16, 420, _width(title, 13) + 60, _width(note, 11) + 60)
    column_w = max([_width(s.name, 11) + 28 for s in series] + [60])
    per_row = max(1, min(len(series), int((width - left) // column_w)))
    legend_rows = math.ceil(len(series) / per_row) if series else 0
    height = top + plot_h + label_h + legend_rows * 18 + 10
    body = [_text(left, 16, title, size=13, weight="bold")]
    if note:
        body.append(_text(left, 32, note, size=11, fill="#8a2b1d"))
    ticks = nice_ticks(0.0, y_max, 6)
    y_max = ticks[-1]
    for v in ticks:  # y axis: round ticks, 0 drawn as the axis itself
        y = top + plot_h - plot_h * v / y_max
        stroke = "#555" if v == 0 else "#ddd"
        body.append(_el("line", {"x1": left, "y1": y, "x2": width - 8, "y2": y, "stroke": stroke}))
        body.append(_text(left - 6, y + 4, tick_label(v), size=10, anchor="end"))
    if y_label:
        body.append(_text(12, top + plot_h / 2, y_label, size=11, anchor="middle", rotate=-90))
    for c, cat in enumerate(categories):
        x0 = left + c * slot + 8
        for s, ser in enumerate(series):
            point = ser.values[c] if c < len(ser.values) else None
            if not _ok(point):
                continue
            v = point
            h = plot_h * max(0.0, min(float(v), y_max)) / y_max
            x = x0 + s * bar
            colour = PALETTE[s % len(PALETTE)]
            n = ser.n[c] if ser.n and c < len(ser.n) else None
            shown = f"{float(v):.3f}" + (f" (n={n})" if n is not None else "")
            body.append(
                _el(
                    "rect",
                    {"x": x, "y": top + plot_h - h, "width": bar - 2, "height": h, "fill": colour},
                    title=f"{ser.name} · {cat}: {shown}",
                )
            )
            if n is not None:  # the count, written up the bar
                body.append(
                    _text(x + (bar - 2) / 2 + 3, top + plot_h - 3, f"n={n}", size=9, rotate=-90)
                )
            lo = ser.low[c] if ser.low and c < len(ser.low) else None
            hi = ser.high[c] if ser.high and c < len(ser.high) else None
            if _ok(lo) and _ok(hi):
                y_lo = top + plot_h - plot_h * float(lo) / y_max
                y_hi = top + plot_h - plot_h * float(hi) / y_max
                xm = x + (bar - 2) / 2
                line = {"x1": xm, "y1": y_lo, "x2": xm, "y2": y_hi, "stroke": "#222"}
                body.append(_el("line", {**line, "stroke-width": 1}))
        body.append(
            _text(x0 + n_ser * bar / 2, top + plot_h + 14, cat, size=11, anchor="end", rotate=-45)
        )
    y_leg = top + plot_h + label_h
    for s, ser in enumerate(series):
        x = left + (s % per_row) * column_w
        y = y_leg + (s // per_row) * 18
        key = {"x": x, "y": y, "width": 11, "height": 11, "fill": PALETTE[s % len(PALETTE)]}
        body.append(_el("rect", key))
        body.append(_text(x + 15, y + 10, ser.name, size=11))
    return _svg(width, height, title, body)


def _diverging(v: float, lo: float, hi: float) -> str:
    """Blue (low) – white (middle) – red (high)."""
    mid = (lo + hi) / 2
    t = max(-1.0, min(1.0, (v - mid) / ((hi - lo) / 2 or 1)))
    if t >= 0:
        r, g, b = 255, int(255 - 150 * t), int(255 - 170 * t)
    else:
        r, g, b = int(255 + 180 * t), int(255 + 110 * t), 255
    return f"rgb({r},{g},{b})"


def _sequential(v: float, lo: float, hi: float) -> str:
    t = max(0.0, min(1.0, (v - lo) / ((hi - lo) or 1)))
    return f"rgb({int(255 - 180 * t)},{int(250 - 130 * t)},{int(240 - 60 * t)})"


def heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    *,
    title: str,
    low: float = 0.0,
    high: float = 1.0,
    diverging: bool = False,
    counts: Mapping[tuple[str, str], int | None] | None = None,
    note: str = "",
) -> SafeString:
    """A rows × columns grid coloured by value (diverging around the middle if asked),
    each cell with its value and, when ``counts`` are given, its n."""
    cell_w, cell_h = 58.0, (34.0 if counts else 24.0)
    left = max([_width(r, 11) for r in rows] + [40]) + 12
    top = max([_width(c, 11) * 0.71 for c in columns] + [20]) + 34
    overhang = max([_width(c, 11) * 0.71 for c in columns[-2:]] + [0])  # rotated labels
    width = max(left + len(columns) * cell_w + overhang, 320, _width(title, 13) + 20)
    height = top + len(rows) * cell_h + 30
    body = [_text(8, 16, title, size=13, weight="bold")]
    for j, col in enumerate(columns):
        x = left + j * cell_w + cell_w / 2
        body.append(_text(x, top - 6, col, size=11, rotate=-45))
    colour = _diverging if diverging else _sequential
    for i, row in enumerate(rows):
        y = top + i * cell_h
        body.append(_text(left - 6, y + cell_h * 0.68, row, size=11, anchor="end"))
        for j, col in enumerate(columns):
            v = values.get((row, col))
            x = left + j * cell_w
            fill = colour(float(v), low, high) if _ok(v) else MISSING
            label = f"{float(v):.2f}" if _ok(v) else "–"
            n = counts.get((row, col)) if counts else None
            tip = f"{row} · {col}: {label}" + (f" (n={n})" if n is not None else "")
            cell = {"x": x, "y": y, "width": cell_w - 2, "height": cell_h - 2, "fill": fill}
            body.append(_el("rect", cell, title=tip))
            body.append(_text(x + cell_w / 2 - 1, y + 15, label, size=11, anchor="middle"))
            if n is not None:
                body.append(
                    _text(
                        x + cell_w / 2 - 1, y + 28, f"n={n}", size=9, anchor="middle", fill="#333"
                    )
                )
    scale = f"{low:g} … {high:g}"
    if note:
        scale += f" · {note}"
    body.append(_text(left, height - 8, scale, size=10, fill="#555"))
    return _svg(width, height, title, body)


@dataclass(frozen=True)
class Interval:
    label: str
    value: float | None
    low: float | None
    high: float | None
    group: str = ""
    n: str = ""  # the count(s) behind the estimate, e.g. "n=36" or "14/14"; drawn at right
    note: str = ""  # e.g. why there is no interval


def forest(
    rows: Sequence[Interval],
    *,
    title: str,
    x_label: str = "",
    low: float | None = None,
    high: float | None = None,
    note: str = "",
    of: int | None = None,
) -> SafeString:
    """Point estimates with CI lines on a shared horizontal axis (round ticks, zero
    marked), each row's n written at its right; a row without an interval shows its
    point alone (and its note), never a made-up interval. ``note`` (e.g. rows cut) is
    written under the title; ``of``: the rows of the whole chart when ``rows`` are a
    part of them."""
    finite = [v for r in rows for v in (r.value, r.low, r.high) if _ok(v)]
    lo = min([0.0, *finite]) if finite else -1.0
    hi = max([0.0, *finite]) if finite else 1.0
    ticks = nice_ticks(lo if low is None else low, hi if high is None else high, 6)
    lo, hi = ticks[0], ticks[-1]
    left = max([_width(r.label, 11) for r in rows] + [60]) + 14
    right_w = max([_width(f"{r.n}  {r.note}".strip(), 10) for r in rows] + [30]) + 16
    plot_w, row_h, top = 360.0, 20.0, 30.0 + (16 if note else 0)
    width = max(left + plot_w + right_w, _width(title, 13) + 20, _width(note, 11) + 20)
    height = top + max(len(rows), 1) * row_h + 34

    def sx(v: float) -> float:
        return left + plot_w * (v - lo) / (hi - lo)

    body = [_text(8, 16, title, size=13, weight="bold")]
    if note:
        body.append(_text(8, 32, note, size=11, fill="#8a2b1d"))
    for v in ticks:
        stroke = "#555" if v == 0 else "#e4e4e4"
        grid = {"x1": sx(v), "y1": top - 4, "x2": sx(v), "y2": height - 30, "stroke": stroke}
        body.append(_el("line", grid))
        body.append(_text(sx(v), height - 16, tick_label(v), size=10, anchor="middle"))
    groups = sorted({r.group for r in rows})
    for i, r in enumerate(rows):
        y = top + i * row_h + row_h / 2
        body.append(_text(left - 6, y + 4, r.label, size=11, anchor="end"))
        colour = PALETTE[groups.index(r.group) % len(PALETTE)]
        if _ok(r.low) and _ok(r.high):
            span = {"x1": sx(float(r.low)), "y1": y, "x2": sx(float(r.high)), "y2": y}
            body.append(_el("line", {**span, "stroke": colour, "stroke-width": 2}))
        if _ok(r.value):
            v = float(r.value)
            ci = f" [{float(r.low):.3f}, {float(r.high):.3f}]" if _ok(r.low) and _ok(r.high) else ""
            tip = f"{r.label}: {v:.3f}{ci}" + (f" ({r.n})" if r.n else "")
            dot = {"cx": sx(v), "cy": y, "r": 4, "fill": colour}
            body.append(_el("circle", dot, title=tip))
        side = f"{r.n}  {r.note}".strip()
        if side:
            body.append(_text(left + plot_w + 8, y + 4, side, size=10, fill="#333"))
    if x_label:
        body.append(_text(left + plot_w / 2, height - 3, x_label, size=10, anchor="middle"))
    return _svg(width, height, title, body, (len(rows), len(rows) if of is None else of))
