"""Raw exports (formats.md §4): one row per answered part or dimension, streamed.

Rows are read from the database in chunks and written as they come, so memory stays
flat whatever the study's size. Nothing identifying is exported: raters appear by their
pseudonymous id (humans), model name (models) or rule name (rules).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from datetime import datetime
from typing import IO, Any

from annotation.models import Response
from studies.models import Study

COLUMNS = (
    "study", "task", "item", "rater_kind", "rater", "run", "group", "field", "value",
    "correct", "time_ms", "sample", "answered_at",
)  # fmt: skip
FORMATS = ("jsonl", "csv", "xlsx")
_QUERY_FIELDS = (
    "task__slug", "item__external_id", "rater__kind", "rater__name", "rater__run",
    "rater__participant__group__slug", "field", "value", "correct", "time_ms", "sample", "answered_at",
    "created_at",
)  # fmt: skip


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
        yield (slug, task, item, kind, rater, run, group or "", fld, _value(value), correct,
               time_ms, sample, _when(at, created))  # fmt: skip


def _cells(row: tuple[Any, ...]) -> list[Any]:
    return [
        "" if v is None else ("true" if v is True else "false" if v is False else v) for v in row
    ]


def write_csv(rows: Iterator[tuple[Any, ...]], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    n = 0
    for row in rows:
        writer.writerow(_cells(row))
        n += 1
    return n


def write_jsonl(rows: Iterator[tuple[Any, ...]], out: IO[str]) -> int:
    n = 0
    dumps = json.dumps
    for row in rows:
        out.write(dumps(dict(zip(COLUMNS, row, strict=True)), ensure_ascii=False))
        out.write("\n")
        n += 1
    return n


def write_xlsx(rows: Iterator[tuple[Any, ...]], out: IO[bytes]) -> int:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("responses")
    sheet.append(list(COLUMNS))
    n = 0
    for row in rows:
        sheet.append(list(row))
        n += 1
    book.save(out)
    return n


def csv_chunks(rows: Iterator[tuple[Any, ...]], fmt: str) -> Iterator[str]:
    """Text chunks for an HTTP streaming response (CSV or JSONL)."""

    class Buffer:
        def __init__(self) -> None:
            self.parts: list[str] = []

        def write(self, text: str) -> int:
            self.parts.append(text)
            return len(text)

    buffer = Buffer()
    writer = csv.writer(buffer, lineterminator="\n")
    if fmt == "csv":
        writer.writerow(COLUMNS)
    for i, row in enumerate(rows, start=1):
        if fmt == "csv":
            writer.writerow(_cells(row))
        else:
            buffer.write(
                json.dumps(dict(zip(COLUMNS, row, strict=True)), ensure_ascii=False) + "\n"
            )
        if i % 2000 == 0:
            yield "".join(buffer.parts)
            buffer.parts.clear()
    yield "".join(buffer.parts)
