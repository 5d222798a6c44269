"""The report's tables as the dashboard shows them: named cells, one CI column, filtered by
task, a page at a time (a big study's validation table has thousands of rows), and the
agreement table as a pivot of rater set × coefficient for one task and field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Paginator
from django.http import QueryDict

from research.dashboard.labels import Labels, column_label
from scoring.report.registry import SPECS
from scoring.report.writers import Naming

Rows = list[dict[str, Any]]
PAGE_SIZE = 50
#: The columns each table shows (``ci`` stands for ci_low–ci_high; split keys go first):
#: the registry's ``shown`` (scoring/report/registry.py); a table without one shows its
#: rows' own columns.
SHOWN = {spec.name: list(spec.shown) for spec in SPECS if spec.shown is not None}
#: Interval columns the dashboard shows as one cell: name -> (low, high).
INTERVALS = {
    "ci": ("ci_low", "ci_high"),
    "model_ci": ("model_ci_low", "model_ci_high"),
    "group_ci": ("group_ci_low", "group_ci_high"),
    "controlled_ci": ("controlled_ci_low", "controlled_ci_high"),
}
#: Columns holding a rater set's name (shown with ``Labels.rater_set``).
SET_COLUMNS = ("a", "b", "model", "group")


def number(v: Any, digits: int = 3) -> str:
    """A cell's number: floats to ``digits`` places, whole numbers as they are."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def interval(row: dict[str, Any], low: str = "ci_low", high: str = "ci_high") -> str:
    lo, hi = row.get(low), row.get(high)
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "—"
    return f"[{lo:.3f}, {hi:.3f}]"


@dataclass
class TableView:
    name: str
    headers: list[str]
    rows: list[list[str]]
    total: int
    page: int = 1
    pages: int = 1
    page_param: str = ""
    numeric: list[bool] = field(default_factory=list)
    previous: str = ""  # query strings of the neighbouring pages (every other value kept)
    next: str = ""

    @property
    def paged(self) -> bool:
        return self.pages > 1


def _cell(labels: Labels, col: str, row: dict[str, Any]) -> str:
    if col in INTERVALS:
        return interval(row, *INTERVALS[col])
    value = row.get(col)
    if col in SET_COLUMNS and isinstance(value, str):
        return labels.rater_set(value)
    shown = labels.value(col, value, row)
    if shown is None or shown == "":
        return "—" if col in ("value", "mean", "diff", "difference") else ""
    return number(shown) if not isinstance(shown, str) else shown


def columns_of(name: str, rows: Rows, by: tuple[str, ...]) -> list[str]:
    shown = list(SHOWN.get(name) or (list(rows[0]) if rows else []))
    present = set().union(*(r.keys() for r in rows)) if rows else set()
    split = [k for k in by if k not in shown and k in present]
    cols = split + [c for c in shown if c in INTERVALS or c in present]
    return cols


def task_filter(rows: Rows, task: str) -> Rows:
    if not task:
        return rows
    return [r for r in rows if r.get("task") in (task, None, "*") or r.get("left_out") == task]


def table_view(
    name: str,
    rows: Rows,
    labels: Labels,
    query: QueryDict,
    *,
    by: tuple[str, ...] = (),
    where: dict[str, Any] | None = None,
) -> TableView:
    """One page of ``rows`` (filtered by the ``task`` filter and ``where``) as shown."""
    task = query.get("task", "")
    chosen = [
        r
        for r in task_filter(rows, task)
        if not where or all(r.get(k) == v for k, v in where.items())
    ]
    cols = columns_of(name, chosen, by)
    param = f"p_{name}"
    paginator = Paginator(chosen, PAGE_SIZE)
    page = paginator.get_page(query.get(param))
    numeric = [
        c in INTERVALS or any(isinstance(r.get(c), int | float) for r in page.object_list)
        for c in cols
    ]
    return TableView(
        name=name,
        headers=[column_label(c) for c in cols],
        rows=[[_cell(labels, c, r) for c in cols] for r in page.object_list],
        total=len(chosen),
        page=page.number,
        pages=paginator.num_pages,
        page_param=param,
        numeric=numeric,
        previous=_page_query(query, param, page.number - 1) if page.has_previous() else "",
        next=_page_query(query, param, page.number + 1) if page.has_next() else "",
    )


def _page_query(query: QueryDict, param: str, number: int) -> str:
    copy = query.copy()
    copy[param] = str(number)
    return "?" + copy.urlencode()


TITLES = {spec.name: spec.title for spec in SPECS}


def reader_naming(labels: Labels) -> Naming:
    """A workbook for reading: sheets by title, headers and cells named as the dashboard
    names them (in the active language); numbers stay numbers."""

    def cell(col: str, value: Any, row: dict[str, Any]) -> Any:
        if col in SET_COLUMNS and isinstance(value, str):
            return labels.rater_set(value)
        return labels.value(col, value, row)

    return Naming(sheet=lambda name: str(TITLES.get(name) or name), header=column_label, cell=cell)
