"""The dashboard's task progress counted from scratch (two GROUP BY scans of the study's
responses): the reference ``research.dashboard.running`` is tested against (it keeps the
same counts up to date between views). Until 2026-11-28 this was the dashboard's own
code (research/dashboard/progress.py).

* answers per task: human responses, distinct items and distinct participants;
* below target: items (attention checks aside) where some group has fewer distinct
  human raters than its ``target_per_item``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from annotation.models import Response
from studies.models import Item, Study


def answers_per_task(study: Study) -> list[dict[str, Any]]:
    counts: dict[int, Any] = {
        row["task_id"]: row
        for row in Response.objects.filter(study=study, rater__kind="human")
        .exclude(rater__participant__is_test=True)
        .values("task_id")
        .annotate(
            responses=Count("pk"),
            items=Count("item_id", distinct=True),
            raters=Count("rater_id", distinct=True),
        )
        .order_by()
    }
    return [
        {
            "task": t.slug,
            "title": t.title,
            "kind": t.get_kind_display(),
            **{k: counts.get(t.pk, {}).get(k, 0) for k in ("responses", "items", "raters")},
        }
        for t in study.tasks.order_by("position", "slug")
    ]


def below_target(study: Study) -> list[dict[str, Any]]:
    """Per task: items, items below some group's target, and the shortfall in answers."""
    groups = {g.pk: g.target_per_item for g in study.groups.all()}
    items = Item.objects.filter(study=study, is_attention_check=False)
    per_task: dict[int, list[int]] = defaultdict(list)
    for pk, task_id in items.values_list("pk", "task_id"):
        per_task[task_id].append(pk)
    got: dict[tuple[int, int], int] = {}
    # Attention checks are left out by reading only the regular items of ``per_task``
    # below, not by a join on the items here: with that join SQLite's planner started from
    # the items and looked up every (rater, item) pair, 99 s at 1,000,000 responses
    # instead of 3.5 s (bench/bench_dashboard_1m.py, docs/performance.md).
    rows = (
        Response.objects.filter(study=study, rater__kind="human")
        .exclude(rater__participant__is_test=True)
        .values("item_id", "rater__participant__group_id")
        .annotate(n=Count("rater_id", distinct=True))
        .order_by()
    )
    for row in rows:
        got[(row["item_id"], row["rater__participant__group_id"])] = row["n"]
    out = []
    for task in study.tasks.order_by("position", "slug"):
        below = missing = 0
        for item in per_task.get(task.pk, []):
            short = sum(max(0, t - got.get((item, g), 0)) for g, t in groups.items())
            below += short > 0
            missing += short
        out.append(
            {
                "task": task.slug,
                "title": task.title,
                "items": len(per_task.get(task.pk, [])),
                "below": below,
                "missing": missing,
            }
        )
    return out


def task_progress(study: Study) -> list[dict[str, Any]]:
    """``answers_per_task`` and ``below_target`` side by side (same task order)."""
    targets = below_target(study)
    return [
        {**a, "n_items": t["items"], "below": t["below"], "missing": t["missing"]}
        for a, t in zip(answers_per_task(study), targets, strict=True)
    ]
