"""Stored answers kept in step with their items: ``responses_regrade`` (answer keys),
``responses_remap`` (option lists a reload reordered, edited or resized)."""

from __future__ import annotations

from annotation.models import Assignment, Response
from annotation.services.answers import participants_recount_attention
from studies.kinds import KINDS
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


def responses_remap(*, remaps: dict[int, dict[str, list[int | None]]]) -> int:
    """Rewrite the stored answers to items whose options a reload changed, through the
    checked ``--remap`` (item pk -> option list -> new position of each old option;
    ``studies.loading.reshape``), and the answered claims' shown orders with them (an
    option dropped leaves the order). Returns how many responses changed. Call inside the
    load's transaction, before ``responses_regrade`` of the same items."""
    changed_total = 0
    kinds = dict(Item.objects.filter(pk__in=list(remaps)).values_list("pk", "task__kind"))
    for item_id, lists in remaps.items():
        kind = KINDS[kinds[item_id]]
        changed = []
        for response in Response.objects.filter(item_id=item_id, value__isnull=False).only(
            "pk", "field", "value"
        ):
            positions = lists.get(kind.options_key(response.field) or "")
            old = int(response.value) if response.value is not None else -1
            if positions is None or not 0 <= old < len(positions) or positions[old] == old:
                continue
            new = positions[old]
            assert new is not None  # the check refused dropping a chosen option
            response.value = float(new)
            changed.append(response)
        Response.objects.bulk_update(changed, ["value"], batch_size=BATCH)
        changed_total += len(changed)
        answered = Assignment.objects.filter(item_id=item_id, status=Assignment.Status.ANSWERED)
        claims = []
        for claim in answered.only("pk", "option_order"):
            order = dict(claim.option_order or {})
            for key, positions in lists.items():
                if isinstance(order.get(key), list):
                    shown = [positions[i] for i in order[key] if 0 <= i < len(positions)]
                    order[key] = [p for p in shown if p is not None]
            if order != claim.option_order:
                claim.option_order = order
                claims.append(claim)
        Assignment.objects.bulk_update(claims, ["option_order"], batch_size=BATCH)
    return changed_total
