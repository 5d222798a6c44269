"""Writing items (pool lines, LLM-written poems) in bounded batches.

Items are upserted by ``(study, external id)``: an item whose content hash is unchanged is
left alone, a changed one is updated, a new one created. The specs may come from a list or
from a generator that re-reads the file (``studies.loading.pool``): each batch looks up
only its own stored items and is written before the next is read, so memory stays flat
however long the file is. The caller holds the transaction that makes the whole file
all or nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

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


def write_batch(study: Study, batch: Sequence[WritableItem], summary: Summary) -> dict[str, int]:
    """Create or update one batch (at most ``BATCH`` items, distinct ids); returns their
    external id -> primary key and adds the items changed to ``summary``."""
    changed: list[tuple[str, int]] = []
    ids = _write_batch(study, batch, summary, changed)
    summary.items.changed.extend(pk for _, pk in changed)
    return ids


def _write_batch(
    study: Study,
    batch: Sequence[WritableItem],
    summary: Summary,
    changed: list[tuple[str, int]],
) -> dict[str, int]:
    ids: dict[str, int] = {}
    # order_by(): no join for Item.Meta.ordering (on PostgreSQL, inside the load's one
    # transaction, that join planned badly: hours for 150,000 lines)
    stored = Item.objects.filter(
        study=study, external_id__in=[s.external_id for s in batch]
    ).order_by()
    existing = {
        ext: (pk, digest, answer)
        for ext, pk, digest, answer in stored.values_list(
            "external_id", "pk", "content_hash", "answer"
        )
    }
    to_create: list[Item] = []
    to_update: list[Item] = []
    for spec in batch:
        digest = spec.content_hash
        found = existing.get(spec.external_id)
        if found is None:
            to_create.append(
                Item(study=study, external_id=spec.external_id, content_hash=digest, **spec.values)
            )
            continue
        ids[spec.external_id] = found[0]
        if found[1] == digest:
            summary.count("unchanged")
            continue
        to_update.append(
            Item(
                pk=found[0],
                study=study,
                external_id=spec.external_id,
                content_hash=digest,
                **spec.values,
            )
        )
        changed.append((spec.external_id, found[0]))
        if found[2] != spec.values["answer"]:
            summary.items.rekeyed.append(found[0])
    if to_create:
        Item.objects.bulk_create(to_create)
        created = (
            Item.objects.filter(study=study, external_id__in=[i.external_id for i in to_create])
            .order_by()
            .values_list("external_id", "pk")
        )
        for ext, pk in created:
            ids[ext] = pk
            changed.append((ext, pk))
    if to_update:
        Item.objects.bulk_update(to_update, [*ITEM_FIELDS, "content_hash"])
    summary.count("created", len(to_create))
    summary.count("updated", len(to_update))
    return ids
