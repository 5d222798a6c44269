"""Practice and qualification (docs/running-a-study.md): before the questions, a volunteer
answers every item of the study's practice task, each followed by its right answer and
explanation, then every item of its qualification task, scored; the score routes them to
a group, or to a polite end.

Nothing here writes a Response, an Assignment, a tally or a task count: the answers, the
score and the routing are kept on the participant (``Participant.warmup``), so they are
never counted in the report, the exports or the balance. Until the warm-up is done the
participant has no group (the group screening or an invitation chose is held in
``warmup["held"]``), so the questions' claim path never sees them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import Participant
from studies.kinds import parse_answer
from studies.models import Group, Item, Study

PRACTICE = "practice"
QUALIFICATION = "qualification"


def warmup_tasks(study: Study) -> dict[str, str]:
    """Stage -> the slug of its task, for the stages the study has (in order)."""
    out = {}
    if study.practice_task:
        out[PRACTICE] = study.practice_task
    qualification = study.qualification or {}
    if qualification.get("task"):
        out[QUALIFICATION] = str(qualification["task"])
    return out


def has_warmup(study: Study) -> bool:
    return bool(warmup_tasks(study))


def warmup_items(study: Study, stage: str) -> list[Item]:
    slug = warmup_tasks(study).get(stage)
    if not slug:
        return []
    rows = Item.objects.filter(study=study, task__slug=slug).select_related("task")
    return list(rows.order_by("position", "pk"))


def warmup_hold(*, participant: Participant, group: Group) -> None:
    """Keep the group a participant was given (screening, invitation, the study's first)
    until their warm-up is done; the caller saves the participant."""
    participant.warmup = {**participant.warmup, "held": group.pk}


def warmup_failed(participant: Participant) -> bool:
    return bool(participant.warmup.get("failed"))


def warmup_pending(participant: Participant) -> bool:
    """Screened, waiting for the warm-up (practice and qualification) to place them."""
    return (
        participant.group_id is None
        and "held" in participant.warmup
        and not participant.warmup.get("done")
        and not warmup_failed(participant)
    )


def warmup_state(participant: Participant) -> str:
    """``ended`` (the qualification placed them nowhere), ``pending`` (waiting for the
    warm-up), ``screening`` (no group chosen yet) or ``done`` (the questions follow)."""
    if warmup_failed(participant):
        return "ended"
    if warmup_pending(participant):
        return "pending"
    return "screening" if participant.group_id is None else "done"


@dataclass(frozen=True)
class WarmupStep:
    stage: str  # PRACTICE | QUALIFICATION
    item: Item
    number: int  # 1-based, within the stage
    total: int


def warmup_next(participant: Participant) -> WarmupStep | None:
    """The next practice or qualification item to answer; None when all are answered."""
    for stage in warmup_tasks(participant.study):
        items = warmup_items(participant.study, stage)
        answered = participant.warmup.get(stage, {})
        for number, item in enumerate(items, start=1):
            if item.external_id not in answered:
                return WarmupStep(stage, item, number, len(items))
    return None


def _correct(item: Item, values: Mapping[str, float]) -> bool | None:
    """Every keyed field right (None: the item has no key)."""
    graded = [item.grade(key, value) for key, value in values.items()]
    keyed = [g for g in graded if g is not None]
    return all(keyed) if keyed else None


@transaction.atomic
def warmup_answer(*, participant: Participant, item: Item, answer: Any) -> dict[str, Any]:
    """Record a practice or qualification answer to ``item`` (the participant's next
    one); the recorded entry ({"values", "correct"}). After the last item: the score is
    computed and the participant routed (:func:`warmup_finish`)."""
    me = Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)
    step = warmup_next(me)
    if not warmup_pending(me) or step is None or step.item.pk != item.pk:
        raise ValidationError(_("That question is not one of yours."), "not_yours")
    parsed = parse_answer(item, item.task, answer=answer)
    if parsed.errors:
        errors: dict[str, list[str]] = {}
        for key, message in parsed.errors:
            errors.setdefault(key or "answer", []).append(str(message))
        raise ValidationError(errors)
    entry = {"values": parsed.values, "correct": _correct(item, parsed.values)}
    answers = {**me.warmup.get(step.stage, {}), item.external_id: entry}
    me.warmup = {**me.warmup, step.stage: answers}
    me.save(update_fields=["warmup"])
    if warmup_next(me) is None:
        warmup_finish(participant=me)
    participant.warmup, participant.group_id = me.warmup, me.group_id
    participant.group = me.group
    return entry


def route_for(score: int, routes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first route (highest ``min_score`` first) the score reaches; None: none."""
    for route in sorted(routes, key=lambda r: -int(r["min_score"])):
        if score >= int(route["min_score"]):
            return route
    return None


def warmup_finish(*, participant: Participant) -> None:
    """Score the qualification and place the participant: in the group its route names
    (the held one for a route without a group, and always for a test participant), or,
    below every route, nowhere: ``warmup["failed"]`` (the polite end page)."""
    from annotation.services.participants import participants_place

    study = participant.study
    held = Group.every.filter(pk=participant.warmup.get("held")).first()
    group = held
    state = dict(participant.warmup)
    if QUALIFICATION in warmup_tasks(study):
        answers = state.get(QUALIFICATION, {})
        score = sum(1 for entry in answers.values() if entry.get("correct"))
        state["score"] = score
        route = route_for(score, list((study.qualification or {}).get("routes", [])))
        if route is None:
            state["failed"] = True
            participant.warmup = state
            participant.save(update_fields=["warmup"])
            return
        if route.get("group") and not participant.is_test:
            group = study.groups.filter(slug=route["group"]).first() or held
        state["routed"] = group.slug if group is not None else ""
    state["done"] = True
    participant.warmup = state
    participant.save(update_fields=["warmup"])
    participants_place(participants=[participant], group=group)
