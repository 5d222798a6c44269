"""Writing items (pool lines, LLM-written poems) in bounded batches.

Items are upserted by ``(study, external id)``: an item whose content hash is unchanged is
left alone, a changed one is updated, a new one created. The specs may come from a list or
from a generator that re-reads the file (``studies.loading.pool``): each batch looks up
only its own stored items and is written before the next is read, so memory stays flat
however long the file is. The caller holds the transaction that makes the whole file
all or nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from django.db import connection

from studies.loading.problems import Summary
from studies.loading.progress import ProgressCallback, progress
from studies.models import Item, Study
from studies.provenance import DERIVED

# Under SQLite's smallest limit on bound parameters (999) for the batch's IN (...) lists.
BATCH = 500
ITEM_FIELDS = (
    "task_id",
    "stem",
    "options",
    "parts",
    "answer",
    "poem_title",
    "poem_author",
    "poem_form",
    "poem_text",
    "poem_source",
    "poem_condition",
    *DERIVED,
    "is_attention_check",
    "meta",
    "position",
)


# PostgreSQL: one probe of the unique (study, id) index per wanted id. The LIMIT keeps the
# subquery from being flattened into a join, which the planner, with no statistics for
# the rows the load's open transaction wrote, ran as a scan of every item of the study
# filtered against the batch's ids (and, once the statement was prepared, compared each
# item with each of the 500 ids in turn): a cost growing with the rows already written,
# 1,263 s for 150,000 lines (docs/performance.md).
_PROBE = """
SELECT item.external_id, item.id, item.task_id, item.content_hash, item.answer::text
FROM unnest(%s::text[]) AS wanted(external_id)
CROSS JOIN LATERAL (
  SELECT id, external_id, task_id, content_hash, answer FROM {table}
  WHERE study_id = %s AND external_id = wanted.external_id LIMIT 1
) AS item
"""


def probe_sql() -> str:
    """``_PROBE`` on the item model's table."""
    return _PROBE.format(table=connection.ops.quote_name(Item._meta.db_table))


class Stored(NamedTuple):
    """What a batch needs of a stored item: its key, task, content hash and answer key."""

    pk: int
    task_id: int
    content_hash: str
    answer: Any


def items_stored(study: Study, external_ids: Sequence[str]) -> dict[str, Stored]:
    """The study's stored items among ``external_ids`` (distinct, at most ``BATCH``),
    each found through the unique (study, id) index, so that the cost does not grow with
    the items already stored."""
    if connection.vendor != "postgresql":
        # order_by(): no join for Item.Meta.ordering; SQLite searches the unique index
        rows = (
            Item.objects.filter(study=study, external_id__in=external_ids)
            .order_by()
            .values_list("external_id", "pk", "task_id", "content_hash", "answer")
        )
        return {ext: Stored(pk, task, digest, answer) for ext, pk, task, digest, answer in rows}
    with connection.cursor() as cursor:
        cursor.execute(probe_sql(), [list(external_ids), study.pk])
        return {
            ext: Stored(pk, task, digest, None if answer is None else json.loads(answer))
            for ext, pk, task, digest, answer in cursor.fetchall()
        }


class WritableItem(Protocol):
    external_id: str
    values: dict[str, Any]

    @property
    def content_hash(self) -> str: ...


def apply_items(
    study: Study,
    specs: Iterable[WritableItem],
    summary: Summary,
    *,
    total: int | None = None,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> dict[str, int]:
    """Create or update items; returns external id -> primary key for every spec, and
    fills ``summary`` (counts; the items changed and those whose key changed)."""
    ids: dict[str, int] = {}
    changed: list[tuple[str, int]] = []
    batch: list[WritableItem] = []
    steps = progress(specs, show_progress, "writing", callback=on_progress, total=total)
    for spec in steps:
        batch.append(spec)
        if len(batch) >= BATCH:
            ids.update(_write_batch(study, batch, summary, changed))
            batch = []
    if batch:
        ids.update(_write_batch(study, batch, summary, changed))
    summary.items.changed.extend(pk for _, pk in sorted(changed))
    return ids


def write_batch(
    study: Study,
    batch: Sequence[WritableItem],
    summary: Summary,
    stored: Mapping[str, Stored] | None = None,
) -> dict[str, int]:
    """Create or update one batch (at most ``BATCH`` items, distinct ids); returns their
    external id -> primary key and adds the items changed to ``summary``. ``stored``: the
    batch's ``items_stored`` if the caller has read them already."""
    changed: list[tuple[str, int]] = []
    ids = _write_batch(study, batch, summary, changed, stored)
    summary.items.changed.extend(pk for _, pk in changed)
    return ids


def _write_batch(
    study: Study,
    batch: Sequence[WritableItem],
    summary: Summary,
    changed: list[tuple[str, int]],
    stored: Mapping[str, Stored] | None = None,
) -> dict[str, int]:
    ids: dict[str, int] = {}
    if stored is None:
        stored = items_stored(study, [s.external_id for s in batch])
    to_create: list[Item] = []
    to_update: list[Item] = []
    for spec in batch:
        digest = spec.content_hash
        found = stored.get(spec.external_id)
        if found is None:
            to_create.append(
                Item(study=study, external_id=spec.external_id, content_hash=digest, **spec.values)
            )
            continue
        ids[spec.external_id] = found.pk
        if found.content_hash == digest:
            summary.count("unchanged")
            continue
        to_update.append(
            Item(
                pk=found.pk,
                study=study,
                external_id=spec.external_id,
                content_hash=digest,
                **spec.values,
            )
        )
        changed.append((spec.external_id, found.pk))
        if found.answer != spec.values["answer"]:
            summary.items.rekeyed.append(found.pk)
    if to_create:
        for ext, pk in _create(study, to_create):
            ids[ext] = pk
            changed.append((ext, pk))
    if to_update:
        Item.objects.bulk_update(to_update, [*ITEM_FIELDS, "content_hash"])
    summary.count("created", len(to_create))
    summary.count("updated", len(to_update))
    return ids


def _create(study: Study, items: list[Item]) -> Iterable[tuple[str, int]]:
    """Insert ``items``; their (external id, primary key). Both engines return the keys
    of a bulk insert (PostgreSQL, SQLite 3.35+), saving a lookup per batch."""
    Item.objects.bulk_create(items)
    if all(item.pk is not None for item in items):
        return [(item.external_id, item.pk) for item in items]
    return (
        Item.objects.filter(study=study, external_id__in=[i.external_id for i in items])
        .order_by()
        .values_list("external_id", "pk")
    )
