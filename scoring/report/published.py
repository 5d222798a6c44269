"""The ``published_vs_computed`` table: each loaded published figure beside the platform's.

Every ``AggregateResult`` (published figures loaded with the LLM outputs) is matched by
name with a figure the platform computes from the study's own rows:

* ``accuracy`` on a task slug of the study: the accuracy of ``model:<model>`` (with its
  ``run``) on the task's headline field (``answer``, or ``*`` all parts right);
* a metric named as a stored rule metric (``structural``, ``tonal_standard``…, also
  with a ``_accuracy``, ``_rate`` or ``_score`` suffix: ``structural_accuracy`` →
  ``structural``): the rate or mean of each rule rater storing it over the poems the
  model wrote (``source_model``), in the prompt condition named by ``run`` when some
  poems have it, of the task when the aggregate names a task of the study.

A metric published under a benchmark's own name is read through :data:`METRIC_ALIASES`
(CCiV's ``structural_std`` is ``structural_standard`` …), and an ``accuracy`` a benchmark
publishes for a generation task, which the study holds as a rating task of generated
poems, through :data:`TASK_METRICS` (Fùxì's ``CiG`` is ``structural_fuxi``, its ``CG`` the
couplet's ``length``); each entry names its source.

A task written ``<task>:<form>`` (``CiG:浣溪沙``, FuxiBench's per-cipai figures)
restricts to poems of that form (``ci:浣溪沙``; ``shi:…`` and ``couplet`` as written).
``difference`` = computed − published. Aggregates with no such figure are listed with
``match = no match`` and the reason, never dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from annotation.models import AggregateResult
from scoring.agreement import wilson_interval
from scoring.report.accuracy import per_rater
from scoring.report.data import StudyData
from scoring.report.rule_rates import estimate, is_binary, rule_frame
from scoring.report.sets import RaterSet, model_label
from scoring.report.settings import ReportSettings
from studies.kinds import KINDS

SUFFIXES = ("_accuracy", "_acc", "_rate", "_score")

_CCIV = "CCiV paper, Table 2 (structural / tonal accuracy, standard / variant form)"
_FUXI_CIG = (
    "FuxiBench evaluate.py: CiG is scored with metric pacc = ci_format_acc "
    "(src/cipai_utils.py; cipai_stats.csv and eval_results_icl.csv publish it as accuracy)"
)
_FUXI_CG = (
    "FuxiBench evaluate.py: CG is scored with metric cacc = couplet_format_acc (same "
    "segments and segment lengths as the reference couplet; eval_results_icl.csv: accuracy)"
)

# A metric name as a benchmark's published file writes it -> (the rule metric, source).
# Names are compared lower-cased, with spaces and hyphens as underscores and a suffix of
# SUFFIXES dropped (``Structural_Std_Accuracy`` -> ``structural_std``).
METRIC_ALIASES: dict[str, tuple[str, str]] = {
    "structural_std": ("structural_standard", _CCIV),
    "structural_var": ("structural_variant", _CCIV),
    "tonal_std": ("tonal_standard", _CCIV),
    "tonal_var": ("tonal_variant", _CCIV),
    "struct_std": ("structural_standard", _CCIV),
    "struct_var": ("structural_variant", _CCIV),
    "tone_std": ("tonal_standard", _CCIV),
    "tone_var": ("tonal_variant", _CCIV),
    "pacc": ("structural_fuxi", _FUXI_CIG),
    "cacc": ("length", _FUXI_CG),
}
# The rule metric an ``accuracy`` published for a benchmark's generation task reports
# (task names compared lower-cased).
TASK_METRICS: dict[str, tuple[str, str]] = {
    "cig": ("structural_fuxi", _FUXI_CIG),
    "ci_gen": ("structural_fuxi", _FUXI_CIG),
    "cg": ("length", _FUXI_CG),
    "couplet_gen": ("length", _FUXI_CG),
}


def _normal(metric: str) -> str:
    name = metric.strip().lower().replace(" ", "_").replace("-", "_")
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def rule_metric(metric: str, task: str) -> tuple[str, str] | None:
    """(rule metric, source of the alias) a published figure reports, or None when it is
    not a rule metric: an ``accuracy`` is one only on a benchmark generation task."""
    base = task.partition(":")[0].strip().lower()
    name = _normal(metric)
    if name == "accuracy":
        return TASK_METRICS.get(base)
    if name in METRIC_ALIASES:
        return METRIC_ALIASES[name]
    return name, "the platform's own metric name"


def _form(suffix: str) -> str:
    return suffix if suffix.startswith(("ci:", "shi:", "couplet")) else f"ci:{suffix}"


def _task_and_form(task: str) -> tuple[str, str | None]:
    base, _, suffix = task.partition(":")
    return base, (_form(suffix) if suffix else None)


def _accuracy(
    data: StudyData,
    sets: list[RaterSet],
    agg: AggregateResult,
    form: str | None,
    opts: ReportSettings,
) -> list[dict[str, Any]]:
    base, _ = _task_and_form(agg.task)
    task = next((t for t in data.tasks.values() if t.slug == base and not t.is_rating), None)
    label = model_label(agg.model, agg.run)
    model = next((s for s in sets if s.name == label), None)
    if task is None or model is None:
        return []
    fld = KINDS[task.kind].headline or "answer"
    subset = data
    if form is not None:
        keep = data.items.index[data.items["form"].to_numpy() == form]
        frame = data.responses
        subset = StudyData(
            data.study,
            data.tasks,
            data.items,
            data.raters,
            frame.loc[np.isin(frame["item"].to_numpy(), keep)].reset_index(drop=True),
            data.group_slugs,
        )
    rates = per_rater(subset)
    mine = rates.loc[
        (rates["task"] == task.id) & (rates["field"] == fld) & rates["rater"].isin(model.raters)
    ]
    k, n = int(mine["successes"].sum()), int(mine["n"].sum())
    if n == 0:
        return []
    ci = wilson_interval(k, n, confidence=opts.confidence)
    where = f" on {form} items" if form else ""
    what = f"accuracy of {label} on {task.slug}/{fld}{where}"
    return [_row(agg, ci.value, n, ci.ci_low, ci.ci_high, "wilson", what)]


def _study_task(data: StudyData, name: str) -> Any:
    """The study's task of that slug (exactly, else ignoring case), or None."""
    tasks = list(data.tasks.values())
    return next((t for t in tasks if t.slug == name), None) or next(
        (t for t in tasks if t.slug.lower() == name.lower()), None
    )


def _rule(
    data: StudyData, agg: AggregateResult, form: str | None, opts: ReportSettings
) -> list[dict[str, Any]]:
    scores = rule_frame(data)
    target = rule_metric(agg.metric, agg.task)
    if scores.empty or target is None:
        return []
    metric_name, alias_source = target
    scores = scores.loc[scores["field"] == metric_name]
    items = data.items
    poems = items.index[
        (items["source_kind"].to_numpy() == "model")
        & (items["source_model"].to_numpy() == agg.model)
    ]
    notes = [f"poems by {agg.model}"]
    if agg.run and (items.loc[poems, "condition"] == agg.run).any():
        poems = poems[(items.loc[poems, "condition"] == agg.run).to_numpy()]
        notes.append(f"condition {agg.run}")
    base, _ = _task_and_form(agg.task)
    task = _study_task(data, base)
    if task is not None:
        poems = poems[(items.loc[poems, "task"] == task.id).to_numpy()]
        notes.append(f"task {task.slug}")
    if form is not None:
        poems = poems[(items.loc[poems, "form"] == form).to_numpy()]
        notes.append(f"form {form}")
    scores = scores.loc[scores["item"].isin(poems)]
    rows = []
    for (rule, version, metric), part in scores.groupby(["rule", "version", "field"], sort=True):
        e = estimate(part["value"].to_numpy(), is_binary(part["value"].to_numpy()), opts)
        what = f"{e['kind']} of rule:{rule}/{metric} (version {version}) over " + ", ".join(notes)
        if metric != agg.metric:
            what += f"; published {agg.metric!r} is {metric} ({alias_source})"
        rows.append(_row(agg, e["value"], e["n"], e["ci_low"], e["ci_high"], e["ci_method"], what))
    return rows


def _row(
    agg: AggregateResult,
    value: float | None,
    n: int | None,
    low: float | None,
    high: float | None,
    method: str,
    what: str | None,
) -> dict[str, Any]:
    matched = value is not None
    return {
        "model": agg.model,
        "task": agg.task,
        "metric": agg.metric,
        "run": agg.run,
        "published": agg.value,
        "n_published": agg.n,
        "computed": value,
        "n": n,
        "ci_low": low,
        "ci_high": high,
        "ci_method": method,
        "difference": (value - agg.value) if matched and value is not None else None,
        "computed_as": what,
        "match": "matched" if matched else "no match",
        "reason": None if matched else _reason(agg),
    }


def _reason(agg: AggregateResult) -> str:
    if rule_metric(agg.metric, agg.task) is None:
        return (
            f"{agg.metric!r} on {agg.task!r}: no choice task of the study has this name, "
            "and it is not a benchmark generation task whose rule metric is known "
            "(scoring/report/published.py, TASK_METRICS)"
        )
    return "no figure of the study has this task and metric"


def published_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    aggregates = AggregateResult.objects.filter(study=data.study).order_by(
        "task", "model", "metric", "run"
    )
    for agg in aggregates:
        _, form = _task_and_form(agg.task)
        found = (
            _accuracy(data, sets, agg, form, opts) if _normal(agg.metric) == "accuracy" else []
        ) or _rule(data, agg, form, opts)
        rows += found or [_row(agg, None, None, None, None, "", None)]
    return rows
