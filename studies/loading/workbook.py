"""XLSX workbooks read as CSV is: a header row, then one record per row (openpyxl).

The first sheet is read unless a sheet is named (``--sheet``, the upload page's field).
A record's line is the row's number in the sheet, as Excel shows it; its fields are the
header's names, and every cell is read as the text a CSV cell would hold (an integral
number as ``3``, a date as ``2025-03-01``, TRUE as ``true``), so a row is checked by the
same rules, with the same messages, as the CSV row it would be.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext_lazy as _
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from studies.loading.plain import text_problem
from studies.loading.problems import Collector
from studies.values import with_params

NOT_A_WORKBOOK = _(
    "not a readable XLSX workbook (%(reason)s): open it in Excel or WPS and save it again "
    "as .xlsx (Excel workbook), or as “CSV UTF-8”"
)


def cell_text(value: Any) -> str:
    """A cell's value as the text a CSV cell would hold."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ") if value.time() != dt.time() else value.date().isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def _open(content: bytes, sheet: str | None, problems: Collector) -> Any:
    try:
        book = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as exc:
        reason = type(exc).__name__ if not str(exc) else str(exc)[:200]
        problems.add(None, None, with_params(NOT_A_WORKBOOK, reason=reason))
        return None
    if sheet is None:
        return book.worksheets[0] if book.worksheets else None
    if sheet not in book.sheetnames:
        problems.add(
            None,
            None,
            with_params(
                _("the workbook has no sheet named “%(sheet)s” (its sheets: %(sheets)s)"),
                sheet=sheet,
                sheets="、".join(book.sheetnames),
            ),
        )
        return None
    return book[sheet]


def workbook_rows(content: bytes, sheet: str | None) -> int:
    """The rows of the sheet to read, for progress reports (0 if it cannot be opened)."""
    found = _open(content, sheet, Collector(""))
    return int(found.max_row or 0) if found is not None else 0


def read_workbook(content: bytes, sheet: str | None, problems: Collector) -> Iterator[Any]:
    """(row number, {header: text}) for each non-empty row after the header."""
    found = _open(content, sheet, problems)
    if found is None:
        return
    rows = found.iter_rows(values_only=True)
    first = next(rows, None)
    header = [cell_text(v).strip() for v in first or ()]
    if not any(header):
        problems.add(1, None, _("the sheet has no header row: put the column names in row 1"))
        return
    named = [h for h in header if h]
    if len(set(named)) != len(named):
        dupes = sorted({h for h in named if named.count(h) > 1})
        problems.add(
            1,
            None,
            with_params(_("duplicate column(s) in header: %(columns)s"), columns=", ".join(dupes)),
        )
        return
    for number, values in enumerate(rows, start=2):
        cells = [cell_text(v) for v in values]
        row = {h: "" for h in named}
        bad = False
        for index, text in enumerate(cells):
            name = header[index] if index < len(header) else ""
            if name:
                row[name] = text
            elif text.strip():
                bad = True
                problems.add(
                    number,
                    None,
                    with_params(
                        _("cell %(cell)s has a value but its column has no header"),
                        cell=f"{get_column_letter(index + 1)}{number}",
                    ),
                )
        for column, text in row.items():
            message = text_problem(text)
            if message:
                bad = True
                problems.add(number, column, message)
        if not bad and any(v.strip() for v in row.values()):
            yield number, row
