"""Cells for files meant for spreadsheets: text stays text, never a formula.

A spreadsheet reads a CSV cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or a
carriage return, which some strip before looking) as a formula: a model named
``=HYPERLINK(...)`` becomes a live link, an id ``=rt-1`` shows ``#NAME?``
(CSV/formula injection, OWASP). So:

* CSV: such a text cell is written with a leading apostrophe (``'=rt-1``), which the
  spreadsheet shows as the text ``=rt-1``; a text that already starts with apostrophes
  before such a character gets one more, so :func:`csv_restore` (used by
  ``load_responses``) gives back exactly the original: an export loads back unchanged.
  The same holds for every line inside a cell (after a ``\r``, ``\n`` or ``\r\n``): a
  reader that breaks rows at a bare carriage return must still never see a formula.
  Numbers are numbers, written as they are (``-1`` stays the number -1).
* Every CSV file is written by :class:`CsvWriter`: Python's ``csv`` with ``QUOTE_MINIMAL``,
  lines ending ``\n``, and every field holding a ``\r``, a ``\n``, a quote or the separator
  quoted (the module alone leaves a lone ``\r`` bare when lines end ``\n``, and a
  spreadsheet or pandas then starts a new row inside the field).
* XLSX: text cells are written as inline strings (``data_type "s"``), never formulas;
  the value stays exactly the text, except that a C0 control character XML 1.0 cannot
  hold (all but tab and ``\n``; an imported id ``c\x0bd``; a ``\r``, which an XML reader
  would read as ``\n``) is written as OOXML's
  escape ``_x000B_`` (:func:`xlsx_text`), which Excel and LibreOffice show as the
  character and :func:`xlsx_restore` (the workbook reader) reads back as it. A literal
  text of that escape's shape (``_x000B_``) would read back as the character too.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import IO, Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")


# The first characters after which a text may need its apostrophe: checked first, so that
# the usual cell costs one lookup (an export writes twenty cells a row, a million rows).
_RISKY_FIRST = frozenset("".join(FORMULA_START) + "'")


_BREAK = re.compile(r"(\r\n|\r|\n)")


def _escaped_line(line: str) -> str:
    if line.startswith(FORMULA_START) or _ESCAPED.match(line):
        return "'" + line
    return line


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet will show as written (text never a formula):
    the cell, and each line inside it, starting a formula gets an apostrophe."""
    if not isinstance(value, str):
        return value
    if value[:1] in _RISKY_FIRST and (value.startswith(FORMULA_START) or _ESCAPED.match(value)):
        value = "'" + value
    if "\r" in value or "\n" in value:
        parts = _BREAK.split(value)  # text, break, text, break, ...: the first text is done
        parts[2::2] = [_escaped_line(line) for line in parts[2::2]]
        value = "".join(parts)
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
        elif v.__class__ is str and v[:1] not in _RISKY_FIRST and "\n" not in v and "\r" not in v:
            out.append(v)
        else:
            out.append(csv_cell(v))
    return out


def csv_restore(text: str) -> str:
    """The original text of a cell :func:`csv_cell` wrote (other text unchanged)."""
    if "\r" in text or "\n" in text:
        parts = _BREAK.split(text)
        parts[2::2] = [line[1:] if _ESCAPED.match(line) else line for line in parts[2::2]]
        text = "".join(parts)
    return text[1:] if _ESCAPED.match(text) else text


class CsvWriter:
    """The one CSV writer: ``csv.writer`` with ``QUOTE_MINIMAL`` and lines ending ``\n``,
    where a field holding a ``\r`` is quoted too.

    ``csv`` quotes a field holding the separator, the quote or a character of the line
    terminator; so a row with a ``\r`` in a field is written by a second writer whose lines
    end ``\r\n`` (which quotes it), and its final ``\r\n`` becomes ``\n``. Cells are
    written as given: pass them through :func:`csv_row` or :func:`csv_cell` first.
    """

    def __init__(self, out: IO[str] | Any, delimiter: str = ",") -> None:
        self._out = out
        self._plain = csv.writer(
            out, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL
        )
        self._buffer = io.StringIO()
        self._quoting = csv.writer(
            self._buffer, delimiter=delimiter, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL
        )

    def writerow(self, cells: Iterable[Any]) -> None:
        cells = list(cells)
        if not any(c.__class__ is str and "\r" in c for c in cells):
            self._plain.writerow(cells)
            return
        self._quoting.writerow(cells)
        line = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        self._out.write(line[:-2] + "\n")


#: What an XLSX cell cannot hold as it is: XML 1.0's forbidden C0 characters (openpyxl's
#: rule), and ``\r``, which XML readers turn into ``\n`` (its line-end normalisation).
XLSX_ILLEGAL = re.compile(r"[\x00-\x08\x0b-\x1f]")
#: OOXML's escape of one of them, as ``xlsx_text`` writes it.
_XLSX_ESCAPED = re.compile(r"_x(000[0-8b-fB-F]|001[0-9a-fA-F])_")


def xlsx_text(value: str) -> str:
    """``value`` as an XLSX cell can hold it: each forbidden control character as
    ``_xHHHH_`` (which spreadsheets show as the character); other text as it is."""
    if not XLSX_ILLEGAL.search(value):
        return value
    return XLSX_ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", value)


def xlsx_restore(value: str) -> str:
    """A workbook cell's text with ``xlsx_text``'s escapes back as the characters."""
    if "_x" not in value:
        return value
    return _XLSX_ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), value)


def xlsx_row(sheet: Any, values: Iterable[Any]) -> list[Any]:
    """A write-only sheet's row: each text a string cell (never a formula), the rest as is."""
    from openpyxl.cell import WriteOnlyCell

    row: list[Any] = []
    for value in values:
        if isinstance(value, str):
            cell = WriteOnlyCell(sheet, value=xlsx_text(value))
            cell.data_type = "s"
            row.append(cell)
        else:
            row.append(value)
    return row
