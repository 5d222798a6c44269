"""The one row mapper of the hot path's SQL: columns of a model under a table alias, and
rows back to model instances through the ORM's own converters.

``Rows(Item, "i")`` gives ``i."id", i."study_id", …`` to put in a SELECT, and
``build(row)`` turns those values into the ``Item`` that a queryset would have returned
(JSON decoded, datetimes made aware, booleans from SQLite's integers: the backend's
converters, then the field's, exactly as ``SQLCompiler.get_converters`` chains them).
``only=`` limits the columns (the others are deferred, as with ``QuerySet.only``).

Statements go through Django's ordinary cursor. On PostgreSQL the connection binds
parameters on the server (``server_side_binding``, config/settings.py), so psycopg keeps
a statement prepared after ``PG_PREPARE_THRESHOLD`` executions on a persistent
(``CONN_MAX_AGE``) connection: parsing and planning, several times what these statements
cost to execute, is then done once per connection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from django.db import connection, models

M = TypeVar("M", bound=models.Model)
Converter = Callable[..., Any]


class Rows(Generic[M]):
    """The concrete columns of one model under a table alias, and rows back to objects."""

    def __init__(self, model: type[M], alias: str, only: Sequence[str] = ()) -> None:
        self.model = model
        fields = list(model._meta.concrete_fields)
        if only:
            wanted = {"id", *only}
            fields = [f for f in fields if f.name in wanted or f.attname in wanted]
        self.fields = fields
        self.sql = ", ".join(f'{alias}."{f.column}"' for f in fields)
        self.cols = [f.get_col(alias) for f in fields]
        self.width = len(fields)
        self.attnames = [f.attname for f in fields]
        self._converters: dict[str, list[tuple[Any, list[Converter]]]] = {}

    def converters(self) -> list[tuple[Any, list[Converter]]]:
        """Per column, the ORM's converters (the backend's, then the column's), cached per
        database alias."""
        key = connection.alias
        if key not in self._converters:
            ops = connection.ops
            self._converters[key] = [
                (col, ops.get_db_converters(col) + col.get_db_converters(connection))
                for col in self.cols
            ]
        return self._converters[key]

    def build(self, values: Sequence[Any]) -> M:
        out = []
        for (col, converters), value in zip(self.converters(), values, strict=True):
            for convert in converters:
                value = convert(value, col, connection)
            out.append(value)
        return cast(M, self.model.from_db(connection.alias, self.attnames, out))

    def take(self, row: Sequence[Any], start: int) -> tuple[M, int]:
        """The instance built from ``row[start:]``, and where the next model's columns start."""
        return self.build(row[start : start + self.width]), start + self.width


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows


def execute(sql: str, params: Sequence[Any]) -> int:
    """Run a write; how many rows it touched."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def stamp(when: datetime) -> Any:
    """A datetime as the database takes it (the ORM's adaptation)."""
    return connection.ops.adapt_datetimefield_value(when)
