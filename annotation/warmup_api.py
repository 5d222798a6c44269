"""Practice and qualification in the volunteer API, mirroring the pages
(``annotation.warmup_views``) over the same service (``annotation.services.warmup``).

``GET /api/v1/volunteer/warmup/`` says where the participant stands (``state``:
``pending``, ``done``, ``ended``, or ``screening`` before a group was chosen) and gives
the next practice or qualification item; ``POST /api/v1/volunteer/warmup/answers/``
answers it. A practice answer's reply carries the right answer and the explanations
(as the page after it); a qualification answer's carries nothing about correctness.
After the last one the score routes the participant: ``state`` turns ``done`` (the
questions follow, ``GET /next/``) or ``ended`` (the polite end: nothing more is asked).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.api import ParticipantView
from annotation.models import Participant
from annotation.ratelimit import AnswerThrottle
from annotation.services import warmup
from annotation.warmup_present import feedback_json, step_presentation
from studies.kinds import parse_answer
from studies.models import Item

PENDING, DONE, ENDED, SCREENING = "pending", "done", "ended", "screening"


def _open(p: Participant) -> None:
    if not p.study.is_open and not p.is_test:
        raise ValidationError(_("This study is closed."), "closed")


def _where(p: Participant) -> dict[str, Any]:
    """The state, the group and the next step (None unless pending)."""
    step = warmup.warmup_next(p) if warmup.warmup_pending(p) else None
    if step is None and warmup.warmup_pending(p):  # no items left: placed now (as the page)
        warmup.warmup_finish(participant=p)
    group = p.group.slug if p.group_id is not None and p.group else None
    return {
        "state": warmup.warmup_state(p),
        "group": group,
        "step": step_presentation(step) if step is not None else None,
    }


class WarmupOut(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=[PENDING, DONE, ENDED, SCREENING],
        help_text="pending: answer `step`; done: the questions follow (GET /next/); ended: "
        "the qualification placed you nowhere; screening: not placed in a group yet.",
    )
    group = serializers.CharField(allow_null=True)
    step = serializers.JSONField(
        allow_null=True,
        help_text="stage (practice or qualification), number, total, task, item (id, stem, "
        "poem) and fields (key, prompt, options with their positions in the pool's order).",
    )


class WarmupAnswerIn(serializers.Serializer):
    item = serializers.CharField(max_length=200, help_text="the step's item id")
    answer = serializers.JSONField(
        help_text='choice: position; multi: {part: position}; best_worst: {"best": i, "worst": j}'
    )


class WarmupAnswerOut(WarmupOut):
    stage = serializers.CharField()
    item = serializers.CharField()
    duplicate = serializers.BooleanField(help_text="True when this answer was already recorded.")
    correct = serializers.BooleanField(allow_null=True, help_text="practice only (else null)")
    feedback = serializers.JSONField(
        allow_null=True,
        help_text="practice only: per field, the option chosen and the right one, with "
        "their explanations",
    )


class WarmupView(ParticipantView):
    @extend_schema(responses={200: WarmupOut}, tags=["volunteer"])
    def get(self, request: Request) -> Response:
        """Where you stand in the practice and qualification, and the next item."""
        p = self.participant(request)
        _open(p)
        return Response(_where(p))


def _recorded(p: Participant, external_id: str) -> tuple[str, dict[str, Any]] | None:
    for stage in (warmup.PRACTICE, warmup.QUALIFICATION):
        entry = p.warmup.get(stage, {}).get(external_id)
        if entry is not None:
            return stage, entry
    return None


def _reply(
    p: Participant, stage: str, item: Item, entry: dict[str, Any], duplicate: bool
) -> dict[str, Any]:
    practice = stage == warmup.PRACTICE
    return {
        "stage": stage,
        "item": item.external_id,
        "duplicate": duplicate,
        "correct": entry.get("correct") if practice else None,
        "feedback": feedback_json(item, entry["values"]) if practice else None,
        **_where(p),
    }


class WarmupAnswerView(ParticipantView):
    throttle_classes = [AnswerThrottle]

    @extend_schema(
        request=WarmupAnswerIn,
        responses={
            201: WarmupAnswerOut,
            200: WarmupAnswerOut,
            409: inline_serializer("WarmupAlreadyAnswered", {"detail": serializers.CharField()}),
        },
        tags=["volunteer"],
    )
    def post(self, request: Request) -> Response:
        """Answer the current practice or qualification item (option positions as given
        by GET /warmup/). The same answer again is harmless (200, duplicate); a different
        one for an answered item is 409."""
        p = self.participant(request)
        _open(p)
        data = WarmupAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        given, answer = data.validated_data["item"], data.validated_data["answer"]
        done = _recorded(p, given)
        if done is not None:
            stage, entry = done
            item = Item.objects.select_related("task").get(study=p.study, external_id=given)
            if parse_answer(item, item.task, answer=answer).values != entry["values"]:
                detail = _("This question was already answered differently.")
                return Response({"detail": detail}, status=status.HTTP_409_CONFLICT)
            return Response(_reply(p, stage, item, entry, duplicate=True))
        step = warmup.warmup_next(p) if warmup.warmup_pending(p) else None
        if step is None or step.item.external_id != given:
            raise ValidationError(_("That question is not one of yours."), "not_yours")
        entry = warmup.warmup_answer(participant=p, item=step.item, answer=answer)
        return Response(
            _reply(p, step.stage, step.item, entry, duplicate=False),
            status=status.HTTP_201_CREATED,
        )
