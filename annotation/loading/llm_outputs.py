"""Stored LLM outputs (formats.md §3): answers, judge ratings, generations, aggregates.

- an answer or a judge's ratings become Responses of the ``model`` rater (name, run);
- a generation becomes a rating Item (source ``model:<name>``; form from its prompt);
- an aggregate result is kept apart in AggregateResult, never mixed into item statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from annotation.loading.aggregates import aggregate_parse, aggregate_upsert
from annotation.loading.writing import RaterKey, ResponseRow, raters_ensure, responses_upsert
from annotation.models import Rater
from studies.kinds import kind_of, parse_answer
from studies.loading.fields import count_problem, parse_id
from studies.loading.finish import load_finish
from studies.loading.items_write import apply_items
from studies.loading.pool import ItemSpec, check_task_moves, parse_item
from studies.loading.problems import Collector, Reporter, Summary
from studies.loading.progress import ProgressCallback, progress
from studies.loading.readers import Source, read_records
from studies.models import ImportLog, Item, Study, Task
from studies.values import with_params

COMMON = {"model", "run", "sample", "raw"}
SHAPES = {
    "answer": {"item", "answer"},
    "ratings": {"item", "ratings"},
    "generation": {"generation"},
    "aggregate": {"task"},
}


@dataclass(frozen=True)
class Checked:
    """An answer or rating line resolved to its item and validated."""

    item: Item
    task: Task
    rater: RaterKey
    values: dict[str, float]
    sample: int
    raw: str


@dataclass
class Parsed:
    generations: list[ItemSpec] = field(default_factory=list)
    # (line, rater, item id, "answer" | "ratings", payload, sample, raw) as read ...
    answers: list[tuple[int, RaterKey, str, Any, Any, int, str]] = field(default_factory=list)
    # ... and once resolved and validated
    checked: list[Checked] = field(default_factory=list)
    aggregates: dict[tuple[str, str, str, str], dict[str, Any]] = field(default_factory=dict)


def _common(data: dict[str, Any], report: Reporter) -> tuple[str, str, int, str] | None:
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        report.error("model", _("is required (the model's name)"))
        return None
    if len(model.strip()) > 200:
        report.error("model", _("is longer than 200 characters"))
        return None
    run = data.get("run", "")
    if run is None:
        run = ""
    if not isinstance(run, str) or len(run) > 100:
        report.error("run", _("must be text of at most 100 characters"))
        run = ""
    sample = data.get("sample", 0)
    if sample is None:
        sample = 0
    if (problem := count_problem(sample)) is not None:
        report.error("sample", problem)
        sample = 0
    raw = data.get("raw", "")
    if not isinstance(raw, str):
        raw = str(raw)
    return model.strip(), run, int(sample), raw


def _shape(data: dict[str, Any], report: Reporter) -> str | None:
    if "generation" in data:
        return "generation"
    if "item" in data:
        if "ratings" in data:
            return "ratings"
        if "answer" in data:
            return "answer"
        report.error("answer", _("a line about an item needs 'answer' or 'ratings'"))
        return None
    if "task" in data and ("accuracy" in data or "value" in data):
        return "aggregate"
    report.error(
        None,
        _("not a known line: expected item+answer, item+ratings, generation, or task+accuracy"),
    )
    return None


def _generation(
    data: dict[str, Any],
    model: str,
    run: str,
    sample: int,
    tasks: dict[str, Task],
    report: Reporter,
) -> ItemSpec | None:
    gen = data["generation"]
    if not isinstance(gen, dict):
        report.error("generation", _("must be an object with id, task, prompt and text"))
        return None
    sub = report.child("generation")
    gen_id = parse_id(gen.get("id"), sub)
    prompt = gen.get("prompt") or {}
    if not isinstance(prompt, dict):
        sub.error("prompt", _("must be an object"))
        prompt = {}
    task_slug = gen.get("task")
    task = tasks.get(task_slug) if isinstance(task_slug, str) else None
    if task is not None and not kind_of(task).scale:
        sub.error(
            "task",
            with_params(
                _("generations become rating items; task %(slug)r is %(kind)r"),
                slug=task.slug,
                kind=task.kind,
            ),
        )
    form = prompt.get("form") or (f"ci:{prompt['cipai']}" if prompt.get("cipai") else "")
    item = {
        "id": gen_id,
        "task": gen.get("task"),
        "poem": {
            "text": gen.get("text"),
            "title": prompt.get("title") or "",
            "form": form,
            "source": f"model:{model}",
            "condition": prompt.get("condition") or run,
        },
        "meta": {"prompt": prompt, "model": model, "run": run, "sample": sample},
    }
    values = parse_item(item, tasks, sub)
    if gen_id is None or values is None or sub.count:
        return None
    return ItemSpec(report.line or 0, gen_id, values)


def validate_llm_outputs(
    source: Source,
    study: Study,
    *,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> Parsed:
    collector = Collector(source.name)
    tasks = {t.slug: t for t in study.tasks.all()}
    parsed = Parsed()
    seen_gen: dict[str, int] = {}
    seen_answer: dict[tuple[RaterKey, str, int, str], int] = {}
    seen_aggregate: dict[tuple[str, str, str, str], int] = {}
    records = read_records(source, collector)
    checking = progress(
        records, show_progress, "validating", callback=on_progress, total=source.line_count
    )
    for record in checking:
        report = collector.at(record.line)
        data = record.data
        common = _common(data, report)
        shape = _shape(data, report)
        if common is None or shape is None:
            continue
        model, run, sample, raw = common
        if shape == "generation":
            spec = _generation(data, model, run, sample, tasks, report)
            if spec is not None:
                if spec.external_id in seen_gen:
                    report.error(
                        "generation.id",
                        with_params(
                            _("id %(external_id)r already used on line %(line)s"),
                            external_id=spec.external_id,
                            line=seen_gen[spec.external_id],
                        ),
                    )
                    continue
                seen_gen[spec.external_id] = record.line
                parsed.generations.append(spec)
        elif shape == "aggregate":
            agg = aggregate_parse(data, model, run, report)
            if agg is not None:
                agg_key = (agg["model"], agg["task"], agg["metric"], agg["run"])
                if agg_key in seen_aggregate:
                    report.error(
                        "task",
                        with_params(
                            _(
                                "%(model)s already has %(metric)r for task %(task)r on line %(line)s"
                            ),
                            model=model,
                            metric=agg["metric"],
                            task=agg["task"],
                            line=seen_aggregate[agg_key],
                        ),
                    )
                    continue
                seen_aggregate[agg_key] = record.line
                parsed.aggregates[agg_key] = agg
        else:
            item_id = parse_id(data.get("item"), report, "item")
            if item_id is None:
                continue
            key = (("model", model, run), item_id, sample, shape)
            if key in seen_answer:
                report.error(
                    "item",
                    with_params(
                        _(
                            "%(model)s already answered %(item_id)r on line %(line)s (use 'sample' for repeats)"
                        ),
                        model=model,
                        item_id=item_id,
                        line=seen_answer[key],
                    ),
                )
                continue
            seen_answer[key] = record.line
            payload = data.get(shape)
            parsed.answers.append(
                (record.line, ("model", model, run), item_id, shape, payload, sample, raw)
            )
    check_task_moves(study, parsed.generations, collector, "generation.id")
    _check_generation_owners(study, parsed.generations, collector)
    if not collector.problems and not (parsed.generations or parsed.answers or parsed.aggregates):
        collector.add(None, None, _("the file holds no LLM outputs"))
    _check_answers(parsed, study, tasks, collector)
    collector.raise_if_any()
    return parsed


def _check_generation_owners(study: Study, specs: list[ItemSpec], collector: Collector) -> None:
    """A generation may update the same model's generation, never another item (a pool
    poem, or another model's): its id would silently replace that poem's text."""
    wanted = {spec.external_id: spec for spec in specs}
    ids = sorted(wanted)
    for start in range(0, len(ids), 500):
        stored = Item.objects.filter(study=study, external_id__in=ids[start : start + 500])
        for ext, source in stored.values_list("external_id", "poem_source"):
            spec = wanted[ext]
            if source != spec.values["poem_source"]:
                owner = source or _("the pool (no poem source)")
                collector.add(
                    spec.line,
                    "generation.id",
                    with_params(
                        _(
                            "item %(ext)r already exists, from %(owner)s: a generation of %(source)r cannot replace it (use a new id)"
                        ),
                        ext=ext,
                        owner=owner,
                        source=spec.values["poem_source"],
                    ),
                )


def _check_answers(
    parsed: Parsed, study: Study, tasks: dict[str, Task], collector: Collector
) -> None:
    """Resolve items (stored, or generated in this file) and validate each answer."""
    if not parsed.answers:
        return
    items = {
        i.external_id: i
        for i in Item.objects.filter(study=study).only(
            "external_id", "task_id", "options", "parts", "answer"
        )
    }
    by_pk = {t.pk: t for t in tasks.values()}
    for spec in parsed.generations:
        items.setdefault(
            spec.external_id, Item(external_id=spec.external_id, task_id=spec.values["task_id"])
        )
    for line, rater, item_id, shape, payload, sample, raw in parsed.answers:
        report = collector.at(line)
        item = items.get(item_id)
        if item is None:
            report.error(
                "item",
                with_params(
                    _("no item %(item_id)r in study %(slug)r"), item_id=item_id, slug=study.slug
                ),
            )
            continue
        task = by_pk[item.task_id]
        result = parse_answer(item, task, **{shape: payload})
        for name, message in result.errors:
            report.error(f"{shape}.{name}" if name not in (shape,) else shape, message)
        if not result.errors:
            parsed.checked.append(Checked(item, task, rater, result.values, sample, raw))


def llm_outputs_write(
    parsed: Parsed,
    *,
    source: Source,
    study: Study,
    dry_run: bool = False,
    user: Any = None,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
) -> Summary:
    """Write validated LLM outputs (``validate_llm_outputs``) into ``study``, all or nothing."""
    rows = len(parsed.generations) + len(parsed.checked) + len(parsed.aggregates)
    summary = Summary(kind="llm_outputs", file=source.name, rows=rows, dry_run=dry_run)
    with transaction.atomic():
        item_sub = Summary(kind="", file="")
        ids = apply_items(
            study,
            parsed.generations,
            item_sub,
            show_progress=show_progress,
            on_progress=on_progress,
        )
        for outcome in ("created", "updated", "unchanged"):
            summary.count(outcome, getattr(item_sub, outcome), what="generated item")
        summary.items.extend(item_sub.items)
        raters = raters_ensure(study, [a.rater for a in parsed.checked], summary)
        rows_out: list[ResponseRow] = []
        for a in parsed.checked:
            item_pk = a.item.pk or ids[a.item.external_id]
            keyed = a.item if a.item.pk else None  # generated in this file: no key
            for fld, value in a.values.items():
                rows_out.append(
                    ResponseRow(
                        rater=a.rater,
                        item_id=item_pk,
                        task_id=a.task.pk,
                        field=fld,
                        value=value,
                        correct=keyed.grade(fld, value) if keyed else None,
                        sample=a.sample,
                        raw=a.raw,
                    )
                )
        responses_upsert(study, rows_out, raters, summary)
        for key, agg in parsed.aggregates.items():
            aggregate_upsert(study, key, agg, summary)
        load_finish(
            kind=ImportLog.Kind.LLM_OUTPUTS, study=study, source=source, summary=summary, user=user
        )
    return summary


__all__ = ["Rater", "llm_outputs_write", "validate_llm_outputs"]
