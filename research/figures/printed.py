"""Print figures of a chart spec: PDF (every page in one file) and SVG (one page), one
journal column (3.5 in, 89 mm) or two (7.2 in, 183 mm) wide, 7 pt text, drawn with
matplotlib's object API (``Figure`` and the PDF/SVG canvases: no pyplot, no GUI).

Long charts are paged (``ROWS_PER_PAGE`` rows a page, every row on a page) and each page
of a paged chart says which rows of how many it shows. Text is set in the shipped CJK
serif, subset to the figure's characters (``research.figures.fonts``): embedded in the
PDF as a TrueType CID font with its ToUnicode map (the text can be searched and copied),
and in the SVG as a WOFF ``@font-face`` with the text left as text.

Drawing happens where a figure is asked for (a download or ``manage.py report --figure``),
never while the dashboard page is built.
"""

from __future__ import annotations

import io
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, TypeGuard

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_pdf import FigureCanvasPdf, PdfPages
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.font_manager import fontManager

from research.figures import fonts
from research.figures.drawing import PALETTE, nice_ticks
from research.figures.spec import Bars, Forest, Heatmap, Scatter, Spec, page_note, pages, size

WIDTHS = {"one": 3.5, "two": 7.2}  # inches: 89 mm and 183 mm
FORMATS = ("pdf", "svg")
ROWS_PER_PAGE = 40
FONT_SIZE = 7.0
ROW_HEIGHT = 0.16  # inches a forest or heatmap row takes
# Set once for the process (never toggled per request): TrueType embedding in PDF, text
# left as text in SVG (the font travels with it as @font-face).
matplotlib.rcParams["pdf.fonttype"] = 42
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "shiping"  # stable ids: the same figure, the same file
_added: set[str] = set()
_lock = threading.Lock()


class FigureError(ValueError):
    """A figure asked for with a width, format or page that does not exist."""


def spec_texts(spec: Spec) -> Iterator[str]:
    """Every string the figure may draw (for the font subset)."""
    yield spec.title
    yield spec.note
    if isinstance(spec, Forest):
        yield spec.x_label
        for r in spec.rows:
            yield from (r.label, r.n, r.note)
    elif isinstance(spec, Bars):
        yield spec.y_label
        yield from spec.categories
        yield from (s.name for s in spec.series)
    elif isinstance(spec, Heatmap):
        yield from spec.rows
        yield from spec.columns
    else:
        yield from (spec.x_label, spec.y_label)
        yield from (p.label for p in spec.points)


def _family(spec: Spec, extra: str) -> list[str]:
    """The font families of the figure: the spec's CJK subset (added to matplotlib's font
    list once), then DejaVu Serif (shipped with matplotlib) for the Greek letters and
    mathematical signs the CJK font lacks (κ, ρ, −, ≥)."""
    path = fonts.truetype_subset(fonts.characters([*spec_texts(spec), extra]))
    with _lock:
        if str(path) not in _added:
            fontManager.addfont(str(path))
            _added.add(str(path))
    return [fonts.family_of(path), fonts.FALLBACK_FAMILY]


def render(spec: Spec, fmt: str, width: str, page: int | None = None) -> bytes:
    """The figure as PDF (every page, or only ``page``) or SVG (``page``, default 1)."""
    if width not in WIDTHS:
        raise FigureError(f"width: one of {', '.join(WIDTHS)}")
    if fmt not in FORMATS:
        raise FigureError(f"format: one of {', '.join(FORMATS)}")
    spec = wrapped(spec, width)
    parts = pages(spec, ROWS_PER_PAGE)
    if page is not None and not 1 <= page <= len(parts):
        raise FigureError(f"page: 1 to {len(parts)}")
    notes = _page_notes(parts, size(spec))
    family = _family(spec, "".join(notes))
    chosen = range(len(parts)) if page is None else [page - 1]
    if fmt == "svg":
        k = chosen[0]
        return _svg(_figure(parts[k], WIDTHS[width], family, notes[k]), family, spec, notes[k])
    out = io.BytesIO()
    with PdfPages(out, metadata={"Title": spec.title, "Creator": "Shiping"}) as pdf:
        for k in chosen:
            figure = _figure(parts[k], WIDTHS[width], family, notes[k])
            FigureCanvasPdf(figure)
            pdf.savefig(figure)
    return out.getvalue()


def page_count(spec: Spec) -> int:
    return len(pages(spec, ROWS_PER_PAGE))


def _page_notes(parts: list[Spec], total: int) -> list[str]:
    notes, first = [], 1
    for k, part in enumerate(parts, 1):
        last = first + size(part) - 1
        notes.append(page_note(k, len(parts), first, last, total))
        first = last + 1
    return notes


def _svg(figure: Figure, family: list[str], spec: Spec, note: str) -> bytes:
    out = io.BytesIO()
    FigureCanvasSVG(figure).print_svg(out, metadata={"Title": spec.title})
    chars = fonts.characters([*spec_texts(spec), note])
    face = (
        "<style>"
        + "".join(
            f"@font-face{{font-family:'{name}';src:url({fonts.woff_data_url(chars, source)}) "
            "format('woff');}"
            for name, source in zip(family, (fonts.SOURCE, fonts.FALLBACK), strict=True)
        )
        + "</style>"
    )
    text = out.getvalue().decode("utf-8")
    text = re.sub(r"(<svg [^>]*>)", lambda m: m.group(1) + face, text, count=1)
    return text.encode("utf-8")


#: Characters (a CJK character counts 1, others about half) a row label's line holds.
LABEL_WIDTH = {"one": 17.0, "two": 44.0}


def wrap_label(label: str, width: str) -> str:
    """The label broken into lines at its " · " joints to fit the column's labels; a
    piece longer than a line (a model or group named at length) is broken within it,
    never cut: one line of 150 characters squeezed the plot to nothing and clipped the
    labels (constrained layout gives up)."""
    limit, lines, line = LABEL_WIDTH[width], [], ""
    for piece in (p for whole in label.split(" · ") for p in _chunks(whole, limit)):
        joined = f"{line} · {piece}" if line else piece
        if line and _units(joined) > limit:
            lines.append(line)
            joined = piece
        line = joined
    return "\n".join([*lines, line])


def _chunks(text: str, limit: float) -> list[str]:
    """``text`` in consecutive pieces of at most ``limit`` units (one when it fits)."""
    pieces, piece = [], ""
    for ch in text:
        if piece and _units(piece + ch) > limit:
            pieces.append(piece)
            piece = ""
        piece += ch
    return [*pieces, piece]


def _units(text: str) -> float:
    return sum(1.0 if ord(ch) > 0x2E80 else 0.55 for ch in text)


def wrapped(spec: Spec, width: str) -> Spec:
    """A forest's row labels wrapped for the width (the other kinds as they are)."""
    if not isinstance(spec, Forest):
        return spec
    rows = tuple(replace(r, label=wrap_label(r.label, width)) for r in spec.rows)
    return replace(spec, rows=rows)


def _figure(spec: Spec, width: float, family: list[str], note: str) -> Figure:
    rows = float(size(spec))
    if isinstance(spec, Forest):  # a wrapped label's lines take 0.7 of a row each
        rows = sum(r.label.count("\n") * 0.7 + 1.0 for r in spec.rows)
    if isinstance(spec, Heatmap) and spec.counts:  # value and n: two lines a cell
        rows *= 1.8
    if isinstance(spec, Bars):
        height = 2.6 + 0.12 * math.ceil(len(spec.series) / 3)
    elif isinstance(spec, Scatter):
        height = width * 0.7
    else:
        height = 0.9 + ROW_HEIGHT * max(rows, 1.0)
    figure = Figure(figsize=(width, height), layout="constrained")
    ax = figure.add_subplot()
    narrow = width < WIDTHS["two"]
    text = {"family": family, "size": FONT_SIZE, "labels": FONT_SIZE - (1.0 if narrow else 0.5)}
    ax.tick_params(labelsize=FONT_SIZE - 0.5, labelfontfamily=family)
    figure.suptitle(spec.title, fontfamily=family, fontsize=FONT_SIZE + 1, wrap=True)
    if isinstance(spec, Forest):
        _forest(ax, spec, text)
    elif isinstance(spec, Bars):
        _bars(ax, spec, text)
    elif isinstance(spec, Heatmap):
        _heatmap(ax, spec, text)
    else:
        _scatter(ax, spec, text)
    footer = " · ".join(n for n in (spec.note, note) if n)
    if footer:
        figure.supxlabel(footer, fontfamily=family, fontsize=FONT_SIZE - 1, color="#8a2b1d")
    return figure


def _forest(ax: Axes, spec: Forest, text: dict[str, Any]) -> None:
    ys = list(range(len(spec.rows)))[::-1]
    groups = sorted({r.group for r in spec.rows})
    for y, r in zip(ys, spec.rows, strict=True):
        colour = PALETTE[groups.index(r.group) % len(PALETTE)]
        if _finite(r.low) and _finite(r.high):
            ax.plot([r.low, r.high], [y, y], color=colour, linewidth=1.2)
        if _finite(r.value):
            ax.plot([r.value], [y], "o", color=colour, markersize=3)
    ax.set_yticks(ys, [r.label for r in spec.rows])
    ax.tick_params(axis="y", labelsize=text["labels"])
    ax.set_ylim(-0.7, len(spec.rows) - 0.3)
    ticks = _ticks([v for r in spec.rows for v in (r.value, r.low, r.high)], spec.low, spec.high)
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlim(ticks[0], ticks[-1])
    if ticks[0] <= 0 <= ticks[-1]:
        ax.axvline(0, color="#555555", linewidth=0.6)
    ax.set_xlabel(spec.x_label, fontfamily=text["family"], fontsize=text["size"], wrap=True)
    side = ax.twinx()
    side.set_ylim(ax.get_ylim())
    side.set_yticks(ys, [f"{r.n}  {r.note}".strip() for r in spec.rows])
    side.tick_params(labelsize=FONT_SIZE - 1, labelfontfamily=text["family"], length=0)
    ax.grid(axis="x", color="#e4e4e4", linewidth=0.5)


def _ticks(values: list[float | None], low: float | None, high: float | None) -> list[float]:
    finite = [float(v) for v in values if _finite(v)]
    lo = min([0.0, *finite]) if low is None else low
    hi = max([0.0, *finite]) if high is None else high
    return nice_ticks(lo, hi, 5)


def _finite(v: object) -> TypeGuard[float]:
    return isinstance(v, int | float) and math.isfinite(v)


def _bars(ax: Axes, spec: Bars, text: dict[str, Any]) -> None:
    n = max(len(spec.series), 1)
    width = 0.8 / n
    for s, ser in enumerate(spec.series):
        xs = [c + (s - (n - 1) / 2) * width for c in range(len(spec.categories))]
        values = [float(v) if _finite(v) else math.nan for v in ser.values]
        colour = PALETTE[s % len(PALETTE)]
        ax.bar(xs, values, width * 0.9, color=colour, label=ser.name)
        for x, lo, hi in zip(xs, ser.low or [], ser.high or [], strict=False):
            if _finite(lo) and _finite(hi):
                ax.plot([x, x], [lo, hi], color="#222222", linewidth=0.6)
    ax.set_xticks(range(len(spec.categories)), spec.categories, rotation=30, ha="right")
    ticks = nice_ticks(0.0, spec.y_max, 6)
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_ylim(0, ticks[-1])
    ax.set_ylabel(spec.y_label, fontfamily=text["family"], fontsize=text["size"])
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.25),
        ncols=min(n, 3),
        prop={"family": text["family"], "size": FONT_SIZE - 1},
        frameon=False,
    )


def _heatmap(ax: Axes, spec: Heatmap, text: dict[str, Any]) -> None:
    grid = [[_cell(spec, r, c) for c in spec.columns] for r in spec.rows]
    cmap = "RdBu_r" if spec.diverging else "YlGnBu"
    ax.imshow(grid, cmap=cmap, vmin=spec.low, vmax=spec.high, aspect="auto")
    for i, r in enumerate(spec.rows):
        for j, c in enumerate(spec.columns):
            v = grid[i][j]
            n = spec.counts.get((r, c)) if spec.counts else None
            label = ("–" if math.isnan(v) else f"{v:.2f}") + (f"\nn={n}" if n is not None else "")
            ax.text(
                j,
                i,
                label,
                ha="center",
                va="center",
                fontsize=FONT_SIZE - 1.5,
                fontfamily=text["family"],
                color="white" if _dark(v, spec) else "#1b1b1b",
            )
    ax.set_xticks(range(len(spec.columns)), spec.columns, rotation=45, ha="left")
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(spec.rows)), spec.rows)


def _dark(v: float, spec: Heatmap) -> bool:
    """Whether a cell's colour is dark enough to want white text."""
    if math.isnan(v):
        return False
    t = (v - spec.low) / ((spec.high - spec.low) or 1.0)
    return abs(2 * t - 1) > 0.6 if spec.diverging else t > 0.6


def _cell(spec: Heatmap, row: str, column: str) -> float:
    v = spec.values.get((row, column))
    return float(v) if _finite(v) else math.nan


def _scatter(ax: Axes, spec: Scatter, text: dict[str, Any]) -> None:
    shown = [(p, float(p.y)) for p in spec.points if _finite(p.y)]
    ax.plot([p.x for p, _y in shown], [y for _p, y in shown], "o", color=PALETTE[0], markersize=3)
    for p, y in shown:
        n = f" (n={p.n})" if p.n is not None else ""
        ax.annotate(
            p.label + n,
            (p.x, y),
            fontsize=FONT_SIZE - 1.5,
            fontfamily=text["family"],
            xytext=(3, 2),
            textcoords="offset points",
        )
    ax.set_xlabel(spec.x_label, fontfamily=text["family"], fontsize=text["size"], wrap=True)
    ax.set_ylabel(spec.y_label, fontfamily=text["family"], fontsize=text["size"])
