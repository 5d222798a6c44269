"""The dashboard's links to the named paper layouts (docs/report.md §4c): one row per
layout, its title in the reader's language, a link per format, and whether the report on
screen has the rows it needs (a layout with its own split is computed when downloaded)."""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from scoring.report import paper as layouts
from scoring.report.build import Report

#: Each layout's title on the dashboard (the LaTeX caption stays the layout's own).
TITLES: dict[str, Promise] = {
    "cciv-table2": _("CCiV Table 2: rule accuracy per model and prompt condition"),
    "cciv-table3": _("CCiV Table 3: form-aware against direct prompting, with the differences"),
    "cciv-heatmap": _("CCiV: tonal accuracy per cipai and model (direct prompts)"),
    "cciv-length": _("CCiV: rho of accuracy and cipai length, per prompt condition"),
    "fuxi-table4": _("Fuxi Table 4: the models' figures computed from the study"),
    "fuxi-table6": _("Fuxi Table 6: the evaluator against the experts' key"),
    "cpdue-accuracy": _("CP-DUE: accuracy per group and task"),
    "tang-ratings": _("Tang: the experts' mean rating per generator and dimension"),
    "tang-correlations": _("Tang: each LLM judge against the experts, per generator"),
    "ccpm-accuracy": _("CCPM: accuracy of each model per task"),
}


def _state(report: Report, layout: layouts.PaperLayout) -> tuple[bool, str]:
    """(whether to offer the files, a note), as ``paper.unavailable`` decides for every
    layout (one with a split of its own too: its filters are tried on the report's rows,
    and the download computes the split)."""
    by = report.settings.by
    if layouts.unavailable(report.tables[layout.table], layout, by) is not None:
        return False, str(_("no rows for this layout in this report"))
    if any(k not in by for k in layout.by):
        return True, str(_("computed with its own split when downloaded"))
    return True, ""


def paper_links(report: Report | None) -> list[dict[str, Any]]:
    """One entry per named layout: name, title, formats, offered, note."""
    out = []
    for layout in layouts.LAYOUTS:
        offered, note = _state(report, layout) if report is not None else (False, "")
        out.append(
            {
                "name": layout.name,
                "title": TITLES.get(layout.name, layout.caption),
                "formats": layouts.FORMATS,
                "offered": offered,
                "note": note,
            }
        )
    return out
