"""The dashboard's SVG of a chart spec (``research.figures.drawing``: an autoescaped template, fast):
a forest plot shows at most ``MAX_ROWS`` rows, and when the spec has more the chart says
so under its title ("showing 40 of 49 rows; download the full figure"); the print figure
has them all. Bars and heatmaps are drawn whole, as before."""

from __future__ import annotations

from django.utils.safestring import SafeString

from research.figures.drawing import forest, grouped_bars, heatmap
from research.figures.spec import Bars, Forest, Heatmap, Spec, cut_note, part, size
from research.scatter import scatter

#: At most this many rows (bars: categories) in one dashboard chart.
MAX_ROWS = 40


def dashboard_svg(spec: Spec, max_rows: int = MAX_ROWS) -> SafeString:
    """The spec drawn for the page; a forest cut to ``max_rows`` rows, with a note."""
    total = size(spec)
    shown = part(spec, 0, max_rows) if isinstance(spec, Forest) else spec
    note = " · ".join(n for n in (spec.note, cut_note(size(shown), total)) if n)
    if isinstance(shown, Forest):
        return forest(
            shown.rows,
            title=shown.title,
            x_label=shown.x_label,
            low=shown.low,
            high=shown.high,
            note=note,
            of=total,
        )
    if isinstance(shown, Bars):
        return grouped_bars(
            shown.categories,
            shown.series,
            title=shown.title,
            y_max=shown.y_max,
            y_label=shown.y_label,
            note=note,
        )
    if isinstance(shown, Heatmap):
        return heatmap(
            shown.rows,
            shown.columns,
            shown.values,
            title=shown.title,
            low=shown.low,
            high=shown.high,
            diverging=shown.diverging,
            counts=shown.counts,
            note=note,
        )
    return scatter(shown.points, title=shown.title, x_label=shown.x_label, y_label=shown.y_label)
