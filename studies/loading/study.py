"""Study definitions (formats.md §1), JSON or YAML: validate, then upsert by slug."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from studies.loading.fields import count_problem, is_count
from studies.loading.finish import load_finish
from studies.loading.problems import Collector, LoadError, Note, Problem, Summary
from studies.loading.progress import ProgressCallback
from studies.loading.readers import Source, read_document
from studies.loading.study_parts import (
    Lines,
    parse_rate_limits,
    parse_screening,
    parse_slug,
    parse_tasks,
)
from studies.loading.study_settings import SETTINGS, parse_settings
from studies.loading.warmup import parse_warmup, refuse_warmup_checks
from studies.models import Group, ImportLog, ScreeningQuestion, Study, Task
from studies.values import parse_text, with_params

STUDY_FIELDS = ("title", "description", "consent", "status")

DRAFT_NOTE = gettext_lazy(
    "The study is a draft: volunteers cannot open it and the home page does not list it "
    'until a researcher opens it (the admin\'s action "Open", or load_study --open).'
)
KNOWN_KEYS = {
    "slug",
    "groups",
    "screening",
    "tasks",
    "target_per_item",
    "settings",
    "rate_limits",
    "practice",
    "qualification",
    *STUDY_FIELDS,
    *SETTINGS,
}


@dataclass
class StudySpec:
    slug: str
    fields: dict[str, Any]
    groups: list[dict[str, Any]] = field(default_factory=list)
    screening: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)


def parse_study(data: Any, lines: Lines) -> StudySpec | None:
    top = lines.at("")
    if not isinstance(data, dict):
        top.error(None, _("a study definition must be an object"))
        return None
    slug = parse_slug(data.get("slug"), lines.at("slug"), None, max_length=100)
    fields: dict[str, Any] = {}
    fields["title"] = parse_text(
        data.get("title"), lines.at("title"), "", required=True, max_length=300
    )
    for key in ("description", "consent"):
        fields[key] = parse_text(data.get(key), lines.at(key), "", required=False)
    # Without a status a new study is a draft (closed and unlisted until a researcher
    # opens it) and a reloaded one keeps the status it has.
    if "status" in data:
        status = data["status"]
        if not isinstance(status, str) or status not in Study.Status.values:
            lines.at("status").error(
                None, with_params(_("%(status)r is not one of draft, open, closed"), status=status)
            )
        fields["status"] = status
    fields.update(parse_settings(data, lines))
    fields["rate_limits"] = parse_rate_limits(data.get("rate_limits"), lines)
    extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
    fields["meta"] = extra
    spec = StudySpec(slug=slug or "", fields=fields)
    spec.groups = _groups(data, lines, people_answer(data))
    if not spec.groups and fields.get("status") == Study.Status.OPEN:
        lines.at("status").error(
            None, _("a study with no groups has no volunteers: it cannot be open")
        )
    group_slugs = {g["slug"] for g in spec.groups}
    spec.screening = parse_screening(data.get("screening"), lines, group_slugs)
    spec.tasks = parse_tasks(data.get("tasks"), lines)
    fields.update(parse_warmup(data, lines, spec.tasks, group_slugs))
    return spec


def people_answer(data: dict[str, Any]) -> bool:
    """Whether volunteers answer anything: a screening, practice or qualification block,
    or a task with ``per_participant`` other than 0 (10 when left out). A study of
    generated poems only (every task ``per_participant: 0``) needs no group."""
    if any(data.get(key) for key in ("screening", "practice", "qualification")):
        return True
    tasks = data.get("tasks")
    return not isinstance(tasks, list) or any(
        not isinstance(t, dict) or t.get("per_participant", 10) != 0 for t in tasks
    )


def _groups(data: dict[str, Any], lines: Lines, needed: bool = True) -> list[dict[str, Any]]:
    raw = data.get("groups")
    if not needed and (raw is None or raw == []) and "target_per_item" not in data:
        return []
    if not isinstance(raw, list) or not raw:
        lines.at("groups").error(None, _("at least one group is required"))
        return []
    targets = data.get("target_per_item", 1)
    groups: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, g in enumerate(raw):
        path = f"groups[{i}]"
        if not isinstance(g, dict):
            lines.at(path).error(None, _("must be an object with slug and name"))
            continue
        slug = parse_slug(g.get("slug"), lines.at(f"{path}.slug"), None)
        name = (
            parse_text(g.get("name"), lines.at(f"{path}.name"), "", required=False, max_length=200)
            or slug
        )
        if slug in seen:
            lines.at(f"{path}.slug").error(
                None, with_params(_("group %(slug)r is defined twice"), slug=slug)
            )
        if slug:
            seen.add(slug)
        target, where = g.get("target_per_item"), f"{path}.target_per_item"
        if target is None and isinstance(targets, dict):
            target, where = targets.get(slug, 1), f"target_per_item.{slug}"
        elif target is None:  # the study's one target: checked once, below
            target, where = (targets if is_count(targets) else 0), ""
        if (problem := count_problem(target)) is not None:
            lines.at(where).error(None, problem)
            target = 0
        groups.append({"slug": slug, "name": name, "target_per_item": int(target), "position": i})
    if isinstance(targets, dict):
        for key in targets:
            if key not in seen:
                lines.at(f"target_per_item.{key}").error(
                    None, with_params(_("no group %(key)r is defined"), key=key)
                )
    elif (problem := count_problem(targets)) is not None:
        if isinstance(targets, list | str | bool) or targets is None:
            problem = _("must be a whole number or a map of group → number")
        lines.at("target_per_item").error(None, problem)
    return groups


def validate_study(source: Source) -> StudySpec:
    collector = Collector(source.name)
    data, line_map = read_document(source, collector)
    spec = parse_study(data, Lines(collector, line_map)) if not collector.problems else None
    collector.raise_if_any()
    assert spec is not None
    return spec


def _upsert(
    model: Any, lookup: dict[str, Any], values: dict[str, Any], summary: Summary, what: str
) -> Any:
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup, **values)
        try:
            obj.full_clean()
        except ValidationError as exc:  # a value validation let through: still a clean refusal
            raise LoadError(
                [
                    Problem(summary.file, None, f"{what}.{name}", message)
                    for name, messages in exc.message_dict.items()
                    for message in messages
                ]
            ) from exc
        obj.save()
        summary.count("created", what=what)
        return obj
    changed = [k for k, v in values.items() if getattr(obj, k) != v]
    if changed:
        for k in changed:
            setattr(obj, k, values[k])
        obj.save(update_fields=changed)
        summary.count("updated", what=what)
    else:
        summary.count("unchanged", what=what)
    return obj


def apply_study(spec: StudySpec, summary: Summary) -> Study:
    study = _upsert(Study, {"slug": spec.slug}, spec.fields, summary, "study")
    for g in spec.groups:
        _upsert(Group, {"study": study, "slug": g["slug"]}, _without(g, "slug"), summary, "group")
    for q in spec.screening:
        _upsert(
            ScreeningQuestion,
            {"study": study, "key": q["key"]},
            _without(q, "key"),
            summary,
            "screening question",
        )
    for t in spec.tasks:
        existing = Task.objects.filter(study=study, slug=t["slug"]).first()
        if existing and existing.kind != t["kind"] and existing.items.exists():
            collector = Collector(summary.file)
            collector.add(
                None,
                f"tasks.{t['slug']}.kind",
                with_params(
                    _("task %(slug)r already has items of kind %(kind)r; its kind cannot change"),
                    slug=t["slug"],
                    kind=existing.kind,
                ),
            )
            collector.raise_if_any()
        _upsert(Task, {"study": study, "slug": t["slug"]}, _without(t, "slug"), summary, "task")
    collector = Collector(summary.file)
    refuse_warmup_checks(study, collector)
    collector.raise_if_any()
    return study


def _without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


def study_write(
    spec: StudySpec,
    *,
    source: Source,
    dry_run: bool = False,
    user: Any = None,
    on_progress: ProgressCallback | None = None,
) -> Summary:
    """Create or update a validated study definition (``validate_study``) atomically."""
    summary = Summary(kind="study", file=source.name, rows=1, dry_run=dry_run)
    with transaction.atomic():
        study = apply_study(spec, summary)
        if study.status == Study.Status.DRAFT:
            summary.notes.append(Note("study_draft", str(DRAFT_NOTE)))
        load_finish(
            kind=ImportLog.Kind.STUDY, study=study, source=source, summary=summary, user=user
        )
    if on_progress is not None:
        on_progress("writing", 1, 1)
    return summary
