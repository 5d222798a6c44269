"""Task counts: per participant and task, their assignments of regular items and of
attention checks and their answers (``annotation.models.TaskCount``), kept as data so
that the claim's read (``annotation.hotpath.claim``) finds them by key instead of
counting the participant's assignments at every page (issue 16: a cost that grew with
how far they had got, and whose plan turned to a scan of the pool once the tables were
analysed).

Who moves them:

* a claim: ``regular`` or ``checks`` + 1, in the statement that inserts it (PostgreSQL)
  or right after it, under the participant's row lock (``claim.insert``);
* an answer: ``answered`` + 1, in the statement that marks the assignment answered, and
  only when it was not answered before (``annotation.hotpath.answer``);
* anything else that adds or deletes assignments (a release of stale claims, a load, an
  admin deletion followed by ``tallies_recount``) drops the participant's rows
  (``drop_participants``, ``drop_tasks``): the next read finds none and ``cover`` counts them afresh.

``cover`` makes the rows of a participant from their assignments under the same row lock
as a claim, so no claim of theirs can slip between the count and the row.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction

from annotation.hotpath.rows import fetch
from annotation.models import Assignment, Participant, TaskCount
from studies.models import Item, Task

_C, _A, _I = TaskCount._meta.db_table, Assignment._meta.db_table, Item._meta.db_table
# The participant's row lock (one claim at a time each): FOR NO KEY UPDATE, which a new
# assignment's foreign-key check (FOR KEY SHARE of the same row) does not wait for.
LOCK = f"SELECT id FROM {Participant._meta.db_table} WHERE id = %s FOR NO KEY UPDATE"
_MINE = f"""(SELECT count(*) FROM {_A} a JOIN {_I} i ON i.id = a.item_id
  WHERE a.participant_id = %s AND a.task_id = t.id AND {{where}})"""
_COVER = f"""
INSERT INTO {_C} (participant_id, task_id, regular, checks, answered)
SELECT %s, t.id, {_MINE.format(where="i.is_attention_check = %s")},
  {_MINE.format(where="i.is_attention_check = %s")},
  (SELECT count(*) FROM {_A} a WHERE a.participant_id = %s AND a.task_id = t.id
   AND a.status = %s)
FROM {Task._meta.db_table} t WHERE t.id IN ({{tasks}})
ON CONFLICT (participant_id, task_id) DO NOTHING
RETURNING task_id, regular, checks, answered
"""
#: The claim's +1, by the new assignment's participant and task (``claim.insert``), only
#: if the counts are still those the claim was decided on (``regular``, ``checks``): a
#: claim of theirs that came first changed them, and this one writes nothing.
CLAIMED = f"""UPDATE {_C} SET regular = regular + %s, checks = checks + %s
WHERE participant_id = %s AND task_id = %s AND regular = %s AND checks = %s"""
#: An answer's +1, by the assignment's id (the caller updates only a newly answered one).
ANSWERED = f"""UPDATE {_C} SET answered = answered + 1
WHERE (participant_id, task_id) = (SELECT participant_id, task_id FROM {_A} WHERE id = %s)"""


def cover(participant_id: int, task_ids: list[int]) -> dict[int, tuple[int, int, int]]:
    """Make the participant's rows for these tasks from their assignments, under the
    participant's row lock; the rows made, by task id: (regular, checks, answered). A row
    that exists already is left as it is (and not returned)."""
    if not task_ids:
        return {}
    tasks = ", ".join(["%s"] * len(task_ids))
    pk = int(participant_id)
    with transaction.atomic():  # SQLite: BEGIN IMMEDIATE serialises it with the claims
        if connection.features.has_select_for_update:
            fetch(LOCK, [pk])
        params = [pk, pk, False, pk, True, pk, Assignment.Status.ANSWERED, *task_ids]
        made = fetch(_COVER.format(tasks=tasks), params)
    return {int(t): (int(r), int(c), int(a)) for t, r, c, a in made}


def drop_participants(participant_ids: Iterable[int]) -> None:
    """Forget these participants' counts: some of their assignments were added or deleted
    outside the claim and answer paths. Made again at their next read."""
    TaskCount.objects.filter(participant_id__in=list(participant_ids)).delete()


def drop_tasks(task_ids: Iterable[int]) -> None:
    """Forget everyone's counts in these tasks (their items or assignments changed)."""
    TaskCount.objects.filter(task_id__in=list(task_ids)).delete()
