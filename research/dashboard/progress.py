"""Progress of a study for the dashboard: funnel per group, answers per task, targets.

* funnel: participants per group who consented (every participant), were screened
  (placed in a group: status screened or finished) and finished; imported participants
  are counted apart;
* answers per task: human responses, distinct items and distinct participants;
* below target: items (attention checks aside) where some group has fewer distinct
  human raters than its ``target_per_item``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from annotation.models import Participant, Response
from annotation.selectors import flagged_participants
from studies.models import Item, Study


@dataclass(frozen=True)
class Funnel:
    group: str
    name: str
    consented: int
    screened: int
    finished: int
    imported: int
    flagged: int


def funnel(study: Study) -> list[Funnel]:
    counts: dict[Any, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows = Participant.objects.filter(study=study, is_test=False).values("group_id", "status")
    for row in rows.annotate(n=Count("pk")).order_by():
        counts[row["group_id"]][row["status"]] += row["n"]
    flagged = flagged_participants(study).values("group_id")
    for by_group in flagged.annotate(n=Count("pk")).order_by():
        counts[by_group["group_id"]]["flagged"] += by_group["n"]
    groups: list[tuple[int | None, str, str]] = [
        (g.pk, g.slug, g.name) for g in study.groups.order_by("position", "slug")
    ]
    if None in counts:
        groups.append((None, "—", ""))
    out = []
    for pk, slug, name in groups:
        c = counts.get(pk, {})
        finished = c.get(Participant.Status.FINISHED, 0)
        screened = c.get(Participant.Status.SCREENED, 0) + finished
        out.append(
            Funnel(
                slug,
                name,
                screened + c.get(Participant.Status.CONSENTED, 0),
                screened,
                finished,
                c.get(Participant.Status.IMPORTED, 0),
                c.get("flagged", 0),
            )
        )
    return out


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
