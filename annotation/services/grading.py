"""Stored correctness kept in step with answer keys: ``responses_regrade``."""

from __future__ import annotations

from annotation.models import Response
from annotation.services.answers import participants_recount_attention
from studies.models import Item

BATCH = 500


def responses_regrade(*, item_ids: list[int]) -> int:
    """Grade every response to ``item_ids`` again against the items' current keys (after
    a load or an admin edit changed them); returns how many responses changed. When a
    changed item is an attention check, its answerers' failures are counted again and
    flagged as the volunteer flow would. Call inside the transaction that changed the
    keys."""
    changed_total = 0
    for start in range(0, len(item_ids), BATCH):
        items = {i.pk: i for i in Item.objects.filter(pk__in=item_ids[start : start + BATCH])}
        changed = []
        for response in Response.objects.filter(item_id__in=list(items)).only(
            "pk", "item_id", "field", "value", "correct"
        ):
            correct = items[response.item_id].grade(response.field, response.value)
            if correct != response.correct:
                response.correct = correct
                changed.append(response)
        Response.objects.bulk_update(changed, ["correct"], batch_size=BATCH)
        changed_total += len(changed)
        checks = [i for i in items.values() if i.is_attention_check]
        if checks and changed:
            # A check's new key may make more of its answers failures: flag as the flow does.
            raters = Response.objects.filter(item__in=checks, rater__kind="human")
            participants_recount_attention(
                study=checks[0].study,
                rater_ids=sorted(set(raters.values_list("rater_id", flat=True))),
            )
    return changed_total
