"""Raw exports (formats.md §4): one row per answered part or dimension, streamed.

Rows are read from the database in chunks and written as they come, so memory stays
flat whatever the study's size. Nothing identifying is exported: raters appear by their
pseudonymous id (humans), model name (models) or rule name (rules).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import IO, Any

from annotation.models import Response
from annotation.spreadsheet import csv_cell, xlsx_row
from studies.models import Study

COLUMNS = (
    "study",
    "task",
    "item",
    "rater_kind",
    "rater",
    "run",
    "group",
    "field",
    "value",
    "correct",
    "time_ms",
    "sample",
    "answered_at",
)
FORMATS = ("jsonl", "csv", "xlsx")
_QUERY_FIELDS = (
    "task__slug",
    "item__external_id",
    "rater__kind",
    "rater__name",
    "rater__run",
    "rater__participant__group__slug",
    "field",
    "value",
    "correct",
    "time_ms",
    "sample",
    "answered_at",
    "created_at",
)


def _value(v: float | None) -> float | int | None:
    if v is not None and v.is_integer():
        return int(v)
    return v


def _when(answered: datetime | None, created: datetime) -> str:
    return (answered or created).isoformat().replace("+00:00", "Z")


def export_rows(study: Study, *, chunk_size: int = 5000) -> Iterator[tuple[Any, ...]]:
    query = (
        Response.objects.filter(study=study)
        .order_by("pk")  # storage order: no sort, so memory stays flat
        .values_list(*_QUERY_FIELDS)
    )
    slug = study.slug
    for (
        task,
        item,
        kind,
        rater,
        run,
        group,
        fld,
        value,
        correct,
        time_ms,
        sample,
        at,
        created,
    ) in query.iterator(chunk_size=chunk_size):
        yield (
            slug,
            task,
            item,
            kind,
            rater,
            run,
            group or "",
            fld,
            _value(value),
            correct,
            time_ms,
            sample,
            _when(at, created),
        )


def _cells(row: tuple[Any, ...]) -> list[Any]:
    """A CSV row: empty for None, true/false, and text safe to open in a spreadsheet."""
    return [
        "" if v is None else ("true" if v is True else "false" if v is False else csv_cell(v))
        for v in row
    ]


class _Counted:
    """Rows passed through, counted."""

    def __init__(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self.rows, self.n = rows, 0

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for row in self.rows:
            self.n += 1
            yield row


def text_chunks(
    rows: Iterable[tuple[Any, ...]], fmt: str, rows_per_chunk: int = 2000
) -> Iterator[str]:
    """The export as text (CSV with its header row, or JSONL), in chunks of rows: the one
    text writer, behind files, standard output and streamed HTTP downloads."""
    parts: list[str] = []

    class Buffer:
        def write(self, text: str) -> int:
            parts.append(text)
            return len(text)

    writer = csv.writer(Buffer(), lineterminator="\n")
    if fmt == "csv":
        writer.writerow(COLUMNS)
    dumps = json.dumps
    for i, row in enumerate(rows, start=1):
        if fmt == "csv":
            writer.writerow(_cells(row))
        else:
            parts.append(dumps(dict(zip(COLUMNS, row, strict=True)), ensure_ascii=False) + "\n")
        if i % rows_per_chunk == 0:
            yield "".join(parts)
            parts.clear()
    yield "".join(parts)


def _write_xlsx(rows: Iterable[tuple[Any, ...]], out: IO[bytes]) -> None:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("responses")
    sheet.append(list(COLUMNS))
    for row in rows:
        sheet.append(xlsx_row(sheet, row))  # text as text: never a formula
    book.save(out)


def export_write(rows: Iterable[tuple[Any, ...]], fmt: str, out: IO[Any]) -> int:
    """Write the export in ``fmt`` (one of FORMATS) to ``out``, a binary stream for xlsx
    and a text stream otherwise; returns the number of rows written."""
    counted = _Counted(rows)
    if fmt == "xlsx":
        _write_xlsx(counted, out)
    else:
        out.writelines(text_chunks(counted, fmt))
    return counted.n
