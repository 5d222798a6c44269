"""Aggregate results in LLM-output files (formats.md §3): a model's published score on a
task, kept apart in AggregateResult and never mixed into item statistics."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from annotation.models import AggregateResult
from studies.loading.fields import count_problem, is_number
from studies.loading.problems import Reporter, Summary
from studies.models import Study
from studies.values import with_params


def aggregate_parse(
    data: dict[str, Any], model: str, run: str, report: Reporter
) -> dict[str, Any] | None:
    task = data.get("task")
    if not isinstance(task, str) or not task.strip() or len(task.strip()) > 100:
        report.error("task", _("is required (text of at most 100 characters)"))
        return None
    metric = data.get("metric", "accuracy") if "accuracy" not in data else "accuracy"
    if not isinstance(metric, str) or not metric or len(metric) > 50:
        report.error("metric", _("must be text of at most 50 characters"))
        return None
    value = data.get("accuracy", data.get("value"))
    if not is_number(value):
        report.error(
            "accuracy" if "accuracy" in data else "value",
            with_params(_("%(value)r is not a number"), value=value),
        )
        return None
    n = data.get("n")
    if n is not None and (problem := count_problem(n)) is not None:
        report.error("n", problem)
        return None
    source = data.get("source", "")
    assert value is not None  # checked above
    return {
        "model": model,
        "task": task.strip(),
        "metric": str(metric),
        "run": run,
        "value": float(value),
        "n": None if n is None else int(n),
        "source": str(source or ""),
    }


def aggregate_upsert(
    study: Study, key: tuple[str, str, str, str], agg: dict[str, Any], summary: Summary
) -> None:
    model, task, metric, run = key
    values = {"value": agg["value"], "n": agg["n"], "source": agg["source"]}
    obj = AggregateResult.objects.filter(
        study=study, model=model, task=task, metric=metric, run=run
    ).first()
    if obj is None:
        AggregateResult.objects.create(
            study=study, model=model, task=task, metric=metric, run=run, **values
        )
        summary.count("created", what="aggregate")
    elif any(getattr(obj, k) != v for k, v in values.items()):
        for k, v in values.items():
            setattr(obj, k, v)
        obj.save()
        summary.count("updated", what="aggregate")
    else:
        summary.count("unchanged", what="aggregate")
