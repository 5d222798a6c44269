"""The layout change (Job from ``scoring`` to ``jobs``) migrates a filled database and
back: rows, permissions and the admin's content type survive both ways."""

from __future__ import annotations

from typing import Any, cast

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE: list[tuple[str, str | None]] = [("scoring", "0001_job"), ("jobs", None)]


def migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    applied = MigrationExecutor(connection)
    return cast(Any, applied)._create_project_state(with_applied_migrations=True).apps


def latest() -> list[tuple[str, str | None]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


@pytest.mark.slow
def test_jobs_rows_and_their_content_type_move_to_the_jobs_app_and_back() -> None:
    final = latest()
    try:
        old = migrate(BEFORE)
        content_type = old.get_model("contenttypes", "ContentType")
        permission = old.get_model("auth", "Permission")
        content_type.objects.filter(app_label__in=["scoring", "jobs"], model="job").delete()
        ct = content_type.objects.create(app_label="scoring", model="job")
        permission.objects.create(content_type=ct, codename="view_job", name="Can view job")
        old_job = old.get_model("scoring", "Job")
        old_job.objects.create(kind="pool", status="done", message="loaded before the move")
        assert "scoring_job" in connection.introspection.table_names()

        new = migrate(final)
        tables = connection.introspection.table_names()
        assert "jobs_job" in tables and "scoring_job" not in tables
        job = new.get_model("jobs", "Job").objects.get()
        assert (job.kind, job.message) == ("pool", "loaded before the move")
        moved = new.get_model("contenttypes", "ContentType").objects.get(model="job")
        assert moved.app_label == "jobs"
        assert (
            new.get_model("auth", "Permission").objects.get(codename="view_job").content_type_id
            == moved.pk
        )

        back = migrate(BEFORE)
        assert "scoring_job" in connection.introspection.table_names()
        assert back.get_model("scoring", "Job").objects.get().message == "loaded before the move"
        ct_back = back.get_model("contenttypes", "ContentType").objects.get(model="job")
        assert ct_back.app_label == "scoring"
    finally:
        migrate(final)
