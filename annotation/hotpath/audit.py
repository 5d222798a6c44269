"""The hand-kept counters checked against a recount, read-only (``tallies_recount --check``).

Three tables are kept by hand on the hot path (docs/architecture.md, "The hot path"):
``Tally`` (per item and group: answers plus open claims), ``TallyCover`` (per task and
group: up to which item the tallies exist, and the task's regular items and checks) and
``TaskCount`` (per participant and task: their regular items, checks and answers). Each
is compared here with the same count its own recount uses (``tally.cover``,
``counts.cover``); a difference is a line naming the row, what it holds and what the
recount gives. The load and concurrency tests end with this check.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotation.hotpath.rows import fetch
from annotation.models import Assignment, Tally, TallyCover, TaskCount
from studies.models import Item

_X, _V, _C = Tally._meta.db_table, TallyCover._meta.db_table, TaskCount._meta.db_table
_A, _I = Assignment._meta.db_table, Item._meta.db_table
_S = Assignment.Status

# Each tally row against the assignments it counts (claimed or answered, as tally.cover).
_TALLY = f"""
SELECT x.item_id, x.group_id, x.taken, (
    SELECT count(*) FROM {_A} a
    WHERE a.item_id = x.item_id AND a.group_id = x.group_id AND a.status IN (%s, %s))
FROM {_X} x WHERE x.task_id IN ({{tasks}})
"""
# Regular items a covered (task, group) should have a tally row for, and has not; and rows
# for attention checks, which never have one.
_MISSING = f"""
SELECT i.id, v.group_id FROM {_V} v JOIN {_I} i ON i.task_id = v.task_id
WHERE v.task_id IN ({{tasks}}) AND i.is_attention_check = %s AND i.id <= v.items_upto
  AND NOT EXISTS (SELECT 1 FROM {_X} x WHERE x.item_id = i.id AND x.group_id = v.group_id)
"""
_CHECK_ROWS = f"""
SELECT x.item_id, x.group_id FROM {_X} x JOIN {_I} i ON i.id = x.item_id
WHERE x.task_id IN ({{tasks}}) AND i.is_attention_check = %s
"""
_COVER = f"""
SELECT v.task_id, v.group_id, v.n_regular, v.n_checks,
  (SELECT count(*) FROM {_I} i WHERE i.task_id = v.task_id AND i.id <= v.items_upto
     AND i.is_attention_check = %s),
  (SELECT count(*) FROM {_I} i WHERE i.task_id = v.task_id AND i.id <= v.items_upto
     AND i.is_attention_check = %s)
FROM {_V} v WHERE v.task_id IN ({{tasks}})
"""
_MINE = f"""(SELECT count(*) FROM {_A} a JOIN {_I} i ON i.id = a.item_id
  WHERE a.participant_id = c.participant_id AND a.task_id = c.task_id AND {{where}})"""
_TASK_COUNT = f"""
SELECT c.participant_id, c.task_id, c.regular, c.checks, c.answered,
  {_MINE.format(where="i.is_attention_check = %s")},
  {_MINE.format(where="i.is_attention_check = %s")},
  (SELECT count(*) FROM {_A} a WHERE a.participant_id = c.participant_id
     AND a.task_id = c.task_id AND a.status = %s)
FROM {_C} c WHERE c.task_id IN ({{tasks}})
"""


def differences(task_ids: Sequence[int]) -> list[str]:
    """Every counter row of these tasks that differs from its recount, one line each."""
    if not task_ids:
        return []
    tasks = ", ".join(["%s"] * len(task_ids))
    ids = list(task_ids)
    out = [
        f"tally item {item} group {group}: taken {taken}, recount {n}"
        for item, group, taken, n in fetch(
            _TALLY.format(tasks=tasks), [_S.CLAIMED, _S.ANSWERED, *ids]
        )
        if taken != n
    ]
    out += [
        f"tally item {item} group {group}: no row for a covered regular item"
        for item, group in fetch(_MISSING.format(tasks=tasks), [*ids, False])
    ]
    out += [
        f"tally item {item} group {group}: a row for an attention check"
        for item, group in fetch(_CHECK_ROWS.format(tasks=tasks), [*ids, True])
    ]
    out += [
        f"tally cover task {task} group {group}: regular/checks {r}/{c}, recount {rr}/{cc}"
        for task, group, r, c, rr, cc in fetch(_COVER.format(tasks=tasks), [False, True, *ids])
        if (r, c) != (rr, cc)
    ]
    params = [False, True, _S.ANSWERED, *ids]
    out += [
        f"task count participant {p} task {t}: regular/checks/answered {r}/{c}/{a}, "
        f"recount {rr}/{cc}/{aa}"
        for p, t, r, c, a, rr, cc, aa in fetch(_TASK_COUNT.format(tasks=tasks), params)
        if (r, c, a) != (rr, cc, aa)
    ]
    return out
