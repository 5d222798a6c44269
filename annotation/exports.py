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

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from django.db.models import QuerySet
from django.db.models.functions import Coalesce

from annotation import selectors
from annotation.models import Rater, Response
from annotation.spreadsheet import CsvWriter, csv_row, xlsx_row
from studies.kinds import KINDS
from studies.models import Item, Study, Task
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
BOM = "\ufeff"  # the UTF-8 byte order mark, as text
# Per item: task slug, external id, source, condition, sample, form, category, and
# field -> option texts.
ItemFacts = tuple[str, str, str | None, str, int | None, str, str, dict[str, list[str]]]
# Per rater: kind, name, run, group slug, group name, recruitment (compact JSON text).
RaterFacts = tuple[str, str, str, str, str, str]


def _value(v: float | None) -> float | int | None:
    if v is not None and v.is_integer():
        return int(v)
    return v


# What an export reads of an item: its task, id and provenance, and what a kind's
# field_specs reads for the option texts (options, parts). The rest (texts, answer key,
# meta) is left in the database: at 150,000 items, reading whole items (and their task
# with each) was most of an export's time. tests/loading/test_export_reads.py checks that
# every kind exports in a fixed number of queries, so a kind reading more is caught.
_FOR_EXPORT = (
    "task",
    "external_id",
    "options",
    "parts",
    "source_kind",
    "source_model",
    "poem_condition",
    "sample",
    "poem_form",
    "category",
)


def item_facts(study: Study) -> dict[int, ItemFacts]:
    """Each item's task, id, provenance and the option texts of each field it asks."""
    tasks = {task.pk: task for task in Task.objects.filter(study=study)}
    out: dict[int, ItemFacts] = {}
    query = Item.objects.filter(study=study).only(*_FOR_EXPORT).order_by()
    for item in query.iterator(chunk_size=2000):
        task = tasks[item.task_id]
        kind = KINDS[task.kind]
        options = {
            spec.key: [str(o.get("text", "")) for o in spec.options]
            for spec in kind.field_specs(item, task)
            if spec.options
        }
        out[item.pk] = (
            task.slug,
            item.external_id,
            source_label(item.source_kind, item.source_model),
            item.poem_condition,
            item.sample,
            item.poem_form,
            item.category,
            options,
        )
    return out


def rater_facts(study: Study) -> dict[int, RaterFacts]:
    """Each rater's kind, name and run, and for a volunteer their group and recruitment."""
    return _rater_facts(Rater.objects.filter(study=study))


def _rater_facts(raters: QuerySet[Rater]) -> dict[int, RaterFacts]:
    query = raters.order_by().values_list(
        "pk",
        "kind",
        "name",
        "run",
        "participant__group__slug",
        "participant__group__name",
        "participant__recruitment",
    )
    return {
        pk: (kind, name, run, group or "", group_name or "", _recruitment(recruitment))
        for pk, kind, name, run, group, group_name, recruitment in query.iterator(chunk_size=5000)
    }


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
    """The study's responses in storage order, one row of COLUMNS each.

    Only the response table is scanned: each row's item, task and rater (with the
    volunteer's group and recruitment) are looked up in dicts read once for the study
    (``item_facts``, ``rater_facts``), so the database does no join per response and the
    ORM converts one timestamp per row (the answer's time, else the row's creation)."""
    items, raters = item_facts(study), rater_facts(study)
    tests = set(selectors.test_rater_ids(study))  # staff's preview: never exported
    query = (
        Response.objects.filter(study=study)
        .order_by("pk")  # storage order: no sort, so memory stays flat
        .annotate(at=Coalesce("answered_at", "created_at"))
        .values_list("item_id", "rater_id", "field", "value", "correct", "time_ms", "sample", "at")
    )
    slug = study.slug
    for item_id, rater_id, fld, value, correct, time_ms, sample, at in query.iterator(
        chunk_size=chunk_size
    ):
        if rater_id in tests:
            continue
        task, item, source, condition, item_sample, form, category, options = items[item_id]
        if rater_id not in raters:  # a rater of another study that answered in this one
            raters.update(_rater_facts(Rater.objects.filter(pk=rater_id)))
        kind, name, run, group, group_name, recruitment = raters[rater_id]
        yield (
            slug,
            task,
            item,
            kind,
            name,
            run,
            group,
            fld,
            _value(value),
            correct,
            time_ms,
            sample,
            at.isoformat().replace("+00:00", "Z"),
            _option(options, fld, value),
            group_name,
            source or "",
            condition,
            item_sample,
            form,
            category,
            recruitment,
        )


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

    writer = CsvWriter(Buffer())
    if fmt == "csv":
        writer.writerow(COLUMNS)
    dumps = json.dumps
    for i, row in enumerate(rows, start=1):
        if fmt == "csv":
            writer.writerow(csv_row(row))
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


def export_write(
    rows: Iterable[tuple[Any, ...]], fmt: str, out: IO[Any], *, bom: bool = False
) -> int:
    """Write the export in ``fmt`` (one of FORMATS) to ``out``, a binary stream for xlsx
    and a text stream otherwise; returns the number of rows written. ``bom``: a CSV
    starts with the UTF-8 byte order mark, which spreadsheet programs (Excel on Chinese
    Windows) need to read the file as UTF-8 rather than the local code page."""
    counted = _Counted(rows)
    if fmt == "xlsx":
        _write_xlsx(counted, out)
    else:
        if bom and fmt == "csv":
            out.write(BOM)
        out.writelines(text_chunks(counted, fmt))
    return counted.n
