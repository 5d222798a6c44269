"""The finish page's results (``Study.finish_results``; docs/running-a-study.md, "A finish
page worth sharing"): reads only. A volunteer's score over their keyed answers, their
place among the finished volunteers of their group (from the stored responses, not the
report), and each answer with the right one and its explanation from the pool.

Only the volunteer's own answers and the study's keys are read; test participants and
attention checks are left out, as everywhere."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q

from annotation.models import Participant, Response
from studies.kinds import kind_of


@dataclass(frozen=True)
class AnswerShown:
    item: str
    task: str
    stem: str
    legend: str
    chosen: str
    right: str
    explanation: str
    correct: bool


@dataclass
class Results:
    right: int
    keyed: int
    percentile: int | None  # None: alone in their group so far
    group_size: int
    answers: list[AnswerShown] = field(default_factory=list)

    @property
    def percent(self) -> int:
        return round(100 * self.right / self.keyed) if self.keyed else 0


def _keyed(query: Any) -> Any:
    return query.filter(
        sample=0, correct__isnull=False, item__is_attention_check=False, rater__kind="human"
    )


def group_scores(p: Participant) -> dict[int, float]:
    """Rater -> share of keyed answers right, for every finished volunteer of ``p``'s
    group (test participants aside), ``p`` included."""
    if p.group_id is None:
        return {}
    people = Participant.objects.filter(
        study_id=p.study_id,
        group_id=p.group_id,
        status=Participant.Status.FINISHED,
        is_test=p.is_test,
    )
    rows = (
        _keyed(Response.objects.filter(study_id=p.study_id, rater__participant__in=people))
        .values("rater_id")
        .annotate(n=Count("pk"), right=Count("pk", filter=Q(correct=True)))
    )
    return {r["rater_id"]: r["right"] / r["n"] for r in rows if r["n"]}


def percentile(mine: float, scores: list[float]) -> int | None:
    """The share of ``scores`` below ``mine``, ties counted half (the mid-rank
    percentile), in whole percent; None with no one else to compare with."""
    if len(scores) < 2:
        return None
    below = sum(1 for s in scores if s < mine)
    equal = sum(1 for s in scores if s == mine)
    return round(100 * (below + 0.5 * equal) / len(scores))


def _shown(response: Response) -> AnswerShown:
    item, task = response.item, response.task
    spec = next((s for s in kind_of(task).field_specs(item, task) if s.key == response.field), None)
    options = list(spec.options) if spec is not None else []
    key = (item.answer or {}).get(response.field)

    def text(index: Any) -> dict[str, Any]:
        if index is None or not 0 <= int(index) < len(options):
            return {}
        option = options[int(index)]
        return option if isinstance(option, dict) else {"text": str(option)}

    right = text(key)
    legend = kind_of(task).legend(response.field, spec.prompt if spec else "")
    return AnswerShown(
        item=item.external_id,
        task=task.title,
        stem=item.stem or item.poem_title,
        legend=str(legend),
        chosen=str(text(response.value).get("text", "")),
        right=str(right.get("text", "")),
        explanation=str(right.get("explanation", "")),
        correct=bool(response.correct),
    )


def finish_results(p: Participant, *, with_answers: bool = True) -> Results:
    """``p``'s results; ``with_answers``: each keyed answer with the right one."""
    scores = group_scores(p)
    mine = _keyed(Response.objects.filter(rater_id=p.rater_id))
    counts = mine.aggregate(n=Count("pk"), right=Count("pk", filter=Q(correct=True)))
    results = Results(
        right=counts["right"],
        keyed=counts["n"],
        percentile=percentile(scores.get(p.rater_id, 0.0), list(scores.values())),
        group_size=len(scores),
    )
    if with_answers:
        rows = mine.select_related("item", "task").order_by("task__position", "answered_at", "pk")
        by_item: dict[int, list[AnswerShown]] = defaultdict(list)
        for response in rows:
            by_item[response.item_id].append(_shown(response))
        results.answers = [a for shown in by_item.values() for a in shown]
    return results
