"""The dashboard's charts, drawn from the report's tables: each ``*_spec`` gives the chart's
spec (``research.figures.spec``), each ``*_chart`` its dashboard SVG."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext as _

from research.dashboard.labels import Labels, rater_set_label
from research.figures.drawing import Interval, Series
from research.figures.spec import Bars, Forest, Heatmap, Spec, distinct, with_split
from research.figures.svg import dashboard_svg
from scoring.report.build import Report
from studies.kinds import ALL_PARTS, KINDS
from studies.models import Study

Rows = list[dict[str, Any]]


def _labels(study: Study) -> tuple[dict[str, str], dict[tuple[str, str], str], dict[str, str]]:
    tasks, dims, kinds = {}, {}, {}
    for t in study.tasks.all():
        tasks[t.slug] = t.title or t.slug
        kinds[t.slug] = t.kind
        for key, label in t.dimension_labels().items():
            dims[(t.slug, key)] = label
    return tasks, dims, kinds


def _draw(spec: Spec | None) -> str | None:
    return dashboard_svg(spec) if spec is not None else None


def accuracy_chart(report: Report, study: Study) -> str | None:
    return _draw(accuracy_spec(report, study))


def accuracy_spec(report: Report, study: Study) -> Bars | None:
    """Headline accuracy per task (all parts right for multi-part), groups beside models;
    with --by, one category per task and split value (the split leads its name)."""
    tasks, _dims, kinds = _labels(study)
    groups = dict(study.groups.values_list("slug", "name"))
    rows = report.tables["accuracy"]
    headline = {t: f for t in tasks if (f := KINDS[kinds[t]].headline) is not None}
    rows = [r for r in rows if headline.get(r["task"]) == r["field"]]
    if not rows:
        return None
    index = {(_category(r, tasks), r["rater_set"]): r for r in rows}
    categories = list(dict.fromkeys(_category(r, tasks) for r in rows))
    names = [s for s in _sets(rows) if s.startswith("group:") or s.startswith("model:")]
    series = []
    for name in names:
        cells = [index.get((c, name)) for c in categories]
        series.append(
            Series(
                rater_set_label(name, groups),
                [c["value"] if c else None for c in cells],
                [c["ci_low"] if c else None for c in cells],
                [c["ci_high"] if c else None for c in cells],
                [c["n_responses"] if c else None for c in cells],
            )
        )
    return Bars(
        _("Accuracy by group beside the models"),
        tuple(categories),
        tuple(series),
        y_label=_("accuracy (95% Wilson CI)"),
    )


def _category(row: dict[str, Any], tasks: dict[str, str]) -> str:
    name = tasks.get(row["task"], row["task"])
    name += " · " + _("all parts") if row["field"] == ALL_PARTS else ""
    return with_split(name, row, _split_value)


def _sets(rows: Rows) -> list[str]:
    return list(dict.fromkeys(r["rater_set"] for r in rows))


def correlation_chart(report: Report, study: Study) -> str | None:
    return _draw(correlation_spec(report, study))


def correlation_spec(report: Report, study: Study) -> Heatmap | None:
    """Pearson r of each judge's item means with the humans', per task dimension."""
    tasks, dims, _kinds = _labels(study)
    groups = dict(study.groups.values_list("slug", "name"))
    rows = [r for r in report.tables["correlation"] if r["b"] == "humans"]
    if not rows:
        return None
    judges = list(dict.fromkeys(_judge(r, groups) for r in rows))
    cols = list(dict.fromkeys((r["task"], r["field"]) for r in rows))
    col_label = {
        c: dims.get(c, c[1])
        if len({t for t, _f in cols}) == 1
        else f"{tasks.get(c[0], c[0])}·{dims.get(c, c[1])}"
        for c in cols
    }
    values = {(_judge(r, groups), col_label[(r["task"], r["field"])]): r["pearson"] for r in rows}
    counts = {(_judge(r, groups), col_label[(r["task"], r["field"])]): r["n"] for r in rows}
    return Heatmap(
        _("Correlation with the humans (Pearson r of item means)"),
        tuple(judges),
        tuple(col_label[c] for c in cols),
        values,
        low=-1.0,
        high=1.0,
        diverging=True,
        counts=counts,
    )


def _judge(row: dict[str, Any], groups: dict[str, str]) -> str:
    """A heatmap row's name: the judge, after the row's --by split values."""
    return with_split(rater_set_label(row["a"], groups), row, _split_value)


def _split_value(key: str, value: Any, row: dict[str, Any]) -> str:
    return _("all (*)") if value == "*" else str(value)


def rule_choices(report: Report) -> list[str]:
    return list(dict.fromkeys(r["rule"] for r in report.tables["rule_vs_rating"]))


def rules_chart(report: Report, study: Study, rule: str) -> str | None:
    return _draw(rules_spec(report, study, rule))


def rules_spec(report: Report, study: Study, rule: str) -> Forest | None:
    _tasks, dims, _kinds = _labels(study)
    groups = dict(study.groups.values_list("slug", "name"))
    rows = [r for r in report.tables["rule_vs_rating"] if r["rule"] == rule]
    if not rows:
        return None
    items = [
        Interval(
            f"{dims.get((r['task'], r['field']), r['field'])} · "
            f"{rater_set_label(r['rater_set'], groups)}",
            r["diff"],
            r["ci_low"],
            r["ci_high"],
            r["rater_set"],
            n=f"n={r['n_pass']}/{r['n_fail']}",
            note="" if r.get("ci_low") is not None else _("no interval"),
        )
        for r in rows
    ]
    names = distinct(
        [with_split(i.label, r, _split_value) for i, r in zip(items, rows, strict=True)], rows
    )
    title = _("Rating gap, poems passing minus failing %(rule)s") % {"rule": Labels.rule(rule)}
    x_label = _("mean rating difference, passing − failing (n passing / n failing)")
    shown = tuple(replace(i, label=n) for i, n in zip(items, names, strict=True))
    return Forest(title, shown, x_label=x_label)


def metric_choices(report: Report) -> list[str]:
    return list(dict.fromkeys(f"{r['rule']}/{r['field']}" for r in report.tables["rule_scores"]))


def cipai_chart(report: Report, metric: str) -> str | None:
    return _draw(cipai_spec(report, metric))


def cipai_spec(report: Report, metric: str) -> Heatmap | None:
    rows = [r for r in report.tables["rule_scores"] if f"{r['rule']}/{r['field']}" == metric]
    if not rows:
        return None
    forms = sorted({r["form"] for r in rows})
    sources = sorted({Labels.source(r["source"]) for r in rows})
    values = {(r["form"], Labels.source(r["source"])): r["mean"] for r in rows}
    counts = {(r["form"], Labels.source(r["source"])): r["n"] for r in rows}
    title = _("Mean rule score per form and source: %(metric)s") % {"metric": Labels.rule(metric)}
    return Heatmap(title, tuple(forms), tuple(sources), values, counts=counts)


def published_chart(study: Study) -> str | None:
    return _draw(published_spec(study))


def published_spec(study: Study) -> Heatmap | None:
    """Published per-form results (aggregate tasks named ``<task>:<form>``) as a heatmap.

    Shown beside the item-level tables, never mixed in: these are others' figures.
    """
    rows = [
        a for a in study.aggregates.order_by("model", "task") if ":" in a.task
    ]  # e.g. FuxiBench's structural accuracy per cipai, "CiG:浣溪沙"
    if len(rows) < 2:
        return None
    metrics = sorted({a.metric for a in rows})

    def column(a: Any) -> str:  # several metrics: one column per model and metric
        model = _published_model(a)
        return f"{model} · {a.metric}" if len(metrics) > 1 else model

    models = list(dict.fromkeys(column(a) for a in rows))
    forms = sorted({a.task.split(":", 1)[1] for a in rows})
    values = {(a.task.split(":", 1)[1], column(a)): a.value for a in rows}
    title = _("Published results per form (%(metric)s), not computed here") % {
        "metric": ", ".join(metrics)
    }
    return Heatmap(title, tuple(forms), tuple(models), values)


def _published_model(agg: object) -> str:
    """A published figure's model and run, named as a rater set's model is."""
    model, run = getattr(agg, "model", ""), getattr(agg, "run", "")
    return Labels.model(f"{model}@{run}" if run else model)
