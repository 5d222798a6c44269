"""Charts of the papers' tables (issue 12) as a paper would draw them: forest plots with n
beside each estimate (no interval where the report gives none), the form × model heatmap
of one prompt condition, and a form's rate against its length.

Each ``*_spec`` function takes the report's rows (already filtered by task where the view
asks) and the study's ``Labels`` and returns the chart's spec (``research.figures.spec``:
every row, labels naming each --by split) or None when there is nothing to draw; the
matching ``*_chart`` draws it as the dashboard's SVG, which shows at most ``MAX_ROWS``
rows and says so on the chart when it cuts (the print figure pages through them all).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from research.dashboard.labels import Labels
from research.figures.drawing import Interval
from research.figures.spec import Forest, Heatmap, Scatter, distinct, with_split
from research.figures.svg import dashboard_svg
from research.scatter import Point

Rows = list[dict[str, Any]]


def _limits(rows: Rows, *keys: str) -> tuple[float | None, float | None]:
    vals = [
        float(r[k])
        for r in rows
        for k in keys
        if isinstance(r.get(k), int | float) and math.isfinite(r[k])
    ]
    if not vals:
        return None, None
    return float(math.floor(min(vals))), float(math.ceil(max(vals)))


def _not_estimable(row: dict[str, Any]) -> str:
    return _("no interval") if row.get("ci_low") is None else ""


def _draw(spec: Forest | Scatter | None) -> str | None:
    return dashboard_svg(spec) if spec is not None else None


def _named(items: list[Interval], rows: Rows, labels: Labels) -> tuple[Interval, ...]:
    """The intervals, each label led by its row's split values and made distinct."""
    names = [with_split(i.label, r, labels.value) for i, r in zip(items, rows, strict=True)]
    names = distinct(names, rows)
    return tuple(replace(i, label=n) for i, n in zip(items, names, strict=True))


def ratings_chart(rows: Rows, labels: Labels) -> str | None:
    return _draw(ratings_spec(rows, labels))


def ratings_spec(rows: Rows, labels: Labels) -> Forest | None:
    """Mean rating per dimension × rater set with its interval and n items / n raters."""
    if not rows:
        return None
    items = [
        Interval(
            f"{labels.field(r['task'], r['field'])} · {labels.rater_set(r['rater_set'])}",
            r.get("mean"),
            r.get("ci_low"),
            r.get("ci_high"),
            r["rater_set"],
            n=_("n=%(items)s items, %(raters)s raters")
            % {
                "items": r.get("n_items"),
                "raters": r.get("n_raters"),
            },
            note=_not_estimable(r),
        )
        for r in rows
    ]
    low, high = _limits(rows, "ci_low", "ci_high", "mean")
    return Forest(
        _("Mean rating per dimension and rater set"),
        _named(items, rows, labels),
        x_label=_("mean rating (%(pct)s%% CI)") % {"pct": "95"},
        low=low,
        high=high,
    )


def rule_rate_heatmaps(rows: Rows, labels: Labels, metric: str) -> list[tuple[str, SafeString]]:
    """The dashboard's heatmaps of :func:`rule_rate_heatmap_specs`: [(condition, svg)]."""
    return [(name, dashboard_svg(spec)) for name, spec in rule_rate_heatmap_specs(rows, metric)]


def rule_rate_heatmap_specs(rows: Rows, metric: str) -> list[tuple[str, Heatmap]]:
    """One heatmap of form × generating model per prompt condition for ``metric``
    (``rule/version/field``): [(condition label, spec)]."""
    part = [r for r in rows if _metric_key(r) == metric and r.get("form") not in (None, "*")]
    out = []
    conditions = list(dict.fromkeys(r.get("condition") for r in part))
    for condition in conditions:
        cells = [r for r in part if r.get("condition") == condition]
        forms = sorted({str(r["form"]) for r in cells})
        sources = sorted({_source(r.get("source")) for r in cells})
        values = {(str(r["form"]), _source(r.get("source"))): r.get("value") for r in cells}
        counts = {(str(r["form"]), _source(r.get("source"))): r.get("n") for r in cells}
        shown = condition if condition not in (None, "") else _("no condition")
        title = (
            _("%(metric)s per form and source, condition %(condition)s")
            % {"metric": Labels.rule(metric), "condition": shown}
            if condition not in (None, "")
            else _("%(metric)s per form and source") % {"metric": Labels.rule(metric)}
        )
        spec = Heatmap(
            title,
            tuple(forms),
            tuple(sources),
            values,
            counts=counts,
            note=_("cell: rate or mean, and its n poems"),
        )
        out.append((str(shown), spec))
    return out


def _source(value: Any) -> str:
    if value in (None, ""):
        return _("unknown")
    return Labels.source(value)


def _metric_key(row: dict[str, Any]) -> str:
    return f"{row['rule']}/{row['version']}/{row['field']}"


def rule_rate_metrics(rows: Rows) -> list[str]:
    return list(dict.fromkeys(_metric_key(r) for r in rows))


def rule_rates_chart(rows: Rows, metric: str) -> str | None:
    return _draw(rule_rates_spec(rows, metric))


def rule_rates_spec(rows: Rows, metric: str) -> Forest | None:
    """The rate (or mean) of one metric per source × condition, with its CI and n."""
    part = [r for r in rows if _metric_key(r) == metric and r.get("form") in (None, "*")]
    if not part:
        return None
    items = [
        Interval(
            " · ".join(str(v) for v in (_source(r.get("source")), r.get("condition")) if v),
            r.get("value"),
            r.get("ci_low"),
            r.get("ci_high"),
            str(r.get("condition") or ""),
            n=f"n={r.get('n')}",
            note=_not_estimable(r),
        )
        for r in part
    ]
    names = distinct([i.label for i in items], part)
    return Forest(
        _("%(metric)s per source and condition") % {"metric": Labels.rule(metric)},
        tuple(replace(i, label=n) for i, n in zip(items, names, strict=True)),
        x_label=_("rate (Wilson CI) or mean (bootstrap CI)"),
        low=0.0,
        high=1.0,
    )


def validation_metrics(rows: Rows) -> list[str]:
    return list(dict.fromkeys(r["metric"] for r in rows))


def validation_chart(rows: Rows, labels: Labels, metric: str) -> str | None:
    return _draw(validation_spec(rows, labels, metric))


def validation_spec(rows: Rows, labels: Labels, metric: str) -> Forest | None:
    """One coefficient of each judge against its reference, per task and pooled, and per
    generating model where the table splits by it (the generator leads the label): the
    rows over every generator first, as the dashboard showed them, then each generator's."""
    part = [r for r in rows if r["metric"] == metric]
    part.sort(key=lambda r: r.get("generator") not in (None, "*"))  # stable: report order
    if not part:
        return None
    items = []
    for r in part:
        where = labels.task(r.get("task")) if r.get("task") else ""
        if r.get("scope") == "without":
            where = _("without %(task)s") % {"task": labels.task(r.get("left_out"))}
        elif r.get("scope") == "pooled":
            where = _("pooled")
        label = (
            f"{where} · {labels.field(r.get('task'), r.get('field'))} · "
            f"{labels.rater_set(r['judge'])} / {labels.rater_set(r['reference'])}"
        )
        items.append(
            Interval(
                label,
                r.get("value"),
                r.get("ci_low"),
                r.get("ci_high"),
                str(r.get("scope")),
                n=f"n={r.get('n')}",
                note=_not_estimable(r),
            )
        )
    bounded = metric not in ("mean_diff",)
    return Forest(
        _("%(metric)s of each judge against its reference") % {"metric": labels.metric(metric)},
        _named(items, part, labels),
        x_label=labels.metric(metric),
        low=-1.0 if bounded and any((r.get("ci_low") or 0) < 0 for r in part) else None,
        high=1.0 if bounded else None,
    )


def echo_chart(rows: Rows, labels: Labels) -> str | None:
    return _draw(echo_spec(rows, labels))


def echo_spec(rows: Rows, labels: Labels) -> Forest | None:
    """Judges' gap minus people's gap (passing − failing poems) with its interval and
    n_pass / n_fail; a row below the minimum side shows no interval and says so."""
    part = rows
    if not part:
        return None
    items = [
        Interval(
            f"{labels.field(r['task'], r['field'])} · {Labels.rule(r['rule'])} · "
            f"{labels.value('poems', r['poems'], r)} · "
            f"{labels.rater_set(r.get('judges'))} / {labels.rater_set(r.get('people'))}",
            r.get("difference"),
            r.get("ci_low") if r.get("estimable") else None,
            r.get("ci_high") if r.get("estimable") else None,
            str(r.get("poems")),
            n=f"n={r.get('n_pass')}/{r.get('n_fail')}",
            note="" if r.get("estimable") else _("not estimable"),
        )
        for r in part
    ]
    return Forest(
        _("Echo chamber: judges' gap minus people's gap"),
        _named(items, part, labels),
        x_label=_("difference of gaps, passing − failing poems (n passing / n failing)"),
    )


def self_preference_chart(rows: Rows, labels: Labels) -> str | None:
    return _draw(self_preference_spec(rows, labels))


def self_preference_spec(rows: Rows, labels: Labels) -> Forest | None:
    part = rows
    if not part:
        return None
    items = [
        Interval(
            f"{labels.rater_set(r['judge'])} · {labels.field(r['task'], r['field'])}",
            r.get("diff"),
            r.get("ci_low"),
            r.get("ci_high"),
            str(r.get("judge")),
            n=f"n={r.get('n_own')}/{r.get('n_other')}",
            note=_not_estimable(r),
        )
        for r in part
    ]
    return Forest(
        _("Self-preference: own poems minus others' poems"),
        _named(items, part, labels),
        x_label=_("mean rating difference (n own / n other poems)"),
    )


def form_length_measures(rows: Rows) -> list[str]:
    return list(dict.fromkeys(str(r["measure"]) for r in rows))


def form_length_chart(rows: Rows, measure: str, labels: Labels | None = None) -> str | None:
    return _draw(form_length_spec(rows, measure, labels))


#: The columns that tell a form's points of one measure apart (a rule metric's source ×
#: condition groups, an accuracy's rater sets): a label names the ones that vary.
LENGTH_GROUP_KEYS = ("rater_set", "source", "condition")


def _group_name(column: str, value: Any, row: dict[str, Any], labels: Labels | None) -> str:
    if labels is not None:
        return str(labels.value(column, value, row))
    if value == "*":
        return _("all (*)")
    return Labels.source(value) if column == "source" else str(value)


def _group_label(row: dict[str, Any], keys: tuple[str, ...], labels: Labels | None) -> str:
    return " · ".join(
        _group_name(k, row.get(k), row, labels) for k in keys if row.get(k) not in (None, "")
    )


def form_length_spec(rows: Rows, measure: str, labels: Labels | None = None) -> Scatter | None:
    """Each form's rate (or accuracy) against its length, with Spearman's ρ in the title.
    A measure's rows come per source × condition (and over all of them) or per rater set:
    when the points span several such groups, each label leads with its group (the
    source, the condition, the rater set), so no two points share a label, and the title
    says which group ρ is for."""
    part = [r for r in rows if r["measure"] == measure]
    kept = [
        r
        for r in part
        if r.get("form") not in (None, "*")
        and r.get("length") is not None
        and r.get("statistic") != "spearman"
    ]
    if not kept:
        return None
    keys = tuple(k for k in LENGTH_GROUP_KEYS if len({str(r.get(k)) for r in kept}) > 1)
    names = [
        f"{group} · {r['form']}" if (group := _group_label(r, keys, labels)) else str(r["form"])
        for r in kept
    ]
    names = distinct(names, kept)
    points = [
        Point(name, float(r["length"]), r.get("value"), r.get("n"))
        for name, r in zip(names, kept, strict=True)
    ]
    rho = next((r for r in part if r.get("statistic") == "spearman"), None)
    title = measure_name(measure)
    if rho and rho.get("value") is not None and math.isfinite(rho["value"]):
        p = rho.get("p_value")
        group = _group_label(rho, keys, labels)
        title += f" · ρ{f' ({group})' if group else ''} = {rho['value']:.2f}"
        title += f", p = {p:.3g}" if p is not None else ""
        title += f" (n={rho.get('n')})"
    return Scatter(
        title,
        tuple(points),
        x_label=_("length of the form (characters)"),
        y_label=_("rate or accuracy"),
    )


#: The dashboard draws a pair matrix of at most this many raters (the table and the print
#: figure have them all; the page says how many it leaves to the figures).
MAX_PAIR_RATERS = 12


def pairwise_heatmaps(
    rows: Rows, labels: Labels, task: str, field: str
) -> list[tuple[int, str, SafeString | None]]:
    """The dashboard's pair matrices of :func:`pairwise_heatmap_specs`: [(number, name,
    svg)], the svg None for a set of more than ``MAX_PAIR_RATERS`` raters (a figure)."""
    return [
        (k, name, dashboard_svg(spec) if len(spec.rows) <= MAX_PAIR_RATERS else None)
        for k, (name, spec) in enumerate(pairwise_heatmap_specs(rows, labels, task, field), 1)
    ]


def pairwise_heatmap_specs(
    rows: Rows, labels: Labels, task: str, field: str
) -> list[tuple[str, Heatmap]]:
    """Cohen's κ of every pair of raters within a set, as a rater × rater matrix with n
    in each cell (one per set and weighting), for one task and field: [(name, spec)]."""
    pairs = [
        r
        for r in rows
        if r.get("summary") == "pair"
        and r.get("set_b") is None
        and r.get("metric") == "cohen_kappa"
        and (r.get("task"), r.get("field")) == (task, field)
    ]
    out = []
    for key in dict.fromkeys((r["set_a"], r.get("weights") or "none") for r in pairs):
        cells = [r for r in pairs if (r["set_a"], r.get("weights") or "none") == key]
        raters = sorted({str(r["rater_a"]) for r in cells} | {str(r["rater_b"]) for r in cells})
        values: dict[tuple[str, str], float | None] = {}
        counts: dict[tuple[str, str], int | None] = {}
        for r in cells:
            for a, b in ((r["rater_a"], r["rater_b"]), (r["rater_b"], r["rater_a"])):
                values[(str(a), str(b))] = r.get("value")
                counts[(str(a), str(b))] = r.get("n")
        name = f"{labels.rater_set(key[0])} · {labels.metric('cohen_kappa', key[1])}"
        title = _("%(metric)s of each pair of raters: %(set)s, %(task)s · %(field)s") % {
            "metric": labels.metric("cohen_kappa", key[1]),
            "set": labels.rater_set(key[0]),
            "task": labels.task(task),
            "field": labels.field(task, field),
        }
        spec = Heatmap(
            title,
            tuple(raters),
            tuple(raters),
            values,
            low=-1.0,
            high=1.0,
            diverging=True,
            counts=counts,
            note=_("cell: κ and its n items"),
        )
        out.append((name, spec))
    return out


def measure_name(measure: str) -> str:
    """A form-length measure in words: a rule metric (``rater/version/metric``) or a
    coefficient (``accuracy``)."""
    return Labels.rule(measure) if "/" in measure else Labels.metric(measure)
