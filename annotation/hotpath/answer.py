"""The answer path's SQL: one read of the assignment with what answering needs, and
the write (the Response rows and the assignment marked answered) in one short transaction.

Kept by hand, not through the ORM: ``bench/bench_submit.py`` (submission at 0.72-0.83 of
the floor view, docs/performance.md) was measured with it; through the ORM, compiling the
four-table SELECT cost far more (about 0.8 ms) than the database spends running it, and on
SQLite, where one writer at a time holds the database lock, every microsecond of Python
inside the write transaction makes the other writers wait. Rows become model instances
through the one row mapper (``annotation.hotpath.rows``), so the service reads the same
either way. tests/volunteer runs all of it on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import astuple, dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction

from annotation.hotpath import counts
from annotation.hotpath.rows import Rows, fetch, stamp
from annotation.models import Assignment, Response, Tally, TaskCount
from studies.models import Item, Study, Task

# Table names from the models (never written out by hand).
_TA, _TI, _TT, _TS = (m._meta.db_table for m in (Assignment, Item, Task, Study))
_TR, _TX, _TC = (m._meta.db_table for m in (Response, Tally, TaskCount))

_A = Rows(Assignment, "a", only=("status", "served_at", "expires_at", "option_order", "item",
                                 "task", "participant", "group"))  # fmt: skip
_I = Rows(Item, "i", only=("study", "task", "options", "parts", "answer", "is_attention_check"))
_T = Rows(Task, "t", only=("study", "kind", "dimensions"))
_S = Rows(Study, "s", only=("status", "attention_max_failures"))
#: The assignment joined with what answering needs (aliases a, i, t, s).
JOINED = f"""{_TA} a
JOIN {_TI} i ON i.id = a.item_id
JOIN {_TT} t ON t.id = a.task_id
JOIN {_TS} s ON s.id = t.study_id"""
_SELECT = f"""
SELECT {_A.sql}, {_I.sql}, {_T.sql}, {_S.sql}
FROM {JOINED}
WHERE a.id = %s AND a.participant_id = %s
"""

_MARK_ANSWERED = f"""
UPDATE {_TA} SET status = %s, answered_at = %s
WHERE id = %s AND status <> %s
"""
# PostgreSQL: the answer in one statement. The assignment's row is locked and read as it
# is now (``was``): an answer to an open claim leaves its item's tally as it is (a claim
# became an answer); to a claim a sweep had found expired, it takes the item again. The
# participant's task count of answers + 1 (``annotation.hotpath.counts``).
_ANSWER_PG = f"""
WITH stored AS ({{insert}} RETURNING 1),
was AS (
  SELECT id, status, item_id, group_id, participant_id, task_id FROM {_TA}
  WHERE id = %s AND status <> %s FOR UPDATE
), marked AS (
  UPDATE {_TA} a SET status = %s, answered_at = %s FROM was
  WHERE a.id = was.id
  RETURNING was.status AS was_status, was.item_id, was.group_id, was.participant_id, was.task_id
), counted AS (
  UPDATE {_TC} c SET answered = c.answered + 1 FROM marked
  WHERE c.participant_id = marked.participant_id AND c.task_id = marked.task_id
)
UPDATE {_TX} x SET taken = x.taken + 1 FROM marked
WHERE marked.was_status = %s AND x.item_id = marked.item_id AND x.group_id = marked.group_id
"""
_WAS = f"SELECT status, item_id, group_id FROM {_TA} WHERE id = %s"
_TAKEN_AGAIN = f"UPDATE {_TX} SET taken = taken + 1 WHERE item_id = %s AND group_id = %s"


def assignment_for_answer(assignment_id: int, participant_id: int) -> Assignment | None:
    """The assignment with what answering needs (item, task, study), or None if it is
    not this participant's."""
    rows = fetch(_SELECT, [int(assignment_id), int(participant_id)])
    return build_for_answer(rows[0], 0) if rows else None


#: The columns of :func:`assignment_for_answer`'s read (aliases a, i, t, s), for a page
#: that reads them together with the participant (``annotation.hotpath.pages``).
COLUMNS = f"{_A.sql}, {_I.sql}, {_T.sql}, {_S.sql}"


def build_for_answer(row: Sequence[Any], at: int) -> Assignment:
    """The assignment (with its item, task and study) from ``COLUMNS`` at ``row[at:]``."""
    a, at = _A.take(row, at)
    a.item, at = _I.take(row, at)
    a.task, at = _T.take(row, at)
    a.task.study, _ = _S.take(row, at)
    return a


_INSERT = (
    f"INSERT INTO {_TR} (study_id, task_id, item_id, rater_id, field, value, "
    "correct, time_ms, sample, raw, answered_at, created_at, updated_at) VALUES "
)
_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, 0, '', %s, %s, %s)"


@dataclass(frozen=True)
class AnswerRow:
    """One Response row of a volunteer's answer, by ids (a loaded file's rows, keyed by
    rater names, are ``annotation.loading.writing.ResponseRow``)."""

    study_id: int
    task_id: int
    item_id: int
    rater_id: int
    field: str
    value: float
    correct: bool | None
    time_ms: int | None


def store_answer(
    *, assignment_id: int, rows: list[AnswerRow], when: datetime, may_have_expired: bool = True
) -> bool:
    """INSERT the rows and mark the assignment answered, atomically.

    False (and nothing written) when the rows exist already: a copy got in first.
    On PostgreSQL both writes are one statement (a data-modifying CTE, atomic on its
    own), so the answer costs one round trip instead of four (BEGIN, INSERT, UPDATE,
    COMMIT); elsewhere they are two statements in one transaction, three when the claim
    ``may_have_expired`` (then a sweep may have given its item back: see ``_mark``).
    """
    at = stamp(when)
    values = ", ".join([_ROW] * len(rows))
    params = [v for row in rows for v in (*astuple(row), at, at, at)]
    answered, expired = Assignment.Status.ANSWERED, Assignment.Status.EXPIRED
    try:
        if connection.vendor == "postgresql":
            # Inside a caller's transaction a savepoint keeps a duplicate's error from
            # aborting it; in autocommit the statement is its own transaction.
            guard = transaction.atomic() if connection.in_atomic_block else nullcontext()
            marked = [int(assignment_id), answered, answered, at, expired]
            with guard, connection.cursor() as cursor:
                cursor.execute(_ANSWER_PG.format(insert=_INSERT + values), params + marked)
        else:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(_INSERT + values, params)
                _mark(cursor, assignment_id, at, () if may_have_expired else None)
    except IntegrityError:
        # The rows exist (a copy got in first, or they were imported for this rater):
        # make sure the assignment says answered, so the participant moves on.
        mark_answered(assignment_id, when)
        return False
    return True


def mark_answered(assignment_id: int, when: datetime) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.features.has_select_for_update:
            cursor.execute(_WAS + " FOR UPDATE", [int(assignment_id)])
        else:
            cursor.execute(_WAS, [int(assignment_id)])
        _mark(cursor, assignment_id, stamp(when), cursor.fetchone())


def _mark(cursor: Any, assignment_id: int, at: Any, was: Any = ()) -> None:
    """Mark the assignment answered (the caller's transaction); an answer to a claim found
    expired takes its item again (its tally + 1, ``annotation.hotpath.tally``)."""
    if was == ():
        cursor.execute(_WAS, [int(assignment_id)])
        was = cursor.fetchone()
    answered = Assignment.Status.ANSWERED
    cursor.execute(_MARK_ANSWERED, [answered, at, int(assignment_id), answered])
    if cursor.rowcount == 1:  # newly answered: the participant's task count + 1
        cursor.execute(counts.ANSWERED, [int(assignment_id)])
    if was and was[0] == Assignment.Status.EXPIRED and was[2] is not None:
        cursor.execute(_TAKEN_AGAIN, [was[1], was[2]])
