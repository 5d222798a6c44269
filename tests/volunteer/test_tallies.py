"""Tallies (annotation/hotpath/tally.py): kept equal to a count over the assignments
through claims, answers, expiries and releases; the migration fills them for existing
data and reverses."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from annotation import services
from annotation.models import Assignment, Tally
from tests.present import present
from tests.volunteer.conftest import build_study, enrol


def counted(study) -> Counter:
    """Answers + open claims per (item, group), counted from the assignments."""
    rows = Assignment.objects.filter(task__study=study, status__in=["answered", "claimed"]).filter(
        item__is_attention_check=False
    )
    return Counter(rows.values_list("item_id", "group_id"))


def tallied(study) -> Counter:
    rows = Tally.objects.filter(task__study=study).values_list("item_id", "group_id", "taken")
    return Counter({(i, g): n for i, g, n in rows if n})


@pytest.mark.django_db
def test_tallies_follow_claims_answers_expiries_renewals_and_releases() -> None:
    study = build_study(n_items=6, per_participant=3, target=2)
    now = timezone.now()
    people = [enrol(study, group="A" if n % 2 else "B") for n in range(6)]
    for p in people[:4]:
        a = present(services.assignment_next(participant=p, now=now))
        services.response_submit(participant=p, assignment_id=a.pk, answer=0, now=now)
        services.assignment_next(participant=p, now=now)  # an open claim
    assert tallied(study) == counted(study)
    later = now + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS + 1)
    services.assignment_next(participant=people[4], now=later)  # sweeps A's or B's
    services.assignment_next(participant=people[5], now=later)
    assert Assignment.objects.filter(status="expired").count() == 4
    assert tallied(study) == counted(study)
    late = Assignment.objects.filter(status="expired").first()
    assert late is not None
    services.response_submit(  # an answer to a claim found expired takes its item again
        participant=late.participant, assignment_id=late.pk, answer=0, now=later
    )
    renewed = present(
        services.assignment_next(
            participant=present(Assignment.objects.filter(status="expired").first()).participant,
            now=later,
        )
    )
    assert renewed.status == "claimed"
    assert tallied(study) == counted(study)
    services.claims_release(item_ids=list(study.items.values_list("id", flat=True)))
    assert tallied(study) == counted(study)


@pytest.mark.django_db
def test_items_added_or_made_checks_after_the_first_claim_are_taken_into_account() -> None:
    from annotation.services.claims import tallies_refresh
    from studies.models import Item

    study = build_study(n_items=3, per_participant=6, target=1, groups=("A",))
    services.assignment_next(participant=enrol(study))  # the tallies made
    task = study.tasks.get()
    template = present(Item.objects.filter(task=task).first())
    for n in range(3):  # added later, e.g. by an admin: covered by the next claim
        template.pk, template.external_id = None, f"late-{n}"
        template.save()
    flipped = Item.objects.filter(task=task).exclude(external_id__startswith="late").last()
    assert flipped is not None
    flipped.is_attention_check = True  # a reload made it a check
    flipped.save()
    tallies_refresh(study_id=study.pk)
    p = enrol(study)
    seen = []
    while (a := services.assignment_next(participant=p)) is not None:
        seen.append((a.item.external_id, a.item.is_attention_check))
        services.response_submit(participant=p, assignment_id=a.pk, answer=0)
    regular = [i for i, check in seen if not check]
    assert len(regular) == 5 and {f"late-{n}" for n in range(3)} <= set(regular)
    assert (flipped.external_id, True) in seen  # served once, as a check
    assert tallied(study) == counted(study)


@pytest.mark.django_db
def test_the_command_counts_tallies_afresh_after_an_admin_deletion() -> None:
    import io

    from django.core.management import call_command
    from django.core.management.base import CommandError

    study = build_study(n_items=4, per_participant=2, target=1, groups=("A",))
    gone = enrol(study)
    services.assignment_next(participant=gone)
    services.assignment_next(participant=enrol(study))
    gone.delete()  # its claim goes with it (cascade), the tally does not know
    assert tallied(study) != counted(study)
    call_command("tallies_recount", study.slug, stdout=io.StringIO())
    assert tallied(study) == counted(study)
    with pytest.raises(CommandError, match="no study 'nope'"):
        call_command("tallies_recount", "nope")


@pytest.mark.django_db
def test_check_finds_each_kind_of_wrong_counter_and_changes_nothing() -> None:
    import io

    from django.core.management import call_command
    from django.core.management.base import CommandError

    from annotation.models import TallyCover, TaskCount

    study = build_study(n_items=4, per_participant=2, target=2, groups=("A",))
    people = [enrol(study) for _ in range(3)]
    for p in people:
        a = present(services.assignment_next(participant=p))
        services.response_submit(participant=p, assignment_id=a.pk, answer=0)
        services.assignment_next(participant=p)
    out = io.StringIO()
    call_command("tallies_recount", "--check", stdout=out)  # every study, all true
    assert "all true" in out.getvalue()

    people[0].delete()  # cascades to its assignments; the tallies do not know
    TaskCount.objects.filter(participant=people[1]).update(answered=9)
    TallyCover.objects.filter(task__study=study).update(n_checks=7)
    before = (tallied(study), list(TaskCount.objects.values_list("answered", flat=True)))
    out = io.StringIO()
    with pytest.raises(CommandError, match="differ from their recount") as raised:
        call_command("tallies_recount", study.slug, "--check", stdout=out)
    assert raised.value.returncode == 1
    text = out.getvalue()
    assert "tally item" in text and "recount" in text
    assert f"task count participant {people[1].pk}" in text and "/9, recount" in text
    assert "tally cover task" in text and "/7, recount" in text
    assert (tallied(study), list(TaskCount.objects.values_list("answered", flat=True))) == before

    call_command("tallies_recount", study.slug, stdout=io.StringIO())  # the repair
    TaskCount.objects.all().delete()  # dropped rows are made afresh at the next read
    call_command("tallies_recount", "--check", stdout=io.StringIO())
