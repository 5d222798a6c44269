"""The report as files: JSON (one document), CSV (one file per table), XLSX (one sheet each).

CSV and XLSX columns are the union of the table's row keys in first-seen order; an empty
table still gets its header row when its columns are known. Missing values (None, NaN)
are empty cells. Text is never a formula (``annotation.spreadsheet``): a CSV text cell
starting with ``=``, ``+``, ``-``, ``@`` gets a leading apostrophe; XLSX text is a string.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from annotation.spreadsheet import csv_cell, xlsx_row
from scoring.report import agreement
from scoring.report.build import TABLES, Report

FORMATS = ("json", "csv", "xlsx")
#: Columns of tables that may come out empty, so their files still have a header.
KNOWN_COLUMNS = {
    "exclusions": ["reason", "n_participants", "n_responses", "applies_to"],
    "accuracy": [
        "task",
        "field",
        "rater_set",
        "n_raters",
        "n_responses",
        "value",
        "ci_low",
        "ci_high",
        "successes",
    ],
    "model_vs_groups": [
        "task",
        "field",
        "model",
        "model_value",
        "group",
        "group_value",
        "n_members",
        "percentile",
    ],
    "agreement": list(agreement.COLUMNS),
    "correlation": [
        "task",
        "field",
        "a",
        "b",
        "pearson",
        "spearman",
        "kendall",
        "mean_diff",
        "n",
        "pearson_p",
    ],
    "rule_vs_rating": [
        "task",
        "field",
        "rule",
        "rater_set",
        "n_pass",
        "n_fail",
        "mean_pass",
        "mean_fail",
        "diff",
        "ci_low",
        "ci_high",
        "threshold",
    ],
    "rule_scores": ["rule", "field", "form", "source", "n", "mean"],
    "aggregates": ["model", "task", "metric", "value", "n", "run", "source"],
}


def columns(name: str, rows: Iterable[dict[str, Any]]) -> list[str]:
    cols = list(KNOWN_COLUMNS.get(name, []))
    for row in rows:
        cols += [k for k in row if k not in cols]
    return cols


def _cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return v


def table_csv(name: str, rows: list[dict[str, Any]], out: IO[str]) -> None:
    cols = columns(name, rows)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in cols])
    for row in rows:
        writer.writerow([csv_cell(_cell(row.get(c))) for c in cols])


def table_csv_text(name: str, rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    table_csv(name, rows, buffer)
    return buffer.getvalue()


def write_json(report: Report, out: IO[str]) -> None:
    json.dump(report.as_json(), out, ensure_ascii=False, indent=1, allow_nan=False)


def write_xlsx(report: Report, out: IO[bytes], tables: Iterable[str] = TABLES) -> None:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    about = book.create_sheet("report")
    about.append(xlsx_row(about, ["study", report.study]))
    about.append(xlsx_row(about, ["generated_at", report.generated_at]))
    for key, value in report.settings.__dict__.items():
        about.append(xlsx_row(about, [key, value]))
    for name in tables:
        rows = report.tables[name]
        cols = columns(name, rows)
        sheet = book.create_sheet(name[:31])
        sheet.append(xlsx_row(sheet, cols))
        for row in rows:
            sheet.append(xlsx_row(sheet, [_cell(row.get(c)) for c in cols]))
    book.save(out)


def write(report: Report, fmt: str, path: Path) -> list[Path]:
    """Write ``report`` as ``fmt`` at ``path``; CSV: ``path`` is a directory of tables."""
    if fmt == "json":
        with path.open("w", encoding="utf-8") as fh:
            write_json(report, fh)
        return [path]
    if fmt == "xlsx":
        with path.open("wb") as fh:
            write_xlsx(report, fh)
        return [path]
    if fmt == "csv":
        path.mkdir(parents=True, exist_ok=True)
        written = []
        for name in TABLES:
            target = path / f"{name}.csv"
            with target.open("w", encoding="utf-8", newline="") as fh:
                table_csv(name, report.tables[name], fh)
            written.append(target)
        return written
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
