"""The claim path's SQL (``annotation.hotpath``; through the ORM these were about a dozen
queries, each costing more to compile than to run; measured with ``bench/bench_claims.py``
and ``bench/bench_load.py``). PostgreSQL and SQLite alike:

1. ``state``: one read, without a lock, of the participant (with its study and its
   group's target), every task of the study with its counts (the task's from its
   ``TallyCover``, the participant's from their ``TaskCount``: ``counts``), the
   participant's open claim with its item,
   and the largest item id (the tallies are brought up to date when items were added:
   ``tally.cover``). With an open claim that is all.
2. Otherwise, in a transaction: ``lock`` the participant's row (one claim at a time
   each; on SQLite the transaction is BEGIN IMMEDIATE, which serialises all);
3. ``next_regular``: ``tally.sweep`` returns the group's expired claims on the task to
   the pool, then the first unseen row of the (task, group, taken, tiebreak) index is
   locked, skipping rows other claims hold (PostgreSQL), together with the participant's
   assignment count: if it differs from what step 1 read, another request of theirs
   claimed meanwhile and the service reads again;
4. ``insert`` the claim and ``tally.bump`` its item's row.

On PostgreSQL a regular item is claimed without that transaction: ``at_once``, one
statement that takes the row (SKIP LOCKED) unless an open claim of the group on the task
has expired, checks the participant's counts against their state on their task count's
row (which a concurrent claim of theirs would have changed: then nothing is written and
the service reads again) and writes the claim, the count and the tally. Seven round
trips became two (the state, the claim). Checks, expired claims to sweep, and claims
that would have to wait for a row another claim holds take the transaction.

No lock is shared by a group's claims: two volunteers lock two different tally rows and
claim at the same time, and the cost does not depend on the pool's size
(``bench/bench_claims.py``). Rows become model instances through the one row mapper
(``annotation.hotpath.rows``). tests/volunteer runs it on both databases.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from annotation.hotpath import counts, tally
from annotation.hotpath.rows import Rows, execute, fetch, stamp
from annotation.models import Assignment, Participant, Tally, TallyCover, TaskCount
from studies.models import Group, Item, Study, Task

P, S, T = Rows(Participant, "p"), Rows(Study, "s"), Rows(Task, "t")
A, I = Rows(Assignment, "c"), Rows(Item, "i")  # noqa: E741
CI = Rows(Item, "ci")
_A, _I, _T = Assignment._meta.db_table, Item._meta.db_table, Task._meta.db_table
_X, _C = Tally._meta.db_table, TaskCount._meta.db_table
CLAIMED, EXPIRED, ANSWERED = tally.CLAIMED, tally.EXPIRED, tally.ANSWERED

_STATE = f"""
SELECT {P.sql}, {S.sql}, g.target_per_item, (SELECT max(id) FROM {_I}), {T.sql},
  h.n_regular, h.n_checks, m.regular, m.checks, m.answered, h.items_upto, m.id,
  {A.sql}, {CI.sql}
FROM {Participant._meta.db_table} p
JOIN {Study._meta.db_table} s ON s.id = p.study_id
LEFT JOIN {Group._meta.db_table} g ON g.id = p.group_id
LEFT JOIN {_T} t ON t.study_id = p.study_id
LEFT JOIN {TallyCover._meta.db_table} h ON h.task_id = t.id AND h.group_id = p.group_id
LEFT JOIN {_C} m ON m.participant_id = p.id AND m.task_id = t.id
LEFT JOIN (
  SELECT * FROM {_A} WHERE participant_id = %s AND {tally.HELD}
  ORDER BY position, id LIMIT 1
) c ON c.task_id = t.id
LEFT JOIN {_I} ci ON ci.id = c.item_id
WHERE p.id = %s
"""
# How many assignments the participant has (their task counts, kept by every claim).
_MINE = f"(SELECT coalesce(sum(mine.regular + mine.checks), 0) FROM {_C} mine WHERE mine.participant_id = %s)"
_UNSEEN = (
    f"NOT EXISTS (SELECT 1 FROM {_A} m WHERE m.participant_id = %s AND m.item_id = {{}}.item_id)"
)


def _first_unseen(columns: str, source: str, also: str = "") -> str:
    """The rule of the next regular item, written once for both claims: the participant's
    first unseen tally row (alias ``x``) of the task and group at the group's lowest level.
    The largest shortfall is the smallest ``taken``; the level is read once per statement
    (an uncorrelated subquery), so a row whose ``taken`` rose meanwhile fails the recheck
    PostgreSQL makes when it locks a row changed since the statement began, and is passed.
    ``also``: a further condition, ending in ``AND``. Parameters, after those of
    ``columns``: task, group, then ``also``'s, then participant, task, group, participant."""
    return f"""
SELECT {columns}
FROM {source}
WHERE x.task_id = %s AND x.group_id = %s AND {also}{_UNSEEN.format("x")}
  AND x.taken <= (
    SELECT y.taken FROM {_X} y WHERE y.task_id = %s AND y.group_id = %s AND {_UNSEEN.format("y")}
    ORDER BY y.taken, y.tiebreak LIMIT 1)
ORDER BY x.taken, x.tiebreak LIMIT 1
"""


# The transaction's claim: the item itself and the participant's count of assignments.
_NEXT = _first_unseen(f"{I.sql}, x.id, x.taken, {_MINE}", f"{_X} x JOIN {_I} i ON i.id = x.item_id")
_ANY = f"""SELECT {I.sql}, {_MINE} FROM {_I} i WHERE i.task_id = %s AND i.is_attention_check = %s
  AND NOT EXISTS (SELECT 1 FROM {_A} m WHERE m.participant_id = %s AND m.item_id = i.id)
  ORDER BY random() LIMIT 1"""
_COLUMNS = f"""INSERT INTO {_A} (participant_id, item_id, task_id, group_id, position, status,
  option_order, claimed_at, expires_at, served_at, answered_at)"""
_INSERT = f"{_COLUMNS}\nVALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL)"


def _insert_from(source: str, item: str = "%s") -> str:
    """The claim's INSERT written only if ``source`` (CTEs of the same statement) has a
    row; the item id is ``item``."""
    return f"{_COLUMNS}\nSELECT %s, {item}, %s, %s, %s, %s, %s, %s, %s, %s, NULL FROM {source}"


# The transaction's INSERT on PostgreSQL: the task count's + 1 (``counted``) first, then
# only with it the claim and its item's tally + 1 (a fresh tiebreak).
_INSERT_COUNTED = _insert_from("counted")
_BUMP_PG = f"""bump AS (UPDATE {_X} SET taken = taken + 1, tiebreak = %s
  WHERE id = %s AND EXISTS (SELECT 1 FROM counted))"""

# PostgreSQL: a regular item's claim in one statement, outside any transaction (``at_once``):
# the first unseen row at the group's lowest level, taken without waiting for one another
# claim holds (as ``_NEXT``); the participant's count for the task + 1 only if it still is
# what their state said (``regular = %s AND checks = %s`` is checked again on the row's
# newest version if a concurrent claim of theirs changed it: then nothing is written); the
# claim and the tally's + 1 only with that count. One claim at a time per participant
# holds without their row lock: two claims from one state both update that one count row,
# and the second finds it changed. If any of the group's open claims on the task has
# expired, nothing is taken (``_EXPIRED``, a probe of the open claims' index): the
# transaction, which sweeps them back into the pool first, decides. So the sweep, whose
# plan PostgreSQL cannot keep (its estimate for ``expires_at <= $n`` differs too much
# from a custom plan's), runs only when there is something to sweep.
_EXPIRED = f"""NOT EXISTS (SELECT 1 FROM {_A} e
    WHERE e.task_id = %s AND e.group_id = %s AND e.{tally.OPEN} AND e.expires_at <= %s)"""
_PICK = _first_unseen("x.item_id, x.id, x.taken", f"{_X} x", also=f"{_EXPIRED}\n  AND ")
_AT_ONCE = f"""
WITH pick (item_id, tally_id, taken) AS ({_PICK} FOR UPDATE OF x SKIP LOCKED),
counted AS (
  UPDATE {_C} SET regular = regular + 1
  WHERE participant_id = %s AND task_id = %s AND regular = %s AND checks = %s
    AND EXISTS (SELECT 1 FROM pick) AND {_MINE} = %s
  RETURNING id
), stored AS (
  {_insert_from("pick, counted", item="pick.item_id")}
  RETURNING id
), bump AS (
  UPDATE {_X} b SET taken = b.taken + 1, tiebreak = %s FROM pick, counted WHERE b.id = pick.tally_id
)
SELECT {I.sql}, pick.tally_id, pick.taken, (SELECT id FROM stored)
FROM pick JOIN {_I} i ON i.id = pick.item_id
"""
assert _AT_ONCE.count("%s") == 25 and "FROM pick, counted\n" in _AT_ONCE
_RENEW = (
    f"UPDATE {_A} SET status = %s, expires_at = %s, served_at = %s WHERE id = %s AND status = %s"
)


class TaskRow:
    """One task of the study as the claim sees it."""

    def __init__(
        self, task: Task, numbers: Sequence[Any], covered: int | None, counted: bool
    ) -> None:
        self.task = task
        self.n_regular, self.n_checks, self.mine_regular, self.mine_checks, self.answered = (
            int(n or 0) for n in numbers
        )
        self.covered = covered  # the tallies' coverage (``tally.cover``)
        self.counted = counted  # whether the participant's counts exist (``counts.cover``)


@dataclass
class State:
    """The participant (with its study), its group's target, the study's tasks with
    their counts, the participant's open claim (or None) and the largest item id."""

    me: Participant
    target: int
    items_upto: int
    rows: list[TaskRow] = field(default_factory=list)
    current: Assignment | None = None

    @property
    def n_assigned(self) -> int:
        return sum(r.mine_regular + r.mine_checks for r in self.rows)

    def cover(self) -> bool:
        """Bring the tallies of the participant's group up to date if items were added
        since they were made (``tally.cover``), and make the participant's task counts
        where there are none (``counts.cover``); whether the state must be read again."""
        if self.me.group_id is None:
            return False
        late = [r for r in self.rows if r.covered is None or r.covered < self.items_upto]
        if late:
            since = min(r.covered or 0 for r in late)
            tally.cover(self.me.group_id, [r.task.pk for r in late], since)
        made = counts.cover(self.me.pk, [r.task.pk for r in self.rows if not r.counted])
        for r in self.rows:  # the counts just made need no second read
            if not r.counted and r.task.pk in made:
                r.mine_regular, r.mine_checks, r.answered = made[r.task.pk]
                r.counted = True
        return bool(late) or not all(r.counted for r in self.rows)


def state(pk: int) -> State:
    """One read of everything the claim rule needs (no lock: ``lock`` then checks that
    nothing changed). Raises ``Participant.DoesNotExist``."""
    result = fetch(_STATE, [int(pk), int(pk)])
    if not result:
        raise Participant.DoesNotExist(f"participant {pk}")
    return _state(result)


# The pages know a participant by the public id their cookie holds, in the study the
# cookie is named after: the same read keyed by those, so that a question page reads the
# participant once (with the claim's state) instead of once to find them and once more
# for the claim (annotation.views.question). public_id is unique (an index lookup).
_ME = f"(SELECT id FROM {Participant._meta.db_table} WHERE public_id = %s AND study_id = %s)"
_STATE_BY_PUBLIC_ID = _STATE.replace(
    "WHERE participant_id = %s", f"WHERE participant_id = {_ME}"
).replace(
    "WHERE p.id = %s",
    "WHERE p.public_id = %s AND p.study_id = %s AND s.slug = %s AND (s.status <> %s OR p.is_test)",
)
assert _STATE_BY_PUBLIC_ID.count(_ME) == 1 and "p.id = %s" not in _STATE_BY_PUBLIC_ID


def state_by_public_id(public_id: str, study_id: int, slug: str) -> State | None:
    """:func:`state` of the participant ``public_id`` in study ``study_id`` if that study
    is ``slug`` and not a draft (as ``annotation.hotpath.pages`` finds them), or None."""
    key = [str(public_id), int(study_id)]
    params = [*key, *key, slug, Study.Status.DRAFT]
    result = fetch(_STATE_BY_PUBLIC_ID, params)
    return _state(result) if result else None


def _state(result: list[tuple[Any, ...]]) -> State:
    head = result[0]
    me, at = P.take(head, 0)
    me.study, at = S.take(head, at)
    out = State(me, head[at] or 0, int(head[at + 1] or 0))
    skip = at + 2
    for row in result:
        if row[skip] is None:  # a study without tasks
            continue
        task, at = T.take(row, skip)
        task.study = me.study
        out.rows.append(TaskRow(task, row[at : at + 5], row[at + 5], row[at + 6] is not None))
        rest = row[at + 7 :]
        if rest[0] is not None:  # the open claim's id: it belongs to this task
            out.current = A.build(rest[: A.width])
            out.current.item = CI.build(rest[A.width :])
            out.current.task, out.current.participant = task, me
    return out


def lock_participant(pk: int) -> None:
    """One claim at a time per participant (SQLite: BEGIN IMMEDIATE serialises all)."""
    if connection.features.has_select_for_update:
        fetch(counts.LOCK, [int(pk)])


def next_regular(
    me: Participant, task: Task, now: datetime
) -> tuple[Item | None, int | None, int, int | None]:
    """The unseen regular item of the task with the group's largest shortfall, its tally
    row locked (id), its ``taken``, and how many assignments the participant has (None
    without a candidate). Expired claims are returned to the pool first."""
    assert me.group_id is not None
    tally.sweep(task.pk, me.group_id, now)
    params = [me.pk, task.pk, me.group_id, me.pk, task.pk, me.group_id, me.pk]
    if connection.vendor != "postgresql":
        rows = fetch(_NEXT, params)
    else:
        rows = []
        for _attempt in range(3):
            # Rows other claims hold are passed over (they are being taken); only when
            # every row at the level is held, wait for one (a tiny pool, many claims).
            rows = fetch(_NEXT + " FOR UPDATE OF x SKIP LOCKED", params)
            rows = rows or fetch(_NEXT + " FOR UPDATE OF x", params)
            if rows:
                break
    if not rows:
        return None, None, 0, None
    row = rows[0]
    return I.build(row[: I.width]), row[I.width], int(row[I.width + 1]), row[I.width + 2]


def in_one_statement() -> bool:
    """Whether a regular item is claimed by :func:`at_once` (PostgreSQL); elsewhere by
    the transaction of ``lock_participant``, ``next_regular`` and ``insert`` (SQLite
    serialises writes: BEGIN IMMEDIATE)."""
    return connection.vendor == "postgresql"


class Stale(Exception):
    """The participant's counts are no longer those the claim was decided on: another
    claim of theirs came first. Nothing was written; read again."""


def at_once(
    *, me: Participant, task: Task, position: int, mine: tuple[int, int],
    option_order: dict[str, list[int]], now: datetime, expires_at: datetime,
    served_at: datetime | None,
) -> tuple[Assignment, int] | None:  # fmt: skip
    """Claim the unseen regular item of the task with the group's largest shortfall in one
    statement, without a transaction (PostgreSQL): the claim (as ``insert`` returns it)
    and its item's ``taken`` before; :class:`Stale` when the participant's counts are no
    longer ``mine`` (regular, checks on this task) and ``position`` (all their
    assignments): another claim of theirs came first, nothing was written; None, with
    nothing written, when the group has expired claims on the task to sweep first
    (at ``now``), or when no row could be taken without waiting (none left, or all held
    by other claims)."""
    assert me.group_id is not None
    a, (owner, _item, *values) = _new_claim(
        me=me, item=None, task=task, position=position, option_order=option_order,
        expires_at=expires_at, served_at=served_at,
    )  # fmt: skip
    params = [
        task.pk, me.group_id, task.pk, me.group_id, stamp(now),  # pick: nothing expired
        me.pk, task.pk, me.group_id, me.pk,  # pick: unseen, lowest level
        me.pk, task.pk, mine[0], mine[1], me.pk, position,  # counted
        owner, *values,  # stored (its item is pick's)
        random.random(),  # bump
    ]  # fmt: skip
    rows = fetch(_AT_ONCE, params)
    if not rows:
        return None
    row = rows[0]
    if row[-1] is None:
        raise Stale
    a.item = I.build(row[: I.width])
    a.pk = row[-1]
    return _saved(a), int(row[I.width + 1])


def set_order(a: Assignment, option_order: dict[str, list[int]]) -> None:
    """Give a claim just made another shuffle (``at_once`` drew one before its item was
    known, for option lists of other sizes)."""
    Assignment.objects.filter(pk=a.pk).update(option_order=option_order)
    a.option_order = option_order


def any_unseen_check(me: Participant, task: Task) -> tuple[Item | None, int | None]:
    """A random unseen check item of the task, and the participant's assignment count."""
    rows = fetch(_ANY, [me.pk, task.pk, True, me.pk])
    return (I.build(rows[0][:-1]), rows[0][-1]) if rows else (None, None)


def renew(a: Assignment, expires_at: datetime, served_at: datetime | None) -> None:
    """The participant came back to a claim past its expiry: it is theirs again (open,
    a fresh expiry); if a sweep had returned its item to the pool, it is taken again."""
    when = [stamp(expires_at), stamp(served_at) if served_at else None, a.pk]
    with transaction.atomic():
        extended = execute(_RENEW, [CLAIMED, *when, CLAIMED])
        if not extended and execute(_RENEW, [CLAIMED, *when, EXPIRED]):
            tally.move(a.item_id, a.group_id, +1)
    a.status, a.expires_at, a.served_at = CLAIMED, expires_at, served_at


def insert(
    *, me: Participant, item: Item, task: Task, position: int, option_order: dict[str, list[int]],
    expires_at: datetime, served_at: datetime | None, tally_id: int | None,
    mine: tuple[int, int],
) -> Assignment:  # fmt: skip
    """INSERT the claim (and take its item: ``tally_id``'s row + 1); the instance as
    ``objects.create`` would return it. :class:`Stale` if the participant's counts on the
    task are no longer ``mine`` (regular, checks): a claim of theirs in one statement
    (``at_once``, which takes no participant lock) came first; nothing is written."""
    a, params = _new_claim(
        me=me, item=item, task=task, position=position, option_order=option_order,
        expires_at=expires_at, served_at=served_at,
    )  # fmt: skip
    check = bool(item.is_attention_check)
    counted: list[Any] = [0 if check else 1, 1 if check else 0, me.pk, task.pk, *mine]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One round trip (``_INSERT_COUNTED``, ``_BUMP_PG``).
            ctes = [f"counted AS ({counts.CLAIMED} RETURNING id)"]
            if tally_id is not None:
                ctes.append(_BUMP_PG)
                counted += [random.random(), tally_id]
            cursor.execute(
                f"WITH {', '.join(ctes)} {_INSERT_COUNTED} RETURNING id", counted + params
            )
            row = cursor.fetchone()
            if row is None:
                raise Stale
            a.pk = row[0]
            return _saved(a)
        cursor.execute(counts.CLAIMED, counted)
        if cursor.rowcount != 1:
            raise Stale
        if tally_id is not None:
            tally.bump(tally_id)
        if connection.features.can_return_columns_from_insert:
            cursor.execute(_INSERT + " RETURNING id", params)
            a.pk = cursor.fetchone()[0]
        else:
            cursor.execute(_INSERT, params)
            a.pk = cursor.lastrowid
    return _saved(a)


def _new_claim(
    *, me: Participant, item: Item | None, task: Task, position: int,
    option_order: dict[str, list[int]], expires_at: datetime, served_at: datetime | None,
) -> tuple[Assignment, list[Any]]:  # fmt: skip
    """A claim as ``objects.create`` would make it (no id yet), and its values in
    ``_COLUMNS``' order up to ``answered_at`` (the item's id None without an item)."""
    a = Assignment(
        participant=me, item=item, task=task, group_id=me.group_id, position=position,
        status=Assignment.Status.CLAIMED, option_order=option_order,
        claimed_at=timezone.now(), expires_at=expires_at, served_at=served_at,
    )  # fmt: skip
    order = Assignment._meta.get_field("option_order").get_db_prep_save(option_order, connection)
    values = [me.pk, item.pk if item else None, task.pk, me.group_id, position, a.status,
              order, stamp(a.claimed_at), stamp(expires_at),
              stamp(served_at) if served_at else None]  # fmt: skip
    return a, values


def _saved(a: Assignment) -> Assignment:
    a._state.adding, a._state.db = False, connection.alias
    return a
