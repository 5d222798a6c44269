"""The report as files: JSON (one document), CSV (one file per table), XLSX (one sheet each).

CSV and XLSX columns are the union of the table's row keys in first-seen order; an empty
table still gets its header row when its columns are known. Missing values (None, NaN)
are empty cells. A CSV starts with the UTF-8 byte order mark by default, so Excel reads
it as UTF-8 (Chinese text is not mojibake on a Chinese Windows); ``bom=False`` leaves it
out (for tools that read the mark as part of the first column's name). Text is never a formula (``annotation.spreadsheet``): a CSV text cell
starting with ``=``, ``+``, ``-``, ``@`` gets a leading apostrophe; XLSX text is a string.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotation.exports import BOM
from annotation.spreadsheet import CsvWriter, csv_cell, xlsx_row
from scoring.report.build import TABLES, Report
from scoring.report.registry import BY_NAME, SPECS

FORMATS = ("json", "csv", "xlsx")
#: Columns of tables that may come out empty, so their files still have a header.
KNOWN_COLUMNS = {spec.name: list(spec.columns) for spec in SPECS}
#: Tables that are never split by item provenance (their rows are about the study).
WHOLE = tuple(spec.name for spec in SPECS if not spec.split)


def columns(name: str, rows: Iterable[dict[str, Any]], by: Iterable[str] = ()) -> list[str]:
    """The table's columns: the ``by`` split keys first (unless the table has them as its
    own), then the known ones, then any other in first-seen order."""
    known = list(KNOWN_COLUMNS.get(name, []))
    spec = BY_NAME.get(name)
    split = spec.split_keys(tuple(by)) if spec is not None else tuple(by)
    cols = [k for k in split if k not in known]
    cols += [k for k in known if k not in cols]
    if name == "rule_rates" and "form" in by and "form" not in cols:
        cols.insert(cols.index("condition") + 1, "form")
    for row in rows:
        cols += [k for k in row if k not in cols]
    return cols


def _cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if isinstance(v, list | tuple | dict | set):  # e.g. a plan departure's runs: as the
        return str(v)  # CSV writes it (an XLSX cell takes no list)
    return v


def table_csv(name: str, rows: list[dict[str, Any]], out: IO[str], by: Iterable[str] = ()) -> None:
    cols = columns(name, rows, by)
    writer = CsvWriter(out)
    writer.writerow([csv_cell(c) for c in cols])
    for row in rows:
        writer.writerow([csv_cell(_cell(row.get(c))) for c in cols])


def table_csv_text(
    name: str, rows: list[dict[str, Any]], by: Iterable[str] = (), *, bom: bool = False
) -> str:
    """One table as CSV text; ``bom``: with the byte order mark first."""
    buffer = io.StringIO()
    if bom:
        buffer.write(BOM)
    table_csv(name, rows, buffer, by)
    return buffer.getvalue()


def json_text(data: dict[str, Any]) -> str:
    """The report's JSON document: one line per row of a table (each row written by the
    json module's C encoder; an indented document goes through its pure-Python encoder,
    three times slower on a report of a million responses), the rest indented."""
    parts = []
    for key, value in data.items():
        name = json.dumps(key, ensure_ascii=False)
        if isinstance(value, list) and value:
            rows = ",\n  ".join(json.dumps(r, ensure_ascii=False, allow_nan=False) for r in value)
            parts.append(f"{name}: [\n  {rows}\n ]")
        else:
            parts.append(f"{name}: {json.dumps(value, ensure_ascii=False, allow_nan=False)}")
    return "{\n " + ",\n ".join(parts) + "\n}"


def write_json(report: Report, out: IO[str]) -> None:
    out.write(json_text(report.as_json()))


@dataclass(frozen=True)
class Naming:
    """How a workbook for reading names things: each sheet (by table), each column
    header, and each cell (column, value, row) — the dashboard's labels in the reader's
    language. Without one, a file keeps the report's ids and English notes."""

    sheet: Callable[[str], str]
    header: Callable[[str], str]
    cell: Callable[[str, Any, dict[str, Any]], Any]


def _sheet_name(name: str, used: set[str]) -> str:
    """A valid, distinct sheet name (31 characters, none of []:*?/\\)."""
    base = "".join(" " if ch in "[]:*?/\\" else ch for ch in name)[:31] or "sheet"
    shown, k = base, 2
    while shown in used:
        shown, k = f"{base[:28]}~{k}", k + 1
    used.add(shown)
    return shown


def write_xlsx(
    report: Report,
    out: IO[bytes],
    tables: Iterable[str] = TABLES,
    *,
    naming: Naming | None = None,
) -> None:
    """The report as a workbook; ``naming``: sheets, headers and cells for reading (the
    dashboard's labels) instead of the report's ids."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    about = book.create_sheet("report")
    about.append(xlsx_row(about, ["study", report.study]))
    about.append(xlsx_row(about, ["generated_at", report.generated_at]))
    for key, value in report.settings.as_json().items():
        shown = ",".join(value) if isinstance(value, list) else value
        about.append(xlsx_row(about, [key, shown]))
    prov = report.provenance
    for key in ("data_fingerprint", "commit", "rules_version", "python"):
        if key in prov:
            about.append(xlsx_row(about, [key, prov[key]]))
    for name, version in prov.get("packages", {}).items():
        about.append(xlsx_row(about, [name, version or ""]))
    for load in prov.get("loads", []):
        about.append(xlsx_row(about, ["load", load["filename"], load["sha256"], load["at"]]))
    used = {"report"}
    for name in tables:
        rows = report.tables[name]
        cols = columns(name, rows, report.settings.by)
        sheet = book.create_sheet(_sheet_name(naming.sheet(name) if naming else name, used))
        sheet.append(xlsx_row(sheet, [naming.header(c) for c in cols] if naming else cols))
        for row in rows:
            if naming is None:
                sheet.append(xlsx_row(sheet, [_cell(row.get(c)) for c in cols]))
            else:
                cells = [_cell(naming.cell(c, row.get(c), row)) for c in cols]
                sheet.append(xlsx_row(sheet, cells))
    book.save(out)


def write(report: Report, fmt: str, path: Path, *, bom: bool = True) -> list[Path]:
    """Write ``report`` as ``fmt`` at ``path``; CSV: ``path`` is a directory of tables,
    each starting with the byte order mark unless ``bom`` is off."""
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
            with target.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as fh:
                table_csv(name, report.tables[name], fh, report.settings.by)
            written.append(target)
        return written
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
