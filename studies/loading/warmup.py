"""A study definition's practice and qualification blocks (formats.md, "What Shiping
accepts"): each names one of the file's tasks, whose items every volunteer answers before
the questions. Practice answers are followed by the right answer and its explanation and
never counted; the qualification set is scored and routes the volunteer by score to a
group, or to a polite end. Every problem at the line of its field."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.kinds import KINDS
from studies.loading.fields import is_count
from studies.loading.problems import Collector
from studies.loading.study_parts import Lines
from studies.models import Item, Study
from studies.values import Text, with_params

ROUTE_KEYS = {"min_score", "group"}


def _warmup_task(
    block: Any, name: str, lines: Lines, tasks: list[dict[str, Any]], raw_tasks: Any
) -> str | None:
    """The slug of the task a block names, checked: one of the file's tasks, of a kind
    with an answer key; its ``per_participant`` is set to 0 (its items are not claimed
    among the questions: every volunteer answers all of them first)."""
    if not isinstance(block, dict):
        lines.at(name).error(None, _('must be an object naming a task, e.g. {"task": "warm-up"}'))
        return None
    slug = block.get("task")
    task = next((t for t in tasks if isinstance(slug, str) and t["slug"] == slug), None)
    if task is None:
        lines.at(f"{name}.task").error(
            None,
            with_params(_("%(task)r is not one of this file's tasks"), task=slug),
        )
        return None
    kind = KINDS.get(task["kind"]) if isinstance(task["kind"], str) else None
    if kind is not None and kind.scale:
        lines.at(f"{name}.task").error(
            None,
            with_params(
                _("task %(task)r is a rating task; practice and qualification need answer keys"),
                task=slug,
            ),
        )
    path = f"tasks[{task['position']}].per_participant"
    given = raw_tasks[task["position"]].get("per_participant", 0)
    if given not in (0, None):
        lines.at(path).error(
            None,
            with_params(
                _(
                    "task %(task)r is the %(block)s task: every volunteer answers all its items "
                    "first, so leave per_participant out (or 0)"
                ),
                task=slug,
                block=name,
            ),
        )
    task["per_participant"] = 0
    return slug


def _routes(raw: Any, lines: Lines, groups: set[str]) -> list[dict[str, Any]]:
    path = "qualification.routes"
    if not isinstance(raw, list) or not raw:
        lines.at(path).error(
            None,
            _('needs at least one route, e.g. [{"min_score": 3, "group": "C"}]'),
        )
        return []
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for i, route in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(route, dict):
            lines.at(where).error(None, _("must be an object with min_score and group"))
            continue
        unknown = sorted(set(route) - ROUTE_KEYS)
        if unknown:
            lines.at(f"{where}.{unknown[0]}").error(
                None, _("unknown key (a route has min_score and group)")
            )
        score: Any = route.get("min_score")
        if not is_count(score):
            lines.at(f"{where}.min_score").error(None, _("must be a whole number ≥ 0"))
            continue
        if int(score) in seen:
            lines.at(f"{where}.min_score").error(
                None, with_params(_("two routes start at score %(score)s"), score=score)
            )
        seen.add(int(score))
        group = route.get("group")
        if group is not None and (not isinstance(group, str) or group not in groups):
            lines.at(f"{where}.group").error(
                None, with_params(_("no group %(group)r is defined"), group=group)
            )
            continue
        out.append({"min_score": int(score), "group": group})
    return sorted(out, key=lambda r: -r["min_score"])


def parse_warmup(
    data: dict[str, Any], lines: Lines, tasks: list[dict[str, Any]], groups: set[str]
) -> dict[str, Any]:
    """The Study fields the file's ``practice`` and ``qualification`` give (only those it
    gives; ``null`` removes one)."""
    out: dict[str, Any] = {}
    if "practice" in data:
        raw = data["practice"]
        out["practice_task"] = (
            ""
            if raw is None
            else (_warmup_task(raw, "practice", lines, tasks, data["tasks"]) or "")
        )
    if "qualification" in data:
        raw = data["qualification"]
        if raw is None:
            out["qualification"] = {}
        else:
            slug = _warmup_task(raw, "qualification", lines, tasks, data["tasks"])
            if slug is not None and slug == out.get("practice_task"):
                lines.at("qualification.task").error(
                    None, _("the qualification task cannot be the practice task")
                )
            routes = _routes(raw.get("routes") if isinstance(raw, dict) else None, lines, groups)
            out["qualification"] = {"task": slug or "", "routes": routes}
    return out


def warmup_tasks(study: Study) -> dict[str, str]:
    """Task slug -> the warm-up block that names it (``practice``, ``qualification``)."""
    out: dict[str, str] = {}
    if study.practice_task:
        out[study.practice_task] = "practice"
    qualifying = (study.qualification or {}).get("task")
    if qualifying:
        out[str(qualifying)] = "qualification"
    return out


def warmup_check_problem(task: str, block: str) -> Text:
    """Why an attention check cannot be an item of a warm-up task (pool and study files)."""
    return with_params(
        _(
            "task %(task)r is the study's %(block)s task, whose answers are never counted: "
            "it cannot hold attention checks (leave attention_check out here, or move the "
            "check to a task of questions)"
        ),
        task=task,
        block=block,
    )


def refuse_warmup_checks(study: Study, collector: Collector) -> None:
    """A study file that makes a task holding attention checks its practice or
    qualification task is refused at that block's ``task`` field (the pool loader refuses
    the other order: ``studies.loading.pool``)."""
    for block, problem in warmup_check_problems(study, warmup_tasks(study)):
        collector.add(None, f"{block}.task", problem)


def warmup_check_problems(study: Study, tasks: dict[str, str]) -> list[tuple[str, Text]]:
    """(block, why) for each of ``tasks`` (slug -> warm-up block) that holds an
    attention check in ``study``: the study file's and the admin's one rule."""
    out: list[tuple[str, Text]] = []
    for slug, block in tasks.items():
        checks = Item.objects.filter(study=study, task__slug=slug, is_attention_check=True)
        first = checks.order_by("position", "pk").values_list("external_id", flat=True).first()
        if first is not None:
            problem = with_params(
                _("%(problem)s; item %(item)r is one"),
                problem=warmup_check_problem(slug, block),
                item=first,
            )
            out.append((block, problem))
    return out
