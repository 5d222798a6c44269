"""A frozen analysis plan (docs/report.md, "Frozen analysis plan").

A researcher freezes the plan before opening a study: the design the volunteers will see
(tasks, their items, groups, exclusion settings, rule raters and their version), the
analysis settings the report will use (confidence, pass threshold, minimum side size,
intervals, clustering, resamples), the model and rule raters the study holds (with their
runs: a rule rater's run is its rules' version), the participants a researcher has
excluded so far, and the commitments the platform cannot read from the study (primary
comparisons, planned sample sizes, exclusion rules in words, a note). The plan is stored
as canonical JSON with its SHA-256 (``studies.AnalysisPlan``).

Every later report compares the study and its own settings with the newest plan: each
setting that differs is a deviation, recorded the first time a report sees it with the
number of answers the study held then (``studies.PlanDeviation``), and listed in the
report's ``plan_deviations`` table ("pass_threshold: 0.8 → 0.9, first seen after 412
answers"), with a note in words (English; the dashboard translates it): a model or rule
rater added or removed after freezing, a participant excluded by a researcher's decision
after freezing (and how many, with their public ids). The plan exports as a
preregistration document (Markdown or JSON).

Plans of format 1 (frozen before the raters and the researcher's exclusions were part of
a plan) are never rewritten (their hash is their identity): for them both sections are
reconstructed from the record, as of the plan's ``frozen_at`` (``baseline``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import translation

from annotation.models import QualityDecision, Rater, Response
from annotation.quality import PLAN_RULES
from scoring.prosody import RULES_VERSION
from scoring.report.settings import ReportSettings
from scoring.rules import rule_run, run_label, scorable_poems, study_rule_raters
from studies.models import AnalysisPlan, Item, PlanDeviation, Study, default_rule_raters

#: 2: with ``raters`` and ``exclusions`` (format 1 plans have neither: ``baseline``)
FORMAT = 2
#: The study's own settings that belong to the plan (what volunteers see and who counts).
STUDY_FIELDS = (
    "shuffle_options",
    "randomize_task_order",
    "hide_authors",
    "attention_max_failures",
    "exclude_flagged",
    "rule_raters",
    "reading_overrides",
    "cipu_source",
)
#: The report settings that are analysis choices (``by`` and ``tasks`` only choose a view;
#: ``seed`` only which resamples).
ANALYSIS_FIELDS = ("confidence", "pass_threshold", "min_side", "ratings_ci", "cluster", "n_boot")
COMPARED = ("design", "analysis", "raters", "exclusions")
#: Sections that list names (raters, participants): an empty list is no setting of its own.
LISTING = ("raters", "exclusions")
#: The rater kinds a plan lists (people are participants, counted by the design's groups).
PLANNED_KINDS = (Rater.Kind.MODEL.value, Rater.Kind.RULE.value)


class PlanError(ValueError):
    """A plan that cannot be frozen as asked."""


def canonical(content: Mapping[str, Any]) -> str:
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(content: Any) -> str:
    text = content if isinstance(content, str) else canonical({"v": content})
    return hashlib.sha256(text.encode()).hexdigest()


def _task_items(study: Study) -> dict[int, dict[str, Any]]:
    """Per task id: its item and attention-check counts and a digest of its items, from one
    read of the study's items (a task with no items is absent)."""
    rows = study.items.order_by("task_id", "content_hash").values_list(
        "task_id", "external_id", "content_hash", "is_attention_check"
    )
    pairs: dict[int, list[tuple[str, str]]] = {}
    counts: dict[int, list[int]] = {}
    for task_id, external_id, content_hash, check in rows.iterator(chunk_size=5000):
        pairs.setdefault(task_id, []).append((external_id, content_hash))
        counts.setdefault(task_id, [0, 0])[1 if check else 0] += 1
    return {
        t: {"n_items": counts[t][0], "n_checks": counts[t][1], "items_sha256": digest(p)}
        for t, p in pairs.items()
    }


def design(study: Study) -> dict[str, Any]:
    """What the study is now: its plan-relevant settings, tasks (with a digest of their
    items) and groups."""
    out: dict[str, Any] = {name: getattr(study, name) for name in STUDY_FIELDS}
    items = _task_items(study)
    empty = {"n_items": 0, "n_checks": 0, "items_sha256": digest([])}
    if out["cipu_source"] == "best":
        # the default, and what every study scored with before the setting existed: left
        # out, so a plan frozen then shows no deviation
        del out["cipu_source"]
    out["tasks"] = {
        task.slug: {
            "kind": task.kind,
            "per_participant": task.per_participant,
            "dimensions": task.dimensions,
            **items.get(task.pk, empty),
        }
        for task in study.tasks.order_by("position", "slug")
    }
    out["groups"] = {
        group.slug: {"target_per_item": group.target_per_item}
        for group in study.groups.filter(is_test=False).order_by("position", "slug")
    }
    return out


def analysis(settings: ReportSettings) -> dict[str, Any]:
    values = settings.as_json()
    out = {name: values[name] for name in ANALYSIS_FIELDS}
    out["rules_version"] = RULES_VERSION
    return out


RaterRow = tuple[str, str, str]  # kind, name, run


def _rater_listing(rows: Iterable[RaterRow]) -> dict[str, Any]:
    out: dict[str, dict[str, set[str]]] = {}
    for kind, name, run in rows:
        out.setdefault(kind, {}).setdefault(name, set()).add(run)
    return {k: {n: sorted(r) for n, r in sorted(v.items())} for k, v in sorted(out.items())}


def _implied_rules(study: Study, families: Iterable[str], run: str) -> list[RaterRow]:
    """The rule raters a study's settings call for (``scoring.rules.rule_rater``) when it
    has poems to score: stored when the poems are scored, which may come after the plan
    is frozen (a large load leaves scoring to ``score_poems``): planned all the same."""
    if not scorable_poems(Item.objects.filter(study=study)).exists():
        return []
    return [(Rater.Kind.RULE.value, f"prosody:{name}", run) for name in families]


def raters(study: Study) -> dict[str, Any]:
    """The study's model and rule raters: kind -> name -> its runs (a model's prompt
    conditions; a rule rater's rules version, ``RULES_VERSION`` with the 词谱 source and
    reading overrides when not the default: ``scoring.rules.rule_run``), those stored and
    the rule raters its settings call for."""
    rows = Rater.objects.filter(study=study, kind__in=PLANNED_KINDS).values_list(
        "kind", "name", "run"
    )
    implied = _implied_rules(study, study_rule_raters(study), rule_run(study))
    return _rater_listing([*rows, *implied])


def _excluded(decisions: QuerySet[QualityDecision]) -> dict[str, Any]:
    rows = decisions.filter(decision=QualityDecision.Decision.EXCLUDE, participant__is_test=False)
    decided = dict(
        rows.order_by("participant__public_id").values_list("participant__public_id", "reason")
    )
    return {"decided": decided, "n_decided": len(decided)}


def exclusions(study: Study) -> dict[str, Any]:
    """The participants a researcher's decision excludes (``annotation.quality``): public
    id -> the decision's reason, and how many."""
    return _excluded(QualityDecision.objects.filter(participant__study=study))


def baseline(plan: AnalysisPlan) -> dict[str, Any]:
    """The plan's content with every compared section: a format 1 plan's raters are
    those with an answer stored by ``frozen_at`` and the rule raters its own settings
    call for (its ``rule_raters``, ``rules_version``, 词谱 source and reading overrides),
    its researcher's exclusions those decided by then (a decision changed since counts
    as made after freezing)."""
    content = dict(plan.content)
    study, at = plan.study, plan.frozen_at
    if "raters" not in content:
        early = Response.objects.filter(rater=OuterRef("pk"), created_at__lte=at)
        rows = (
            Rater.objects.filter(study=study, kind__in=PLANNED_KINDS)
            .filter(Exists(early))
            .values_list("kind", "name", "run")
        )
        planned = content.get("design", {})
        run = run_label(
            content.get("analysis", {}).get("rules_version", RULES_VERSION),
            planned.get("cipu_source") or "best",
            planned.get("reading_overrides") or {},
        )
        families = planned.get("rule_raters") or default_rule_raters()
        content["raters"] = _rater_listing([*rows, *_implied_rules(study, families, run)])
    if "exclusions" not in content:
        content["exclusions"] = _excluded(
            QualityDecision.objects.filter(participant__study=study, decided_at__lte=at)
        )
    return content


@dataclass(frozen=True)
class Commitments:
    """What the researcher commits to that the study itself does not say."""

    primary: tuple[str, ...] = ()
    sample_sizes: tuple[tuple[str, int], ...] = ()
    exclusions: tuple[str, ...] = ()
    note: str = ""
    #: exclusion rules the report applies by itself: quality flags (``PLAN_RULES``) whose
    #: participants leave the report unless a researcher decided on them
    exclude_flags: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "primary": list(self.primary),
            "sample_sizes": dict(self.sample_sizes),
            "exclusions": list(self.exclusions),
            "note": self.note,
        }
        if self.exclude_flags:  # absent when empty: plans frozen before keep their form
            out["exclude_flags"] = [r for r in PLAN_RULES if r in self.exclude_flags]
        return out


def plan_content(
    study: Study, settings: ReportSettings, commitments: Commitments
) -> dict[str, Any]:
    unknown = [g for g, _n in commitments.sample_sizes if not study.groups.filter(slug=g).exists()]
    if unknown:
        raise PlanError(f"sample size for an unknown group: {', '.join(unknown)}")
    wrong = [r for r in commitments.exclude_flags if r not in PLAN_RULES]
    if wrong:
        raise PlanError(
            f"unknown exclusion rule: {', '.join(wrong)} (known: {', '.join(PLAN_RULES)})"
        )
    return {
        "format": FORMAT,
        "study": study.slug,
        "design": design(study),
        "analysis": analysis(settings),
        "raters": raters(study),
        "exclusions": exclusions(study),
        "commitments": commitments.as_json(),
    }


def current_plan(study: Study) -> AnalysisPlan | None:
    return AnalysisPlan.objects.filter(study=study).order_by("-frozen_at", "-pk").first()


def exclusion_rules(study: Study) -> tuple[str, ...]:
    """The quality flags the newest plan excludes by itself (none without a plan)."""
    plan = current_plan(study)
    if plan is None:
        return ()
    given = plan.content.get("commitments", {}).get("exclude_flags", [])
    return tuple(r for r in PLAN_RULES if r in given)


def plan_freeze(
    study: Study,
    settings: ReportSettings,
    commitments: Commitments,
    *,
    user: Any = None,
    replace: bool = False,
) -> AnalysisPlan:
    """Freeze the plan of ``study`` (a service). A study with a plan keeps it unless
    ``replace``: then the new plan is stored beside the old, and the change of plan is
    itself visible (the old plan, its hash and date stay in the record)."""
    content = plan_content(study, settings, commitments)
    with transaction.atomic():
        Study.objects.select_for_update().filter(pk=study.pk).first()
        if current_plan(study) is not None and not replace:
            raise PlanError(
                f"{study.slug} already has a frozen plan: give --replace to freeze a new one "
                "(the old one stays on record)"
            )
        return AnalysisPlan.objects.create(
            study=study,
            content=content,
            sha256=digest(canonical(content)),
            n_responses=Response.objects.filter(study=study).count(),
            frozen_by=user if getattr(user, "is_authenticated", False) else None,
        )


MISSING = "(absent)"


@dataclass(frozen=True)
class Deviation:
    path: str
    planned: Any
    actual: Any
    #: what departed, in words (English, a template of research/dashboard/reasons.py)
    note: str = ""


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for key in sorted(value):
            out.update(_flat(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _section(content: Mapping[str, Any], section: str) -> dict[str, Any]:
    flat = _flat(content.get(section, {}), section)
    if section in LISTING:  # no model rater at all is no setting "raters.model: {}"
        flat = {path: value for path, value in flat.items() if value != {}}
    return flat


def _change(was: Any, now: Any) -> str:
    if was == MISSING:
        return "added"
    return "removed" if now == MISSING else "changed"


def _reason_words(reason: Any) -> str:
    """A decision's reason as its English label (a msgid: the dashboard translates it)."""
    try:
        label = QualityDecision.Reason(reason).label
    except ValueError:
        return str(reason)
    with translation.override("en"):
        return str(label)


def note(path: str, was: Any, now: Any, newly_excluded: Sequence[str] = ()) -> str:
    """The departure at ``path`` in words (English; templates of the dashboard's
    ``research/dashboard/reasons.py``)."""
    parts = path.split(".", 2)
    change = _change(was, now)
    if parts[0] == "raters" and len(parts) == 3:
        kind = "model rater" if parts[1] == Rater.Kind.MODEL else "rule rater"
        if change == "changed":
            what = "runs" if parts[1] == Rater.Kind.MODEL else "version"
            return f"{kind}'s {what} changed after freezing: {parts[2]}"
        return f"{kind} {change} after freezing: {parts[2]}"
    if path == "exclusions.n_decided":
        ids = ", ".join(newly_excluded)
        return (
            f"{len(newly_excluded)} participant(s) excluded by a researcher after "
            f"freezing: {ids or '-'}"
        )
    if parts[0] == "exclusions" and len(parts) == 3:
        who = parts[2]
        if change == "added":
            return (
                f"participant {who} excluded by a researcher after freezing ({_reason_words(now)})"
            )
        if change == "removed":
            return f"exclusion of participant {who} withdrawn after freezing"
        return (
            f"reason for excluding participant {who} changed after freezing ({_reason_words(now)})"
        )
    return f"{change} after freezing"


def compare(planned: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Deviation]:
    """Every setting of the compared sections whose value differs (a task or group added
    or removed shows as its settings going from or to ``(absent)``; a rater or an
    excluded participant added or removed likewise)."""
    out: list[Deviation] = []
    was_out = planned.get("exclusions", {}).get("decided", {})
    newly = sorted(set(actual.get("exclusions", {}).get("decided", {})) - set(was_out))
    for section in COMPARED:
        left = _section(planned, section)
        right = _section(actual, section)
        for path in sorted(set(left) | set(right)):
            was, now = left.get(path, MISSING), right.get(path, MISSING)
            if was != now:
                out.append(Deviation(path, was, now, note(path, was, now, newly)))
    return out


def deviations(study: Study, settings: ReportSettings, plan: AnalysisPlan) -> list[Deviation]:
    now = {
        "design": design(study),
        "analysis": analysis(settings),
        "raters": raters(study),
        "exclusions": exclusions(study),
    }
    return compare(baseline(plan), now)


def deviations_record(study: Study, settings: ReportSettings) -> int:
    """Record the deviations a report with ``settings`` would list that no report saw
    before (a service, called before a report is built); returns how many are new."""
    plan = current_plan(study)
    if plan is None:
        return 0
    found = deviations(study, settings, plan)
    seen = set(plan.deviations.values_list("path", "actual_sha256"))
    new = [d for d in found if (d.path, digest(d.actual)) not in seen]
    if not new:
        return 0
    n = Response.objects.filter(study=study).count()
    made = 0
    for d in new:
        try:
            with transaction.atomic():
                PlanDeviation.objects.create(
                    plan=plan,
                    path=d.path,
                    planned=d.planned,
                    actual=d.actual,
                    actual_sha256=digest(d.actual),
                    n_responses=n,
                )
            made += 1
        except IntegrityError:  # another report recorded it meanwhile
            continue
    return made


def deviation_rows(study: Study, settings: ReportSettings) -> list[dict[str, Any]]:
    """The report's ``plan_deviations`` rows (a read): each setting that differs from the
    newest frozen plan, with when a report first saw it."""
    plan = current_plan(study)
    if plan is None:
        return []
    seen = {(r.path, r.actual_sha256): r for r in plan.deviations.all()}
    rows = []
    for d in deviations(study, settings, plan):
        record = seen.get((d.path, digest(d.actual)))
        rows.append(
            {
                "setting": d.path,
                "planned": d.planned,
                "actual": d.actual,
                "reason": d.note,
                "first_seen_after": record.n_responses if record else None,
                "first_seen_at": record.first_seen_at.isoformat() if record else None,
                "plan_sha256": plan.sha256,
                "frozen_at": plan.frozen_at.isoformat(),
                "frozen_after": plan.n_responses,
            }
        )
    return rows


def plan_summary(study: Study) -> dict[str, Any] | None:
    """The newest plan's identity for the report's provenance (None: no plan)."""
    plan = current_plan(study)
    if plan is None:
        return None
    return {
        "sha256": plan.sha256,
        "frozen_at": plan.frozen_at.isoformat(),
        "frozen_after": plan.n_responses,
        "plans": AnalysisPlan.objects.filter(study=study).count(),
    }


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _lines(rows: Iterable[tuple[str, Any]]) -> list[str]:
    return [f"| `{key}` | {shown(value)} |" for key, value in rows]


NOT_RECORDED = "(not recorded: a plan of format 1; reports compare the record as of freezing)"


def _excluded_lines(c: Mapping[str, Any]) -> list[str]:
    if "exclusions" not in c:
        return [f"- Excluded by a researcher's decision when frozen: {NOT_RECORDED}"]
    decided = c["exclusions"].get("decided", {})
    head = (
        f"- Excluded by a researcher's decision when frozen: {len(decided)}; any later "
        "decision is listed as a deviation"
    )
    return [head, *[f"  - `{who}` ({_reason_words(why)})" for who, why in decided.items()]]


def _rater_lines(c: Mapping[str, Any]) -> list[str]:
    if "raters" not in c:
        return [NOT_RECORDED]
    rows = [
        f"| {kind} | `{name}` | {', '.join(runs) or '(none)'} |"
        for kind, names in c["raters"].items()
        for name, runs in names.items()
    ]
    if not rows:
        return ["(none when frozen; any added later is listed as a deviation)"]
    return ["| kind | rater | runs (a rule rater's: its rules version) |", "|---|---|---|", *rows]


def preregistration(plan: AnalysisPlan) -> str:
    """The plan as a Markdown preregistration document."""
    c = plan.content
    commit = c["commitments"]
    out = [
        f"# Analysis plan: {plan.study.title} (`{c['study']}`)",
        "",
        f"- Frozen at: {plan.frozen_at.isoformat()}",
        f"- Answers held when frozen: {plan.n_responses}",
        f"- SHA-256 of the plan (canonical JSON): `{plan.sha256}`",
        f"- Rule raters' version: {c['analysis'].get('rules_version')}",
        "",
        "## Primary comparisons",
        "",
        *([f"{n}. {p}" for n, p in enumerate(commit["primary"], 1)] or ["(none stated)"]),
        "",
        "## Planned sample sizes",
        "",
        *(
            [f"- {group}: {n} participants" for group, n in commit["sample_sizes"].items()]
            or ["(none stated)"]
        ),
        "",
        "## Exclusion rules",
        "",
        *([f"- {e}" for e in commit["exclusions"]] or ["(as the study settings below)"]),
        *[
            f"- Applied by the platform: participants flagged `{r}` are excluded unless a "
            "researcher decides to keep them"
            for r in commit.get("exclude_flags", [])
        ],
        "",
        *_excluded_lines(c),
        "",
        "## Analysis settings",
        "",
        "| setting | value |",
        "|---|---|",
        *_lines(sorted(c["analysis"].items())),
        "",
        "## Model and rule raters",
        "",
        *_rater_lines(c),
        "",
        "## Design",
        "",
        "| setting | value |",
        "|---|---|",
        *_lines(sorted(_flat(c["design"]).items())),
        "",
    ]
    if commit["note"]:
        out += ["## Note", "", commit["note"], ""]
    return "\n".join(out)
