"""The charts by name: each name's spec from a report (the dashboard's charts, the
download view ``/research/studies/<id>/chart/<name>.<pdf|svg>`` and ``manage.py report
--figure NAME`` read the same builders). A chart that shows one of several choices (a
rule, a metric, a measure) takes it from ``param`` in the query (or ``--figure-choice``),
else the dashboard's default."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from research.dashboard import charts, paper
from research.dashboard.labels import Labels
from research.dashboard.pivot import agreement_pivot
from research.dashboard.tables import task_filter
from research.figures.spec import Spec
from scoring.report.build import Report, Rows
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
class Source:
    """What a chart is drawn from: the report, its study, the reader's names, the query
    (report settings and chart choices), and the per-form rule rates the report job
    stores beside the report (None: the heatmaps read the report's own rule_rates)."""

    report: Report
    study: Study
    labels: Labels
    query: Query
    by_form: Rows | None = None

    def rows(self, table: str) -> Rows:
        """A table's rows, filtered by the dashboard's task filter (``task``)."""
        return task_filter(self.report.tables[table], self.query.get("task", ""))


@dataclass(frozen=True)
class Chart:
    build: Callable[[Source], Spec | None]
    param: str = ""  # the query parameter naming the chart's choice, if it has one


def _rules(c: Source) -> Spec | None:
    rule = pick(c.query.get("rule"), charts.rule_choices(c.report), *preferred(c.study))
    return charts.rules_spec(c.report, c.study, rule) if rule else None


def _scores(c: Source) -> Spec | None:
    metric = pick(c.query.get("metric"), charts.metric_choices(c.report), *preferred(c.study))
    return charts.cipai_spec(c.report, metric) if metric else None


def _rate_metric(c: Source) -> str:
    return pick(c.query.get("rate_metric"), paper.rule_rate_metrics(c.report.tables["rule_rates"]))


def _rates(c: Source) -> Spec | None:
    return paper.rule_rates_spec(c.report.tables["rule_rates"], _rate_metric(c))


def _rate_maps(c: Source) -> Spec | None:
    """The per-form heatmap of one prompt condition (``condition``: its name as the
    dashboard shows it; default the first), as the dashboard draws it."""
    metric, rows = _rate_metric(c), c.report.tables["rule_rates"]
    if metric and "form" not in c.report.settings.by and c.by_form is not None:
        rows = c.by_form
    maps = dict(paper.rule_rate_heatmap_specs(rows, metric))
    return maps.get(pick(c.query.get("condition"), list(maps)))


def _pairs(c: Source) -> Spec | None:
    """The pair matrix number ``pair`` (default 1) of the task and field chosen under
    Agreement (``agr``), as the dashboard numbers them."""
    pivot = agreement_pivot(c.rows("agreement"), c.labels, c.query.get("agr", ""))
    if pivot is None:
        return None
    found = paper.pairwise_heatmap_specs(
        c.report.tables["pairwise"], c.labels, pivot.task, pivot.field
    )
    number = c.query.get("pair", "1")
    k = int(number) if number.isdigit() else 1
    return found[k - 1][1] if 1 <= k <= len(found) else None


def _validation(c: Source) -> Spec | None:
    rows = c.rows("validation")
    metric = pick(c.query.get("val_metric"), paper.validation_metrics(rows))
    return paper.validation_spec(rows, c.labels, metric)


def _length(c: Source) -> Spec | None:
    rows = c.report.tables["form_length"]
    measure = pick(c.query.get("length_measure"), paper.form_length_measures(rows))
    return paper.form_length_spec(rows, measure, c.labels)


CHARTS: dict[str, Chart] = {
    "accuracy": Chart(lambda c: charts.accuracy_spec(c.report, c.study)),
    "correlation": Chart(lambda c: charts.correlation_spec(c.report, c.study)),
    "rules-vs-ratings": Chart(_rules, "rule"),
    "rule-scores": Chart(_scores, "metric"),
    "ratings": Chart(lambda c: paper.ratings_spec(c.rows("ratings"), c.labels)),
    "rule-rates": Chart(_rates, "rate_metric"),
    "rule-rates-heatmap": Chart(_rate_maps, "condition"),
    "validation": Chart(_validation, "val_metric"),
    "pairwise": Chart(_pairs, "pair"),
    "echo-chamber": Chart(lambda c: paper.echo_spec(c.rows("echo_chamber"), c.labels)),
    "self-preference": Chart(
        lambda c: paper.self_preference_spec(c.rows("self_preference"), c.labels)
    ),
    "form-length": Chart(_length, "length_measure"),
    "published": Chart(lambda c: charts.published_spec(c.study)),
}


def chart_spec(
    name: str, report: Report, study: Study, query: Query, by_form: Rows | None = None
) -> Spec | None:
    """The spec of chart ``name`` (a key of ``CHARTS``) for this report and query; None
    when the report has nothing to draw in it."""
    return CHARTS[name].build(Source(report, study, Labels(study), query, by_form))
