"""Cells for files meant for spreadsheets: text stays text, never a formula.

A spreadsheet reads a CSV cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return, which some strip before looking) as a formula: a model named
``=HYPERLINK(...)`` becomes a live link, an id ``=rt-1`` shows ``#NAME?``
(CSV/formula injection, OWASP). So:

* CSV: such a text cell is written with a leading apostrophe (``'=rt-1``), which the
  spreadsheet shows as the text ``=rt-1``; a text that already starts with apostrophes
  before such a character gets one more, so :func:`csv_restore` (used by
  ``load_responses``) gives back exactly the original: an export loads back unchanged.
  Numbers are numbers, written as they are (``-1`` stays the number -1).
* XLSX: text cells are written as inline strings (``data_type "s"``), never formulas;
  the value stays exactly the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet will show as written (text never a formula)."""
    if isinstance(value, str) and (value.startswith(FORMULA_START) or _ESCAPED.match(value)):
        return "'" + value
    return value


def csv_restore(text: str) -> str:
    """The original text of a cell :func:`csv_cell` wrote (other text unchanged)."""
    return text[1:] if _ESCAPED.match(text) else text


def xlsx_row(sheet: Any, values: Iterable[Any]) -> list[Any]:
    """A write-only sheet's row: each text a string cell (never a formula), the rest as is."""
    from openpyxl.cell import WriteOnlyCell

    row: list[Any] = []
    for value in values:
        if isinstance(value, str):
            cell = WriteOnlyCell(sheet, value=value)
            cell.data_type = "s"
            row.append(cell)
        else:
            row.append(value)
    return row
