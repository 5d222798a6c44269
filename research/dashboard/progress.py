"""Progress of a study for the dashboard: funnel per group, answers per task, targets.

* funnel: participants per group who consented (every participant), were screened
  (placed in a group: status screened or finished) and finished; imported participants
  are counted apart;
* answers per task (human responses, distinct items and distinct participants) and items
  below target (attention checks aside, where some group has fewer distinct human raters
  than its ``target_per_item``): ``research.dashboard.running``, kept up to date between
  views; tests/app/progress_reference.py counts them from scratch for the tests.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from annotation.models import Participant
from annotation.selectors import flagged_participants
from studies.models import Study


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
