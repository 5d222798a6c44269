"""A pool is validated and written in bounded batches inside its one transaction (issue 26,
defect 10): the loader never holds the whole file's items. Measured here by what is built
per write (spying on ``bulk_create``) and by how far the file has been read when the first
batch is written; the all-or-nothing promise and the line/field messages are kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import studies.loading.pool as pool
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import loader

pytestmark = pytest.mark.django_db
SMALL_BATCH = 40


def _line(i: int, **extra: Any) -> str:
    row = {
        "id": f"b-{i}",
        "task": "ck",
        "stem": f"第{i}题",
        "options": ["甲", "乙", "丙", "丁"],
        "answer": i % 4,
        **extra,
    }
    return json.dumps(row, ensure_ascii=False)


def _source(lines: list[str]) -> Source:
    return Source("batches.jsonl", "\n".join(lines).encode(), "jsonl")


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Smaller batches (the rule, not the size, is tested), with a log of every
    ``bulk_create`` of items (its size) and of the lines read before each one."""
    monkeypatch.setattr(pool, "BATCH", SMALL_BATCH)
    log: dict[str, list[int]] = {"created": [], "read_at_write": []}
    read = [0]
    real_read, real_create = pool.read_records, Item.objects.bulk_create

    def counting(source: Source, problems: Any) -> Iterator[Any]:
        for record in real_read(source, problems):
            read[0] += 1
            yield record

    def bulk_create(objs: Any, *args: Any, **kwargs: Any) -> Any:
        objs = list(objs)
        log["created"].append(len(objs))
        log["read_at_write"].append(read[0])
        return real_create(objs, *args, **kwargs)

    monkeypatch.setattr(pool, "read_records", counting)
    monkeypatch.setattr(Item.objects, "bulk_create", bulk_create)
    return log


def test_items_are_built_and_written_a_batch_at_a_time(
    example_study: Study, spied: dict[str, list[int]]
) -> None:
    n = 5 * SMALL_BATCH + 7
    loader("pool")(_source([_line(i) for i in range(n)]), study=example_study)
    assert Item.objects.filter(study=example_study, external_id__startswith="b-").count() == n
    assert sum(spied["created"]) == n
    assert max(spied["created"]) <= SMALL_BATCH
    assert len(spied["created"]) == 6
    # The first batch is written once its own lines are read, not after the whole file.
    assert spied["read_at_write"][0] <= SMALL_BATCH + 1 < n
    positions = Item.objects.filter(study=example_study, external_id__in=["b-0", f"b-{n - 1}"])
    assert sorted(positions.values_list("position", flat=True)) == [0, n - 1]


def test_a_bad_last_line_rolls_back_every_batch_already_written(
    example_study: Study, spied: dict[str, list[int]]
) -> None:
    before = Item.objects.count()
    lines = [_line(i) for i in range(3 * SMALL_BATCH)] + [_line(999, answer=7)]
    with pytest.raises(LoadError) as caught:
        loader("pool")(_source(lines), study=example_study)
    assert spied["created"], "batches were written before the bad line was read"
    assert Item.objects.count() == before
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.field) == ("batches.jsonl", len(lines), "answer")


def test_after_a_problem_nothing_more_is_written_but_every_line_is_checked(
    example_study: Study, spied: dict[str, list[int]]
) -> None:
    lines = [_line(0, task="nope")] + [_line(i) for i in range(1, 3 * SMALL_BATCH)]
    lines.append(_line(5000, options="not a list"))
    with pytest.raises(LoadError) as caught:
        loader("pool")(_source(lines), study=example_study)
    assert spied["created"] == []
    assert [(p.line, p.field) for p in caught.value.problems] == [
        (1, "task"),
        (len(lines), "options"),
    ]


def test_a_repeated_id_is_named_across_batches_and_within_one(
    example_study: Study, spied: dict[str, list[int]]
) -> None:
    lines = [_line(i) for i in range(3 * SMALL_BATCH)]
    lines.append(_line(3))  # batch 4 repeats an id of batch 1
    lines.append(_line(3 * SMALL_BATCH - 1))  # and one of the batch before
    lines.append(_line(7777))
    lines.append(_line(7777))  # within one batch
    before = Item.objects.count()
    with pytest.raises(LoadError) as caught:
        loader("pool")(_source(lines), study=example_study)
    assert Item.objects.count() == before
    found = [(p.line, p.field, p.message) for p in caught.value.problems]
    n = 3 * SMALL_BATCH
    assert found == [
        (n + 1, "id", "id 'b-3' already used on line 4"),
        (n + 2, "id", f"id 'b-{n - 1}' already used on line {n}"),
        (n + 4, "id", f"id 'b-7777' already used on line {n + 3}"),
    ]


def test_a_reload_of_many_batches_is_idempotent(
    example_study: Study, spied: dict[str, list[int]]
) -> None:
    lines = [_line(i) for i in range(3 * SMALL_BATCH + 3)]
    load = loader("pool")
    first = load(_source(lines), study=example_study)
    again = load(_source(lines), study=example_study)
    assert (first.created, first.updated, first.unchanged) == (len(lines), 0, 0)
    assert (again.created, again.updated, again.unchanged) == (0, 0, len(lines))
    assert not again.items.changed


def test_the_batches_read_items_without_the_models_ordering(example_study: Study) -> None:
    """Item.Meta.ordering sorts by the study's and the task's slugs: a read that keeps it
    joins both tables and sorts (the batches' reads, the options check, the poems to
    rule-score). Inside the load's one transaction PostgreSQL planned that
    join so badly that 150,000 lines ran for over an hour (bench_loading --memory); the
    loader's reads build dicts and need no order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    lines = [_line(i) for i in range(SMALL_BATCH)]
    with CaptureQueriesContext(connection) as ctx:
        loader("pool")(_source(lines), study=example_study)
        loader("pool")(
            _source([*lines[:-1], _line(SMALL_BATCH - 1, stem="改")]), study=example_study
        )
    reads = [q["sql"] for q in ctx.captured_queries if q["sql"].startswith('SELECT "studies_item"')]
    assert reads, "the loader reads the stored items"
    assert not [sql for sql in reads if "ORDER BY" in sql or "JOIN" in sql]


@pytest.mark.postgres
def test_a_batch_finds_its_ids_through_the_unique_index(example_study: Study) -> None:
    """Inside a load's transaction the database has no statistics for the rows it just
    wrote: PostgreSQL then planned the batch's lookup as a scan of the study's items
    filtered against the batch's ids (quadratic in the pool: over an hour, later 1,263 s,
    for 150,000 lines). The lookup (``items_stored``) must search the (study, id) unique
    index with both columns on both engines; tests/loading/test_pool_lookups.py counts
    the rows PostgreSQL reads."""
    from django.db import connection

    from studies.loading.items_write import probe_sql

    task = example_study.tasks.get(slug="ck")
    Item.objects.bulk_create(
        Item(study=example_study, task=task, external_id=f"bulk-{i}", stem="x", options=["a"])
        for i in range(3000)
    )
    ids = [f"bulk-{i}" for i in range(0, 3000, 6)]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + probe_sql(), [ids, example_study.pk])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "Index Scan using item_unique_id" in plan, plan
        assert "= wanted.external_id))" in plan, plan  # both columns in the Index Cond
        return
    plan = (
        Item.objects.filter(study=example_study, external_id__in=ids)
        .order_by()
        .values_list("external_id", "pk")
        .explain()
    )
    # SQLite's rebuilt table holds the constraint as an automatic index; its plan names
    # the two columns searched
    assert "(study_id=? AND external_id=?)" in plan, plan
