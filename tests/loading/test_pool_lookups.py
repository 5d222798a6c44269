"""A pool batch's lookup of its stored items costs the same however many items the load
has written before it (issue 26 item 7: on PostgreSQL 15,000 lines took 52 s and 150,000
took 1,263 s). Inside the load's open transaction PostgreSQL has no statistics for the
rows just written, planned the batch's ``external_id IN (...)`` as a scan of every item of
the study filtered against the 500 ids, and once the statement was prepared compared
each item with each id in turn. Measured here by PostgreSQL's own count of the rows the
lookup read (``pg_stat_xact_user_tables``), by the queries each batch sends (on both
engines), and by what the lookup returns against the ORM's reading of the same rows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import studies.loading.pool as pool
from studies.loading.items_write import Stored, items_stored
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import loader

pytestmark = pytest.mark.django_db
SMALL_BATCH = 40


def _store(study: Study, n: int, prefix: str = "s") -> None:
    """``n`` items written in the test's open transaction, as a load's earlier batches are
    (no statistics: the planner sees what a load sees)."""
    task = study.tasks.get(slug="ck")
    Item.objects.bulk_create(
        Item(study=study, task=task, external_id=f"{prefix}-{i}", stem="x", options=["a"])
        for i in range(n)
    )


def _rows_read() -> int:
    """Rows of the item table read in this transaction so far, by PostgreSQL's count
    (sequential reads plus rows fetched through an index, bitmap scans included)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)"
            " FROM pg_stat_xact_user_tables WHERE relname = 'studies_item'"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row counts")
def test_a_batch_lookup_reads_its_own_rows_not_the_study(example_study: Study) -> None:
    """500 ids of which 100 are stored, looked up when the study holds about 100 items
    and again when it holds 6,100: PostgreSQL reads the 100 rows found either way (the
    old lookup read every item of the study: 104, then 6,104)."""
    reads: dict[str, int] = {}
    for name, stored in (("few", 100), ("many", 6000)):
        _store(example_study, stored, name)
        wanted = [f"{name}-{i}" for i in range(stored - 100, stored)]
        wanted += [f"{name}-new-{i}" for i in range(400)]
        for _ in range(12):  # past psycopg's prepare threshold and PostgreSQL's custom plans
            before = _rows_read()
            found = items_stored(example_study, wanted)
            reads[name] = _rows_read() - before
        assert len(found) == 100
    assert reads == {"few": 100, "many": 100}
    # The count is a real count: a read of the study's items shows up in it.
    before = _rows_read()
    assert Item.objects.filter(study=example_study).order_by().count() > 6000
    assert _rows_read() - before > 6000


def _line(i: int, prefix: str) -> str:
    row = {"id": f"{prefix}-{i}", "task": "ck", "stem": f"第{i}题", "options": ["甲", "乙"]}
    return json.dumps(row, ensure_ascii=False)


def _batch_queries(study: Study, batches: int, prefix: str) -> int:
    lines = [_line(i, prefix) for i in range(batches * SMALL_BATCH)]
    with CaptureQueriesContext(connection) as ctx:
        loader("pool")(Source(f"{prefix}.jsonl", "\n".join(lines).encode(), "jsonl"), study=study)
    return len(ctx.captured_queries)


@pytest.mark.postgres
def test_each_new_batch_sends_one_lookup_and_one_insert(
    example_study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four more batches of new items cost eight more queries, whatever was written
    before them: the batch's lookup and its insert (the insert returns the new keys; the
    lookup used to run three times a batch)."""
    monkeypatch.setattr(pool, "BATCH", SMALL_BATCH)
    two = _batch_queries(example_study, 2, "two")
    six = _batch_queries(example_study, 6, "six")
    assert six - two == 4 * 2


@pytest.mark.postgres
def test_the_lookup_returns_what_the_orm_reads(example_study: Study) -> None:
    """Every kind of answer key (none, 0, a list, a dict, text) comes back as the ORM
    reads it; ids not stored, and another study's, are absent."""
    task = example_study.tasks.get(slug="ck")
    answers: list[Any] = [None, 0, 3, [0, 2], {"a": [1, "二"]}, "甲", 1.5, True]
    Item.objects.bulk_create(
        Item(study=example_study, task=task, external_id=f"k-{i}", content_hash=f"h{i}", answer=a)
        for i, a in enumerate(answers)
    )
    other = Study.objects.create(slug="other", title="other")
    other_task = other.tasks.create(slug="ck", title="ck", kind="choice")
    Item.objects.create(study=other, task=other_task, external_id="elsewhere")
    wanted = [f"k-{i}" for i in range(len(answers))] + ["absent", "elsewhere"]
    found = items_stored(example_study, wanted)
    expected = {
        ext: Stored(pk, task_id, digest, answer)
        for ext, pk, task_id, digest, answer in Item.objects.filter(
            study=example_study, external_id__startswith="k-"
        ).values_list("external_id", "pk", "task_id", "content_hash", "answer")
    }
    assert found == expected
    assert [found[f"k-{i}"].answer for i in range(len(answers))] == answers
