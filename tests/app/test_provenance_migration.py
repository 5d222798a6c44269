"""Item provenance (studies 0002) on a filled database, and back: items stored before get
their source kind and model, generation sample and category from their poem source and
meta; going back drops the fields and leaves the columns they came from as they were."""

from __future__ import annotations

from typing import Any, cast

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE: list[tuple[str, str | None]] = [("studies", "0001_initial")]
DERIVED = {"source_kind", "source_model", "sample", "category"}


def migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    applied = MigrationExecutor(connection)
    return cast(Any, applied)._create_project_state(with_applied_migrations=True).apps


def latest() -> list[tuple[str, str | None]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def item_columns() -> set[str]:
    with connection.cursor() as cursor:
        description = connection.introspection.get_table_description(cursor, "studies_item")
    return {column.name for column in description}


@pytest.mark.slow
def test_items_stored_before_get_their_provenance_and_lose_it_going_back() -> None:
    final = latest()
    try:
        old = migrate(BEFORE)
        assert not DERIVED & item_columns()
        study = old.get_model("studies", "Study").objects.create(
            slug="s", title="S", public_token="t"
        )
        task = old.get_model("studies", "Task").objects.create(
            study=study, slug="quality", title="Q", kind="rating"
        )
        item = old.get_model("studies", "Item")

        def poem(ext: str, source: str, meta: dict[str, Any], condition: str = "") -> None:
            item.objects.create(
                study=study,
                task=task,
                external_id=ext,
                poem_text="春风",
                poem_source=source,
                poem_condition=condition,
                meta=meta,
                content_hash=ext,
            )

        generation = {"prompt": {"cipai": "浣溪沙", "category": "送别"}, "model": "qwen"}
        poem("gen-1", "model:qwen", {**generation, "run": "direct", "sample": 2}, "direct")
        poem("pool-1", "human", {"category": "边塞"})
        poem("pool-2", "李白", {"sample": "not a number"})
        poem("pool-3", "", {"category": {"nested": "not text"}})

        new = migrate(final)
        assert item_columns() >= DERIVED
        rows = new.get_model("studies", "Item").objects.values_list(
            "external_id", "source_kind", "source_model", "sample", "category", "poem_condition"
        )
        assert sorted(rows) == [
            ("gen-1", "model", "qwen", 2, "送别", "direct"),
            ("pool-1", "human", "", None, "边塞", ""),
            ("pool-2", "human", "", None, "", ""),  # a poet's name is a human source
            ("pool-3", "", "", None, "", ""),
        ]

        back = migrate(BEFORE)
        assert not DERIVED & item_columns()
        kept = back.get_model("studies", "Item").objects.values_list(
            "external_id", "poem_source", "poem_condition"
        )
        assert sorted(kept) == [
            ("gen-1", "model:qwen", "direct"),
            ("pool-1", "human", ""),
            ("pool-2", "李白", ""),
            ("pool-3", "", ""),
        ]
    finally:
        migrate(final)
