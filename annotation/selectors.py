"""Reads of the volunteer flow, returning plain data (never answer keys).

Each function costs a small constant number of queries whatever the study's size, so
every volunteer page does too (tests/volunteer/test_query_counts.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.db.models import Count, Q, QuerySet
from django.http import Http404

from annotation import assignment as strategy
from annotation.models import Assignment, Participant
from studies.kinds import kind_of
from studies.models import Group, Study, Task

TOKEN_SALT = "shiping.participant"


@dataclass(frozen=True)
class Progress:
    answered: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.answered / self.total) if self.total else 100


def study_for_volunteers(slug: str) -> Study:
    """An open or closed study (closed ones say so politely); drafts are a 404."""
    study = Study.objects.filter(slug=slug).exclude(status=Study.Status.DRAFT).first()
    if study is None:
        raise Http404("No such study")
    return study


def group_by_invite(study: Study, token: str) -> Group:
    group = Group.objects.filter(study=study, invite_token=token).first()
    if group is None:
        raise Http404("No such invitation")
    return group


def participant_by_public_id(study: Study, public_id: str) -> Participant | None:
    try:
        participant = Participant.objects.get(study=study, public_id=public_id)
    except Participant.DoesNotExist:
        return None
    participant.study = study  # already loaded: spare the query
    return participant


def participant_by_resume_code(study: Study, code: str) -> Participant | None:
    code = "".join(code.split()).upper()
    if not code:
        return None
    return Participant.objects.filter(study=study, resume_code=code).first()


def participant_token(participant: Participant) -> str:
    """A signed bearer token naming the participant (for the API). It carries the ids
    the answer path needs, so submitting an answer costs no query to authenticate."""
    claims = {
        "p": participant.public_id,
        "i": participant.pk,
        "r": participant.rater_id,
        "s": participant.study_id,
    }
    return signing.dumps(claims, salt=TOKEN_SALT)


def participant_ref_by_token(token: str) -> Participant | None:
    """The participant a token names, as a reference (ids only, no query), or None."""
    try:
        claims = signing.loads(token, salt=TOKEN_SALT)
        return Participant(
            pk=int(claims["i"]),
            public_id=str(claims["p"]),
            rater_id=int(claims["r"]),
            study_id=int(claims["s"]),
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def participant_by_pk(pk: int) -> Participant | None:
    return Participant.objects.select_related("study").filter(pk=pk).first()


def participant_progress(participant: Participant) -> Progress:
    """Answered items out of all the participant is due (per_participant + checks)."""
    totals = Task.objects.filter(study_id=participant.study_id).annotate(
        n_regular=Count("items", filter=Q(items__is_attention_check=False)),
        n_checks=Count("items", filter=Q(items__is_attention_check=True)),
    )
    total = sum(min(t.per_participant, t.n_regular) + t.n_checks for t in totals)
    answered = Assignment.objects.filter(
        participant=participant, status=Assignment.Status.ANSWERED
    ).count()
    return Progress(answered=answered, total=total)


def _options(texts: Sequence[Mapping[str, Any]], perm: list[int]) -> list[dict[str, Any]]:
    # Only the text: an option's "explanation" may give the answer away.
    return [{"position": pos, "text": texts[i]["text"]} for pos, i in enumerate(perm)]


def item_presentation(assignment: Assignment) -> dict[str, Any]:
    """What a volunteer sees of an assignment's item: text, shown options, no key."""
    item, task, order = assignment.item, assignment.task, assignment.option_order
    fields: list[dict[str, Any]] = []
    for spec in kind_of(task).field_specs(item, task):
        if spec.scale is not None:
            scale = {"description": spec.description, "scale": list(spec.scale)}
            fields.append({"key": spec.key, "prompt": spec.prompt, **scale})
        else:
            perm = strategy.shown(order, spec.options_key, len(spec.options))
            options = _options(spec.options, perm)
            fields.append({"key": spec.key, "prompt": spec.prompt, "options": options})
    return {
        "assignment": assignment.pk,
        "task": {
            "slug": task.slug,
            "title": task.title,
            "kind": task.kind,
            "instructions": task.instructions,
            "guide": [
                {"label": g.get("label", ""), "description": g.get("description", "")}
                for g in task.guide
            ],
        },
        "item": {
            "id": item.external_id,
            "stem": item.stem,
            "poem": {
                "title": item.poem_title,
                "author": item.poem_author,
                "text": item.poem_text,
            }
            if item.poem_text
            else None,
        },
        "fields": fields,
    }


def task_started(participant: Participant, task_id: int) -> bool:
    """Whether the participant has been shown any question of this task yet."""
    return (
        Assignment.objects.filter(participant=participant, task_id=task_id)
        .filter(Q(served_at__isnull=False) | Q(status=Assignment.Status.ANSWERED))
        .exists()
    )


def flagged_participants(study: Study) -> QuerySet[Participant]:
    """The study's flagged participants (too many failed attention checks, or flagged by
    hand): the one definition the report, its cache key and the dashboard use."""
    return Participant.objects.filter(study=study, flagged=True)


def flagged_rater_ids(study: Study) -> list[int]:
    """The raters (``Response.rater``) of :func:`flagged_participants`, in id order.

    The report leaves their responses out when ``Study.exclude_flagged`` is on, and says
    how many it left out (never silently).
    """
    return list(flagged_participants(study).order_by("rater_id").values_list("rater_id", flat=True))
