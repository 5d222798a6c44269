"""Question pools (formats.md §2), JSONL or CSV: validate every line, then upsert by id.

Items are keyed by ``(study, id)``. An item whose content is unchanged is left alone;
a changed one is updated. The summary lists the items created or changed, those whose
answer key changed and those whose option lists changed size, for ``jobs.loads`` to
regrade, rule-score and release stale claims in the same transaction (a reload that
changes the options of an item with answers or open claims is refused unless a remap
says where each option went: ``studies.loading.reshape``). Items absent from the file
are kept: a pool may be loaded in several files.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from studies.kinds import kind_of
from studies.loading.fields import canonical_hash, parse_id, parse_poem
from studies.loading.finish import load_finish
from studies.loading.items_write import apply_items
from studies.loading.plain import impurities
from studies.loading.pool_csv import csv_to_item
from studies.loading.problems import Collector, Reporter, Summary
from studies.loading.progress import ProgressCallback, progress
from studies.loading.readers import CELL_FORMATS, Record, Source, read_records
from studies.loading.reshape import (
    Remap,
    RemapByItem,
    check_reshaped,
    options_hash,
    parse_remap,
    shape,
)
from studies.models import ImportLog, Item, Study, Task
from studies.provenance import DERIVED, item_provenance
from studies.values import parse_text, with_params

ITEM_KEYS = {"id", "task", "stem", "options", "parts", "answer", "poem", "meta", "attention_check"}
CSV_POEM = ("title", "author", "form", "text", "source", "condition")


@dataclass
class ItemSpec:
    """One parsed item: its line, id and the model fields it sets."""

    line: int
    external_id: str
    values: dict[str, Any]
    reshaped: bool = False  # its options change (studies.loading.reshape)

    @property
    def task_id(self) -> int:
        return int(self.values["task_id"])

    @property
    def content_hash(self) -> str:
        # Provenance (DERIVED) follows from poem_source and meta, which the hash covers.
        skip = {"position", *DERIVED}
        return canonical_hash({k: v for k, v in self.values.items() if k not in skip})


@dataclass(slots=True)
class PlannedItem:
    """What validation keeps of an item: enough for the checks across the file and the
    stored items, not its content. The writer reads the file again for that, so a pool
    of any length is validated and written in flat memory (issue 11, defect 15)."""

    line: int
    external_id: str
    task_id: int
    content_hash: str
    shape: dict[str, int]  # option list -> size, as the shuffle sees it
    options_hash: str  # the option lists' order and content
    reshaped: bool = False  # its options change (studies.loading.reshape)


@dataclass
class PoolPlan:
    items: list[PlannedItem]
    remaps: RemapByItem = field(default_factory=dict)  # checked --remap, by item pk


def parse_item(
    data: dict[str, Any], tasks: dict[str, Task], report: Reporter
) -> dict[str, Any] | None:
    task_slug = data.get("task")
    task = tasks.get(task_slug) if isinstance(task_slug, str) else None
    if task is None:
        known = ", ".join(sorted(tasks)) or "none"
        report.error(
            "task",
            with_params(
                _("%(task_slug)r is not a task of this study (tasks: %(known)s)"),
                task_slug=task_slug,
                known=known,
            ),
        )
        return None
    poem = parse_poem(data.get("poem"), report)
    stem = parse_text(data.get("stem"), report, "stem", required=False)
    content = kind_of(task).parse_content(data, report, has_text=bool(stem or poem))
    values: dict[str, Any] = {
        "task_id": task.pk,
        "stem": stem,
        "options": content.options,
        "parts": content.parts,
        "answer": content.answer,
    }
    poem = poem or {}
    for key in CSV_POEM:
        values[f"poem_{key}"] = poem.get(key, "")
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        report.error("meta", _("must be a JSON object"))
        meta = {}
    extra = {k: v for k, v in data.items() if k not in ITEM_KEYS}
    if isinstance(data.get("poem"), dict):
        poem_extra = {k: v for k, v in data["poem"].items() if k not in CSV_POEM}
        if poem_extra:
            extra["poem"] = poem_extra
    values["meta"] = {**meta, **({"extra": extra} if extra else {})}
    values.update(item_provenance(values["poem_source"], values["meta"]))
    check = data.get("attention_check", False)
    if not isinstance(check, bool):
        report.error("attention_check", _("must be true or false"))
        check = False
    if check and not values["answer"]:
        report.error("attention_check", _("an attention check needs an answer key"))
    values["is_attention_check"] = check
    return values


def validate_pool(
    source: Source,
    study: Study,
    *,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
    remap: Any = None,
) -> PoolPlan:
    """Check every line of ``source`` and the file against the stored items; raise
    ``LoadError`` naming each problem's line and field. Keeps no item's content.
    ``remap``: the parsed ``--remap`` JSON (``studies.loading.reshape.parse_remap``)."""
    collector = Collector(source.name)
    remaps: Remap | None = None if remap is None else parse_remap(remap, collector)
    tasks = {t.slug: t for t in study.tasks.all()}
    kinds = {t.pk: t.kind for t in tasks.values()}
    planned: list[PlannedItem] = []
    first_line: dict[str, int] = {}
    records: Any = read_records(source, collector)
    checking = progress(
        records, show_progress, "validating", callback=on_progress, total=source.line_count
    )
    for record in checking:
        spec = _validate_record(record, source, tasks, collector)
        if spec is None:
            continue
        if spec.external_id in first_line:
            collector.add(
                record.line,
                "id",
                with_params(
                    _("id %(external_id)r already used on line %(line)s"),
                    external_id=spec.external_id,
                    line=first_line[spec.external_id],
                ),
            )
            continue
        first_line[spec.external_id] = record.line
        values = spec.values
        planned.append(
            PlannedItem(
                line=spec.line,
                external_id=spec.external_id,
                task_id=spec.task_id,
                content_hash=spec.content_hash,
                shape=shape(kinds[spec.task_id], values["options"], values["parts"]),
                options_hash=options_hash(kinds[spec.task_id], values["options"], values["parts"]),
            )
        )
    if not planned and not collector.problems:
        collector.add(None, None, _("the file holds no items"))
    check_task_moves(study, planned, collector)
    checked = check_reshaped(study, planned, collector, remaps)
    collector.raise_if_any()
    return PoolPlan(planned, checked)


class Moving(Protocol):
    line: int
    external_id: str

    @property
    def task_id(self) -> int: ...


def check_task_moves(
    study: Study, specs: Sequence[Moving], collector: Collector, field: str = "task"
) -> None:
    """An item that has responses cannot move to another task: its responses belong to
    the old task (their fields, values and grading follow its kind)."""
    wanted = {spec.external_id: spec for spec in specs}
    stored = Item.objects.filter(study=study).values_list("external_id", "pk", "task_id")
    moved = {
        pk: wanted[ext]
        for ext, pk, task_id in stored.iterator(chunk_size=2000)
        if ext in wanted and wanted[ext].task_id != task_id
    }
    if not moved:
        return
    pks = sorted(moved)
    for start in range(0, len(pks), 500):
        answered = Item.objects.filter(pk__in=pks[start : start + 500], responses__isnull=False)
        for pk, ext, slug in answered.distinct().values_list("pk", "external_id", "task__slug"):
            collector.add(
                moved[pk].line,
                field,
                with_params(
                    _(
                        "item %(ext)r already has responses in task %(slug)r; it cannot move to another task"
                    ),
                    ext=ext,
                    slug=slug,
                ),
            )


def _validate_record(
    record: Record, source: Source, tasks: dict[str, Task], collector: Collector
) -> ItemSpec | None:
    report = collector.at(record.line)
    data = record.data
    if source.format in CELL_FORMATS:  # CSV and XLSX rows: text cells
        data = csv_to_item(record.data, report)
        for path, message in impurities(data):  # JSON cells (meta, parts, answer)
            report.error(path or None, message)
    external_id = parse_id(data.get("id"), report)
    values = parse_item(data, tasks, report)
    if report.count or external_id is None or values is None:
        return None
    return ItemSpec(record.line, external_id, values)


def _specs_again(plan: PoolPlan, source: Source, study: Study) -> Iterator[ItemSpec]:
    """The validated items' content, read again from the file, in the plan's order."""
    collector = Collector(source.name)
    tasks = {t.slug: t for t in study.tasks.all()}
    planned = iter(enumerate(plan.items))
    for record in read_records(source, collector):
        spec = _validate_record(record, source, tasks, collector)
        if spec is None:
            continue
        position, want = next(planned, (-1, None))
        if want is None or (want.line, want.external_id) != (spec.line, spec.external_id):
            raise RuntimeError(f"{source.name}: the file changed after it was validated")
        spec.values["position"] = position
        spec.reshaped = want.reshaped
        yield spec
    collector.raise_if_any()


def pool_write(
    plan: PoolPlan,
    *,
    source: Source,
    study: Study,
    dry_run: bool = False,
    user: Any = None,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> Summary:
    """Write a validated pool (``validate_pool``) into ``study``, all or nothing. Called by
    ``jobs.loads.file_load``, inside the transaction that also regrades and scores."""
    summary = Summary(kind="pool", file=source.name, rows=len(plan.items), dry_run=dry_run)
    with transaction.atomic():
        ids = apply_items(
            study,
            _specs_again(plan, source, study),
            summary,
            total=len(plan.items),
            show_progress=show_progress,
            on_progress=on_progress,
        )
        summary.items.reshaped.extend(ids[p.external_id] for p in plan.items if p.reshaped)
        summary.items.remapped.update(plan.remaps)
        load_finish(
            kind=ImportLog.Kind.POOL, study=study, source=source, summary=summary, user=user
        )
    return summary
