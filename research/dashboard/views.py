"""Dashboard pages: thin views over the report service, progress selectors and charts."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.safestring import mark_safe

from annotation.models import AggregateResult
from research.access import study_for, visible_studies
from research.dashboard import charts, context, progress
from research.dashboard.beyond import PANEL_GOALS
from research.dashboard.labels import Labels, explain_star
from research.dashboard.tables import table_view
from research.downloads import (
    REPORT_FORMATS,
    RESPONSE_FORMATS,
    report_download,
    responses_download,
)
from research.recruit import recruit_links
from scoring.report import TABLES
from scoring.report.service import StudyReader, fingerprint, plan_for, report_for
from scoring.rules import default_tone_system, unscored_poem_count

PREFERRED = ("/structural", "/tonal")


def _safe(svg: str | None) -> str | None:
    return mark_safe(svg) if svg else None


def _pick(value: str | None, choices: list[str], *prefer: str) -> str:
    """The asked-for choice if valid, else the first that ends with a preferred suffix."""
    if value is not None and value in choices:
        return value
    for suffix in prefer:
        found = next((c for c in choices if c.endswith(suffix)), None)
        if found:
            return found
    return choices[0] if choices else ""


@login_required
def study_list(request: HttpRequest) -> HttpResponse:
    studies = visible_studies(request.user).prefetch_related("groups")
    return render(request, "research/study_list.html", {"studies": studies})


@login_required
def dashboard(request: HttpRequest, study_id: int) -> HttpResponse:
    study = study_for(request.user, study_id)
    form = context.read_settings(study, request.GET)
    fp = fingerprint(study)
    # one read of the responses serves the report, the heatmaps' per-form rule rates and
    # the planning rows (whichever of them the cache does not hold yet)
    reader = StudyReader(study)
    report = report_for(study, form.settings, fp=fp, reader=reader)
    labels = Labels(study)
    rules, metrics = charts.rule_choices(report), charts.metric_choices(report)
    # the study's default rule rater first (its rule_raters setting; classical unless it says)
    preferred = (f"prosody:{default_tone_system(study)}/structural", *PREFERRED)
    rule = _pick(request.GET.get("rule"), rules, *preferred)
    metric = _pick(request.GET.get("metric"), metrics, *preferred)
    tables = report.as_json()
    query = request.GET
    ctx = {
        "study": study,
        "unscored": unscored_poem_count(study),
        "report": report,
        "tables": tables,
        "form": form,
        **context.settings_choices(study),
        "task_filter": query.get("task", ""),
        "star_note": explain_star(),
        **context.agreement_context(report, query, labels),
        "views": {
            name: table_view(name, tables[name], labels, query, by=report.settings.by)
            for name in (
                "accuracy",
                "model_vs_groups",
                "comparisons",
                "correlation",
                "rule_vs_rating",
            )
        },
        "comparison_matrix": context.comparison_matrix(report, query, labels),
        **context.paper_context(study, report, query, labels, fp, reader),
        "plan_rows": plan_for(study, PANEL_GOALS, fp=fp, reader=reader),
        "table_names": TABLES,
        "funnel": progress.funnel(study),
        "answers": progress.task_progress_cached(study, fp),
        "accuracy_svg": _safe(charts.accuracy_chart(report, study)),
        "correlation_svg": _safe(charts.correlation_chart(report, study)),
        "rules_svg": _safe(charts.rules_chart(report, study, rule)) if rule else None,
        "cipai_svg": _safe(charts.cipai_chart(report, metric)) if metric else None,
        "published_svg": _safe(charts.published_chart(study)),
        "rules": rules,
        "rule": rule,
        "metrics": metrics,
        "metric": metric,
        "aggregates": AggregateResult.objects.filter(study=study).order_by("task", "model"),
        "report_formats": REPORT_FORMATS,
        "response_formats": RESPONSE_FORMATS,
        "recruit": recruit_links(request, study),
        "settings_query": settings_query(form),
    }
    # a bad setting is named on the page (the defaults used for it), as a 400
    return render(request, "research/dashboard.html", ctx, status=400 if form.errors else 200)


def settings_query(form: context.SettingsForm) -> str:
    """The report settings as a query string, so downloads give the tables on screen."""
    values = {
        k: ",".join(v) if isinstance(v, list) else v
        for k, v in form.settings.as_json().items()
        if v not in ([], None)
    }
    return urlencode(values)


@login_required
def download_report(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    table = request.GET.get("table") or None
    if fmt not in REPORT_FORMATS or (table is not None and table not in TABLES):
        raise Http404("No such download")
    form = context.read_settings(study, request.GET)
    if form.errors:  # never a report computed for settings the researcher did not ask for
        problems = "\n".join(f"{name}: {message}" for name, message in form.errors.items())
        return HttpResponseBadRequest(problems, content_type="text/plain; charset=utf-8")
    return report_download(report_for(study, form.settings), fmt, table)


@login_required
def download_responses(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    if fmt not in RESPONSE_FORMATS:
        raise Http404("No such download")
    bom = request.GET.get("bom") != "0"  # CSV: the UTF-8 byte order mark unless ?bom=0
    return responses_download(study.slug, study, fmt, bom=bom)  # type: ignore[return-value]
