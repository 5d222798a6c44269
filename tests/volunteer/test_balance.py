"""Assignment balance, claim expiry and the race for an item's last slot."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from annotation import assignment as strategy
from annotation import services
from annotation.models import Assignment
from tests.present import present
from tests.volunteer.conftest import answer_for, assert_counters_true, build_study, enrol

POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def answered_per_item(study, group: str) -> Counter:
    return Counter(
        Assignment.objects.filter(
            task__study=study, group__slug=group, status="answered"
        ).values_list("item__external_id", flat=True)
    )


@pytest.mark.django_db
def test_many_participants_fill_every_item_to_its_target_evenly() -> None:
    # 20 items x target 3 = 60 answers per group = 15 participants x 4 items.
    study = build_study(n_items=20, per_participant=4, target=3)
    for n in range(15):
        p = enrol(study, group="A" if n % 2 == 0 else "B")
        while (a := services.assignment_next(participant=p)) is not None:
            services.response_submit(participant=p, assignment_id=a.pk, **answer_for("choice", {}))
            counts = answered_per_item(study, present(p.group).slug)
            spread = [counts.get(f"t0-choice-{i:04d}", 0) for i in range(20)]
            assert max(spread) - min(spread) <= 1  # balanced at every step
    a_counts, b_counts = answered_per_item(study, "A"), answered_per_item(study, "B")
    # 8 participants in A answer 32 items: 12 items at 2, 8 at 1 ... evenly.
    assert sum(a_counts.values()) == 32 and max(a_counts.values()) - min(a_counts.values()) <= 1
    assert sum(b_counts.values()) == 28 and max(b_counts.values()) - min(b_counts.values()) <= 1
    assert max(a_counts.values()) <= 3
    assert_counters_true()


@pytest.mark.django_db
def test_each_group_reaches_target_exactly_when_the_numbers_fit() -> None:
    study = build_study(n_items=12, per_participant=4, target=2, groups=("A",))
    for _ in range(6):
        p = enrol(study)
        while (a := services.assignment_next(participant=p)) is not None:
            services.response_submit(participant=p, assignment_id=a.pk, **answer_for("choice", {}))
    counts = answered_per_item(study, "A")
    assert len(counts) == 12 and set(counts.values()) == {2}


@pytest.mark.django_db
def test_groups_are_balanced_independently() -> None:
    study = build_study(n_items=2, per_participant=1, target=1)
    a1 = present(services.assignment_next(participant=enrol(study, group="A")))
    b1 = present(services.assignment_next(participant=enrol(study, group="B")))
    a2 = present(services.assignment_next(participant=enrol(study, group="A")))
    assert a1.item_id != a2.item_id  # A's second participant takes A's other item
    assert b1.item_id in {a1.item_id, a2.item_id}


@pytest.mark.django_db
def test_live_claims_count_toward_the_target_and_expired_ones_return_the_item() -> None:
    study = build_study(n_items=2, per_participant=1, target=1)
    now = timezone.now()
    quitter = present(services.assignment_next(participant=enrol(study), now=now))
    other = present(services.assignment_next(participant=enrol(study), now=now))
    assert other.item_id != quitter.item_id  # the quitter's claim is still live
    later = now + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS + 1)
    services.response_submit(
        participant=other.participant, assignment_id=other.pk, answer=0, now=later
    )
    third = present(services.assignment_next(participant=enrol(study), now=later))
    assert third.item_id == quitter.item_id  # the abandoned item came back


@pytest.mark.django_db
def test_a_returning_participant_finds_their_expired_claim_renewed() -> None:
    study = build_study(n_items=5, per_participant=2)
    p = enrol(study)
    now = timezone.now()
    first = present(services.assignment_next(participant=p, now=now))
    services.assignment_serve(assignment=first, now=now)
    later = now + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS + 60)
    again = present(services.assignment_next(participant=p, now=later))
    assert again.pk == first.pk and present(again.expires_at) > later and again.served_at is None
    assert Assignment.objects.filter(participant=p).count() == 1


@pytest.mark.django_db
def test_asking_twice_for_the_next_item_claims_one_item() -> None:
    study = build_study()
    p = enrol(study)
    assert (
        present(services.assignment_next(participant=p)).pk
        == present(services.assignment_next(participant=p)).pk
    )


@pytest.mark.skipif(
    not POSTGRES,
    reason="threads need a server database: run with DATABASE_URL=postgres://…; on SQLite "
    "every write transaction is IMMEDIATE, so claims are serialised database-wide",
)
@pytest.mark.django_db(transaction=True)
def test_participants_racing_for_the_last_slots_never_share_one(monkeypatch) -> None:
    """8 items with one slot each, 8 participants claiming at the same instant; each
    claim dawdles between reading the shortfalls and inserting, to widen the window."""
    real_pick = strategy.pick

    def slow_pick(candidates, rng):
        time.sleep(0.05)
        return real_pick(candidates, rng)

    monkeypatch.setattr(strategy, "pick", slow_pick)
    study = build_study(n_items=8, per_participant=1, target=1, groups=("A",))
    racers = [enrol(study) for _ in range(8)]
    barrier = threading.Barrier(len(racers))
    claimed: list[int] = []
    errors: list[BaseException] = []

    def claim(p) -> None:
        try:
            barrier.wait()
            claimed.append(present(services.assignment_next(participant=p)).item_id)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=claim, args=(p,)) for p in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(claimed) == sorted(set(claimed)) and len(claimed) == 8
    assert connection.vendor == "postgresql"
    assert_counters_true()
