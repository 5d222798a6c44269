"""The claim of a regular item in one statement (PostgreSQL: ``annotation.hotpath.claim.
at_once``, used by ``annotation.services.claims``): what it writes when the participant's
counts are still those of their state, that it writes nothing when they are not, that it
leaves the decision to the transaction when no row can be taken without waiting, and
that its shuffle, drawn before the item is known, always fits the item it gets."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from annotation import assignment as strategy
from annotation import services
from annotation.hotpath import claim as sql
from annotation.models import Assignment, Tally, TaskCount
from annotation.services import claims
from studies.models import Item, Task
from tests.present import present
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the claim in one statement"),
]


def _state(p):
    st = sql.state(p.pk)
    st.cover()
    return sql.state(p.pk)


def _written(study) -> tuple[int, int, list[tuple[int, int, int]]]:
    return (
        Assignment.objects.filter(task__study=study).count(),
        sum(Tally.objects.filter(task__study=study).values_list("taken", flat=True)),
        sorted(
            TaskCount.objects.filter(task__study=study).values_list("regular", "checks", "answered")
        ),
    )


def _at_once(p, st, mine=None, now=None):
    row = st.rows[0]
    now = now or timezone.now()
    return sql.at_once(
        me=st.me, task=row.task, position=st.n_assigned,
        mine=mine or (row.mine_regular, row.mine_checks), option_order={}, now=now,
        expires_at=now + timedelta(minutes=30), served_at=None,
    )  # fmt: skip


def test_a_claim_writes_the_assignment_its_count_and_its_tally_together() -> None:
    study = build_study(n_items=8, per_participant=3)
    p = enrol(study)
    st = _state(p)
    before = _written(study)
    got = _at_once(p, st)
    assert got is not None
    a, taken = got
    assert taken == 0 and a.position == 0 and a.status == Assignment.Status.CLAIMED
    stored = Assignment.objects.get(pk=a.pk)
    assert (stored.participant_id, stored.item_id, stored.group_id) == (p.pk, a.item_id, p.group_id)
    assert Tally.objects.get(item_id=a.item_id, group_id=present(p.group_id)).taken == 1
    count, taken_sum, counts = _written(study)
    assert (count, taken_sum) == (before[0] + 1, before[1] + 1)
    assert counts == [(1, 0, 0)]


def test_a_claim_from_a_stale_state_writes_nothing() -> None:
    """Two claims decided on one state (two tabs): the first is written, the second finds
    the participant's count changed and writes nothing; the service then reads again
    and gives the first claim to both."""
    study = build_study(n_items=8, per_participant=3)
    p = enrol(study)
    st = _state(p)
    assert _at_once(p, st) is not None
    after_first = _written(study)
    with pytest.raises(sql.Stale):
        _at_once(p, st)  # the same state: counts (0, 0), position 0, no longer true
    assert _written(study) == after_first
    with pytest.raises(sql.Stale):
        _at_once(p, _state(p), mine=(5, 0))  # counts that never were
    assert _written(study) == after_first
    first = Assignment.objects.get(participant=p)
    assert present(services.assignment_next(participant=p)).pk == first.pk


def test_nothing_left_to_take_leaves_the_decision_to_the_transaction() -> None:
    study = build_study(n_items=3, per_participant=3)
    p = enrol(study)
    for _ in range(3):
        a = present(services.assignment_next(participant=p))
        services.response_submit(
            participant=p, assignment_id=a.pk, **answer_for("choice", a.option_order)
        )
    st = _state(p)
    before = _written(study)
    assert _at_once(p, st) is None  # every item seen: no row
    assert _written(study) == before
    assert services.assignment_next(participant=p) is None


def test_expired_claims_of_the_group_are_swept_by_the_transaction_first() -> None:
    """An open claim of the group past its expiry: the statement takes nothing (its item
    must go back to the pool before anything is chosen), and the service's transaction
    sweeps it and gives that item, now the largest shortfall, to the next volunteer."""
    study = build_study(n_items=4, per_participant=2, target=1, groups=("A",))
    holder, other = enrol(study), enrol(study)
    held = present(services.assignment_next(participant=holder))  # claimed, never answered
    later = timezone.now() + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS + 60)
    others = Item.objects.filter(task=held.task).exclude(pk=held.item_id)
    Tally.objects.filter(item__in=others).update(taken=1)  # the others answered meanwhile
    st = _state(other)
    before = _written(study)
    assert _at_once(other, st, now=later) is None
    assert _written(study) == before
    got = present(services.assignment_next(participant=other, now=later))
    assert got.item_id == held.item_id  # back in the pool, and the largest shortfall
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.EXPIRED
    assert _at_once(enrol(study), _state(enrol(study)), now=later) is not None  # swept


def test_the_shuffle_drawn_before_the_item_always_fits_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Items of one task with 3, 4 and 5 options in turn: each claim's shuffle is a
    permutation of its own item's options, whatever the item claimed before it."""
    monkeypatch.setattr(claims, "_LISTS", {})
    reshuffled: list[int] = []
    set_order = sql.set_order

    def counted_set_order(a: Assignment, order: dict[str, list[int]]) -> None:
        reshuffled.append(a.pk)
        set_order(a, order)

    monkeypatch.setattr(sql, "set_order", counted_set_order)
    study = build_study(n_items=12, per_participant=12, shuffle_options=True)
    task = Task.objects.get(study=study)
    for n, item in enumerate(Item.objects.filter(task=task).order_by("pk")):
        item.options = [{"text": f"o{k}"} for k in range(3 + n % 3)]
        item.save(update_fields=["options"])
    rng = random.Random(5)
    for g in range(3):
        p = enrol(study, group=rng.choice(["A", "B"]))
        while (a := services.assignment_next(participant=p)) is not None:
            stored = Assignment.objects.select_related("item").get(pk=a.pk)
            n_options = len(stored.item.options)
            assert sorted(stored.option_order["answer"]) == list(range(n_options)), g
            assert stored.option_order == a.option_order
            assert strategy.order_fits("choice", stored.option_order, n_options=n_options, parts=[])
            services.response_submit(
                participant=p, assignment_id=a.pk, **answer_for("choice", a.option_order)
            )
    assert claims._LISTS  # the guess is kept per task
    assert 0 < len(reshuffled) < 36  # a guess for other lists was drawn afresh, not always


def test_an_unshuffled_study_stores_no_order() -> None:
    study = build_study(n_items=6, per_participant=2, shuffle_options=False)
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    assert Assignment.objects.get(pk=a.pk).option_order == {} == a.option_order
