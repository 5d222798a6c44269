"""Answers: store a participant's answer once; count failed attention checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db.models import Case, Count, F, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import assignment as strategy
from annotation import hotpath
from annotation.models import Assignment, Participant, Response
from annotation.services._common import require_open, rng
from studies.kinds import parse_answer
from studies.models import Item, Study, Task
from studies.values import Text

MAX_DB_ID = 2**63 - 1
CLOCK_MARGIN = timedelta(seconds=60)


class AlreadyAnswered(ValidationError):
    """A different answer to an item already answered: the first answer is kept."""


@dataclass(frozen=True)
class SubmitResult:
    assignment: Assignment
    values: dict[str, float]
    duplicate: bool  # True when this was a re-sent copy of the stored answer


def response_submit(
    *,
    participant: Participant,
    assignment_id: int,
    answer: object = None,
    ratings: object = None,
    now: datetime | None = None,
    assignment: Assignment | None = None,
) -> SubmitResult:
    """Store the participant's answer to one of *their* assignments, once.

    ``answer`` uses shown option positions (as the browser saw them); values are
    stored canonical. Raises ``ValidationError`` (field -> the answer rule's messages,
    translated when shown) for a bad answer, :class:`AlreadyAnswered` for a different
    answer to an answered item.

    Everything is read and checked before anything is written; the writes are one
    INSERT guarded by the Response unique constraint, then one UPDATE (``_store``).
    """
    now = now or timezone.now()
    a = assignment if assignment is not None and assignment.pk == assignment_id else None
    if a is None:
        a = assignment_for_answer(participant=participant, assignment_id=assignment_id)
    if a is None:
        raise ValidationError(_("This question is not one of yours."), "not_yours")
    study = a.task.study
    item, task = a.item, a.task
    if a.status != Assignment.Status.ANSWERED:
        _require_fitting_order(a)
    canonical = strategy.to_canonical(task.kind, a.option_order, answer)
    parsed = parse_answer(item, task, answer=canonical, ratings=ratings)
    if a.status != Assignment.Status.ANSWERED:
        if not participant.is_test:  # staff's preview answers a draft or closed study too
            require_open(study)
        if parsed.errors:
            raise ValidationError(_errors_as_given(item, task, answer, ratings))
        if _store(participant, a, parsed.values, now):
            return SubmitResult(a, parsed.values, duplicate=False)
    stored = {
        name: value
        for name, value in Response.objects.filter(
            rater_id=participant.rater_id, item=item
        ).values_list("field", "value")
        if value is not None
    }
    if not parsed.errors and parsed.values == stored:
        return SubmitResult(a, stored, duplicate=True)
    raise AlreadyAnswered(
        _("This question was already answered; your first answer is kept."), "answered"
    )


def assignment_for_answer(*, participant: Participant, assignment_id: object) -> Assignment | None:
    """One of the participant's assignments with what answering needs (item, task, study:
    ``annotation.hotpath.answer``), or None; a page reads it once and passes it to
    :func:`response_submit` as ``assignment``."""
    if not is_db_id(assignment_id):
        return None
    assert isinstance(assignment_id, int)  # is_db_id says so
    return hotpath.assignment_for_answer(assignment_id, participant.pk)


def _require_fitting_order(a: Assignment) -> None:
    """Never map an answer through a shuffle drawn for other options: if the item's option
    lists changed size since it was claimed (a reload), the claim gets a shuffle of the
    options as they are now and the answer is refused, to be given again as now shown."""
    item, kind = a.item, a.task.kind
    shape = {"n_options": len(item.options), "parts": item.parts}
    if strategy.order_fits(kind, a.option_order, **shape):
        return
    a.option_order = strategy.refit_order(kind, a.option_order, rng=rng, **shape)
    Assignment.objects.filter(pk=a.pk).update(option_order=a.option_order)
    raise ValidationError(
        _("This question changed after it was shown to you; please look at it again and answer."),
        "changed",
    )


def is_db_id(value: object) -> bool:
    """Whether ``value`` can name a row: a whole number within a 64-bit database id."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_DB_ID


def _errors_as_given(
    item: Item, task: Task, answer: object, ratings: object
) -> dict[str, list[Text]]:
    """The answer rule's messages about the answer *as the volunteer gave it* (shown
    positions). The shuffle maps valid positions one to one, so the same answer is refused
    either way; read canonically, a message would quote canonical indices and so reveal
    the hidden order (e.g. ``{"a": 0, "b": 1}`` echoed back as ``{"a": 3, "b": 0}``)."""
    errors: dict[str, list[Text]] = {}
    for name, message in parse_answer(item, task, answer=answer, ratings=ratings).errors:
        errors.setdefault(name, []).append(message)
    return errors


def _store(
    participant: Participant, a: Assignment, values: dict[str, float], now: datetime
) -> bool:
    """Write one answer; False when a copy of it was stored first.

    One short transaction (``hotpath.store_answer``): the INSERT of the Response rows,
    whose unique constraint (rater, item, field, sample) lets exactly one copy in, and
    the UPDATE marking the assignment answered. Everything else is done before it.
    """
    item = a.item
    time_ms = int((now - a.served_at).total_seconds() * 1000) if a.served_at else None
    rows = [
        hotpath.AnswerRow(
            study_id=item.study_id,
            task_id=a.task_id,
            item_id=item.pk,
            rater_id=participant.rater_id,
            field=field,
            value=value,
            correct=item.grade(field, value),
            time_ms=max(time_ms, 0) if time_ms is not None else None,
        )
        for field, value in values.items()
    ]
    # Only a claim past its expiry can have been given back by a sweep (a minute's
    # margin for clocks of several app servers): the others need no look at the tally.
    late = a.status == Assignment.Status.EXPIRED or (
        a.expires_at is not None and a.expires_at <= now + CLOCK_MARGIN
    )
    if not hotpath.store_answer(assignment_id=a.pk, rows=rows, when=now, may_have_expired=late):
        return False
    a.status, a.answered_at = Assignment.Status.ANSWERED, now
    if item.is_attention_check and any(r.correct is False for r in rows):
        _attention_failed(participant_id=participant.pk, study=a.task.study)
    return True


def _attention_failed(*, participant_id: int, study: Study) -> None:
    """Count a failed check; flag the participant past the study's threshold. One UPDATE:
    its conditions read the row as it was (failures before this one)."""
    past = When(attention_failures__gte=study.attention_max_failures, then=Value(True))
    Participant.objects.filter(pk=participant_id).update(
        attention_failures=F("attention_failures") + 1, flagged=Case(past, default=F("flagged"))
    )


def participants_recount_attention(*, study: Study, rater_ids: list[int]) -> int:
    """Count failed attention checks again from the stored responses, for answers that
    arrived otherwise than one by one (imported files, re-graded keys): a check item
    with any wrong field is one failure, as in the volunteer flow; past the study's
    ``attention_max_failures`` the participant is flagged. Never unflags (an admin may
    have flagged by hand). Returns how many participants are newly flagged."""
    failures: dict[int, int] = {rid: 0 for rid in rater_ids}
    for start in range(0, len(rater_ids), 500):
        counted = (
            Response.objects.filter(
                rater_id__in=rater_ids[start : start + 500],
                item__is_attention_check=True,
                correct=False,
            )
            .values("rater_id")
            .annotate(n=Count("item_id", distinct=True))
        )
        failures.update({row["rater_id"]: row["n"] for row in counted})
    newly = 0
    people = Participant.objects.filter(study=study, rater_id__in=rater_ids)
    for p in people.only("pk", "rater_id", "attention_failures", "flagged"):
        n = failures.get(p.rater_id, 0)
        flag = p.flagged or n > study.attention_max_failures
        if (n, flag) != (p.attention_failures, p.flagged):
            newly += flag and not p.flagged
            p.attention_failures, p.flagged = n, flag
            p.save(update_fields=["attention_failures", "flagged"])
    return newly
