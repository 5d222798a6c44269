"""A scatter plot for the dashboard (a form's rate against its length): server-side SVG
in the style of ``research.figures.drawing`` (round ticks, 0 marked, n beside each point)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.safestring import SafeString

from research.figures.drawing import PALETTE, _el, _ok, _svg, _text, nice_ticks, tick_label


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float | None
    n: int | None = None


def scatter(
    points: Sequence[Point],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_low: float = 0.0,
    y_high: float = 1.0,
) -> SafeString:
    """Labelled points (x against y) on round-ticked axes, each with its n."""
    shown = [p for p in points if _ok(p.y) and _ok(p.x)]
    xs = [p.x for p in shown] or [0.0, 1.0]
    x_ticks = nice_ticks(min(0.0, min(xs)), max(xs), 6)
    y_ticks = nice_ticks(y_low, max([y_high, *[float(p.y) for p in shown if p.y is not None]]), 6)
    left, top, plot_w, plot_h = 56.0, 30.0, 420.0, 240.0
    width, height = left + plot_w + 150, top + plot_h + 44

    def sx(v: float) -> float:
        return left + plot_w * (v - x_ticks[0]) / (x_ticks[-1] - x_ticks[0])

    def sy(v: float) -> float:
        return top + plot_h - plot_h * (v - y_ticks[0]) / (y_ticks[-1] - y_ticks[0])

    body = [_text(8, 16, title, size=13, weight="bold")]
    for v in x_ticks:
        stroke = "#555" if v == 0 else "#e4e4e4"
        body.append(
            _el("line", {"x1": sx(v), "y1": top, "x2": sx(v), "y2": top + plot_h, "stroke": stroke})
        )
        body.append(_text(sx(v), top + plot_h + 14, tick_label(v), size=10, anchor="middle"))
    for v in y_ticks:
        stroke = "#555" if v == 0 else "#e4e4e4"
        body.append(
            _el(
                "line",
                {"x1": left, "y1": sy(v), "x2": left + plot_w, "y2": sy(v), "stroke": stroke},
            )
        )
        body.append(_text(left - 6, sy(v) + 4, tick_label(v), size=10, anchor="end"))
    for p in shown:
        x, y = sx(p.x), sy(float(p.y))  # type: ignore[arg-type]
        tip = f"{p.label}: {p.x:g}, {float(p.y):.3f}" + (f" (n={p.n})" if p.n else "")  # type: ignore[arg-type]
        body.append(_el("circle", {"cx": x, "cy": y, "r": 4, "fill": PALETTE[0]}, title=tip))
        label = p.label + (f" n={p.n}" if p.n is not None else "")
        body.append(_text(x + 6, y - 4, label, size=9, fill="#333"))
    body.append(_text(left + plot_w / 2, height - 4, x_label, size=10, anchor="middle"))
    body.append(_text(12, top + plot_h / 2, y_label, size=11, anchor="middle", rotate=-90))
    return _svg(width, height, title, body)
