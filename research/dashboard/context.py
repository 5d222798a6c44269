"""What the dashboard page shows, as plain data: the report settings read from the query
string (the same names and checks as the CLI and the API), the chosen views (task filter,
agreement cell, metrics), the pivot, paged tables and the charts.

The report is the one a background job stored (``research.reports``; never computed in
the request); the per-form rule rates behind the heatmap are stored beside it by the
same job.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from research.dashboard import paper
from research.dashboard.labels import Labels, setting_label
from research.dashboard.pivot import agreement_pivot
from research.dashboard.tables import table_view, task_filter
from scoring.report import BY_KEYS, SettingsError, settings_from
from scoring.report.build import PAPER_TABLES, Report, Rows, unknown_tasks
from scoring.report.settings import CLUSTERS, RATINGS_CI, SETTING_NAMES, ReportSettings
from studies.models import Study

# The paper tables are shown in the report's order (``PAPER_TABLES``); issue 15 adds its
# panels after them, through ``research/_more_sections.html``.


@dataclass
class SettingsForm:
    settings: ReportSettings
    values: dict[str, str]  # what the form shows (the query's values, or the defaults)
    errors: dict[str, str]


def read_settings(study: Study, query: QueryDict) -> SettingsForm:
    """Report settings from the query string. A bad value is named with its message and
    the report falls back to the defaults for it (the page still shows)."""
    values: dict[str, Any] = {}
    for name in SETTING_NAMES:
        got = query.getlist(name)
        if name in ("by", "tasks"):
            values[name] = ",".join(got) if got else None
        else:
            values[name] = got[-1] if got else None
    errors: dict[str, str] = {}
    settings = ReportSettings()
    for name in SETTING_NAMES:  # each setting on its own, so one bad value spoils no other
        try:
            settings = settings_from({name: values[name]}, base=settings)
        except SettingsError as exc:
            errors[exc.name] = exc.message
    if missing := unknown_tasks(study, settings.tasks):
        errors["tasks"] = _("no task %(tasks)s in this study") % {"tasks": ", ".join(missing)}
        settings = replace(settings, tasks=())
    shown = {k: str(v) for k, v in settings.as_json().items() if not isinstance(v, list)}
    for name, value in values.items():
        if name in errors and value is not None:  # shown back to be corrected, cut short
            shown[name] = str(value)[:SHOWN_LIMIT]
    return SettingsForm(settings, shown, errors)


#: How much of a refused setting the form shows back (a 300 KB ``tasks=`` is not echoed),
#: and the longest value of another parameter the page's own links carry.
SHOWN_LIMIT = 200


def kept_query(query: QueryDict, settings: ReportSettings) -> QueryDict:
    """The query the page's own links carry (a table's pages, the chart choices): each
    report setting the query gave, as read (a refused one as its default, a list each
    name once), and the other parameters' values of at most ``SHOWN_LIMIT`` characters
    (a page number, a chart choice): a long or refused value is not copied into every
    link of the page."""
    given = settings.as_json()
    kept = QueryDict(mutable=True)
    for name, values in query.lists():
        if name in SETTING_NAMES:
            value = given.get(name)
            if value not in ([], None):
                kept[name] = ",".join(value) if isinstance(value, list) else str(value)
        elif short := [v for v in values if len(v) <= SHOWN_LIMIT]:
            kept.setlist(name, short)
    return kept


def _pick(value: str | None, choices: list[str]) -> str:
    if value is not None and value in choices:
        return value
    return choices[0] if choices else ""


def chart_svg(svg: str | None) -> SafeString | None:
    """A chart of ``research.figures.drawing``: written by its autoescaped template, safe as it is."""
    if not svg:
        return None
    if not isinstance(svg, SafeString):
        raise TypeError("a chart must come from research.figures.drawing's template")
    return svg


def paper_context(
    study: Study,
    report: Report,
    query: QueryDict,
    labels: Labels,
    rule_rates_by_form: Rows | None = None,
) -> dict[str, Any]:
    """The views of the new tables: a chart where a paper has one, then the table;
    ``rule_rates_by_form``: the ``rule_rates`` rows split by form too, for the heatmaps
    (stored beside the report by its background job)."""
    t = report.tables
    by = report.settings.by
    task = query.get("task", "")
    out: dict[str, Any] = {}
    views = {}
    for name in PAPER_TABLES:
        views[name] = table_view(name, t[name], labels, query, by=by)
    out["paper"] = views
    ratings = task_filter(t["ratings"], task)
    out["ratings_svg"] = chart_svg(paper.ratings_chart(ratings, labels))
    metrics = paper.rule_rate_metrics(t["rule_rates"])
    metric = _pick(query.get("rate_metric"), metrics)
    out["rate_metrics"], out["rate_metric"] = metrics, metric
    out["rate_metric_options"] = [(m, Labels.rule(m)) for m in metrics]
    out["rule_rates_svg"] = chart_svg(paper.rule_rates_chart(t["rule_rates"], metric))
    heat_rows = t["rule_rates"]
    if metric and "form" not in by and rule_rates_by_form is not None:
        heat_rows = rule_rates_by_form
    out["rule_rate_heatmaps"] = [  # (condition, svg, the print figure's choice)
        (condition, chart_svg(svg), urlencode({"condition": condition}))
        for condition, svg in paper.rule_rate_heatmaps(heat_rows, labels, metric)
    ]
    validation = task_filter(t["validation"], task)
    vmetrics = paper.validation_metrics(validation)
    vmetric = _pick(query.get("val_metric"), vmetrics)
    out["val_metrics"] = [(m, labels.metric(m)) for m in vmetrics]
    out["val_metric"] = vmetric
    out["validation_svg"] = chart_svg(paper.validation_chart(validation, labels, vmetric))
    out["echo_svg"] = chart_svg(paper.echo_chart(task_filter(t["echo_chamber"], task), labels))
    out["self_svg"] = chart_svg(
        paper.self_preference_chart(task_filter(t["self_preference"], task), labels)
    )
    measures = paper.form_length_measures(t["form_length"])
    measure = _pick(query.get("length_measure"), measures)
    out["length_measures"], out["length_measure"] = measures, measure
    out["length_measure_options"] = [(m, paper.measure_name(m)) for m in measures]
    out["form_length_svg"] = chart_svg(paper.form_length_chart(t["form_length"], measure, labels))
    return out


def settings_choices(study: Study) -> dict[str, Any]:
    return {
        "by_keys": [(k, _label_of_key(k)) for k in BY_KEYS],
        "ratings_ci_choices": [(c, setting_label(c)) for c in RATINGS_CI],
        "cluster_choices": [(c, setting_label(c)) for c in CLUSTERS],
        "task_choices": list(study.tasks.order_by("position", "slug").values_list("slug", "title")),
    }


def _label_of_key(key: str) -> str:
    from research.dashboard.labels import column_label

    return column_label(key)


def agreement_context(report: Report, query: QueryDict, labels: Labels) -> dict[str, Any]:
    """The agreement pivot, and the pair matrices of the same task and field."""
    rows = task_filter(report.tables["agreement"], query.get("task", ""))
    pivot = agreement_pivot(rows, labels, query.get("agr", ""))
    maps = []
    if pivot is not None:
        found = paper.pairwise_heatmaps(report.tables["pairwise"], labels, pivot.task, pivot.field)
        maps = [(name, chart_svg(svg), str(k), f"pair={k}") for k, name, svg in found]
    return {
        "pivot": pivot,
        "pair_heatmaps": [m for m in maps if m[1] is not None],
        "pair_figures_only": [m for m in maps if m[1] is None],
        "pair_agr": query.get("agr", ""),
    }


def comparison_matrix(report: Report, query: QueryDict, labels: Labels) -> dict[str, Any] | None:
    """The first accuracy family of the ``comparisons`` table (the task filter's, if
    set) as a compact matrix: a model per row, its partners (other models, groups) as
    columns, each cell the difference row − column with a star when its Holm-adjusted
    p is below 1 − confidence; the best set marked."""
    task = query.get("task", "")
    rows = [
        r
        for r in report.tables["comparisons"]
        if r["kind"] == "accuracy"
        and r["summary"] in ("pair", "rank")  # the models' family (group pairs: the table)
        and (not task or r["task"] == task)
    ]
    if not rows:
        return None
    family = (rows[0]["task"], rows[0]["field"])
    rows = [r for r in rows if (r["task"], r["field"]) == family]
    pairs = [r for r in rows if r["summary"] == "pair"]
    best = {r["a"] for r in rows if r["summary"] == "rank" and r["best_set"]}
    alpha = 1 - report.settings.confidence
    down = list(dict.fromkeys(r["a"] for r in pairs))
    across = list(dict.fromkeys([*down[1:], *(r["b"] for r in pairs)]))
    cell = {(r["a"], r["b"]): r for r in pairs}
    out_rows = []
    for a in down:
        cells = []
        for b in across:
            r = cell.get((a, b))
            if r is None or r["diff"] is None or r["diff"] != r["diff"]:
                cells.append("")
                continue
            star = "*" if r["p_holm"] is not None and r["p_holm"] < alpha else ""
            cells.append(f"{r['diff']:+.3f}{star}")
        out_rows.append((labels.rater_set(a) + (" ★" if a in best else ""), cells))
    return {
        "title": f"{family[0]} / {family[1]}",
        "columns": [labels.rater_set(b) for b in across],
        "rows": out_rows,
    }
