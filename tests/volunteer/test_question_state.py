"""The question page's state (``services.question_state``): one function for the page's
three entry paths (the cookie's claim read, an answer's POST read with its assignment,
the general read), each giving the page the view renders."""

from __future__ import annotations

import pytest

from annotation import services
from annotation.models import Participant
from annotation.services import Page, question_state
from studies.models import Study
from tests.present import present
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def test_no_participant_is_the_welcome_and_an_unscreened_one_the_screening() -> None:
    study = build_study(n_items=2, per_participant=1)
    assert question_state(slug="s", cookies=[]).page == Page.WELCOME
    assert question_state(slug="s", cookies=[(study.pk, "no-such-id")]).page == Page.WELCOME
    new = enrol(study, group=None)
    state = question_state(slug="s", cookies=[(study.pk, new.public_id)])
    assert state.page == Page.SCREENING and present(state.participant).pk == new.pk


def test_the_question_with_its_instructions_then_the_answer_then_done() -> None:
    study = build_study(n_items=2, per_participant=1)
    p = enrol(study)
    keys = [(study.pk, p.public_id)]
    first = question_state(slug="s", cookies=keys)
    a = present(first.assignment)
    assert first.page == Page.QUESTION and first.intro and first.progress is not None
    assert present(a.__class__.objects.get(pk=a.pk).served_at)  # shown by the claim itself
    shown = question_state(slug="s", cookies=keys)  # the same item again: instructions folded
    assert shown.page == Page.QUESTION and not shown.intro
    assert present(shown.assignment).pk == a.pk
    posted = question_state(slug="s", cookies=keys, posted=True, assignment_id=a.pk)
    assert posted.page == Page.ANSWER and posted.answer_read
    assert present(posted.assignment).pk == a.pk
    # A form naming no assignment: the answer's service is left to read (and refuse) it.
    nameless = question_state(slug="s", cookies=keys, posted=True)
    assert nameless.page == Page.ANSWER and not nameless.answer_read
    services.response_submit(
        participant=p, assignment_id=a.pk, **answer_for("choice", a.option_order)
    )
    assert question_state(slug="s", cookies=keys).page == Page.DONE


def test_a_closed_study_and_a_finished_participant() -> None:
    study = build_study(n_items=2, per_participant=1)
    p = enrol(study)
    keys = [(study.pk, p.public_id)]
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    assert question_state(slug="s", cookies=keys).page == Page.CLOSED
    assert question_state(slug="s", cookies=keys, posted=True).page == Page.CLOSED
    Participant.objects.filter(pk=p.pk).update(status=Participant.Status.FINISHED)
    assert question_state(slug="s", cookies=keys).page == Page.FINISH
    assert question_state(slug="s", cookies=keys, posted=True).page == Page.FINISH
