"""Tallies: per item and group, what the group has taken of it (answers plus open claims),
kept as data in the same transaction as every claim, answer, expiry and release.

Why (issue 16): the claim used to count, for every unseen item of the task, the group's
answers and live claims, under a (task, group) advisory lock. Its cost grew with the pool
(a 100,000-item task is a supported size) and every claim of a group waited for the one
before it. With the counts kept as rows (``annotation.models.Tally``) and an index on
(task, group, taken, tiebreak), the next item is the first unseen row of that index:
O(log n) whatever the pool, and on PostgreSQL two volunteers of one group lock different
rows (``FOR UPDATE SKIP LOCKED``) and claim at the same time. This is the "slot
counter" design of crowdsourcing task assignment (a per-task remaining-quota counter
decremented when a worker takes a task and restored when the assignment is abandoned,
as in Amazon Mechanical Turk's assignments or Potato's and LabelStudio's overlap quotas)
with a database queue's skip-locked dequeue.

Who moves ``taken``, and by how much (``Assignment.status`` says which case applies):

* a claim (INSERT, status ``claimed``): +1 (``bump``);
* an answer to an open claim: 0 (a claim became an answer); to a claim already found
  expired: +1 (annotation/hotpath/answer.py);
* an open claim past its expiry is found by ``sweep`` (status ``expired``): -1. Expiry is
  a matter of time, not of a request, so the sweep runs at the start of each claim of the
  task and group, over an index of open claims by expiry: the expired claims return to
  the pool before the next item is chosen, exactly as the count did;
* the participant coming back to their expired claim renews it (``claimed`` again): +1;
* releasing open claims (a reload changed an item's options): -1 each that was open.

Rows for new items and groups are added lazily (``cover``): a ``TallyCover`` row per
task and group says up to which item id they exist; the claim's first read compares it
with the largest item id (an index lookup) and brings the tallies up to date when items
were added. ``recount`` recomputes everything from the assignments (after a load, and
by the migration that introduced the tallies).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Max

from annotation.hotpath.rows import execute, fetch, stamp
from annotation.models import Assignment, Tally, TallyCover
from studies.models import Group, Item, Task

_X, _A, _I = Tally._meta.db_table, Assignment._meta.db_table, Item._meta.db_table
CLAIMED, EXPIRED, ANSWERED = (
    Assignment.Status.CLAIMED,
    Assignment.Status.EXPIRED,
    Assignment.Status.ANSWERED,
)
SWEEP_BATCH = 500
# The open-claims index (``assignment_open_expiry``) is partial, ``WHERE status =
# 'claimed'``. A statement can use it only if its own condition says so literally: with
# the status as a parameter, a prepared statement's generic plan (server-side binding
# reuses one after a few executions) cannot prove the index applies, and the sweep
# scanned every assignment of the task and group, a cost growing with the study
# (tests/volunteer/test_query_plans.py).
OPEN = f"status = '{CLAIMED.value}'"
# A participant's claims not yet answered, open or expired (the claim's read): literal
# too, so that the generic plan's estimate matches a custom plan's and PostgreSQL keeps
# the generic one instead of planning the read afresh at every page.
HELD = f"status IN ('{CLAIMED.value}', '{EXPIRED.value}')"
assert CLAIMED.value.isidentifier() and EXPIRED.value.isidentifier()

# PostgreSQL: one statement, gated so that one sweep per (task, group) runs at a time (a
# non-blocking try-lock held to the end of the claim's transaction: the others skip the
# sweep, which the holder does). Claims being answered meanwhile are locked and skipped.
_SWEEP_PG = f"""
WITH gone AS (
  SELECT id FROM {_A}
  WHERE task_id = %s AND group_id = %s AND {OPEN} AND expires_at <= %s
    AND (SELECT pg_try_advisory_xact_lock(%s))
  ORDER BY expires_at LIMIT {SWEEP_BATCH} FOR UPDATE SKIP LOCKED
), expired AS (
  UPDATE {_A} a SET status = %s FROM gone WHERE a.id = gone.id RETURNING a.item_id
)
UPDATE {_X} x SET taken = x.taken - e.n, tiebreak = random()
FROM (SELECT item_id, count(*) AS n FROM expired GROUP BY item_id) e
WHERE x.item_id = e.item_id AND x.group_id = %s
"""
_SWEEP = f"""
UPDATE {_A} SET status = %s WHERE id IN (
  SELECT id FROM {_A} WHERE task_id = %s AND group_id = %s AND {OPEN} AND expires_at <= %s
  ORDER BY expires_at LIMIT {SWEEP_BATCH}
) RETURNING item_id
"""
_MOVE = f"UPDATE {_X} SET taken = taken + %s, tiebreak = %s WHERE item_id = %s AND group_id = %s"


def gate_key(task_id: int, group_id: int) -> int:
    return ((int(task_id) & 0x7FFFFFFF) << 32) | (int(group_id) & 0xFFFFFFFF)


def sweep(task_id: int, group_id: int, now: datetime) -> None:
    """Mark the group's open claims on the task that expired by ``now``, and give their
    items back (``taken`` - 1 each). In the claim's transaction, before it chooses (on
    PostgreSQL the claim in one statement takes nothing while there is something to
    sweep, and leaves the claim to that transaction: ``claim.at_once``)."""
    when = stamp(now)
    if connection.vendor == "postgresql":
        key = gate_key(task_id, group_id)
        execute(_SWEEP_PG, [task_id, group_id, when, key, EXPIRED, group_id])
        return
    # SQLite: every write transaction is serialised already; UPDATE … RETURNING (3.35+).
    rows = fetch(_SWEEP, [EXPIRED, task_id, group_id, when])
    for item_id, n in sorted(Counter(r[0] for r in rows).items()):
        move(item_id, group_id, -n)


def move(item_id: int, group_id: int | None, by: int) -> None:
    """``taken`` += ``by`` for one item and group, with a fresh tiebreak."""
    if group_id is not None and by:
        execute(_MOVE, [by, random.random(), item_id, group_id])


def bump(tally_id: int) -> None:
    """A claim: ``taken`` + 1, with a fresh tiebreak (ties come in random order)."""
    execute(f"UPDATE {_X} SET taken = taken + 1, tiebreak = %s WHERE id = %s",
            [random.random(), tally_id])  # fmt: skip


def items_upto() -> int:
    return int(Item.objects.aggregate(m=Max("id"))["m"] or 0)


_RANDOM = {"postgresql": "random()"}  # SQLite's random() is a 64-bit integer:
_RANDOM_ELSE = "(random() / 18446744073709551616.0 + 0.5)"
# Rows that exist already are left by the unique (item, group) constraint: no anti-join,
# whose plan on tables not yet analysed (a pool just loaded) could turn quadratic.
_COVER_ROWS = f"""
INSERT INTO {_X} (item_id, group_id, task_id, taken, tiebreak)
SELECT i.id, %s, i.task_id, (
    SELECT count(*) FROM {_A} a
    WHERE a.item_id = i.id AND a.group_id = %s AND a.status IN (%s, %s)
  ), {{random}}
FROM {_I} i
WHERE i.task_id IN ({{tasks}}) AND i.is_attention_check = %s AND i.id > %s
ON CONFLICT DO NOTHING
"""
_UNCOVER_CHECKS = f"""
DELETE FROM {_X} WHERE group_id = %s AND item_id IN (
  SELECT id FROM {_I} WHERE task_id IN ({{tasks}}) AND is_attention_check = %s)
"""
_COVER = f"""
INSERT INTO {TallyCover._meta.db_table} (task_id, group_id, items_upto, n_regular, n_checks)
SELECT t.id, %s, %s,
  (SELECT count(*) FROM {_I} i WHERE i.task_id = t.id AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_I} i WHERE i.task_id = t.id AND i.is_attention_check = %s)
FROM {Task._meta.db_table} t WHERE t.id IN ({{tasks}})
ON CONFLICT (task_id, group_id) DO UPDATE SET items_upto = excluded.items_upto,
  n_regular = excluded.n_regular, n_checks = excluded.n_checks
"""


def cover(group_id: int, task_ids: list[int], since: int = 0) -> None:
    """Bring the group's tallies on these tasks up to date with the items added after
    item id ``since`` (rows for new regular items, counted from the assignments; the
    tasks' counts): a constant number of set-based statements, in one short transaction,
    safe to run concurrently (rows are unique, counts idempotent)."""
    if not task_ids:
        return
    upto = items_upto()
    tasks = ", ".join(["%s"] * len(task_ids))
    random_sql = _RANDOM.get(connection.vendor, _RANDOM_ELSE)
    with transaction.atomic():
        if since == 0:  # covered afresh: items may have become attention checks
            execute(_UNCOVER_CHECKS.format(tasks=tasks), [group_id, *task_ids, True])
        execute(
            _COVER_ROWS.format(random=random_sql, tasks=tasks),
            [group_id, group_id, CLAIMED, ANSWERED, *task_ids, False, since],
        )
        execute(_COVER.format(tasks=tasks), [group_id, upto, False, True, *task_ids])


def recount(task_ids: Iterable[int]) -> None:
    """Recompute the tallies of these tasks from the assignments, for every group of
    their studies: rows for every regular item, none for attention checks, counts
    afresh. For writes that bypass the claim path (loads, admin deletions); in the
    caller's transaction."""
    for task in Task.objects.filter(pk__in=list(task_ids)):
        Tally.objects.filter(task=task).delete()
        groups = Group.every.filter(study_id=task.study_id)  # the preview group's too
        for group_id in groups.values_list("id", flat=True):
            cover(group_id, [task.pk])
