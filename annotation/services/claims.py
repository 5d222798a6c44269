"""Claims: the next item for a participant (the database adapter of annotation.assignment).

The statements themselves are in ``annotation.hotpath.claim`` (and ``tally``): one read
of the participant, the study's tasks with their counts and the open claim; only when a
new item is due, on PostgreSQL one statement that takes the first unseen row of the
group's tallies and writes the claim with its counts, or else (SQLite, attention checks,
expired claims to sweep first, a row that must be waited for) a transaction: the
participant's row lock, the sweep of expired claims, that row, the INSERT with its
tally's +1.
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import assignment as strategy
from annotation.hotpath import claim as sql
from annotation.models import Assignment, Participant
from annotation.selectors import Progress
from annotation.services._common import rng
from studies.models import Task


def _claim_expiry(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.ASSIGNMENT_CLAIM_SECONDS)


@dataclass(frozen=True)
class NextItem:
    """What asking for the next item found: the participant (with its study), their
    current item (None when they have every item they are due) and their progress
    (None when the study was closed or the participant finished: nothing was read)."""

    participant: Participant
    assignment: Assignment | None
    progress: Progress | None
    closed: bool = False
    # Whether the participant had been shown a question of the current item's task
    # before this call (an answer in it, or this item served earlier): the page unfolds
    # the task's instructions above its first question if not.
    task_started: bool = False


def assignment_next(*, participant: Participant, now: datetime | None = None) -> Assignment | None:
    """The participant's current item, claiming the next one when none is open.

    Returns None when the participant has every item they are due. A claim left
    unanswered past ``ASSIGNMENT_CLAIM_SECONDS`` stops counting toward balance; if its
    participant comes back it is renewed rather than taken away mid-question.
    """
    return next_item(participant_id=participant.pk, now=now).assignment


# The participant's assignments changed between the read and the claim (another request
# of theirs claimed meanwhile): read again.
_Stale = sql.Stale


def next_item(
    *,
    participant_id: int,
    now: datetime | None = None,
    serve: bool = False,
    only_if_open: bool = False,
    serve_if_started: bool = False,
) -> NextItem:
    """:func:`assignment_next` for one participant id, with what a reply needs.

    ``serve``: the item is shown now (starts its timer, as :func:`assignment_serve`);
    ``serve_if_started``: only if its task was started, saving a caller that shows
    something else first its own UPDATE.
    ``only_if_open``: claim nothing in a closed study (``closed`` says so) unless the
    participant has finished. Raises ``Participant.DoesNotExist`` for an unknown id.

    One read without a lock finds everything; only a new claim opens a transaction
    (locks, then the top candidates, which also re-count the participant's assignments:
    if another request of theirs claimed meanwhile, everything is read again).
    """
    return _next_item(participant_id, None, now, (serve, serve_if_started), only_if_open)


def next_item_by_public_id(
    *,
    public_id: str,
    study_id: int,
    slug: str,
    only_if_open: bool = False,
    serve: bool = False,
    serve_if_started: bool = False,
) -> NextItem | None:
    """:func:`next_item` for the participant a volunteer page's cookie names (``public_id``
    in study ``study_id``, whose slug is ``slug``, not a draft), or None when there is
    none: their read is the claim's own (one query, where finding them first and then
    asking took two)."""
    first = sql.state_by_public_id(public_id, study_id, slug)
    if first is None:
        return None
    serving = (serve, serve_if_started)
    return _next_item(first.me.pk, first, timezone.now(), serving, only_if_open)


def _next_item(
    participant_id: int,
    first: sql.State | None,
    now: datetime | None,
    serving: tuple[bool, bool],
    only_if_open: bool,
) -> NextItem:
    now = now or timezone.now()
    for _attempt in range(_ATTEMPTS - 1):
        try:
            return _next(participant_id, now, serving, only_if_open, locked=False, st=first)
        except _Stale:
            first = None  # read again
            continue
    with transaction.atomic():  # contended: lock the participant first, then read
        sql.lock_participant(participant_id)
        for _locked_attempt in range(_LOCKED_ATTEMPTS):
            try:
                return _next(participant_id, now, serving, only_if_open, locked=True)
            except _Stale:
                # Under the lock no claim of theirs can slip in, but a load may have
                # dropped their task counts between the read and the count (a load does
                # not take participants' locks): read again; the counts are made afresh.
                continue
        raise RuntimeError(f"participant {participant_id}: task counts kept changing")


_ATTEMPTS = 3
_LOCKED_ATTEMPTS = 3  # under the lock only a load's drop of the counts can intervene


def _next(
    participant_id: int,
    now: datetime,
    serving: tuple[bool, bool],
    only_if_open: bool,
    *,
    locked: bool,
    st: sql.State | None = None,
) -> NextItem:
    serve, serve_if_started = serving
    st = st or sql.state(participant_id)
    if st.cover():  # items were added since the tallies were made: read again
        st = sql.state(participant_id)
    me = st.me
    finished = me.status == Participant.Status.FINISHED
    if only_if_open and not finished and not me.study.is_open and not me.is_test:
        return NextItem(me, None, None, closed=True)
    if finished:
        return NextItem(me, None, None)
    if me.group_id is None:
        raise ValidationError(_("Please answer the screening questions first."), "screening")
    progress = Progress(
        answered=sum(r.answered for r in st.rows),
        total=sum(min(r.task.per_participant, r.n_regular) + r.n_checks for r in st.rows),
    )
    current = st.current
    answered_in = {r.task.pk: r.answered > 0 for r in st.rows}
    if current is None:
        a = _claim(st, now, serving, locked)
        # a new claim: its task was started before only if something in it was answered
        started = a is not None and answered_in.get(a.task_id, False)
        return NextItem(me, a, progress, task_started=started)
    started = current.served_at is not None or answered_in.get(current.task_id, False)
    if current.status == Assignment.Status.EXPIRED or (
        current.expires_at and current.expires_at <= now
    ):
        sql.renew(current, _claim_expiry(now), now if serve else None)
    elif serve or (serve_if_started and started):
        assignment_serve(assignment=current, now=now)
    return NextItem(me, current, progress, task_started=started)


def assignment_serve(*, assignment: Assignment, now: datetime | None = None) -> None:
    """Note when an item was first shown: the server-side start of its answer time."""
    if assignment.served_at is None:
        assignment.served_at = now or timezone.now()
        Assignment.objects.filter(pk=assignment.pk, served_at__isnull=True).update(
            served_at=assignment.served_at
        )


def _claim(
    st: sql.State, now: datetime, serving: tuple[bool, bool], locked: bool
) -> Assignment | None:
    serve, serve_if_started = serving
    me, rows = st.me, st.rows
    by_slug = {r.task.slug: r for r in rows}
    order = [s for s in me.task_order if s in by_slug]
    order += sorted(set(by_slug) - set(me.task_order))
    position = st.n_assigned
    for slug in order:
        row = by_slug[slug]
        task = row.task
        regular_left = min(task.per_participant, row.n_regular) - row.mine_regular
        checks_left = row.n_checks - row.mine_checks
        if regular_left <= 0 and checks_left <= 0:
            continue
        check = strategy.serve_check_next(max(regular_left, 0), checks_left, rng)
        served_at = now if serve or (serve_if_started and row.answered > 0) else None
        if not check and not locked and sql.in_one_statement():
            a = _claim_at_once(st, row, position, now, served_at)
            if a is not None:
                return a
            # Expired claims to sweep first, or nothing could be taken without waiting:
            # the transaction below decides.
        # In the caller's transaction when it holds the participant's lock already.
        with nullcontext() if locked else transaction.atomic():
            a = _claim_locked(st, row, check, position, now, served_at, locked)
        if a is not None:
            return a
    return None


def _claim_locked(
    st: sql.State, row: sql.TaskRow, check: bool, position: int, now: datetime,
    served_at: datetime | None, locked: bool,
) -> Assignment | None:  # fmt: skip
    """A claim in a transaction: the participant's row lock (one claim at a time each),
    the item (a regular item's tally row locked by ``next_regular``, so that its
    shortfall stays true until the INSERT while the group's other claims take other
    rows), the INSERT. None: nothing left in this task."""
    me, task = st.me, row.task
    if not locked:
        sql.lock_participant(me.pk)
    tally_id = None
    if check:
        item, n_assigned = sql.any_unseen_check(me, task)
    else:
        # The index gives the rule's choice (annotation.assignment): the largest
        # shortfall, ties in random order (tiebreaks drawn afresh at every change).
        item, tally_id, taken, n_assigned = sql.next_regular(me, task, now)
        if item is not None:
            _check_choice(st, item.pk, taken)
    if n_assigned != position and (n_assigned is not None or not locked):
        raise _Stale  # (unlocked, no candidate at all can only mean that too)
    if item is None:
        return None
    return sql.insert(
        tally_id=tally_id,
        me=me,
        item=item,
        task=task,
        position=position,
        option_order=strategy.option_order(
            task.kind,
            n_options=len(item.options),
            parts=item.parts,
            shuffle=me.study.shuffle_options,
            rng=rng,
        ),
        expires_at=_claim_expiry(now),
        served_at=served_at,
        mine=(row.mine_regular, row.mine_checks),
    )


def _claim_at_once(
    st: sql.State, row: sql.TaskRow, position: int, now: datetime, served_at: datetime | None
) -> Assignment | None:
    """A regular item claimed in one statement (``hotpath.claim.at_once``, PostgreSQL), its
    shuffle drawn before the item is known, for the option lists of the task's last item
    claimed here (a task's items mostly have the same lists); an item with other lists
    gets a shuffle of its own at once. None: expired claims to sweep first, or nothing
    could be taken without waiting."""
    me, task = st.me, row.task
    shuffle = me.study.shuffle_options
    guess = _LISTS.get(task.pk) if shuffle else {}
    got = sql.at_once(
        me=me, task=task, position=position, mine=(row.mine_regular, row.mine_checks),
        option_order=strategy.shuffled(guess, rng) if guess else {}, now=now,
        expires_at=_claim_expiry(now), served_at=served_at,
    )  # fmt: skip
    if got is None:
        return None
    a, taken = got
    _check_choice(st, a.item_id, taken)
    if shuffle:
        lists = strategy.option_lists(task.kind, n_options=len(a.item.options), parts=a.item.parts)
        if len(_LISTS) > _LISTS_KEPT:
            _LISTS.clear()
        _LISTS[task.pk] = lists
        if lists != guess:
            sql.set_order(a, strategy.shuffled(lists, rng))
    return a


# Per task, the option lists of the last item claimed in this process: the guess for the
# next claim's shuffle (``_claim_at_once``). A task's items mostly share them.
_LISTS: dict[int, dict[str, int]] = {}
_LISTS_KEPT = 1000


def _check_choice(st: sql.State, item_id: int, taken: int) -> None:
    """The index's first row is the strategy's pick (``annotation.assignment``)."""
    candidate = strategy.Candidate(item_id, st.target - taken)
    assert strategy.pick([candidate], rng) == item_id


def claims_release(*, item_ids: list[int]) -> int:
    """Release the open (unanswered) claims on items whose option lists changed size,
    with their now stale shuffles: whoever held one is given a fresh question (an answer
    sent for it is "not one of yours", never mapped through the old order). Called by
    ``jobs.loads`` inside the load's transaction. Returns how many were released."""
    released = 0
    for start in range(0, len(item_ids), 500):
        open_claims = Assignment.objects.filter(item_id__in=item_ids[start : start + 500]).exclude(
            status=Assignment.Status.ANSWERED
        )
        # Only claims still open count in the tallies (expired ones were given back).
        counted = Counter(
            open_claims.filter(status=Assignment.Status.CLAIMED).values_list("item_id", "group_id")
        )
        holders = set(open_claims.values_list("participant_id", flat=True))
        released += open_claims.delete()[0]
        sql.counts.drop_participants(holders)  # counted afresh at their next page
        for (item_id, group_id), n in sorted(counted.items(), key=str):
            sql.tally.move(item_id, group_id, -n)
    return released


def tallies_refresh(*, study_id: int) -> None:
    """Count the study's tallies afresh from its assignments (``hotpath.tally.recount``):
    after a load changed its items (``jobs.loads``, in the load's transaction), or
    after assignments were deleted otherwise than by a release (e.g. participants deleted
    in the admin): rows for every regular item, none for checks, exact counts. The
    participants' task counts are dropped too, and counted afresh at their next page."""
    tasks = list(Task.objects.filter(study_id=study_id).values_list("pk", flat=True))
    sql.tally.recount(tasks)
    sql.counts.drop_tasks(tasks)  # the participants' task counts: made afresh when read
