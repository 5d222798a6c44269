"""Reloaded items whose option lists change size ("reshaped"): what a reload may do.

A volunteer's answer arrives as *shown* positions, mapped to canonical options through
the shuffle drawn for their claim (``Assignment.option_order``) when the item had its
old options. If a reload changes how many options an item (or one of its parts) has,
that order no longer fits: mapped through it, a click would store another option than
the one clicked. So a reload that changes an option list's size is

* refused, naming the line and the field, when the item has answers (of volunteers,
  models or imports: stored values are canonical indices into the old list, which the
  new one would silently re-mean); load the new version under a new id instead;
* allowed otherwise, the spec marked ``reshaped``: the load then releases the item's open
  claims (``annotation.services.claims_release``, called by ``scoring.loads``), so
  whoever held it is given a freshly shuffled question. The answer rule refuses any
  answer whose order does not fit the item it maps into, whatever the path.

A reload that keeps every list's size (a typo fixed in an option) changes no shuffle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.kinds import KINDS
from studies.loading.problems import Collector
from studies.models import Item, Study, Task
from studies.values import with_params

BATCH = 500


def shape(kind: str, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Option list key -> number of options, as the shuffle sees an item."""
    return KINDS[kind].option_lists(n_options=len(options), parts=parts)


def check_reshaped(study: Study, specs: Sequence[Any], collector: Collector) -> None:
    """Mark specs whose item's option lists change size; refuse those with answers.
    A spec has ``line``, ``external_id``, ``content_hash``, ``shape`` and ``reshaped``
    (``studies.loading.pool.PlannedItem``)."""
    wanted = {spec.external_id: spec for spec in specs}
    kinds = dict(Task.objects.filter(study=study).values_list("pk", "kind"))
    stored = Item.objects.filter(study=study).values_list("external_id", "pk", "content_hash")
    changed = [
        (pk, wanted[ext])
        for ext, pk, digest in stored.iterator(chunk_size=2000)
        if ext in wanted and wanted[ext].content_hash != digest
    ]
    for start in range(0, len(changed), BATCH):
        batch = dict(changed[start : start + BATCH])
        reshaped: dict[int, tuple[dict[str, int], dict[str, int]]] = {}
        rows = Item.objects.filter(pk__in=batch).values_list("pk", "options", "parts", "task_id")
        for pk, options, parts, task_id in rows:
            before = shape(kinds[task_id], options or [], parts or [])
            after = batch[pk].shape
            if before != after:
                reshaped[pk] = (before, after)
        answered = set(
            Item.objects.filter(pk__in=reshaped, responses__isnull=False)
            .distinct()
            .values_list("pk", flat=True)
        )
        for pk, (before, after) in reshaped.items():
            spec = batch[pk]
            if pk not in answered:
                spec.reshaped = True
                continue
            field = "options" if set(before) | set(after) == {"answer"} else "parts"
            collector.add(
                spec.line,
                field,
                with_params(
                    _(
                        "item %(external_id)r already has answers, so the number of its options cannot change (%(before)s now, %(after)s in this file): answers are stored as option positions. Load the changed item under a new id."
                    ),
                    external_id=spec.external_id,
                    before=_sizes(before),
                    after=_sizes(after),
                ),
            )


def _sizes(lists: dict[str, int]) -> str:
    if set(lists) == {"answer"}:
        return str(lists["answer"])
    return ", ".join(f"{key}: {n}" for key, n in lists.items()) or "none"
