"""Read a rating table a researcher brings (CSV) for the ``agreement`` command.

Two shapes, told apart by the header:

* long: columns ``unit,rater,value`` (any order, extra columns ignored), one rating a row;
* wide: one column per rater, one row per unit; a first column named ``unit``, ``item``
  or ``id`` labels the units (otherwise units are numbered from 1 by row).

Cells are read with ``scoring.agreement.parse_cell``: empty, ``.``, ``NA``, ``N/A``,
``NaN``, ``null``, ``None`` and ``-`` are missing. Delimiter: comma, semicolon or tab
(sniffed). Every problem is a ``RatingFileError`` naming the line and the field.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .coding import parse_cell
from .table import RatingTable

LONG = ("unit", "rater", "value")
UNIT_COLUMNS = ("unit", "item", "id")


class RatingFileError(ValueError):
    pass


@dataclass(frozen=True)
class RatingFile:
    shape: str  # "long" or "wide"
    table: RatingTable


def _reader(text: str) -> Iterator[list[str]]:
    sample = text[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    return csv.reader(io.StringIO(text), dialect)


def _value(cell: str, line: int, fld: str, level: str, domain: list[object] | None) -> object:
    value = parse_cell(cell)
    if value is None:
        return None
    if domain is not None and value not in domain:
        raise RatingFileError(
            f"line {line}, field {fld}: {cell!r} is not on the declared "
            f"scale ({', '.join(map(str, domain))})"
        )
    # Ordered labels are ordinal data when the declared scale gives their order.
    labels_ok = level == "nominal" or (level == "ordinal" and domain is not None)
    if not labels_ok and not isinstance(value, int | float):
        raise RatingFileError(
            f"line {line}, field {fld}: {cell!r} is not a number "
            f"(level {level}; use --level nominal for labels, or "
            f"--level ordinal with --domain giving their order)"
        )
    if level == "ratio" and isinstance(value, int | float) and value < 0:
        raise RatingFileError(f"line {line}, field {fld}: ratio values cannot be negative")
    if isinstance(value, float) and math.isinf(value):
        raise RatingFileError(f"line {line}, field {fld}: {cell!r} is not a finite number")
    return value


def read_rating_file(
    path: Path, *, level: str = "nominal", domain: list[object] | None = None
) -> RatingFile:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RatingFileError(f"{path}: cannot read as UTF-8 text ({exc})") from exc
    rows = list(_reader(text))
    if not rows or not any(c.strip() for c in rows[0]):
        raise RatingFileError(f"{path}: line 1: a header row is needed")
    header = [c.strip() for c in rows[0]]
    lowered = [c.lower() for c in header]
    if set(LONG) <= set(lowered):
        shape, triples = "long", _long(rows, [lowered.index(c) for c in LONG], level, domain)
    else:
        shape, triples = "wide", _wide(rows, header, level, domain)
    if not triples:
        raise RatingFileError(f"{path}: no ratings found")
    seen: dict[tuple[Hashable, Hashable], int] = {}
    for line, unit, rater, _ in triples:
        if (unit, rater) in seen:
            raise RatingFileError(
                f"line {line}: rater {rater!r} rated unit {unit!r} again "
                f"(first at line {seen[(unit, rater)]})"
            )
        seen[(unit, rater)] = line
    try:
        table = RatingTable.from_rows(
            [(u, r, v) for _, u, r, v in triples],
            level=level,
            domain=domain,
        )
    except ValueError as exc:
        raise RatingFileError(f"{path}: {exc}") from exc
    return RatingFile(shape, table)


def _long(
    rows: list[list[str]], idx: list[int], level: str, domain: list[object] | None
) -> list[tuple[int, str, str, object]]:
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) <= max(idx):
            raise RatingFileError(
                f"line {line}: expected at least {max(idx) + 1} fields, found {len(row)}"
            )
        unit, rater, cell = (row[i].strip() for i in idx)
        for name, got in (("unit", unit), ("rater", rater)):
            if not got:
                raise RatingFileError(f"line {line}, field {name}: empty")
        value = _value(cell, line, "value", level, domain)
        if value is not None:
            out.append((line, unit, rater, value))
    return out


def _wide(
    rows: list[list[str]], header: list[str], level: str, domain: list[object] | None
) -> list[tuple[int, str, str, object]]:
    has_unit = header[0].lower() in UNIT_COLUMNS
    raters = header[1:] if has_unit else header
    if any(not r for r in raters):
        raise RatingFileError("line 1: every rater column needs a name")
    if len(set(raters)) != len(raters):
        raise RatingFileError("line 1: rater column names must be distinct")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise RatingFileError(f"line {line}: expected {len(header)} fields, found {len(row)}")
        unit = row[0].strip() if has_unit else str(line - 1)
        if not unit:
            raise RatingFileError(f"line {line}, field {header[0]}: empty")
        cells = row[1:] if has_unit else row
        for rater, cell in zip(raters, cells, strict=True):
            value = _value(cell, line, rater, level, domain)
            if value is not None:
                out.append((line, unit, rater, value))
    return out


def parse_domain(text: str | None) -> list[object] | None:
    """``1..5`` or ``1,2,3`` (or labels ``low,mid,high``) as a declared scale."""
    if not text:
        return None
    if ".." in text:
        lo, hi = text.split("..", 1)
        try:
            low, high = int(lo), int(hi)
        except ValueError as exc:
            raise RatingFileError(f"--domain {text!r}: use e.g. 1..5") from exc
        if high <= low:
            raise RatingFileError(f"--domain {text!r}: the scale runs from low to high, e.g. 1..5")
        return list(range(low, high + 1))
    return [parse_cell(p) for p in text.split(",") if p.strip()]
