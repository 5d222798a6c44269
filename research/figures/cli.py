"""``manage.py report STUDY --figure NAME --format pdf|svg --width one|two -o FILE``: one
chart of the report for print (``research.figures.printed``), reached by the scoring
app's report command through ``settings.REPORT_FIGURE_WRITER``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from research.figures.registry import CHARTS, chart_spec
from scoring.report import build_report
from scoring.report.build import Report, Rows
from studies.models import Study


def write_figure(study: Study, report: Report, opts: dict[str, Any]) -> str:
    """Write the figure ``opts`` ask for; returns what was written. A bad option is a
    ``ValueError`` naming it (the command makes it a CommandError)."""
    from research.figures.printed import page_count, render

    name = opts.get("figure") or ""
    if name not in CHARTS:
        raise ValueError(f"--figure: no chart {name!r}; known: {', '.join(CHARTS)}")
    fmt = opts.get("format") or "pdf"
    out = opts.get("out")
    if not out or out == "-":
        raise ValueError("--out is required for a figure")
    chart = CHARTS[name]
    query = {"task": opts.get("figure_task") or ""}
    if opts.get("figure_choice"):
        if not chart.param:
            raise ValueError(f"--figure-choice: chart {name} has no choice")
        query[chart.param] = opts["figure_choice"]
    spec = chart_spec(name, report, study, query, _by_form(study, report, name))
    if spec is None:
        raise ValueError(f"--figure {name}: nothing to draw in this report")
    page = int(opts["page"]) if opts.get("page") else None
    data = render(spec, fmt, opts.get("width") or "one", page)
    Path(out).write_bytes(data)
    pages = page_count(spec)
    return f"Wrote {out} ({fmt}, {pages} page{'s' if pages != 1 else ''} in all)"


def _by_form(study: Study, report: Report, name: str) -> Rows | None:
    """The per-form rule rates the report job stores beside a report (computed here, as
    the job does, for the per-form heatmap only)."""
    if name != "rule-rates-heatmap" or "form" in report.settings.by:
        return None
    forms = replace(report.settings, by=(*report.settings.by, "form"))
    return build_report(study, forms, ("rule_rates",)).tables["rule_rates"]
