"""The volunteer services: enrol, screen, claim, submit, finish, attention checks."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation import selectors, services
from annotation.models import Assignment, Participant, Response
from studies.models import Study
from tests.present import present
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def answer_all(p: Participant, *, correct: bool = True) -> list[Assignment]:
    done = []
    while (a := services.assignment_next(participant=p)) is not None:
        services.response_submit(
            participant=p,
            assignment_id=a.pk,
            **answer_for(a.task.kind, a.option_order, correct=correct),
        )
        done.append(a)
    return done


def test_enrol_requires_consent_and_records_its_text_and_time() -> None:
    study = build_study()
    with pytest.raises(ValidationError):
        services.participant_enrol(study=study, consent=False)
    p = services.participant_enrol(study=study, consent=True)
    assert p.consent_text == "Consent text." and p.consented_at is not None
    assert p.status == Participant.Status.CONSENTED and p.group is None
    assert p.rater.kind == "human" and p.rater.name == p.public_id


@pytest.mark.parametrize("status", [Study.Status.CLOSED, Study.Status.DRAFT])
def test_a_study_that_is_not_open_takes_no_one(status: str) -> None:
    study = build_study(status=status)
    with pytest.raises(ValidationError):
        services.participant_enrol(study=study, consent=True)


def test_an_invitation_places_the_participant_in_its_group_without_screening() -> None:
    study = build_study()
    group_b = study.groups.get(slug="B")
    p = services.participant_enrol(study=study, consent=True, invite_token=group_b.invite_token)
    assert p.group == group_b and p.entry == "invite" and p.status == "screened"
    assert Participant.objects.get(pk=p.pk).group == group_b
    with pytest.raises(ValidationError):
        services.participant_enrol(study=study, consent=True, invite_token="forged")


def test_screening_first_answered_option_naming_a_group_wins() -> None:
    study = build_study(groups=("A", "B", "C"))
    q2 = study.screening.create(
        key="poet",
        prompt="Poet?",
        position=1,
        options=[{"label": "yes", "group": "C"}, {"label": "no", "group": None}],
    )
    p = services.participant_enrol(study=study, consent=True)
    with pytest.raises(ValidationError) as err:
        services.participant_screen(participant=p, answers={"bg": 1})
    assert q2.key in err.value.message_dict
    p = services.participant_screen(participant=p, answers={"bg": 1, "poet": 0})
    assert present(p.group).slug == "B"
    assert present(Participant.objects.get(pk=p.pk).group).slug == "B"  # stored, not only in memory
    assert p.screening_answers["poet"] == {"option": 0, "label": "yes"}


def test_each_participant_gets_per_participant_items_of_each_task_never_twice() -> None:
    study = build_study(kinds=("choice", "multi", "best_worst", "rating"), per_participant=3)
    p = enrol(study)
    done = answer_all(p)
    assert Counter(a.task.kind for a in done) == {
        "choice": 3,
        "multi": 3,
        "best_worst": 3,
        "rating": 3,
    }
    assert len({a.item_id for a in done}) == len(done)
    assert [a.task.slug for a in done] == sorted(a.task.slug for a in done)  # fixed task order
    assert selectors.participant_progress(p) == selectors.Progress(answered=12, total=12)


def test_attention_checks_come_on_top_of_per_participant_within_their_task() -> None:
    study = build_study(per_participant=3, checks=2)
    p = enrol(study)
    done = answer_all(p)
    assert len(done) == 5 and sum(a.item.is_attention_check for a in done) == 2
    assert selectors.participant_progress(p).total == 5


def test_randomised_task_order_is_stored_per_participant() -> None:
    study = build_study(
        kinds=("choice", "multi", "best_worst", "rating"), randomize_task_order=True
    )
    orders = {tuple(enrol(study).task_order) for _ in range(12)}
    assert len(orders) > 1
    p = enrol(study)
    done = answer_all(p)
    seen = list(dict.fromkeys(a.task.slug for a in done))
    assert seen == p.task_order


def test_shuffled_options_are_stored_canonical() -> None:
    study = build_study(kinds=("choice", "multi", "best_worst"), shuffle_options=True, n_items=30)
    p = enrol(study)
    perms = []
    for a in answer_all(p):
        perms.extend(a.option_order.values())
    assert any(perm != sorted(perm) for perm in perms)
    values = Counter(Response.objects.filter(rater=p.rater).values_list("field", "value"))
    assert values == {
        ("answer", 2): 3,
        ("who", 1): 3,
        ("what", 3): 3,
        ("best", 0): 3,
        ("worst", 2): 3,
    }
    assert all(Response.objects.filter(rater=p.rater).values_list("correct", flat=True))


def test_answer_time_is_measured_server_side_from_serving_to_saving() -> None:
    study = build_study()
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    t0 = timezone.now()
    services.assignment_serve(assignment=a, now=t0)
    services.response_submit(
        participant=p, assignment_id=a.pk, answer=0, now=t0 + timedelta(seconds=7.5)
    )
    assert set(Response.objects.filter(rater=p.rater).values_list("time_ms", flat=True)) == {7500}


def test_resubmitting_the_same_answer_stores_it_once() -> None:
    study = build_study()
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    first = services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    again = services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    assert not first.duplicate and again.duplicate
    assert Response.objects.filter(rater=p.rater).count() == 1


def test_a_different_answer_to_an_answered_item_is_refused_and_the_first_kept() -> None:
    study = build_study()
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    with pytest.raises(services.AlreadyAnswered):
        services.response_submit(participant=p, assignment_id=a.pk, answer=3)
    assert list(Response.objects.filter(rater=p.rater).values_list("value", flat=True)) == [1]


def test_invalid_answers_are_refused_with_the_field_named() -> None:
    study = build_study(kinds=("best_worst", "rating"), per_participant=1)
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    with pytest.raises(ValidationError) as err:
        services.response_submit(participant=p, assignment_id=a.pk, answer={"best": 1, "worst": 1})
    assert "worst" in err.value.message_dict
    services.response_submit(participant=p, assignment_id=a.pk, answer={"best": 1, "worst": 0})
    a = present(services.assignment_next(participant=p))
    with pytest.raises(ValidationError) as err:
        services.response_submit(
            participant=p, assignment_id=a.pk, ratings={"beauty": 6, "form": 2}
        )
    assert "beauty" in err.value.message_dict
    with pytest.raises(ValidationError) as err:
        services.response_submit(participant=p, assignment_id=a.pk, ratings={"beauty": 3})
    assert "form" in err.value.message_dict
    assert not Response.objects.filter(rater=p.rater, item=a.item).exists()


def test_one_participant_cannot_answer_anothers_assignment() -> None:
    study = build_study()
    alice, mallory = enrol(study), enrol(study)
    a = present(services.assignment_next(participant=alice))
    with pytest.raises(ValidationError):
        services.response_submit(participant=mallory, assignment_id=a.pk, answer=2)
    services.response_submit(participant=alice, assignment_id=a.pk, answer=1)
    with pytest.raises(ValidationError):
        services.response_submit(participant=mallory, assignment_id=a.pk, answer=1)
    assert not Response.objects.filter(rater=mallory.rater).exists()


def test_failing_more_checks_than_allowed_flags_the_participant_and_excludes_them() -> None:
    study = build_study(per_participant=1, checks=2, attention_max_failures=1)
    lenient = build_study(
        per_participant=1, checks=2, attention_max_failures=1, exclude_flagged=False, slug="t"
    )
    careless, careful, once = enrol(study), enrol(study), enrol(lenient)
    answer_all(careless, correct=False)
    answer_all(careful, correct=True)
    answer_all(once, correct=False)
    careless.refresh_from_db()
    careful.refresh_from_db()
    once.refresh_from_db()
    assert (careless.attention_failures, careless.flagged) == (2, True)
    assert (careful.attention_failures, careful.flagged) == (0, False)
    assert once.flagged  # flagged is recorded even where the study keeps them in statistics
    assert list(selectors.flagged_participants(study)) == [careless]
    assert selectors.flagged_rater_ids(study) == [careless.rater_id]
    # The report, not the selector, leaves them out when the study says so.
    assert selectors.flagged_rater_ids(lenient) == [once.rater_id]


def test_finishing_gives_the_study_code_or_a_personal_one() -> None:
    fixed = build_study(per_participant=1, completion_code="PROLIFIC-123")
    personal = build_study(per_participant=1, slug="t")
    with pytest.raises(ValidationError):
        services.participant_finish(participant=enrol(fixed))
    a, b, c = enrol(fixed), enrol(personal), enrol(personal)
    for p in (a, b, c):
        answer_all(p)
        services.participant_finish(participant=p)
    for row in (a, b, c):
        row.refresh_from_db()
    assert a.completion_code == "PROLIFIC-123" and a.status == "finished"
    assert b.completion_code and c.completion_code and b.completion_code != c.completion_code
    assert services.participant_finish(participant=b).completion_code == b.completion_code


def test_answers_are_refused_once_a_study_closes() -> None:
    study = build_study()
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    p.study.refresh_from_db()
    with pytest.raises(ValidationError):
        services.response_submit(participant=p, assignment_id=a.pk, answer=1)
