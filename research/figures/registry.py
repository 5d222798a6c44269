"""The charts by name: each name's spec from a report (the dashboard's charts, the
download view ``/research/studies/<id>/chart/<name>.<pdf|svg>`` and ``manage.py report
--figure NAME`` read the same builders). A chart that shows one of several choices (a
rule, a metric, a measure) takes it from ``param`` in the query (or ``--figure-choice``),
else the dashboard's default."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from research.dashboard import charts, paper
from research.dashboard.labels import Labels
from research.dashboard.tables import task_filter
from research.figures.spec import Spec
from scoring.report.build import Report
from scoring.rules import default_tone_system
from studies.models import Study

Query = Mapping[str, str]
PREFERRED = ("/structural", "/tonal")


def pick(value: str | None, choices: list[str], *prefer: str) -> str:
    """The asked-for choice if valid, else the first that ends with a preferred suffix,
    else the first."""
    if value is not None and value in choices:
        return value
    for suffix in prefer:
        found = next((c for c in choices if c.endswith(suffix)), None)
        if found:
            return found
    return choices[0] if choices else ""


def preferred(study: Study) -> tuple[str, ...]:
    """The study's default rule rater first (classical unless it says), then any."""
    return (f"prosody:{default_tone_system(study)}/structural", *PREFERRED)


@dataclass(frozen=True)
class Chart:
    build: Callable[[Report, Study, Labels, Query], Spec | None]
    param: str = ""  # the query parameter naming the chart's choice, if it has one
    choices: Callable[[Report], list[str]] | None = None


def _task(report: Report, table: str, query: Query) -> list[dict[str, Any]]:
    return task_filter(report.tables[table], query.get("task", ""))


def _rules(r: Report, s: Study, lab: Labels, q: Query) -> Spec | None:
    rule = pick(q.get("rule"), charts.rule_choices(r), *preferred(s))
    return charts.rules_spec(r, s, rule) if rule else None


def _scores(r: Report, s: Study, lab: Labels, q: Query) -> Spec | None:
    metric = pick(q.get("metric"), charts.metric_choices(r), *preferred(s))
    return charts.cipai_spec(r, metric) if metric else None


def _rates(r: Report, s: Study, lab: Labels, q: Query) -> Spec | None:
    rows = r.tables["rule_rates"]
    return paper.rule_rates_spec(rows, pick(q.get("rate_metric"), paper.rule_rate_metrics(rows)))


def _validation(r: Report, s: Study, lab: Labels, q: Query) -> Spec | None:
    rows = _task(r, "validation", q)
    metric = pick(q.get("val_metric"), paper.validation_metrics(rows))
    return paper.validation_spec(rows, lab, metric)


def _length(r: Report, s: Study, lab: Labels, q: Query) -> Spec | None:
    rows = r.tables["form_length"]
    return paper.form_length_spec(rows, pick(q.get("length_measure"), _measures(r)))


def _measures(r: Report) -> list[str]:
    return paper.form_length_measures(r.tables["form_length"])


CHARTS: dict[str, Chart] = {
    "accuracy": Chart(lambda r, s, lab, q: charts.accuracy_spec(r, s)),
    "correlation": Chart(lambda r, s, lab, q: charts.correlation_spec(r, s)),
    "rules-vs-ratings": Chart(_rules, "rule", charts.rule_choices),
    "rule-scores": Chart(_scores, "metric", charts.metric_choices),
    "ratings": Chart(lambda r, s, lab, q: paper.ratings_spec(_task(r, "ratings", q), lab)),
    "rule-rates": Chart(
        _rates, "rate_metric", lambda r: paper.rule_rate_metrics(r.tables["rule_rates"])
    ),
    "validation": Chart(
        _validation, "val_metric", lambda r: paper.validation_metrics(r.tables["validation"])
    ),
    "echo-chamber": Chart(lambda r, s, lab, q: paper.echo_spec(_task(r, "echo_chamber", q), lab)),
    "self-preference": Chart(
        lambda r, s, lab, q: paper.self_preference_spec(_task(r, "self_preference", q), lab)
    ),
    "form-length": Chart(_length, "length_measure", _measures),
    "published": Chart(lambda r, s, lab, q: charts.published_spec(s)),
}


def chart_spec(name: str, report: Report, study: Study, query: Query) -> Spec | None:
    """The spec of chart ``name`` (a key of ``CHARTS``) for this report and query; None
    when the report has nothing to draw in it."""
    return CHARTS[name].build(report, study, Labels(study), query)
