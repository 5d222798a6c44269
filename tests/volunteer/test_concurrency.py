"""Concurrent copies of one answer (a double click, a re-sent request) store it once.

Threads need a server database (DATABASE_URL=postgres://…). On SQLite every write
transaction is IMMEDIATE, so the copies are serialised by the database lock and the
later one finds the answer stored (tested sequentially in test_services.py).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from annotation import services
from annotation.models import Response
from tests.present import present
from tests.volunteer.conftest import assert_counters_true, build_study, enrol
from tests.volunteer.test_balance import POSTGRES


@pytest.mark.skipif(not POSTGRES, reason="threads need DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)
def test_simultaneous_copies_of_one_answer_store_it_once() -> None:
    study = build_study(kinds=("multi",), per_participant=1)
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def send() -> None:
        try:
            barrier.wait()
            result = services.response_submit(
                participant=p, assignment_id=a.pk, answer={"who": 1, "what": 2}
            )
            outcomes.append("duplicate" if result.duplicate else "stored")
        except Exception as exc:  # reported below
            outcomes.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["duplicate"] * 5 + ["stored"]
    assert Response.objects.filter(rater=p.rater).count() == 2  # two parts, once each
    assert_counters_true()


@pytest.mark.skipif(not POSTGRES, reason="prepared statements are PostgreSQL's")
@pytest.mark.django_db
def test_the_answer_path_statements_are_prepared_on_postgresql() -> None:
    """After a few answers on one connection, PostgreSQL holds the answer path's SELECT
    and its INSERT + UPDATE as prepared statements (annotation/hotpath.py)."""
    from django.db import connection

    study = build_study(kinds=("choice",), n_items=12, per_participant=12, target=1)
    p = enrol(study)
    for _ in range(8):
        a = present(services.assignment_next(participant=p))
        services.response_submit(participant=p, assignment_id=a.pk, answer=0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("JOIN studies_item i ON i.id = a.item_id" in s for s in prepared), prepared
    assert any("INSERT INTO annotation_response" in s for s in prepared), prepared
    assert Response.objects.filter(rater=p.rater).count() == 8
