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


# The first characters after which a text may need its apostrophe: checked first, so that
# the usual cell costs one lookup (an export writes twenty cells a row, a million rows).
_RISKY_FIRST = frozenset("".join(FORMULA_START) + "'")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet will show as written (text never a formula)."""
    if (
        isinstance(value, str)
        and value[:1] in _RISKY_FIRST
        and (value.startswith(FORMULA_START) or _ESCAPED.match(value))
    ):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    """A CSV row: empty for None, ``true``/``false`` for booleans, each text through
    :func:`csv_cell`, numbers as they are."""
    out: list[Any] = []
    for v in values:
        if v is None:
            out.append("")
        elif v is True or v is False:
            out.append("true" if v else "false")
        elif v.__class__ is str and v[:1] not in _RISKY_FIRST:
            out.append(v)
        else:
            out.append(csv_cell(v))
    return out


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
