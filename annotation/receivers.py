"""Keep stored correctness in step with answer keys when a pool reload changes them."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from annotation.models import Response
from annotation.services.answers import participants_recount_attention
from studies.models import Item
from studies.signals import items_rekeyed


@receiver(items_rekeyed)
def regrade_responses(sender: Any, item_ids: list[int], **kwargs: Any) -> None:
    for start in range(0, len(item_ids), 500):
        items = {i.pk: i for i in Item.objects.filter(pk__in=item_ids[start : start + 500])}
        changed = []
        for response in Response.objects.filter(item_id__in=list(items)).only(
            "pk", "item_id", "field", "value", "correct"
        ):
            correct = items[response.item_id].grade(response.field, response.value)
            if correct != response.correct:
                response.correct = correct
                changed.append(response)
        Response.objects.bulk_update(changed, ["correct"], batch_size=500)
        checks = [i for i in items.values() if i.is_attention_check]
        if checks and changed:
            # A check's new key may make more of its answers failures: flag as the flow does.
            raters = Response.objects.filter(item__in=checks, rater__kind="human")
            participants_recount_attention(
                study=checks[0].study,
                rater_ids=sorted(set(raters.values_list("rater_id", flat=True))),
            )
