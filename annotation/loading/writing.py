"""Bulk upserts shared by the response loaders: raters and responses, keyed stably."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import product

from annotation.models import Rater, Response
from studies.loading.problems import Summary
from studies.models import Study

RaterKey = tuple[str, str, str]  # kind, name, run
CHUNK = 500
ITEM_CHUNK = 400  # with CHUNK rater ids, under SQLite's 999 parameters per statement


@dataclass
class ResponseRow:
    rater: RaterKey
    item_id: int
    task_id: int
    field: str
    value: float | None
    correct: bool | None
    sample: int = 0
    time_ms: int | None = None
    raw: str = ""
    answered_at: datetime | None = None

    def key(self, rater_id: int) -> tuple[int, int, str, int]:
        return (rater_id, self.item_id, self.field, self.sample)


def raters_ensure(
    study: Study, keys: Iterable[RaterKey], summary: Summary
) -> dict[RaterKey, Rater]:
    """Raters for ``keys``, created when missing (in the order given)."""
    wanted = dict.fromkeys(keys)  # ordered, with O(1) membership
    found: dict[RaterKey, Rater] = {}
    names = sorted({k[1] for k in wanted})
    for start in range(0, len(names), CHUNK):
        for rater in Rater.objects.filter(study=study, name__in=names[start : start + CHUNK]):
            key = (rater.kind, rater.name, rater.run)
            if key in wanted:
                found[key] = rater
    missing = [Rater(study=study, kind=k[0], name=k[1], run=k[2]) for k in wanted if k not in found]
    for rater in Rater.objects.bulk_create(missing, batch_size=1000):
        found[(rater.kind, rater.name, rater.run)] = rater
    if missing:
        summary.count("created", len(missing), what="rater")
        if any(r.pk is None for r in missing):  # backends without RETURNING ids
            return raters_ensure(study, wanted, Summary(kind="", file=""))
    return found


def responses_upsert(
    study: Study, rows: Iterable[ResponseRow], raters: dict[RaterKey, Rater], summary: Summary
) -> None:
    rows = list(rows)
    rater_ids = sorted({raters[r.rater].pk for r in rows})
    item_ids = sorted({r.item_id for r in rows})
    existing: dict[
        tuple[int, int, str, int],
        tuple[int, float | None, bool | None, str, int | None, datetime | None],
    ] = {}
    # Only the stored responses these rows could replace: of these raters on these items.
    # (Reading every response of the raters made each chunk of a long scoring job read all
    # the chunks before it: its time grew with the square of the poems, its memory with
    # their number.) Both lists in chunks, under SQLite's 999 parameters a statement.
    for at_rater, at_item in product(
        range(0, len(rater_ids), CHUNK), range(0, len(item_ids), ITEM_CHUNK)
    ):
        query = Response.objects.filter(
            rater_id__in=rater_ids[at_rater : at_rater + CHUNK],
            item_id__in=item_ids[at_item : at_item + ITEM_CHUNK],
        )
        for pk, rid, iid, fld, smp, val, cor, raw, tms, at in query.values_list(
            "pk",
            "rater_id",
            "item_id",
            "field",
            "sample",
            "value",
            "correct",
            "raw",
            "time_ms",
            "answered_at",
        ):
            existing[(rid, iid, fld, smp)] = (pk, val, cor, raw, tms, at)
    create: list[Response] = []
    update: list[Response] = []
    for row in rows:
        rater = raters[row.rater]
        obj = Response(
            study=study,
            task_id=row.task_id,
            item_id=row.item_id,
            rater=rater,
            field=row.field,
            value=row.value,
            correct=row.correct,
            sample=row.sample,
            time_ms=row.time_ms,
            raw=row.raw,
            answered_at=row.answered_at,
        )
        old = existing.get(row.key(rater.pk))
        if old is None:
            create.append(obj)
        elif old[1:5] != (row.value, row.correct, row.raw, row.time_ms) or (
            # A corrected time is a change. A response stored without one is exported with
            # the time it was stored: that time, loaded back, is not.
            None not in (row.answered_at, old[5]) and row.answered_at != old[5]
        ):
            obj.pk = old[0]
            obj.answered_at = row.answered_at or old[5]  # a file without times keeps the old one
            update.append(obj)
        else:
            summary.count("unchanged", what="response")
    Response.objects.bulk_create(create, batch_size=1000)
    Response.objects.bulk_update(
        update, ["value", "correct", "raw", "time_ms", "answered_at"], batch_size=500
    )
    summary.count("created", len(create), what="response")
    summary.count("updated", len(update), what="response")
