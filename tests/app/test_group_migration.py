"""A participant's group moves off the rater (annotation 0003) on a filled database, and
back: where the participant had none it takes its rater's, where they disagree the
participant's wins, and going back fills the rater's column from the participant."""

from __future__ import annotations

from typing import Any, cast

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE: list[tuple[str, str | None]] = [("annotation", "0002_assignment_drop_redundant_indexes")]


def migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    applied = MigrationExecutor(connection)
    return cast(Any, applied)._create_project_state(with_applied_migrations=True).apps


def latest() -> list[tuple[str, str | None]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def rater_columns() -> set[str]:
    with connection.cursor() as cursor:
        description = connection.introspection.get_table_description(cursor, "annotation_rater")
    return {column.name for column in description}


@pytest.mark.slow
def test_rater_groups_move_onto_participants_and_back() -> None:
    final = latest()
    try:
        old = migrate(BEFORE)
        study = old.get_model("studies", "Study").objects.create(slug="s", title="S")
        group = old.get_model("studies", "Group")
        a = group.objects.create(study=study, slug="A", name="A", invite_token="ta")
        b = group.objects.create(study=study, slug="B", name="B", invite_token="tb", position=1)
        rater = old.get_model("annotation", "Rater")
        participant = old.get_model("annotation", "Participant")

        def person(name: str, rater_group: Any, own_group: Any) -> None:
            r = rater.objects.create(study=study, kind="human", name=name, group=rater_group)
            participant.objects.create(
                study=study, rater=r, group=own_group, public_id=name, resume_code=name
            )

        person("only-rater", a, None)  # the rater knew the group, the participant not
        person("disagree", b, a)  # the participant's group wins
        person("only-participant", None, b)
        person("neither", None, None)
        rater.objects.create(study=study, kind="model", name="gpt-4o")
        assert "group_id" in rater_columns()

        new = migrate(final)
        assert "group_id" not in rater_columns()
        groups = dict(
            new.get_model("annotation", "Participant").objects.values_list(
                "public_id", "group__slug"
            )
        )
        assert groups == {
            "only-rater": "A",
            "disagree": "A",
            "only-participant": "B",
            "neither": None,
        }

        back = migrate(BEFORE)
        assert dict(
            back.get_model("annotation", "Rater").objects.values_list("name", "group__slug")
        ) == {
            "only-rater": "A",
            "disagree": "A",
            "only-participant": "B",
            "neither": None,
            "gpt-4o": None,
        }
    finally:
        migrate(final)
