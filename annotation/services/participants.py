"""Participants: enrol (consent), screen (placement in a group), finish (completion code).

A participant's group is written in one place, :func:`participants_place`: enrolment
(an invitation, or a study without screening), screening and imported responses all
place participants through it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import assignment as strategy
from annotation import selectors
from annotation.models import Participant, QualityDecision, Rater, new_resume_code
from annotation.services._common import require_open, rng
from annotation.services.warmup import has_warmup, warmup_hold
from studies.models import PREVIEW_GROUP, Group, Study
from studies.recruitment import recruitment_params


@transaction.atomic
def participant_enrol(
    *,
    study: Study,
    consent: bool,
    invite_token: str | None = None,
    entry: str = Participant.Entry.PUBLIC,
    language: str = "",
    recruitment: Mapping[str, str] | None = None,
    test: bool = False,
    device: str = "",
    address: str = "",
) -> Participant:
    """A new participant who accepted the study's consent text (recorded with the time).

    With a group invitation token the participant is placed in that group and skips
    screening; a study without screening questions places everyone in its first group.
    ``recruitment``: a recruitment platform's parameters from the entry link (only the
    known ones are kept: ``studies.recruitment.recruitment_params``).

    ``test``: staff trying the study out (preview and test mode, any status of the study):
    the participant is marked a test and placed in the study's preview group
    (:func:`preview_group`) once screened, so nothing they do counts anywhere.

    ``device``, ``address``: digests of the browser's cookie and of the client address
    (never either itself), for the quality checks of duplicate enrolments. A study with
    practice or qualification items holds the group until they are done
    (``annotation.services.warmup``).
    """
    if not test:
        require_open(study)
    if not consent:
        raise ValidationError({"consent": [_("Please accept the consent to take part.")]})
    group: Group | None = None
    if test:
        invite_token = None
        group = None if study.screening.exists() else preview_group(study)
    elif invite_token:
        group = Group.objects.filter(study=study, invite_token=invite_token).first()
        if group is None:
            raise ValidationError(_("This invitation link is not valid."), "invite")
        entry = Participant.Entry.INVITE
    elif not study.screening.exists():
        group = study.groups.order_by("position", "slug").first()
    slugs = list(study.tasks.order_by("position", "slug").values_list("slug", flat=True))
    participant = Participant(
        study=study,
        entry=entry,
        status=Participant.Status.SCREENED if group else Participant.Status.CONSENTED,
        consent_text=study.consent,
        consented_at=timezone.now(),
        language=language[:10],
        recruitment=recruitment_params(recruitment or {}),
        task_order=strategy.task_order(slugs, randomize=study.randomize_task_order, rng=rng),
        is_test=test,
        device=device[:32],
        address=address[:32],
    )
    participant.rater = Rater.objects.create(
        study=study, kind=Rater.Kind.HUMAN, name=participant.public_id
    )
    if group is not None and has_warmup(study):
        warmup_hold(participant=participant, group=group)
        group = None
    participant.save()
    if group is not None:
        participants_place(participants=[participant], group=group)
    return participant


@transaction.atomic
def participant_screen(*, participant: Participant, answers: Mapping[str, object]) -> Participant:
    """Record screening answers (question key -> option index) and place the participant."""
    study = participant.study
    if not participant.is_test:
        require_open(study)
    if participant.group_id is not None or "held" in participant.warmup:
        return participant  # already placed (invitation, or screened before): no change
    questions = list(study.screening.order_by("position"))
    errors: dict[str, list[str]] = {}
    recorded: dict[str, dict[str, object]] = {}
    group_slug: str | None = None
    for q in questions:
        raw = answers.get(q.key)
        try:
            index = int(raw)  # type: ignore[call-overload]
            option = q.options[index] if index >= 0 else None
        except (TypeError, ValueError, IndexError):
            option = None
        if option is None:
            errors[q.key] = [_("Please answer this question.")]
            continue
        recorded[q.key] = {"option": index, "label": option["label"]}
        group_slug = group_slug or option.get("group")
    if errors:
        raise ValidationError(errors)
    groups = study.groups.order_by("position", "slug")
    group = (groups.filter(slug=group_slug).first() if group_slug else None) or groups.first()
    if participant.is_test:
        group = preview_group(study)
    participant.screening_answers = recorded
    participant.status = Participant.Status.SCREENED
    if has_warmup(study) and group is not None:
        warmup_hold(participant=participant, group=group)
        participant.save(update_fields=["screening_answers", "status", "warmup"])
        return participant
    participant.save(update_fields=["screening_answers", "status"])
    participants_place(participants=[participant], group=group)
    return participant


def preview_group(study: Study) -> Group:
    """The study's preview group, made on first use: its tallies are the test
    participants' own, so their claims never change the real groups' balance."""
    group, _made = Group.every.get_or_create(
        study=study,
        slug=PREVIEW_GROUP,
        defaults={"name": "预览（测试）", "is_test": True, "position": 10**6},
    )
    return group


@transaction.atomic
def tests_clear(*, study: Study) -> int:
    """Delete the study's test participants with everything they did (their raters,
    responses, claims and counts) and its preview group with its tallies; the number of
    test participants deleted. The real data are not touched."""
    raters = Rater.objects.filter(participant__study=study, participant__is_test=True)
    n = Participant.objects.filter(study=study, is_test=True).count()
    raters.delete()  # cascades: participant, responses, assignments, task counts
    Group.every.filter(study=study, is_test=True).delete()  # cascades: tallies, cover
    return n


@transaction.atomic
def participant_decide(
    *, participant: Participant, decision: str, reason: str, note: str = "", user: Any = None
) -> QualityDecision:
    """Record (or change) a researcher's keep/exclude decision on ``participant`` after
    the quality checks (``annotation.quality``): one row per participant."""
    row, _made = QualityDecision.objects.update_or_create(
        participant=participant,
        defaults={"decision": decision, "reason": reason, "note": note[:2000], "decided_by": user},
    )
    return row


def participants_place(*, participants: Sequence[Participant], group: Group | None) -> None:
    """Put stored ``participants`` in ``group``: the one writer of a participant's group.

    Their responses count for that group in the report, the exports and the dashboard
    (a human rater's group is its participant's); claims made from now on are balanced
    toward it. Each ``Assignment`` keeps the group its claim was made for. One UPDATE
    (atomic by itself), inside the caller's transaction.
    """
    if not participants:
        return
    Participant.objects.filter(pk__in=[p.pk for p in participants]).update(group=group)
    for p in participants:
        p.group = group


@transaction.atomic
def participant_finish(*, participant: Participant, now: datetime | None = None) -> Participant:
    """Mark the participant finished and give them a completion code (idempotent)."""
    me = (
        Participant.objects.select_for_update(of=("self",), no_key=True)
        .select_related("study")
        .get(pk=participant.pk)
    )
    if me.status == Participant.Status.FINISHED:
        return me
    progress = selectors.participant_progress(me)
    if me.group_id is None or progress.answered < progress.total:
        raise ValidationError(_("There are still questions to answer."), "unfinished")
    me.status = Participant.Status.FINISHED
    me.finished_at = now or timezone.now()
    me.completion_code = me.study.completion_code or _completion_code()
    me.save(update_fields=["status", "finished_at", "completion_code"])
    return me


def _completion_code() -> str:
    return new_resume_code()[:4] + "-" + secrets.token_hex(3).upper()
