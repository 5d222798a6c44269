"""POST /answers/?next=1 replies with the next item too (as GET /next/ would), and the
claim path stays a handful of statements whatever the study's size."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation import services
from annotation.hotpath import claim as _claim_sql
from annotation.models import Assignment
from annotation.services import claims
from studies.models import Study
from tests.present import present
from tests.volunteer.conftest import answer_for, build_study, enrol
from tests.volunteer.test_api import enrolled, shown_answer
from tests.volunteer.test_balance import POSTGRES

pytestmark = pytest.mark.django_db
KINDS = ("choice", "multi", "best_worst", "rating")
ANSWERS = "/api/v1/volunteer/answers/"
NEXT = "/api/v1/volunteer/next/"


def test_answering_with_next_walks_the_whole_study_in_one_request_per_item() -> None:
    build_study(kinds=KINDS, per_participant=2, checks=1, shuffle_options=True)
    client, _ = enrolled(screening={"bg": 0})
    first = client.get(NEXT).json()
    nxt, answered = first, 0
    while not nxt["done"]:
        item = nxt["item"]
        reply = client.post(
            ANSWERS + "?next=1",
            {"assignment": item["assignment"], **shown_answer(item)},
            format="json",
        )
        assert reply.status_code == 201, reply.content
        body = reply.json()
        assert body["assignment"] == item["assignment"] and body["duplicate"] is False
        answered += 1
        nxt = body["next"]
        assert set(nxt) == {"done", "item", "completion_code", "progress"}
        assert nxt["progress"]["answered"] == answered
        assert nxt == client.get(NEXT).json()  # the same as GET next (same claim)
        assert "SECRET" not in str(nxt)
    assert answered == 4 * 2 + 3 and nxt["completion_code"]  # 3 checks (rating has none)
    assert nxt["progress"] == {"answered": answered, "total": answered, "finished": True}
    served = Assignment.objects.filter(served_at__isnull=True).count()
    assert served == 0  # every item handed out through ?next=1 had its timer started


def test_without_next_the_reply_is_unchanged_and_a_resent_answer_still_gets_next() -> None:
    build_study()
    client, _ = enrolled(screening={"bg": 0})
    item = client.get(NEXT).json()["item"]
    body = {"assignment": item["assignment"], "answer": 1}
    plain = client.post(ANSWERS, body, format="json")
    assert plain.status_code == 201 and set(plain.json()) == {"assignment", "duplicate"}
    again = client.post(ANSWERS + "?next=1", body, format="json")
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["next"]["item"]["assignment"] != item["assignment"]
    changed = client.post(ANSWERS + "?next=1", {**body, "answer": 2}, format="json")
    assert changed.status_code == 409 and "next" not in changed.json()


def test_next_is_null_when_the_study_closed_meanwhile() -> None:
    study = build_study()
    client, _ = enrolled(screening={"bg": 0})
    item = client.get(NEXT).json()["item"]
    body = {"assignment": item["assignment"], "answer": 1}
    assert client.post(ANSWERS, body, format="json").status_code == 201
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    again = client.post(ANSWERS + "?next=1", body, format="json")  # a resent copy
    assert again.status_code == 200 and again.json() == {**again.json(), "next": None}
    assert client.get(NEXT).status_code == 400  # which says why
    other = client.post(ANSWERS + "?next=1", {**body, "assignment": 0}, format="json")
    assert other.status_code == 400 and "next" not in other.json()


def test_the_schema_documents_next() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    post = schema["paths"][ANSWERS]["post"]
    assert any(p["name"] == "next" for p in post["parameters"])
    refs = str(schema["components"]["schemas"]["SubmitOut"])
    assert "next" in refs


@pytest.mark.parametrize("n_items", [10, 500])
def test_claiming_costs_a_few_statements_whatever_the_size(n_items: int) -> None:
    build_study(n_items=n_items, kinds=KINDS, per_participant=2)  # (a failed check: +2)
    client, _ = enrolled(screening={"bg": 0})
    item = client.get(NEXT).json()["item"]
    counts: dict[str, int] = {}

    def count(name: str, call):
        with CaptureQueriesContext(connection) as ctx:
            response = call()
        sql = [q["sql"] for q in ctx.captured_queries]
        real = [
            s for s in sql if "SAVEPOINT" not in s and s.split(" ")[0] not in ("BEGIN", "COMMIT")
        ]
        counts[name] = max(counts.get(name, 0), len(real))
        return response

    for _ in range(3):
        count("current", lambda: client.get(NEXT))
        body = {"assignment": item["assignment"], **shown_answer(item)}
        reply = count(
            "answer+next", lambda body=body: client.post(ANSWERS + "?next=1", body, format="json")
        )
        item = reply.json()["next"]["item"]
    # current: one read (participant, tasks, counts, open claim); a new claim: + the
    # lock (PostgreSQL), the sweep of expired claims, the first unseen tally row, the
    # INSERT with the participant's task count +1 and its tally's +1 (one statement on
    # PostgreSQL, three on SQLite); the answer: read, then INSERT, UPDATE and the task
    # count's +1 (one statement on PostgreSQL). None of it grows with the pool.
    postgres = connection.vendor == "postgresql"
    answer, claim = (1 + 1, 1 + 4) if postgres else (1 + 3, 1 + 2 + 3)
    assert counts["current"] == 1 and counts["answer+next"] <= answer + claim, counts


def test_a_claim_made_meanwhile_by_the_same_participant_is_found_not_doubled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another request of the participant claims between the unlocked read and the
    lock: the claim re-counts, reads again and returns that claim."""
    study = build_study()
    p = enrol(study)
    # The study's tallies and the participant's task counts made first (a new study's
    # first claim makes them, then reads again).
    _claim_sql.tally.cover(present(p.group_id), [t.pk for t in study.tasks.all()])
    _claim_sql.counts.cover(p.pk, [t.pk for t in study.tasks.all()])  # and their counts
    real_state, made, reads = _claim_sql.state, [], []

    def state_then_a_claim_meanwhile(pk: int) -> _claim_sql.State:
        st = real_state(pk)
        reads.append(st.current)
        if len(reads) == 1:  # the other request, which reads afresh
            made.append(services.assignment_next(participant=p))
        return st

    monkeypatch.setattr(_claim_sql, "state", state_then_a_claim_meanwhile)
    got = present(services.assignment_next(participant=p))
    assert got.pk == present(made[0]).pk
    assert reads[0] is None and len(reads) == 3  # stale, the other one's, read again
    assert Assignment.objects.filter(participant=p).count() == 1


def test_the_locked_last_attempt_gives_the_same_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims, "_ATTEMPTS", 1)  # straight to: lock, then read
    study = build_study(kinds=("choice", "multi"), per_participant=2, checks=1)
    p = enrol(study)
    seen = []
    while (a := services.assignment_next(participant=p)) is not None:
        assert present(services.assignment_next(participant=p)).pk == a.pk
        seen.append(a.item_id)
        services.response_submit(participant=p, assignment_id=a.pk, **answer_for(a.task.kind, {}))
    assert len(seen) == len(set(seen)) == 2 * (2 + 1)


@pytest.mark.skipif(not POSTGRES, reason="threads need DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)
def test_simultaneous_requests_of_one_participant_claim_one_item() -> None:
    study = build_study(n_items=20)
    p = enrol(study)
    barrier = threading.Barrier(6)
    got: list[int] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            barrier.wait()
            got.append(present(services.assignment_next(participant=p)).pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(got) == 6 and len(set(got)) == 1
    assert Assignment.objects.filter(participant=p).count() == 1
