"""What a volunteer is shown of a practice or qualification item, on the pages
(``annotation.warmup_views``) and in the API (``annotation.warmup_api``): the item's
fields with options in the pool's order (no shuffle: the answers are never counted),
and after a practice answer the option chosen, the right one and the explanations."""

from __future__ import annotations

from typing import Any

from annotation.services import warmup
from studies.kinds import kind_of
from studies.models import Item


def fields_shown(item: Item) -> list[dict[str, Any]]:
    """The item's fields with their options in canonical order (no shuffle here)."""
    kind = kind_of(item.task)
    return [
        {
            "key": spec.key,
            "legend": kind.legend(spec.key, spec.prompt),
            "options": [
                {"position": i, "text": o.get("text", ""), "explanation": o.get("explanation", "")}
                for i, o in enumerate(spec.options)
            ],
        }
        for spec in kind.field_specs(item, item.task)
    ]


def feedback(item: Item, values: dict[str, float]) -> list[dict[str, Any]]:
    """Per field: the option chosen, the right one and the explanations from the pool."""
    key = item.answer or {}
    out = []
    for f in fields_shown(item):
        chosen = values.get(f["key"])
        right = key.get(f["key"])
        options = f["options"]
        out.append(
            {
                "legend": f["legend"],
                "chosen": options[int(chosen)] if chosen is not None else None,
                "right": options[int(right)] if right is not None else None,
                "correct": None if right is None or chosen is None else int(chosen) == int(right),
            }
        )
    return out


def step_presentation(step: warmup.WarmupStep) -> dict[str, Any]:
    """A warm-up step as the API gives it: what the page shows, no key and no
    explanation (those come after a practice answer)."""
    item, task = step.item, step.item.task
    fields = [
        {
            "key": f["key"],
            "prompt": str(f["legend"]),
            "options": [{"position": o["position"], "text": o["text"]} for o in f["options"]],
        }
        for f in fields_shown(item)
    ]
    return {
        "stage": step.stage,
        "number": step.number,
        "total": step.total,
        "task": {
            "slug": task.slug,
            "title": task.title,
            "kind": task.kind,
            "instructions": task.instructions,
        },
        "item": {
            "id": item.external_id,
            "stem": item.stem,
            "poem": {"title": item.poem_title, "text": item.poem_text} if item.poem_text else None,
        },
        "fields": fields,
    }


def feedback_json(item: Item, values: dict[str, float]) -> list[dict[str, Any]]:
    """:func:`feedback` for a JSON reply (legends as text)."""
    return [{**f, "legend": str(f["legend"])} for f in feedback(item, values)]
