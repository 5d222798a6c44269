"""Reads of the volunteer flow, returning plain data (never answer keys).

Each function costs a small constant number of queries whatever the study's size, so
every volunteer page does too (tests/volunteer/test_query_counts.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.http import Http404
from django.utils.translation import gettext as _

from annotation import assignment as strategy
from annotation.hotpath import pages
from annotation.models import Assignment, Participant, Response
from studies import verse
from studies.kinds import FieldSpec, kind_of
from studies.models import Group, Item, Study, Task

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


def participant_with_study(slug: str, study_id: int, public_id: str) -> Participant | None:
    """The participant of a volunteer page with its study, in one query (the study by
    ``slug``, not a draft); None if they do not match (``annotation.hotpath.pages``)."""
    return pages.participant_with_study(slug, study_id, public_id)


def participant_answering(
    slug: str, study_id: int, public_id: str, assignment_id: int
) -> tuple[Participant, Assignment | None] | None:
    """:func:`participant_with_study` and the assignment an answer's form names (None if
    it is not theirs), in one query (``annotation.hotpath.pages``)."""
    return pages.participant_answering(slug, study_id, public_id, assignment_id)


def participant_for_page(
    slug: str, cookies: Sequence[tuple[int, str]]
) -> tuple[Study, Participant | None]:
    """The study ``slug`` and the participant a volunteer page's ``cookies`` ((study id,
    public id) pairs) name: with a cookie of the study one query reads both; else the
    study alone (Http404 for a draft or none) and its own cookie's participant."""
    for study_id, public_id in cookies:
        p = participant_with_study(slug, study_id, public_id)
        if p is not None:
            return p.study, p
    study = study_for_volunteers(slug)
    own = next((public_id for sid, public_id in cookies if sid == study.pk), None)
    return study, participant_by_public_id(study, own) if own else None


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


def participant_token_age(token: str) -> float:
    """Seconds since a token (already checked) was signed."""
    stamp = token.rsplit(signing.Signer().sep, 2)[-2]
    return time.time() - signing.b62_decode(stamp)


def participant_ref_by_token(token: str) -> Participant | None:
    """The participant a token names, as a reference (ids only, no query), or None (also
    when it was signed more than ``PARTICIPANT_TOKEN_DAYS`` ago: renewed on use, see
    ``annotation.api``)."""
    max_age = timedelta(days=settings.PARTICIPANT_TOKEN_DAYS)
    try:
        claims = signing.loads(token, salt=TOKEN_SALT, max_age=max_age)
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


def _due(task: Task) -> int:
    """Questions a participant answers in ``task`` (annotated with ``n_regular`` and
    ``n_checks``): ``per_participant`` of its items (or all, if fewer) plus every
    attention check."""
    return min(task.per_participant, task.n_regular) + task.n_checks  # type: ignore[attr-defined]


def _tasks_with_counts(study_id: int) -> QuerySet[Task]:
    return Task.objects.filter(study_id=study_id).annotate(
        n_regular=Count("items", filter=Q(items__is_attention_check=False)),
        n_checks=Count("items", filter=Q(items__is_attention_check=True)),
    )


@dataclass(frozen=True)
class Outline:
    """What the welcome page announces: each task with its number of questions (the
    same count as the progress bar's, attention checks included), and the time."""

    tasks: list[tuple[Task, int]]
    minutes: int

    @property
    def total(self) -> int:
        return sum(n for _, n in self.tasks)


SETUP_SECONDS = 60  # consent and the background questions, in the time estimate


def study_outline(study: Study) -> Outline:
    """The study's tasks with their question counts (a practice or qualification task:
    all its items), and the estimated time: the study's ``estimated_minutes``, else every question at its kind's usual pace
    (``Kind.seconds_per_item``) plus a minute for consent and screening, rounded up."""
    # practice and qualification tasks (annotation.services.warmup): all their items
    warmup = {study.practice_task, str((study.qualification or {}).get("task") or "")} - {""}
    tasks = [
        (t, t.n_regular if t.slug in warmup else _due(t))  # type: ignore[attr-defined]
        for t in _tasks_with_counts(study.pk).order_by("position", "slug")
    ]
    if study.estimated_minutes:
        return Outline(tasks, study.estimated_minutes)
    seconds = SETUP_SECONDS + sum(n * kind_of(t).seconds_per_item(t) for t, n in tasks)
    return Outline(tasks, max(1, -(-seconds // 60)))


def participant_progress(participant: Participant) -> Progress:
    """Answered items out of all the participant is due (per_participant + checks)."""
    total = sum(_due(t) for t in _tasks_with_counts(participant.study_id))
    answered = Assignment.objects.filter(
        participant=participant, status=Assignment.Status.ANSWERED
    ).count()
    return Progress(answered=answered, total=total)


def _options(
    texts: Sequence[Mapping[str, Any]], perm: list[int], *, poems_hidden_authors: bool = False
) -> list[dict[str, Any]]:
    # Only the text: an option's "explanation" may give the answer away.
    def shown(text: str) -> str:
        return verse.without_attribution(text) if poems_hidden_authors else text

    return [{"position": pos, "text": shown(texts[i]["text"])} for pos, i in enumerate(perm)]


def authors_hidden(study: Study, task: Task) -> bool:
    """Whether volunteers see no author on ``task``'s items: the study's setting, else
    the kind's default (hidden where a famous name biases a judgment)."""
    if study.hide_authors is not None:
        return study.hide_authors
    return kind_of(task).display.hide_author


def _scale_labels(spec: FieldSpec) -> dict[str, str]:
    """A scale's point labels (by point, as text), the study file's or by default its
    ends' "very poor" … "very good" (in the request's language)."""
    if spec.labels:
        return {str(point): label for point, label in spec.labels.items()}
    assert spec.scale is not None
    return {str(spec.scale[0]): _("very poor"), str(spec.scale[-1]): _("very good")}


def item_presentation(assignment: Assignment, *, study: Study) -> dict[str, Any]:
    """What a volunteer sees of an assignment's item: text, shown options, no key; no
    author where they are hidden (``authors_hidden``), and never a corpus's homonym
    number after one."""
    item, task, order = assignment.item, assignment.task, assignment.option_order
    hidden = authors_hidden(study, task)
    poems = kind_of(task).display.poems
    fields: list[dict[str, Any]] = []
    for spec in kind_of(task).field_specs(item, task):
        if spec.scale is not None:
            scale = {"description": spec.description, "scale": list(spec.scale)}
            labels = {"labels": _scale_labels(spec)}
            fields.append({"key": spec.key, "prompt": spec.prompt, **scale, **labels})
        else:
            perm = strategy.shown(order, spec.options_key, len(spec.options))
            options = _options(spec.options, perm, poems_hidden_authors=poems and hidden)
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
                "author": "" if hidden else verse.display_author(item.poem_author),
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
    return Participant.objects.filter(study=study, flagged=True, is_test=False)


def test_rater_ids(study: Study) -> list[int]:
    """The raters of the study's test participants (staff's preview, never counted), in
    id order: the report, the exports and the dashboard leave their answers out."""
    query = Participant.objects.filter(study=study, is_test=True).order_by("rater_id")
    return list(query.values_list("rater_id", flat=True))


def flagged_rater_ids(study: Study) -> list[int]:
    """The raters (``Response.rater``) of :func:`flagged_participants`, in id order.

    The report leaves their responses out when ``Study.exclude_flagged`` is on, and says
    how many it left out (never silently).
    """
    return list(flagged_participants(study).order_by("rater_id").values_list("rater_id", flat=True))


def failed_qualification(study: Study) -> int:
    """How many of the study's volunteers (test participants aside) the qualification
    ended (``annotation.services.warmup``; the report's exclusions)."""
    return Participant.objects.filter(study=study, is_test=False, warmup__failed=True).count()


def practice_answers(study: Study) -> tuple[int, int]:
    """(volunteers, answers) of the study's practice answers, test participants aside:
    never stored as responses, so never counted; the report's exclusions say how many."""
    rows = Participant.objects.filter(study=study, is_test=False, warmup__has_key="practice")
    counts = [len(w.get("practice", {})) for w in rows.values_list("warmup", flat=True)]
    return len(counts), sum(counts)


@dataclass(frozen=True)
class ShownAnswer:
    """One stored answer as the volunteer saw it: the field's heading on their page (a
    rating's dimension label), and the answer in the page's terms (the option's shown
    number and text; a point with its scale and label), with the stored raw value."""

    item: str
    field: str  # the field's heading as shown
    answer: str  # the answer as shown
    value: float | None  # as stored (an option's 0-based canonical index, a point)
    time_ms: int | None


def _option_shown(spec: FieldSpec, perm: list[int], value: float, *, poems: bool) -> str:
    index = int(value)
    if value != index or not 0 <= index < len(spec.options):
        return f"{value:g}"
    number = perm.index(index) + 1 if index in perm else index + 1
    text = str(spec.options[index].get("text", ""))
    if poems:  # whole poems: the page shows "Poem n" and the first words
        label = _("Poem %(n)s") % {"n": number}
        return f"{label} · {verse.first_words(text)}"
    return f"{number} · {text}"


def _point_shown(spec: FieldSpec, value: float) -> str:
    assert spec.scale is not None
    point = int(value) if value == int(value) else value
    label = _scale_labels(spec).get(str(point), "")
    scale = f"{spec.scale[0]}–{spec.scale[-1]}"
    return f"{point} / {scale}" + (f" · {label}" if label else "")


def answers_shown(study: Study, rater_ids: Sequence[int]) -> dict[int, list[ShownAnswer]]:
    """Rater -> their first-sample answers, in the order given, each as they saw it
    (``ShownAnswer``): the researcher's quality page reads these, not the stored 0-based
    values and field keys. Four queries whatever the number of answers."""
    rows = list(
        Response.objects.filter(study=study, rater_id__in=rater_ids, sample=0)
        .order_by("rater_id", "answered_at", "pk")
        .values_list("rater_id", "item_id", "field", "value", "time_ms")
    )
    items = Item.objects.filter(pk__in={r[1] for r in rows}).select_related("task")
    by_pk = {item.pk: item for item in items}
    orders: dict[tuple[int, int], dict[str, list[int]]] = {}
    claims = Assignment.objects.filter(
        participant__study=study, participant__rater_id__in=rater_ids
    ).values_list("participant__rater_id", "item_id", "option_order")
    for rater, item_id, order in claims:
        orders[(rater, item_id)] = order or {}
    specs: dict[int, dict[str, FieldSpec]] = {}
    out: dict[int, list[ShownAnswer]] = {}
    for rater, item_id, key, value, time_ms in rows:
        item = by_pk[item_id]
        kind = kind_of(item.task)
        if item_id not in specs:
            specs[item_id] = {s.key: s for s in kind.field_specs(item, item.task)}
        spec = specs[item_id].get(key)
        heading, shown = key, "" if value is None else f"{value:g}"
        if spec is not None:
            heading = str(kind.legend(spec.key, spec.prompt) or spec.key)
            if value is None:
                shown = ""
            elif spec.scale is not None:
                shown = _point_shown(spec, value)
            else:
                order = orders.get((rater, item_id), {})
                perm = strategy.shown(order, spec.options_key, len(spec.options))
                shown = _option_shown(spec, perm, value, poems=kind.display.poems)
        out.setdefault(rater, []).append(
            ShownAnswer(item.external_id, heading, shown, value, time_ms)
        )
    return out


@dataclass(frozen=True)
class ResponseTotals:
    """One pass over a study's responses, shared by whatever a page reads of them: their
    number, largest pk and latest ``updated_at`` (the report's fingerprint, the answer
    count) and the same of the rows up to ``below`` (the dashboard's progress watermark,
    ``research.dashboard.running``)."""

    n: int
    top: int
    at: datetime | None
    below: int
    n_below: int
    sum_below: int
    at_below: datetime | None


def response_totals(study: Study, below: int = 0) -> ResponseTotals:
    """The study's ``ResponseTotals`` from one aggregate query (a single scan of its
    responses instead of one per reader: 0.25 s each at 1,000,000 on PostgreSQL)."""
    upto = Q(pk__lte=below)
    found = Response.objects.filter(study=study).aggregate(
        n=Count("pk"),
        top=Max("pk"),
        at=Max("updated_at"),
        n_below=Count("pk", filter=upto),
        sum_below=Sum("pk", filter=upto),
        at_below=Max("updated_at", filter=upto),
    )
    return ResponseTotals(
        n=found["n"],
        top=found["top"] or 0,
        at=found["at"],
        below=below,
        n_below=found["n_below"],
        sum_below=found["sum_below"] or 0,
        at_below=found["at_below"],
    )
