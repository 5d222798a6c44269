"""The answer path's SQL, written by hand.

Submitting an answer is the platform's hottest request. The ORM spends far longer
compiling the three-table SELECT below (about 0.8 ms) than the database spends running
it (about 0.02 ms); and on SQLite, where one writer at a time holds the database lock,
every microsecond of Python inside the write transaction makes the other writers wait
(SQLite's busy handler then sleeps whole milliseconds). So the read, and the write
transaction's two statements (INSERT the Response rows, UPDATE the assignment), are
plain portable SQL prepared before the transaction opens, with the ORM's own value
adaptation (and on PostgreSQL kept prepared by the server: ``annotation.prepared``).
Results are ordinary model instances, so the service reads the same either
way. tests/volunteer runs all of it on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import astuple, dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils.dateparse import parse_datetime

from annotation import prepared
from annotation.models import Assignment
from studies.models import Item, Study, Task

_SELECT = """
SELECT a.id, a.status, a.served_at, a.option_order, a.item_id, a.task_id,
       i.study_id, i.options, i.parts, i.answer, i.is_attention_check,
       t.kind, t.dimensions, s.status, s.attention_max_failures
FROM annotation_assignment a
JOIN studies_item i ON i.id = a.item_id
JOIN studies_task t ON t.id = a.task_id
JOIN studies_study s ON s.id = t.study_id
WHERE a.id = %s AND a.participant_id = %s
"""
_MARK_ANSWERED = """
UPDATE annotation_assignment SET status = %s, answered_at = %s
WHERE id = %s AND status <> %s
"""


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _when(value: Any) -> datetime | None:
    when = value if value is None or isinstance(value, datetime) else parse_datetime(str(value))
    if when is not None and when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # stored in UTC (USE_TZ)
    return when


def assignment_for_answer(assignment_id: int, participant_id: int) -> Assignment | None:
    """The assignment with what answering needs (item, task, study), or None if it is
    not this participant's."""
    with prepared.cursor() as cursor:
        cursor.execute(_SELECT, [int(assignment_id), int(participant_id)])
        row = cursor.fetchone()
    if row is None:
        return None
    (pk, status, served, order, item_id, task_id, study_id, options, parts, answer,
     check, kind, dims, study_status, max_failures) = row  # fmt: skip
    study = Study(pk=study_id, status=study_status, attention_max_failures=max_failures)
    task = Task(pk=task_id, study=study, kind=kind, dimensions=_json(dims) or [])
    item = Item(
        pk=item_id, study_id=study_id, task_id=task_id, options=_json(options) or [],
        parts=_json(parts) or [], answer=_json(answer), is_attention_check=bool(check),
    )  # fmt: skip
    return Assignment(
        pk=pk, participant_id=participant_id, item=item, task=task, status=status,
        served_at=_when(served), option_order=_json(order) or {},
    )  # fmt: skip


_INSERT = (
    "INSERT INTO annotation_response (study_id, task_id, item_id, rater_id, field, value, "
    "correct, time_ms, sample, raw, answered_at, created_at, updated_at) VALUES "
)
_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, 0, '', %s, %s, %s)"


@dataclass(frozen=True)
class ResponseRow:
    study_id: int
    task_id: int
    item_id: int
    rater_id: int
    field: str
    value: float
    correct: bool | None
    time_ms: int | None


def store_answer(*, assignment_id: int, rows: list[ResponseRow], when: datetime) -> bool:
    """INSERT the rows and mark the assignment answered, atomically.

    False (and nothing written) when the rows exist already: a copy got in first.
    On PostgreSQL both writes are one statement (a data-modifying CTE, atomic on its
    own), so the answer costs one round trip instead of four (BEGIN, INSERT, UPDATE,
    COMMIT); elsewhere they are two statements in one transaction.
    """
    stamp = connection.ops.adapt_datetimefield_value(when)
    values = ", ".join([_ROW] * len(rows))
    params = [v for row in rows for v in (*astuple(row), stamp, stamp, stamp)]
    answered = Assignment.Status.ANSWERED
    update = [answered, stamp, int(assignment_id), answered]
    try:
        if connection.vendor == "postgresql":
            # Inside a caller's transaction a savepoint keeps a duplicate's error from
            # aborting it; in autocommit the statement is its own transaction.
            guard = transaction.atomic() if connection.in_atomic_block else nullcontext()
            with guard, prepared.cursor() as cursor:
                cursor.execute(f"WITH stored AS ({_INSERT}{values} RETURNING 1) {_MARK_ANSWERED}",
                               params + update)  # fmt: skip
        else:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(_INSERT + values, params)
                cursor.execute(_MARK_ANSWERED, update)
    except IntegrityError:
        # The rows exist (a copy got in first, or they were imported for this rater):
        # make sure the assignment says answered, so the participant moves on.
        mark_answered(assignment_id, when)
        return False
    return True


def mark_answered(assignment_id: int, when: datetime) -> None:
    answered = Assignment.Status.ANSWERED
    value = connection.ops.adapt_datetimefield_value(when)
    with connection.cursor() as cursor:
        cursor.execute(_MARK_ANSWERED, [answered, value, int(assignment_id), answered])
