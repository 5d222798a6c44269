"""Human responses collected elsewhere (formats.md §4), e.g. on paper: validate, then upsert.

Each participant id becomes a pseudonymous Participant (entry ``import``, with a human
Rater) placed in the named group. Correctness is always computed from the item's answer key, so every rater is graded
by one rule; a ``correct`` given in the file is checked against it and disagreements are
counted in the summary (they mean the file and the pool disagree about the key).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from annotation.loading.writing import RaterKey, ResponseRow, raters_ensure, responses_upsert
from annotation.models import Participant, Response
from annotation.services.answers import participants_recount_attention
from annotation.services.participants import participants_place
from annotation.spreadsheet import csv_restore, xlsx_restore
from studies.kinds import kind_of, parse_answer
from studies.loading.fields import count_problem, parse_id
from studies.loading.finish import load_finish
from studies.loading.plain import loads
from studies.loading.problems import Collector, Reporter, Summary
from studies.loading.progress import ProgressCallback, progress
from studies.loading.readers import CELL_FORMATS, Source, read_records
from studies.models import Group, ImportLog, Item, Study, Task
from studies.recruitment import recruitment_params
from studies.values import Text, is_blank, is_digits, with_params


def _is_export_row(data: dict[str, Any]) -> bool:
    """A row of ``export_responses`` (one answered field a row), not one answer a line."""
    return "field" in data and "answer" not in data and "ratings" not in data


def _records(source: Source, collector: Collector) -> Iterator[tuple[int, dict[str, Any]]]:
    """Answers, one a record: formats.md §4 lines as they are; rows of the export's long
    shape (every CSV row, and JSONL lines with a ``field``) gathered per participant ×
    item into one answer, at the line of its first row. Model and rule rows of an export
    are not human responses and are passed over."""
    csv = source.format in CELL_FORMATS  # CSV and XLSX: the export's rows, text cells
    gathered: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
    for record in read_records(source, collector):
        if csv and "value" not in record.data:  # the first row's keys are the header's
            collector.add(1, None, _columns_problem(record.data))
            return
        if not csv and not _is_export_row(record.data):
            yield record.line, record.data
            continue
        row: dict[str, Any] = {k: v for k, v in record.data.items() if v != "" and v is not None}
        if source.format == "csv":  # cells made safe for spreadsheets ('=x) read as written (=x)
            row = {k: csv_restore(v) if isinstance(v, str) else v for k, v in row.items()}
        elif source.format == "xlsx":  # control characters an XLSX cell holds escaped
            row = {k: xlsx_restore(v) if isinstance(v, str) else v for k, v in row.items()}
        if row.get("rater_kind", "human") != "human":
            continue
        row.setdefault("participant", row.get("rater"))
        key = (str(row.get("participant")), str(row.get("item")))
        _, entry = gathered.setdefault(key, (record.line, {**row, "fields": {}}))
        entry["fields"][row.get("field") or "answer"] = row.get("value")
    yield from gathered.values()


def _columns_problem(row: dict[str, Any]) -> Text:
    """A CSV or XLSX responses file without a ``value`` column: say which shape it needs
    (every cell would otherwise read as unanswered)."""
    return with_params(
        _(
            "CSV and XLSX responses need the columns field and value, one row per answered "
            "field as export_responses writes them (found: %(found)s): put each answer in "
            "value and its part or dimension in field (blank: answer), or use JSONL for "
            "an answer column"
        ),
        found=", ".join(row) or "-",
    )


# The rows to write, the raters they need with each one's group, how many 'correct'
# flags disagreed, and the recruitment ids a file gives participants (an export's
# ``recruitment`` column), kept for participants it creates.
ValidatedResponses = tuple[list[ResponseRow], dict[RaterKey, Group], int, dict[str, dict[str, str]]]


def _recruitment(data: dict[str, Any]) -> dict[str, str]:
    """A line's ``recruitment`` (an export's column: JSON text; or an object), known
    parameters only; anything else is passed over (it is never part of an answer)."""
    raw = data.get("recruitment")
    if isinstance(raw, str) and raw.strip():
        try:
            raw = loads(raw)  # a key named twice: not a usable recruitment
        except ValueError:
            return {}
    return recruitment_params(raw) if isinstance(raw, dict) else {}


def _time(data: dict[str, Any], report: Reporter) -> tuple[int | None, datetime | None]:
    time_ms = data.get("time_ms")
    if isinstance(time_ms, str) and is_digits(time_ms.strip()):
        time_ms = int(time_ms)
    if time_ms is not None and (problem := count_problem(time_ms)) is not None:
        report.error("time_ms", problem)
        time_ms = None
    at = data.get("answered_at")
    when = None
    if at not in (None, ""):
        try:
            when = parse_datetime(at) if isinstance(at, str) else None
        except ValueError:  # well formed but impossible, e.g. month 13
            when = None
        if when is None:
            report.error(
                "answered_at", with_params(_("%(at)r is not an ISO 8601 date-time"), at=at)
            )
        elif when.tzinfo is None:
            report.error("answered_at", _("needs a time zone (e.g. 2026-11-20T10:15:00Z)"))
            when = None
    return (int(time_ms) if time_ms is not None else None), when


def _correct_flag(data: dict[str, Any], report: Reporter) -> bool | None:
    raw = data.get("correct")
    if raw in (None, ""):
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in {"true", "false", "1", "0"}:
        return raw.strip().lower() in {"true", "1"}
    report.error("correct", _("must be true or false"))
    return None


def validate_responses(
    source: Source,
    study: Study,
    *,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> ValidatedResponses:
    collector = Collector(source.name)
    groups = {g.slug: g for g in study.groups.all()}
    tasks = {t.pk: t for t in study.tasks.all()}
    items = {
        i.external_id: i
        for i in Item.objects.filter(study=study).only(
            "external_id", "task_id", "options", "parts", "answer"
        )
    }
    rows: list[ResponseRow] = []
    raters: dict[RaterKey, Group] = {}
    first_group: dict[str, tuple[str, int]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    recruited: dict[str, dict[str, str]] = {}
    disagreements = 0
    records = _records(source, collector)
    checking = progress(
        records, show_progress, "validating", callback=on_progress, total=source.line_count
    )
    for line, data in checking:
        report = collector.at(line)
        pid = parse_id(data.get("participant"), report, "participant")
        group_slug = data.get("group")
        group = groups.get(group_slug) if isinstance(group_slug, str) else None
        if is_blank(group_slug):
            report.error(
                "group",
                with_params(
                    _("is missing: name one of this study's groups (%(names)s)"),
                    names=", ".join(groups),
                ),
            )
        elif group is None:
            report.error(
                "group",
                with_params(
                    _("%(group_slug)r is not a group of this study (%(names)s)"),
                    group_slug=group_slug,
                    names=", ".join(groups),
                ),
            )
        elif pid is not None:
            prior = first_group.setdefault(pid, (group.slug, line))
            if prior[0] != group.slug:
                report.error(
                    "group",
                    with_params(
                        _("participant %(pid)r is in group %(group)r on line %(line)s"),
                        pid=pid,
                        group=prior[0],
                        line=prior[1],
                    ),
                )
        item_id = parse_id(data.get("item"), report, "item")
        item = items.get(item_id or "")
        if item_id is not None and item is None:
            report.error(
                "item",
                with_params(
                    _("no item %(item_id)r in study %(slug)r"), item_id=item_id, slug=study.slug
                ),
            )
        time_ms, when = _time(data, report)
        given = _correct_flag(data, report)
        if pid is None or item is None or group is None:
            continue
        task = tasks[item.task_id]
        payload = _payload(data, task)
        result = parse_answer(item, task, **payload)
        for name, message in result.errors:
            report.error(name, message)
        key: RaterKey = ("human", pid, "")
        raters[key] = group
        if params := _recruitment(data):
            recruited.setdefault(pid, params)
        for fld, value in result.values.items():
            correct = item.grade(fld, value)
            dup = seen.setdefault((pid, item_id or "", fld), line)
            if dup != line:
                report.error(
                    fld,
                    with_params(
                        _(
                            "participant %(pid)r already answered %(item_id)r (%(fld)s) on line %(dup)s"
                        ),
                        pid=pid,
                        item_id=item_id,
                        fld=fld,
                        dup=dup,
                    ),
                )
            if given is not None and correct is not None and fld == "answer" and given != correct:
                disagreements += 1
            rows.append(
                ResponseRow(
                    rater=key,
                    item_id=item.pk,
                    task_id=task.pk,
                    field=fld,
                    value=value,
                    correct=correct,
                    time_ms=time_ms,
                    answered_at=when,
                )
            )
    if not rows and not collector.problems:
        collector.add(None, None, _("the file holds no responses"))
    _check_stored_groups(study, first_group, collector)
    _check_in_app_answers(study, rows, items, seen, collector)
    collector.raise_if_any()
    return rows, raters, disagreements, recruited


def _check_stored_groups(
    study: Study, first_group: dict[str, tuple[str, int]], collector: Collector
) -> None:
    """A participant already stored in one group cannot arrive in another."""
    names = sorted(first_group)
    for start in range(0, len(names), 500):
        stored = Participant.objects.filter(
            study=study,
            rater__kind="human",
            rater__run="",
            rater__name__in=names[start : start + 500],
        ).values_list("rater__name", "group__slug")
        for name, slug in stored:
            given, line = first_group[name]
            if slug != given:
                collector.add(
                    line,
                    "group",
                    with_params(
                        _(
                            "participant %(name)r is already stored in group %(slug)r, not %(given)r"
                        ),
                        name=name,
                        slug=slug,
                        given=given,
                    ),
                )


def _check_in_app_answers(
    study: Study,
    rows: list[ResponseRow],
    items: dict[str, Item],
    lines: dict[tuple[str, str, str], int],
    collector: Collector,
) -> None:
    """An import never overwrites an answer a volunteer gave in the app: a row for a
    participant id of the app (not an imported one) that would change a stored answer
    (its value or its time) is refused at its line and field. Rows equal to the stored
    answer (an export loaded back) change nothing and pass."""
    by_key = {(r.rater[1], r.item_id, r.field): r for r in rows if r.sample == 0}
    external = {item.pk: external_id for external_id, item in items.items()}
    names = sorted({name for name, _, _ in by_key})
    for start in range(0, len(names), 500):
        stored = (
            Response.objects.filter(
                study=study,
                rater__kind="human",
                rater__run="",
                rater__name__in=names[start : start + 500],
                sample=0,
            )
            .exclude(rater__participant__entry=Participant.Entry.IMPORT)
            .values_list("rater__name", "item_id", "field", "value", "time_ms", "answered_at")
        )
        for name, item_id, fld, value, time_ms, at in stored:
            row = by_key.get((name, item_id, fld))
            if row is None:
                continue
            moved = row.answered_at is not None and at is not None and row.answered_at != at
            if row.value != value or row.time_ms != time_ms or moved:
                item = external[item_id]
                collector.add(
                    lines[(name, item, fld)],
                    fld,
                    with_params(
                        _(
                            "participant %(name)r answered %(item)r (%(fld)s) in the app; an import never overwrites an answer given in the app"
                        ),
                        name=name,
                        item=item,
                        fld=fld,
                    ),
                )


def _participants_create(
    study: Study, groups: dict[int, Group], recruited: dict[int, dict[str, str]]
) -> None:
    """A participant for each rater id of ``groups`` that has none, placed in its group
    (a participant stored before keeps its group: ``_check_stored_groups``), with the
    recruitment ids the file gave it."""
    have = set(
        Participant.objects.filter(rater_id__in=list(groups)).values_list("rater_id", flat=True)
    )
    new = [rid for rid in groups if rid not in have]
    if not new:
        return
    Participant.objects.bulk_create(
        [
            Participant(
                study=study,
                rater_id=rid,
                entry=Participant.Entry.IMPORT,
                status=Participant.Status.IMPORTED,
                recruitment=recruited.get(rid, {}),
            )
            for rid in new
        ],
        batch_size=1000,
    )
    members: dict[Group, list[Participant]] = defaultdict(list)
    for p in Participant.objects.filter(rater_id__in=new).only("pk", "rater_id"):
        members[groups[p.rater_id]].append(p)
    for group, placed in members.items():
        participants_place(participants=placed, group=group)


def _payload(data: dict[str, Any], task: Task) -> dict[str, Any]:
    fields = data.get("fields")
    if isinstance(fields, dict):  # gathered CSV rows
        kind = kind_of(task)
        return {kind.payload: kind.answer_from_fields(fields)}
    if "ratings" in data:
        return {"ratings": data["ratings"]}
    return {"answer": data.get("answer")}


def responses_write(
    validated: ValidatedResponses,
    *,
    source: Source,
    study: Study,
    dry_run: bool = False,
    user: Any = None,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> Summary:
    """Write validated responses (``validate_responses``) into ``study``, all or nothing."""
    rows, rater_groups, disagreements, recruited = validated
    summary = Summary(kind="responses", file=source.name, rows=len(rows), dry_run=dry_run)
    if disagreements:
        # The key in the pool wins; the file's own 'correct' flags are reported, not stored.
        summary.details["'correct' flags that disagree with the answer key (ignored)"] = (
            disagreements
        )
    with transaction.atomic():
        raters = raters_ensure(study, rater_groups, summary)
        _participants_create(
            study,
            {raters[k].pk: g for k, g in rater_groups.items()},
            {raters[("human", pid, "")].pk: params for pid, params in recruited.items()},
        )
        responses_upsert(study, rows, raters, summary)
        # Failed attention checks count as in the volunteer flow (flag past the limit).
        flagged = participants_recount_attention(
            study=study, rater_ids=sorted(r.pk for r in raters.values())
        )
        if flagged:
            summary.details["participants flagged (failed attention checks)"] = flagged
        load_finish(
            kind=ImportLog.Kind.RESPONSES, study=study, source=source, summary=summary, user=user
        )
    return summary
