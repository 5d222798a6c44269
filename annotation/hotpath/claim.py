"""The claim path's SQL, written by hand (as ``annotation.hotpath`` is for answers).

Claiming the next item is the volunteer's other hot request. Through the ORM it took
about a dozen queries, each costing more to compile than to run, while a row lock on
the task serialised every claim in it. Here (PostgreSQL and SQLite alike):

1. ``state``: one read, without a lock, of the participant (with its study and its
   group's target), every task of the study with the counts the rule needs, and the
   participant's open claim with its item. With an open claim that is all.
2. Otherwise, in a transaction: ``lock`` (PostgreSQL) the participant's row (one claim
   at a time each) and, in the same statement, a transaction-scoped advisory lock on
   (task, group), so claims of one task and group are serialised up to the commit and
   nothing else is; on SQLite the transaction is BEGIN IMMEDIATE, which serialises all;
3. ``top_candidates``: the unseen items with the largest shortfall (fewest answers and
   live claims from the group), a few of them with ties in random order, together with
   the participant's assignment count: if it differs from what step 1 read, another
   request of theirs claimed meanwhile and the service reads again;
4. ``insert``: the claim.

Rows become model instances through the ORM's own converters (``Rows.build``), so the
service reads the same as with querysets. On PostgreSQL the statements are kept
prepared (server-side binding, ``annotation.hotpath.rows``). tests/volunteer runs it on both databases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from annotation.hotpath.rows import Rows, fetch, stamp
from annotation.models import Assignment, Participant
from studies.models import Group, Item, Study, Task

TOP = 4  # candidates fetched per claim: the largest shortfalls, ties in random order


P, S, T = Rows(Participant, "p"), Rows(Study, "s"), Rows(Task, "t")
A, I = Rows(Assignment, "c"), Rows(Item, "i")  # noqa: E741
CI = Rows(Item, "ci")
_A, _I, _T = Assignment._meta.db_table, Item._meta.db_table, Task._meta.db_table

_STATE = f"""
SELECT {P.sql}, {S.sql}, g.target_per_item, {T.sql},
  (SELECT count(*) FROM {_I} i WHERE i.task_id = t.id AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_I} i WHERE i.task_id = t.id AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_A} a JOIN {_I} i ON i.id = a.item_id
   WHERE a.participant_id = p.id AND a.task_id = t.id AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_A} a JOIN {_I} i ON i.id = a.item_id
   WHERE a.participant_id = p.id AND a.task_id = t.id AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_A} a
   WHERE a.participant_id = p.id AND a.task_id = t.id AND a.status = %s),
  {A.sql}, {CI.sql}
FROM {Participant._meta.db_table} p
JOIN {Study._meta.db_table} s ON s.id = p.study_id
LEFT JOIN {Group._meta.db_table} g ON g.id = p.group_id
LEFT JOIN {_T} t ON t.study_id = p.study_id
LEFT JOIN (
  SELECT * FROM {_A} WHERE participant_id = %s AND status = %s ORDER BY position, id LIMIT 1
) c ON c.task_id = t.id
LEFT JOIN {_I} ci ON ci.id = c.item_id
WHERE p.id = %s
"""
_LOCK = f"SELECT pg_advisory_xact_lock(%s) FROM {Participant._meta.db_table} WHERE id = %s"
_LOCK_ME = f"SELECT id FROM {Participant._meta.db_table} WHERE id = %s FOR UPDATE"
_MINE = f"(SELECT count(*) FROM {_A} mine WHERE mine.participant_id = %s)"
_UNSEEN = f"""i.task_id = %s AND i.is_attention_check = %s
  AND NOT EXISTS (SELECT 1 FROM {_A} m WHERE m.participant_id = %s AND m.item_id = i.id)"""
_TOP = f"""
SELECT {I.sql}, c.taken, {_MINE} FROM (
  SELECT i.id, (
    SELECT count(*) FROM {_A} a WHERE a.item_id = i.id AND a.group_id = %s
      AND (a.status = %s OR (a.status = %s AND a.expires_at > %s))
  ) AS taken
  FROM {_I} i WHERE {_UNSEEN}
  ORDER BY taken, random() LIMIT {TOP}
) c JOIN {_I} i ON i.id = c.id
"""
_ANY = f"SELECT {I.sql}, {_MINE} FROM {_I} i WHERE {_UNSEEN} ORDER BY random() LIMIT 1"
_INSERT = f"""
INSERT INTO {_A} (participant_id, item_id, task_id, group_id, position, status,
  option_order, claimed_at, expires_at, served_at, answered_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL)
"""


class TaskRow:
    """One task of the study as the claim sees it."""

    def __init__(self, task: Task, counts: Sequence[int]) -> None:
        self.task = task
        self.n_regular, self.n_checks, self.mine_regular, self.mine_checks, self.answered = (
            int(n) for n in counts
        )


@dataclass
class State:
    """The participant (with its study), its group's target, the study's tasks with
    their counts, and the participant's open claim (or None)."""

    me: Participant
    target: int
    rows: list[TaskRow]
    current: Assignment | None

    @property
    def n_assigned(self) -> int:
        return sum(r.mine_regular + r.mine_checks for r in self.rows)


def state(pk: int) -> State:
    """One read of everything the claim rule needs (no lock: ``lock`` then checks that
    nothing changed). Raises ``Participant.DoesNotExist``."""
    claimed, answered = Assignment.Status.CLAIMED, Assignment.Status.ANSWERED
    params = [False, True, False, True, answered, int(pk), claimed, int(pk)]
    result = fetch(_STATE, params)
    if not result:
        raise Participant.DoesNotExist(f"participant {pk}")
    head = result[0]
    me = P.build(head[: P.width])
    me.study = S.build(head[P.width : P.width + S.width])
    out = State(me, head[P.width + S.width] or 0, [], None)
    skip = P.width + S.width + 1
    for row in result:
        if row[skip] is None:  # a study without tasks
            continue
        task = T.build(row[skip : skip + T.width])
        task.study = me.study
        out.rows.append(TaskRow(task, row[skip + T.width : skip + T.width + 5]))
        rest = row[skip + T.width + 5 :]
        if rest[0] is not None:  # the open claim's id: it belongs to this task
            out.current = A.build(rest[: A.width])
            out.current.item = CI.build(rest[A.width :])
            out.current.task, out.current.participant = task, me
    return out


def lock_participant(pk: int) -> None:
    if connection.features.has_select_for_update:
        fetch(_LOCK_ME, [int(pk)])


def lock(me: Participant, task_id: int | None) -> None:
    """Lock the participant's row, and with ``task_id`` claims of that task for the
    participant's group, until the transaction ends."""
    if connection.vendor == "postgresql":
        if task_id is None:
            fetch(_LOCK_ME, [me.pk])
        else:
            key = ((int(task_id) & 0x7FFFFFFF) << 32) | (int(me.group_id or 0) & 0xFFFFFFFF)
            fetch(_LOCK + " FOR UPDATE", [key, me.pk])
    elif connection.features.has_select_for_update:
        fetch(_LOCK_ME, [me.pk])
        if task_id is not None:
            fetch(f"SELECT id FROM {_T} WHERE id = %s FOR UPDATE", [int(task_id)])
    # SQLite: every write transaction is BEGIN IMMEDIATE (settings): serialised already.


def top_candidates(
    me: Participant, task: Task, now: datetime
) -> tuple[list[tuple[int, int, tuple[Any, ...]]], int | None]:
    """(item id, answers and live claims from the group, raw row) of the unseen regular
    items with the fewest: up to ``TOP`` of them, ties in random order; and how many
    assignments the participant has (None without candidates)."""
    answered, claimed = Assignment.Status.ANSWERED, Assignment.Status.CLAIMED
    params = [me.pk, me.group_id, answered, claimed, stamp(now), task.pk, False, me.pk]
    rows = fetch(_TOP, params)
    return [(row[0], int(row[-2]), row[:-2]) for row in rows], (rows[0][-1] if rows else None)


def any_unseen_check(me: Participant, task: Task) -> tuple[Item | None, int | None]:
    """A random unseen check item of the task, and the participant's assignment count."""
    rows = fetch(_ANY, [me.pk, task.pk, True, me.pk])
    return (I.build(rows[0][:-1]), rows[0][-1]) if rows else (None, None)


def item(row: Sequence[Any]) -> Item:
    return I.build(row)


def insert(
    *, me: Participant, item: Item, task: Task, position: int, option_order: dict[str, list[int]],
    expires_at: datetime, served_at: datetime | None,
) -> Assignment:  # fmt: skip
    """INSERT the claim; the instance as ``objects.create`` would return it."""
    a = Assignment(
        participant=me, item=item, task=task, group_id=me.group_id, position=position,
        status=Assignment.Status.CLAIMED, option_order=option_order,
        claimed_at=timezone.now(), expires_at=expires_at, served_at=served_at,
    )  # fmt: skip
    order = Assignment._meta.get_field("option_order").get_db_prep_save(option_order, connection)
    params = [me.pk, item.pk, task.pk, me.group_id, position, a.status, order,
              stamp(a.claimed_at), stamp(expires_at),
              stamp(served_at) if served_at else None]  # fmt: skip
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(_INSERT + " RETURNING id", params)
            a.pk = cursor.fetchone()[0]
        else:
            cursor.execute(_INSERT, params)
            a.pk = cursor.lastrowid
    a._state.adding, a._state.db = False, connection.alias
    return a
