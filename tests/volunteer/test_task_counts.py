"""Task counts (annotation/hotpath/counts.py): a participant's assignments of regular items
and of checks, and their answers, per task, kept by claims and answers so the claim's read
does not count them; always equal to a count over the assignments once made, made
afresh after anything else changed the assignments; the migration reverses on a filled
database. Run on SQLite and PostgreSQL."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation import services
from annotation.hotpath import claim as claim_sql
from annotation.models import Assignment, TaskCount
from tests.present import present
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def recounted(study) -> dict[tuple[int, int], tuple[int, int, int]]:
    """(participant, task) -> (regular, checks, answered), counted from the assignments,
    for everyone who has any."""
    out: dict[tuple[int, int], list[int]] = {}
    rows = Assignment.objects.filter(task__study=study).values_list(
        "participant_id", "task_id", "item__is_attention_check", "status"
    )
    for participant, task, check, status in rows:
        n = out.setdefault((participant, task), [0, 0, 0])
        n[1 if check else 0] += 1
        n[2] += status == "answered"
    return {key: (r, c, a) for key, (r, c, a) in out.items()}


def kept(study) -> dict[tuple[int, int], tuple[int, int, int]]:
    rows = TaskCount.objects.filter(task__study=study).values_list(
        "participant_id", "task_id", "regular", "checks", "answered"
    )
    return {(p, t): (r, c, a) for p, t, r, c, a in rows if r or c or a}


def answer(p, a, now=None) -> None:
    services.response_submit(
        participant=p, assignment_id=a.pk, now=now, **answer_for(a.task.kind, a.option_order)
    )


def test_counts_follow_claims_answers_checks_expiries_renewals_and_releases() -> None:
    study = build_study(n_items=6, kinds=("choice", "rating"), per_participant=3, checks=1)
    now = timezone.now()
    people = [enrol(study, group="A" if n % 2 else "B") for n in range(5)]
    for p in people[:3]:
        for _ in range(4):  # through both tasks, the checks among them
            a = present(services.assignment_next(participant=p, now=now))
            answer(p, a, now)
        services.assignment_next(participant=p, now=now)  # an open claim
    assert kept(study) == recounted(study)
    assert any(c for (_r, c, _a) in kept(study).values())  # checks were served and counted
    later = now + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS + 1)
    for p in people[3:]:  # their claims sweep the others' expired ones: still theirs
        while (b := services.assignment_next(participant=p, now=later)) is not None:
            answer(p, b, later)
    assert Assignment.objects.filter(status="expired").exists()
    assert kept(study) == recounted(study)
    late = present(Assignment.objects.filter(status="expired").first())
    answer(late.participant, late, later)  # an answer to an expired claim counts once
    again = present(Assignment.objects.filter(status="expired").first())
    assert (
        present(services.assignment_next(participant=again.participant, now=later)).pk == again.pk
    )
    assert kept(study) == recounted(study)
    # An answer sent twice (a copy: the rows exist) is counted once.
    p = people[0]
    a = present(services.assignment_next(participant=p, now=later))
    answer(p, a, later)
    answer(p, a, later)
    assert kept(study) == recounted(study)
    # A release deletes open claims: their holders' counts are made afresh when next read.
    services.claims_release(item_ids=list(study.items.values_list("id", flat=True)))
    for p in people:
        services.assignment_next(participant=p, now=later)
    assert kept(study) == recounted(study)


def test_progress_and_position_after_the_counts_were_dropped() -> None:
    """A load (tallies_refresh) drops everyone's counts: the next page counts them afresh,
    progress and positions go on, and no item is served twice."""
    from annotation.services.claims import tallies_refresh

    study = build_study(n_items=5, per_participant=4, groups=("A",))
    p = enrol(study)
    for _ in range(2):
        answer(p, services.assignment_next(participant=p))
    tallies_refresh(study_id=study.pk)
    assert not TaskCount.objects.exists()
    got = services.next_item(participant_id=p.pk)
    assert got.progress is not None and got.progress.answered == 2
    assert got.assignment is not None and got.assignment.position == 2
    seen = []
    while (a := services.assignment_next(participant=p)) is not None:
        seen.append(a.item_id)
        answer(p, a)
    assert len(seen) == 2 and len(set(Assignment.objects.values_list("item_id", flat=True))) == 4
    assert kept(study) == recounted(study)


def test_the_claims_read_counts_nothing() -> None:
    """The state read finds the participant's counts by key: no count over assignments."""
    study = build_study(n_items=20, per_participant=10)
    p = enrol(study)
    for _ in range(5):
        answer(p, services.assignment_next(participant=p))
    with CaptureQueriesContext(connection) as ctx:
        state = claim_sql.state(p.pk)
    assert [r.answered for r in state.rows] == [5]
    assert "count(" not in ctx.captured_queries[-1]["sql"].lower()


def test_deletions_and_edits_in_the_admin_keep_tallies_and_counts(admin_client) -> None:
    """A participant deleted, an assignment deleted or edited by hand in the admin: the
    study's tallies and task counts are counted afresh, no command needed."""
    from tests.volunteer.test_tallies import counted, tallied

    study = build_study(n_items=6, per_participant=3, target=2)
    people = [enrol(study, group="A" if n % 2 else "B") for n in range(4)]
    for p in people:
        answer(p, services.assignment_next(participant=p))
        services.assignment_next(participant=p)  # an open claim each
    gone = people[0]
    reply = admin_client.post(f"/admin/annotation/participant/{gone.pk}/delete/", {"post": "yes"})
    assert reply.status_code == 302 and not Assignment.objects.filter(participant=gone).exists()
    assert tallied(study) == counted(study)
    open_one = present(Assignment.objects.filter(status="claimed").first())
    reply = admin_client.post(
        "/admin/annotation/assignment/",
        {"action": "delete_selected", "_selected_action": [open_one.pk], "post": "yes"},
    )
    assert reply.status_code == 302 and not Assignment.objects.filter(pk=open_one.pk).exists()
    assert tallied(study) == counted(study)
    for p in people[1:]:  # counts made afresh at the next page: equal to the assignments
        services.assignment_next(participant=p)
    assert kept(study) == recounted(study)


@pytest.mark.django_db(transaction=True)
def test_the_hot_tables_are_vacuumed_after_a_fixed_number_of_rows_and_that_reverses() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("autovacuum settings are PostgreSQL's")

    def options() -> dict[str, list[str] | None]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT relname, reloptions FROM pg_class WHERE relname IN "
                "('annotation_tally', 'annotation_assignment', 'annotation_taskcount')"
            )
            return dict(cursor.fetchall())

    assert all("autovacuum_vacuum_threshold=1000" in (o or []) for o in options().values())
    initial = importlib.import_module("annotation.migrations.0001_initial")
    with connection.schema_editor() as editor:
        initial.untune(None, editor)
    assert all(not o for o in options().values())
    with connection.schema_editor() as editor:
        initial.tune(None, editor)
    assert len(options()) == 3 and all(
        "autovacuum_vacuum_scale_factor=0.0" in (o or []) for o in options().values()
    )


def test_counts_dropped_under_the_locked_attempt_are_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last, locked attempt: a load drops the participant's counts between their
    read and the candidate's count (a load takes no participant's lock). The claim reads
    again instead of failing, and nothing is claimed twice."""
    from annotation.hotpath import counts as counts_sql
    from annotation.services import claims

    study = build_study(n_items=6, per_participant=3, groups=("A",))
    p = enrol(study)
    answer(p, services.assignment_next(participant=p))
    monkeypatch.setattr(claims, "_ATTEMPTS", 1)  # straight to: lock, then read
    real_next, calls = claim_sql.next_regular, []

    def dropped_meanwhile(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            counts_sql.drop_tasks([t.pk for t in study.tasks.all()])
        return real_next(*args, **kwargs)

    monkeypatch.setattr(claim_sql, "next_regular", dropped_meanwhile)
    got = present(services.assignment_next(participant=p))
    assert got is not None and got.status == "claimed" and len(calls) == 2
    assert Assignment.objects.filter(participant=p).count() == 2
    assert kept(study) == recounted(study)
