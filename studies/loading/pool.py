"""Question pools (formats.md §2), JSONL, CSV or XLSX: validate each line and upsert by
id, a batch at a time, in one pass inside the load's transaction (``pool_write``).

Items are keyed by ``(study, id)``. An item whose content is unchanged is left alone;
a changed one is updated. The summary lists the items created or changed, those whose
answer key changed and those whose option lists changed size, for ``jobs.loads`` to
regrade, rule-score and release stale claims in the same transaction (a reload that
changes the options of an item with answers or open claims is refused unless a remap
says where each option went: ``studies.loading.reshape``). Items absent from the file
are kept: a pool may be loaded in several files.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Protocol

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from studies.kinds import kind_of
from studies.loading.fields import canonical_hash, parse_id, parse_poem
from studies.loading.finish import load_finish
from studies.loading.items_write import BATCH, items_stored, write_batch
from studies.loading.plain import impurities
from studies.loading.pool_csv import csv_to_item
from studies.loading.problems import Collector, Reporter, Summary
from studies.loading.progress import ProgressCallback, progress
from studies.loading.readers import CELL_FORMATS, Record, Source, read_records
from studies.loading.reshape import (
    Remap,
    check_remap_used,
    check_reshaped_batch,
    options_hash,
    parse_remap,
    shape,
)
from studies.loading.warmup import warmup_check_problem, warmup_tasks
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
    shape: dict[str, int] = field(default_factory=dict)  # option list -> size (a pool's)
    options_hash: str = ""  # the option lists' order and content (a pool's)

    @property
    def task_id(self) -> int:
        return int(self.values["task_id"])

    @property
    def content_hash(self) -> str:
        # Provenance (DERIVED) follows from poem_source and meta, which the hash covers.
        skip = {"position", *DERIVED}
        return canonical_hash({k: v for k, v in self.values.items() if k not in skip})


@dataclass
class PoolPlan:
    """What is checked before a pool's transaction: the ``--remap`` argument. The file
    itself is validated as it is written (``pool_write``)."""

    remap: Remap = field(default_factory=dict)


def parse_item(
    data: dict[str, Any],
    tasks: dict[str, Task],
    report: Reporter,
    warmup: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """One item's model fields, every problem reported at its field; ``warmup``: the
    study's practice and qualification tasks (slug -> block), which hold no attention
    checks."""
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
    elif check and warmup and task.slug in warmup:
        report.error("attention_check", warmup_check_problem(task.slug, warmup[task.slug]))
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
    """Check what can be checked before the pool's transaction: the ``--remap`` JSON
    (``studies.loading.reshape.parse_remap``). The lines are validated by ``pool_write``,
    in the transaction, as they are written in batches: a pool of any length is
    validated and written in flat memory (issue 26), and any problem anywhere in the file
    rolls every batch back."""
    collector = Collector(source.name)
    remaps: Remap = {} if remap is None else parse_remap(remap, collector)
    collector.raise_if_any()
    return PoolPlan(remaps)


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
    stored = Item.objects.filter(study=study).order_by().values_list("external_id", "pk", "task_id")
    moved = {
        pk: wanted[ext]
        for ext, pk, task_id in stored.iterator(chunk_size=2000)
        if ext in wanted and wanted[ext].task_id != task_id
    }
    refuse_answered_moves(moved, collector, field)


def refuse_answered_moves(moved: Mapping[int, Moving], collector: Collector, field: str) -> None:
    """Refuse the moves (item pk -> its spec in another task) of items with responses."""
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
    record: Record,
    source: Source,
    tasks: dict[str, Task],
    collector: Collector,
    warmup: Mapping[str, str] | None = None,
) -> ItemSpec | None:
    report = collector.at(record.line)
    data = record.data
    if source.format in CELL_FORMATS:  # CSV and XLSX rows: text cells
        data = csv_to_item(record.data, report)
        for path, message in impurities(data):  # JSON cells (meta, parts, answer)
            report.error(path or None, message)
    external_id = parse_id(data.get("id"), report)
    values = parse_item(data, tasks, report, warmup)
    if report.count or external_id is None or values is None:
        return None
    return ItemSpec(record.line, external_id, values)


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
    """Validate and write ``source`` into ``study`` in batches of ``BATCH`` items, all or
    nothing: every line is checked (its fields, its id unused above, its task move and
    option change against the stored item), and each batch is written once it and every
    line before it passed; the first problem stops the writing (the rest of the file is
    still checked, so every problem is listed) and ``LoadError`` rolls back what was
    written. Called by ``jobs.loads.file_load``, inside the transaction that also
    regrades and scores."""
    summary = Summary(kind="pool", file=source.name, dry_run=dry_run)
    with transaction.atomic():
        stream = PoolStream(plan, source, study, summary)
        lines = progress(
            read_records(source, stream.collector),
            show_progress,
            "writing",
            callback=on_progress,
            total=source.line_count,
        )
        for record in lines:
            stream.take(record)
        stream.finish()
        load_finish(
            kind=ImportLog.Kind.POOL, study=study, source=source, summary=summary, user=user
        )
    return summary


class PoolStream:
    """One pass over a pool's lines: what is kept across batches is a digest of each id
    (8 bytes an item, for duplicates), the changed items' keys and the remap's items."""

    def __init__(self, plan: PoolPlan, source: Source, study: Study, summary: Summary) -> None:
        self.plan, self.source, self.study, self.summary = plan, source, study, summary
        self.collector = Collector(source.name)
        self.tasks = {t.slug: t for t in study.tasks.all()}
        self.kinds = {t.pk: t.kind for t in self.tasks.values()}
        self.warmup = warmup_tasks(study)
        self.digests = array("Q")  # one per valid line's id
        self.batch: dict[str, ItemSpec] = {}
        self.remap_lines: dict[str, int] = {}  # an item the remap names -> its line
        self.moved: set[str] = set()  # items whose options change

    def take(self, record: Record) -> None:
        spec = _validate_record(record, self.source, self.tasks, self.collector, self.warmup)
        if spec is None:
            return
        self.digests.append(id_digest(spec.external_id))
        if spec.external_id in self.batch:  # reported by duplicates_report
            return
        if spec.external_id in self.plan.remap:
            self.remap_lines.setdefault(spec.external_id, spec.line)
        kind = self.kinds[spec.task_id]
        spec.values["position"] = self.summary.rows
        spec.shape = shape(kind, spec.values["options"], spec.values["parts"])
        spec.options_hash = options_hash(kind, spec.values["options"], spec.values["parts"])
        self.summary.rows += 1
        self.batch[spec.external_id] = spec
        if len(self.batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Check the batch against the stored items; write it while the file is clean."""
        specs, self.batch = list(self.batch.values()), {}
        if not specs:
            return
        stored = items_stored(self.study, [s.external_id for s in specs])
        moves = {
            stored[s.external_id].pk: s
            for s in specs
            if s.external_id in stored and stored[s.external_id].task_id != s.task_id
        }
        refuse_answered_moves(moves, self.collector, "task")
        changed = [
            (stored[s.external_id].pk, s)
            for s in specs
            if s.external_id in stored and stored[s.external_id].content_hash != s.content_hash
        ]
        check_reshaped_batch(
            changed, self.kinds, self.collector, self.plan.remap, self.summary.items.remapped,
            self.moved,
        )  # fmt: skip
        if self.collector.problems:
            return  # nothing more is written: the load is refused at its end
        ids = write_batch(self.study, specs, self.summary, stored)
        self.summary.items.reshaped.extend(ids[s.external_id] for s in specs if s.reshaped)

    def finish(self) -> None:
        """The last batch, then the checks across the whole file; raise ``LoadError``
        (rolling back every batch) on any problem."""
        self.flush()
        duplicates_report(self.digests, self.source, self.tasks, self.collector)
        if not self.summary.rows and not self.collector.problems:
            self.collector.add(None, None, _("the file holds no items"))
        check_remap_used(self.plan.remap, self.remap_lines, self.moved, self.collector)
        self.collector.raise_if_any()


def id_digest(external_id: str) -> int:
    """64 bits of an id's hash: 8 bytes an item, where a set of ids would take ~100."""
    return int.from_bytes(hashlib.blake2b(external_id.encode(), digest_size=8).digest())


def duplicates_report(
    digests: array[int], source: Source, tasks: dict[str, Task], collector: Collector
) -> None:
    """Name every id used on more than one valid line, with the line that used it first.
    The digests find whether any is repeated; only then is the file read again."""
    if len(digests) < 2:
        return
    ordered = sorted(digests)  # the one list of the whole file, only for this check
    repeated = {a for a, b in pairwise(ordered) if a == b}
    del ordered
    if not repeated:
        return
    first_line: dict[str, int] = {}
    scratch = Collector(source.name)  # the lines' own problems are already reported
    for record in read_records(source, scratch):
        spec = _validate_record(record, source, tasks, scratch)
        if spec is None or id_digest(spec.external_id) not in repeated:
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
        else:
            first_line[spec.external_id] = record.line
