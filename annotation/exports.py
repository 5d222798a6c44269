"""Raw exports (formats.md §4): one row per answered part or dimension, streamed.

Rows are read from the database in chunks and written as they come, so memory stays
flat whatever the study's size (the study's items are read once, for their provenance and
option texts). Nothing identifying is exported: raters appear by their pseudonymous id
(humans), model name (models) or rule name (rules). Every column is described in
docs/codebook.md; the first thirteen are formats.md §4, the rest follow them, so
``load_responses`` reads an export back unchanged. ``recruitment`` holds a recruitment
platform's pseudonymous ids for a participant who came through one (e.g.
``{"PROLIFIC_PID": …}``), which the researchers need to approve their work there;
loading an export back ignores that column.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import IO, Any

from annotation.models import Response
from annotation.spreadsheet import csv_cell, xlsx_row
from studies.kinds import KINDS
from studies.models import Item, Study
from studies.provenance import source_label

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
    "option_text",
    "group_name",
    "item_source",
    "item_condition",
    "item_sample",
    "item_form",
    "item_category",
    "recruitment",
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
    "item_id",
    "rater__participant__group__name",
    "rater__participant__recruitment",
)
# Per item: source, condition, sample, form, category, and field -> option texts.
ItemFacts = tuple[str | None, str, int | None, str, str, dict[str, list[str]]]


def _value(v: float | None) -> float | int | None:
    if v is not None and v.is_integer():
        return int(v)
    return v


def _when(answered: datetime | None, created: datetime) -> str:
    return (answered or created).isoformat().replace("+00:00", "Z")


def item_facts(study: Study) -> dict[int, ItemFacts]:
    """Each item's provenance and the option texts of each field it asks."""
    out: dict[int, ItemFacts] = {}
    query = Item.objects.filter(study=study).select_related("task").order_by()
    for item in query.iterator(chunk_size=2000):
        kind = KINDS[item.task.kind]
        options = {
            spec.key: [str(o.get("text", "")) for o in spec.options]
            for spec in kind.field_specs(item, item.task)
            if spec.options
        }
        out[item.pk] = (
            source_label(item.source_kind, item.source_model),
            item.poem_condition,
            item.sample,
            item.poem_form,
            item.category,
            options,
        )
    return out


def _option(options: dict[str, list[str]], fld: str, value: float | None) -> str:
    texts = options.get(fld)
    if texts is None or value is None or not float(value).is_integer():
        return ""
    index = int(value)
    return texts[index] if 0 <= index < len(texts) else ""


def _recruitment(params: dict[str, str] | None) -> str:
    """A participant's recruitment platform ids (``Participant.recruitment``) as compact
    JSON text, or "" (most participants, and every model or rule)."""
    return json.dumps(params, ensure_ascii=False, sort_keys=True) if params else ""


def export_rows(study: Study, *, chunk_size: int = 5000) -> Iterator[tuple[Any, ...]]:
    facts = item_facts(study)
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
        item_id,
        group_name,
        recruitment,
    ) in query.iterator(chunk_size=chunk_size):
        source, condition, item_sample, form, category, options = facts[item_id]
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
            _option(options, fld, value),
            group_name or "",
            source or "",
            condition,
            item_sample,
            form,
            category,
            _recruitment(recruitment),
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
