"""The dashboard's answers per task and items below target, kept up to date without
scanning every response at each view (issue #24 item 5).

Counted from scratch (``count_all``; the tests' independent reference,
tests/app/progress_reference.py, does it with two GROUP BY scans) they cost a scan of
the study's responses (5.5 s on SQLite at 1,000,000 responses). Here the counts are
cached per study (not per report fingerprint, which every answer moves),
with a watermark of the responses they hold, and each view folds in only the responses
stored since:

* the counts: human non-test responses per task; the (task, rater) and (task, item)
  pairs answered; per (item, group) its distinct raters (a rater's several responses to
  one item, one per part, dimension or sample, count once: responses are unique per
  (rater, item, field, sample), not per (rater, item));
* the watermark: the largest response pk folded in, and of the study's responses up to
  it their number, the sum of their pks and their latest ``updated_at``; and each human
  rater with responses up to it with its participant's test flag and group.

At a view one aggregate over the study's responses checks the watermark. When the rows
up to it are as they were (none deleted, none saved again, none committed late below
it) and those raters' test flags and groups have not changed, the rows above it are read
by pk and folded in; for their (rater, item) pairs only those raters' older rows on
those items are looked up (the responses' unique index). Otherwise everything is counted
again. The items, groups, targets and tasks are read at every view (a few thousand
rows) and the table is assembled from them, so a new item, an attention check or a
changed target shows at once.

What the watermark does not see: a queryset ``.update()`` of a response's study, task,
item or rater (no service does this; ``updated_at`` is not moved by ``.update()`` nor
``bulk_update``), and a rater's kind changing. The fingerprint has the same blind spot.

Concurrency: the state is one cache value, replaced whole and never changed in place.
Every stored state is a true count of the responses up to its own watermark, checked
against the database before use, so two views at once cannot corrupt it: the later
write wins, and a state with an older watermark overwriting a newer one only makes the
next view fold in more rows. A row committed late below a watermark (PostgreSQL hands
out pks before commit) changes the count up to it and the next view counts again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, Min

from annotation.models import Rater, Response
from annotation.selectors import ResponseTotals, response_totals
from studies.models import Item, Study

#: How long an unused state is kept (it is checked against the database at every use).
TIMEOUT = 7 * 24 * 60 * 60
#: More new rows than this (a large import) are counted again rather than folded in.
FOLD_LIMIT = 20_000
#: Raters per ``rater_id__in`` lookup (SQLite's 999 parameters a statement).
CHUNK = 500
#: A watermark above every pk: ``response_totals`` of all the study's rows.
EVERY = 2**62

RaterAttrs = tuple[bool, int | None]  # the participant's test flag and group


@dataclass
class Counts:
    watermark: int = 0
    n: int = 0
    pk_sum: int = 0
    at: datetime | None = None
    raters: dict[int, RaterAttrs] = field(default_factory=dict)
    responses: Counter[int] = field(default_factory=Counter)
    task_raters: set[tuple[int, int]] = field(default_factory=set)
    task_items: set[tuple[int, int]] = field(default_factory=set)
    got: Counter[tuple[int, int | None]] = field(default_factory=Counter)


def state_key(study: Study) -> str:
    return f"progress-counts:{study.pk}"


def human_raters(study: Study) -> dict[int, RaterAttrs]:
    """Every human rater of the study: its participant's test flag and group."""
    rows = Rater.objects.filter(study=study, kind=Rater.Kind.HUMAN).values_list(
        "pk", "participant__is_test", "participant__group_id"
    )
    return {pk: (bool(test), group) for pk, test, group in rows}


def saved_counts(study: Study) -> Counts | None:
    """The study's cached counts as last stored (not yet checked against the database)."""
    found: Counts | None = cache.get(state_key(study))
    return found


def read(study: Study) -> tuple[Counts | None, ResponseTotals]:
    """The cached counts and the study's ``response_totals`` up to their watermark (all
    rows when there are none): the one scan of the responses a view makes, which the
    report's fingerprint and answer count read too."""
    saved = saved_counts(study)
    return saved, response_totals(study, saved.watermark if saved is not None else EVERY)


def count_all(study: Study, totals: ResponseTotals | None = None) -> Counts:
    """The counts from scratch (what ``task_progress`` reads), with their watermark;
    ``totals``: the study's ``response_totals`` over all its rows, when just read."""
    if totals is None or totals.below < totals.top:
        totals = response_totals(study, EVERY)
    raters = human_raters(study)
    top = totals.top
    state = Counts(top, totals.n_below, totals.sum_below, totals.at_below)
    rows = Response.objects.filter(study=study, pk__lte=top)
    for task, rater, n in (
        rows.values("task_id", "rater_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("task_id", "rater_id", "n")
    ):
        if rater not in raters:  # not a human rater
            continue
        state.raters[rater] = raters[rater]
        if not raters[rater][0]:
            state.responses[task] += n
            state.task_raters.add((task, rater))
    counted = rows.filter(rater__kind=Rater.Kind.HUMAN).exclude(rater__participant__is_test=True)
    mixed = []  # items answered under more than one task (never by the services)
    for item, group, n, low, high in (
        counted.values("item_id", "rater__participant__group_id")
        .annotate(n=Count("rater_id", distinct=True), low=Min("task_id"), high=Max("task_id"))
        .order_by()
        .values_list("item_id", "rater__participant__group_id", "n", "low", "high")
    ):
        state.got[(item, group)] = n
        state.task_items.add((low, item))
        if low != high:
            mixed.append(item)
    if mixed:
        pairs = counted.filter(item_id__in=mixed).values_list("task_id", "item_id").distinct()
        state.task_items.update(pairs)
    return state


def fold_in(study: Study, state: Counts, totals: ResponseTotals) -> Counts | None:
    """``state`` with the responses stored since its watermark, or None when something
    else changed (then everything is counted again); ``totals``: the study's
    ``response_totals`` up to ``state.watermark``."""
    assert totals.below == state.watermark
    seen = (totals.n_below, totals.sum_below, totals.at_below)
    if seen != (state.n, state.pk_sum, state.at):
        return None
    raters = human_raters(study)
    if any(raters.get(pk) != attrs for pk, attrs in state.raters.items()):
        return None
    top = totals.top
    if top <= state.watermark:
        return state
    new = list(
        Response.objects.filter(study=study, pk__gt=state.watermark, pk__lte=top).values_list(
            "pk", "task_id", "item_id", "rater_id", "updated_at"
        )
    )
    if len(new) > FOLD_LIMIT:
        return None
    old_raters, before = set(state.raters), state.watermark
    pairs: set[tuple[int, int]] = set()
    for pk, task, item, rater, at in new:
        state.n += 1
        state.pk_sum += pk
        state.at = at if state.at is None or (at is not None and at > state.at) else state.at
        if rater not in raters:  # not a human rater
            continue
        state.raters[rater] = raters[rater]
        if raters[rater][0]:  # a test participant
            continue
        state.responses[task] += 1
        state.task_raters.add((task, rater))
        state.task_items.add((task, item))
        pairs.add((rater, item))
    state.watermark = top
    pairs -= _answered_before(study, before, pairs, old_raters)
    for rater, item in pairs:
        state.got[(item, raters[rater][1])] += 1
    return state


def _answered_before(
    study: Study, watermark: int, pairs: set[tuple[int, int]], old_raters: set[int]
) -> set[tuple[int, int]]:
    """Of ``pairs`` (rater, item), those the rater had answered up to ``watermark``
    (only raters who had responses then can have; the responses' unique index)."""
    raters = sorted({r for r, _ in pairs if r in old_raters})
    found: set[tuple[int, int]] = set()
    for at in range(0, len(raters), CHUNK):
        chunk = raters[at : at + CHUNK]
        items = sorted({i for r, i in pairs if r in set(chunk)})
        for start in range(0, len(items), CHUNK):
            rows = Response.objects.filter(
                study=study,
                pk__lte=watermark,
                rater_id__in=chunk,
                item_id__in=items[start : start + CHUNK],
            )
            found.update(rows.values_list("rater_id", "item_id").distinct())
    return found & pairs


def current_counts(
    study: Study, saved: Counts | None = None, totals: ResponseTotals | None = None
) -> Counts:
    """The cached counts brought up to date (folded in, or counted again); ``saved`` and
    ``totals``: what ``read`` returned, when the caller has read them."""
    if totals is None:
        saved, totals = read(study)
    fresh = None
    if saved is not None and totals.below == saved.watermark:
        fresh = fold_in(study, saved, totals)
    if fresh is None:
        fresh = count_all(study, totals)
    cache.set(state_key(study), fresh, TIMEOUT)
    return fresh


def task_progress_from(study: Study, state: Counts) -> list[dict[str, Any]]:
    """The progress rows (per task: its title and kind, answers, items and raters
    answered, items, items below a group's target and the answers missing) from
    ``state`` and the study's current tasks, items (attention checks aside) and groups'
    targets."""
    targets = dict(study.groups.values_list("pk", "target_per_item"))
    per_task: dict[int, list[int]] = defaultdict(list)
    items = Item.objects.filter(study=study, is_attention_check=False)
    for pk, task_id in items.values_list("pk", "task_id"):
        per_task[task_id].append(pk)
    raters = Counter(task for task, _ in state.task_raters)
    answered = Counter(task for task, _ in state.task_items)
    out = []
    for t in study.tasks.order_by("position", "slug"):
        below = missing = 0
        for item in per_task.get(t.pk, []):
            short = sum(max(0, n - state.got.get((item, g), 0)) for g, n in targets.items())
            below += short > 0
            missing += short
        out.append(
            {
                "task": t.slug,
                "title": t.title,
                "kind": t.get_kind_display(),
                "responses": state.responses.get(t.pk, 0),
                "items": answered.get(t.pk, 0),
                "raters": raters.get(t.pk, 0),
                "n_items": len(per_task.get(t.pk, [])),
                "below": below,
                "missing": missing,
            }
        )
    return out


def task_progress(study: Study) -> list[dict[str, Any]]:
    """The dashboard's progress rows (``task_progress_from``), from the cached counts
    brought up to date."""
    return task_progress_from(study, current_counts(study))
