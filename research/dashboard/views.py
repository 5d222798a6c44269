"""Dashboard pages: thin views over the stored background report (``research.reports``),
progress selectors and charts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.safestring import mark_safe

from annotation.models import AggregateResult
from research.access import study_for, visible_studies
from research.dashboard import charts, context, progress
from research.dashboard.labels import Labels, explain_star
from research.dashboard.layouts import paper_links
from research.dashboard.tables import reader_naming, table_view
from research.downloads import (
    REPORT_FORMATS,
    RESPONSE_FORMATS,
    paper_download,
    report_download,
    responses_download,
)
from research.recruit import recruit_links
from research.reports import ReportRateLimited, StoredReport, report_state
from scoring.report import TABLES
from scoring.report import paper as layouts
from scoring.report.registry import SPECS
from scoring.rules import default_tone_system, unscored_poem_count
from studies.models import Study

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
    """Opens at once: the progress tables come from counters, and the report is the last
    one a background job stored for these settings (``research.reports``), current or
    stale with its age; when there is none yet the page says so and reloads itself."""
    study = study_for(request.user, study_id)
    form = context.read_settings(study, request.GET)
    status = 400 if form.errors else 200  # a bad setting is named on the page, as a 400
    limited: ReportRateLimited | None = None
    try:  # never a computation started for settings the researcher did not ask for
        state = report_state(study, form.settings, request.user, start=not form.errors)
    except ReportRateLimited as exc:
        limited, status = exc, 429
        state = report_state(study, form.settings, request.user, start=False)
    ctx = {
        "study": study,
        "unscored": unscored_poem_count(study),
        "form": form,
        **context.settings_choices(study),
        "task_filter": request.GET.get("task", ""),
        "star_note": explain_star(),
        "state": state,
        "limited": limited.message if limited is not None else "",
        # reload while the first report is computed (nothing to read meanwhile)
        "refresh": REFRESH_SECONDS if state.stored is None and state.computing else None,
        "table_names": TABLES,
        "funnel": progress.funnel(study),
        "answers": progress.task_progress_cached(study, state.fingerprint),
        "published_svg": _safe(charts.published_chart(study)),
        "aggregates": published_results(study),
        "report_formats": REPORT_FORMATS,
        "response_formats": RESPONSE_FORMATS,
        "recruit": recruit_links(request, study),
        "settings_query": settings_query(form),
        "paper_links": paper_links(state.stored.report if state.stored is not None else None),
        "report": None,
        "tables": {},
        "plan_rows": [],
    }
    if state.stored is not None:
        ctx.update(report_context(request, study, state.stored))
    response = render(request, "research/dashboard.html", ctx, status=status)
    if limited is not None:
        response["Retry-After"] = str(limited.retry_after)
    return response


REFRESH_SECONDS = 5


def published_results(study: Study) -> list[AggregateResult]:
    """The study's published figures, each with its metric named (``metric_name``)."""
    rows = list(AggregateResult.objects.filter(study=study).order_by("task", "model"))
    for a in rows:
        a.metric_name = Labels.metric(a.metric)  # type: ignore[attr-defined]
    return rows


def report_context(request: HttpRequest, study: Study, stored: StoredReport) -> dict[str, Any]:
    """What the page shows of a stored report: tables, views and charts (no computing)."""
    report = stored.report
    labels = Labels(study)
    rules, metrics = charts.rule_choices(report), charts.metric_choices(report)
    # the study's default rule rater first (its rule_raters setting; classical unless it says)
    preferred = (f"prosody:{default_tone_system(study)}/structural", *PREFERRED)
    rule = _pick(request.GET.get("rule"), rules, *preferred)
    metric = _pick(request.GET.get("metric"), metrics, *preferred)
    tables = report.as_json()
    query = request.GET
    return {
        "report": report,
        "tables": tables,
        "exclusions": [
            {**e, "reason": labels.value("reason", e["reason"], e)} for e in tables["exclusions"]
        ],
        # the downloads named by what each table holds (its file keeps the table's id)
        "download_tables": [
            (s.name, s.title or s.name, len(tables.get(s.name) or [])) for s in SPECS
        ],
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
        **context.paper_context(study, report, query, labels, stored.rule_rates_by_form),
        "plan_rows": stored.plan_rows or [],
        "accuracy_svg": _safe(charts.accuracy_chart(report, study)),
        "correlation_svg": _safe(charts.correlation_chart(report, study)),
        "rules_svg": _safe(charts.rules_chart(report, study, rule)) if rule else None,
        "cipai_svg": _safe(charts.cipai_chart(report, metric)) if metric else None,
        "rules": rules,
        "rule_options": [(r, Labels.rule(r)) for r in rules],
        "rule": rule,
        "metrics": metrics,
        "metric_options": [(m, Labels.rule(m)) for m in metrics],
        "metric": metric,
    }


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
    """The stored report when it is current; else a page that waits for the job
    computing it (202) and reloads itself into the file."""
    study = study_for(request.user, study_id)
    table = request.GET.get("table") or None
    if fmt not in REPORT_FORMATS or (table is not None and table not in TABLES):
        raise Http404("No such download")
    form = context.read_settings(study, request.GET)
    if form.errors:  # never a report computed for settings the researcher did not ask for
        problems = "\n".join(f"{name}: {message}" for name, message in form.errors.items())
        return HttpResponseBadRequest(problems, content_type="text/plain; charset=utf-8")
    try:
        state = report_state(study, form.settings, request.user)
    except ReportRateLimited as exc:
        return rate_limited(exc)
    if state.current and state.stored is not None:
        bom = request.GET.get("bom") != "0"  # CSV: the UTF-8 byte order mark unless ?bom=0
        # XLSX with ?names=1: for reading, named as on the page (else the report's ids)
        named = reader_naming(Labels(study)) if request.GET.get("names") == "1" else None
        return report_download(state.stored.report, fmt, table, bom=bom, naming=named)
    ctx = {"study": study, "state": state, "refresh": None if state.failed else REFRESH_SECONDS}
    return render(request, "research/report_wait.html", ctx, status=202)


def rate_limited(exc: ReportRateLimited) -> HttpResponse:
    response = HttpResponse(exc.message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(exc.retry_after)
    return response


@login_required
def download_paper(request: HttpRequest, study_id: int, layout: str, fmt: str) -> HttpResponse:
    """One named paper layout of the report with the page's settings (and the layout's
    own split) as LaTeX, Markdown or CSV; a wait page (202) while it is computed."""
    study = study_for(request.user, study_id)
    named = layouts.LAYOUT_BY_NAME.get(layout)
    if named is None or fmt not in layouts.FORMATS:
        raise Http404("No such download")
    form = context.read_settings(study, request.GET)
    if form.errors:
        problems = "\n".join(f"{name}: {message}" for name, message in form.errors.items())
        return HttpResponseBadRequest(problems, content_type="text/plain; charset=utf-8")
    settings = replace(form.settings, by=layouts.split_for(form.settings.by, named))
    try:
        state = report_state(study, settings, request.user)
    except ReportRateLimited as exc:
        return rate_limited(exc)
    if state.current and state.stored is not None:
        try:
            return paper_download(state.stored.report, named, fmt)
        except layouts.PivotError as exc:
            text = f"{named.name}: {named.table}: {exc}"
            return HttpResponseBadRequest(text, content_type="text/plain; charset=utf-8")
    ctx = {"study": study, "state": state, "refresh": None if state.failed else REFRESH_SECONDS}
    return render(request, "research/report_wait.html", ctx, status=202)


@login_required
def download_responses(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    if fmt not in RESPONSE_FORMATS:
        raise Http404("No such download")
    bom = request.GET.get("bom") != "0"  # CSV: the UTF-8 byte order mark unless ?bom=0
    return responses_download(study.slug, study, fmt, bom=bom)  # type: ignore[return-value]
