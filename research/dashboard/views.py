"""Dashboard pages: thin views over the stored background report (``research.reports``),
progress selectors and charts."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from annotation.models import AggregateResult
from research.access import study_for, visible_studies
from research.dashboard import charts, context, progress, running
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
from research.figures import registry as figures
from research.recruit import recruit_links
from research.reports import (
    ReportHead,
    ReportRateLimited,
    ReportState,
    StoredReport,
    report_state,
)
from scoring.report import TABLES
from scoring.report import paper as layouts
from scoring.report.registry import BY_NAME, SPECS
from scoring.report.settings import ReportSettings
from scoring.rules import unscored_poem_count
from studies.models import AnalysisPlan, Item, PlanDeviation, Study


def _safe(svg: str | None) -> SafeString | None:
    return context.chart_svg(svg)


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
    saved, totals = running.read(study)  # the one scan of the responses the page makes
    try:  # never a computation started for settings the researcher did not ask for
        state = report_state(
            study, form.settings, request.user, start=not form.errors, totals=totals
        )
    except ReportRateLimited as exc:
        limited, status = exc, 429
        state = report_state(study, form.settings, request.user, start=False, totals=totals)
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
        "refresh": REFRESH_SECONDS if state.head is None and state.computing else None,
        "table_names": TABLES,
        "funnel": progress.funnel(study),
        "answers": running.task_progress_from(study, running.current_counts(study, saved, totals)),
        "published_svg": _safe(charts.published_chart(study)),
        "aggregates": published_results(study),
        "report_formats": REPORT_FORMATS,
        "response_formats": RESPONSE_FORMATS,
        "recruit": recruit_links(request, study),
        "settings_query": settings_query(form),
        "paper_links": paper_links(None),  # the stored report's: with its sections below
        "report": None,
        "pending": pending_tables(state.head),  # heavy tables still being computed
        "tables": {},
        "plan_rows": [],
    }
    if state.head is not None:
        ctx.update(report_html(request, study, state, ctx))
    response = render(request, "research/dashboard.html", ctx, status=status)
    if limited is not None:
        response["Retry-After"] = str(limited.retry_after)
    return response


REFRESH_SECONDS = 5

#: The report's sections as rendered HTML (``report_html``): how long one is kept, and a
#: version to bump when what they show changes in a way their key does not see.
HTML_TIMEOUT = 60 * 60
HTML_VERSION = 2
#: The templates of the report's parts of the page, rendered apart and cached.
REPORT_TEMPLATES = {
    "exclusions": "research/_report_exclusions.html",
    "sections": "research/_report_sections.html",
}


def report_html(
    request: HttpRequest, study: Study, state: ReportState, ctx: dict[str, Any]
) -> dict[str, Any]:
    """The stored report's parts of the page (its exclusions, tables and charts) as HTML,
    with the downloads' rows and the paper tables' links it offers,
    rendered once per stored report, settings, query, language and study description
    (``html_key``) and then read from the cache: during collection every answer makes
    the report stale, but the stored report the page shows is the same, so a view after
    a new answer renders only the progress, the funnel and the report's age,
    and does not read the stored report at all (``state.head`` keys the HTML; the report
    is loaded only when asked for: ``report`` in the context is lazy)."""
    assert state.head is not None
    key = html_key(request, study, state.head, ctx)
    found: dict[str, Any] | None = cache.get(key)
    if found is not None:
        html = {name: mark_safe(text) for name, text in found["html"].items()}
        return {
            "report": SimpleLazyObject(lambda: state.stored.report if state.stored else None),
            "report_meta": found["report_meta"],
            "report_html": html,
            "download_tables": found["download_tables"],
            "paper_links": found["paper_links"],
        }
    stored = state.stored
    if stored is None:  # its file went away since the head was read: shown as none
        return {}
    full = {**ctx, **report_context(request, study, stored)}
    full["paper_links"] = paper_links(stored.report)  # 0.6 s at 1,000,000 responses
    full["report_meta"] = {
        "generated_at": stored.report.generated_at,
        "n_boot": stored.report.settings.n_boot,
    }
    texts = {
        name: render_to_string(template, full, request)
        for name, template in REPORT_TEMPLATES.items()
    }
    kept = {name: full[name] for name in ("download_tables", "paper_links", "report_meta")}
    cache.set(key, {"html": texts, **kept}, HTML_TIMEOUT)
    return {**full, "report_html": {name: mark_safe(t) for name, t in texts.items()}}


def html_key(request: HttpRequest, study: Study, stored: ReportHead, ctx: dict[str, Any]) -> str:
    """Everything the report's sections read besides the stored report itself: the
    settings and the query (chart choices, rows shown), the language, and what they
    read of the study (its row, tasks and groups for the names, items for the flagged
    parts' texts, the analysis plan, the published results and the unscored poems)."""
    parts = [
        HTML_VERSION,
        study.pk,
        stored.fingerprint,
        stored.computed_at.isoformat(),
        stored.answers,
        repr(ctx["form"].settings.as_json()),
        sorted(request.GET.lists()),
        get_language(),
        list(Study.objects.filter(pk=study.pk).values()),
        list(study.tasks.order_by("pk").values()),
        list(study.groups.order_by("pk").values()),
        Item.objects.filter(study=study).aggregate(n=Count("pk"), at=Max("updated_at")),
        AnalysisPlan.objects.filter(study=study).aggregate(n=Count("pk"), m=Max("pk")),
        PlanDeviation.objects.filter(plan__study=study).aggregate(n=Count("pk"), m=Max("pk")),
        [vars_of(a) for a in ctx["aggregates"]],
        str(ctx["published_svg"] or ""),
        ctx["unscored"],
        # the heavy tables: pending, filled in, or shown stale with their age (in minutes)
        stored.pending,
        pending_stamp(stored),
        stored.heavy_job,
    ]
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return f"dashboard-html:{study.pk}:{digest}"


def pending_stamp(head: ReportHead) -> list[tuple[str, str, int]]:
    """What the pending tables' notes show: each stale table's result (its time) and
    its age in whole minutes, so a cached section's age is at most a minute behind."""
    now = timezone.now()
    return [
        (t.name, t.computed_at.isoformat(), int((now - t.computed_at).total_seconds() // 60))
        for t in head.stale
    ]


def pending_tables(head: ReportHead | None) -> dict[str, dict[str, Any]]:
    """The stored report's heavy tables still being computed, by name: their title and,
    when rows of an older computation are shown meanwhile, when and on how many answers
    it was computed (``research.reports.with_heavy``), from the report's head."""
    if head is None:
        return {}
    stale = {t.name: t for t in head.stale}
    out: dict[str, dict[str, Any]] = {}
    for name in head.pending:
        older = stale.get(name)
        out[name] = {
            "title": BY_NAME[name].title or name,
            "stale_at": older.computed_at if older is not None else None,
            "stale_answers": older.answers if older is not None else None,
        }
    return out


def vars_of(row: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(row).items() if not k.startswith("_")}


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
    rule = figures.pick(request.GET.get("rule"), rules, *figures.preferred(study))
    metric = figures.pick(request.GET.get("metric"), metrics, *figures.preferred(study))
    tables = report.as_json()
    query = context.kept_query(request.GET, report.settings)
    return {
        "report": report,
        "tables": tables,
        "pending": pending_tables(ReportHead.of(stored)),
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
        **figure_links(request, report),
    }


#: The chart choices the dashboard's query carries to a print figure's link.
CHART_CHOICES = ("task", "rule", "metric", "rate_metric", "val_metric", "length_measure", "agr")


def figure_links(request: HttpRequest, report: Any) -> dict[str, Any]:
    """What the print-figure links next to each chart need: the chart names, formats,
    widths, and the report settings with the chart choices on screen as a query."""
    values = {
        k: ",".join(v) if isinstance(v, list) else v
        for k, v in report.settings.as_json().items()
        if v not in ([], None)
    }
    values.update({k: request.GET[k] for k in CHART_CHOICES if request.GET.get(k)})
    return {
        "figure_names": tuple(figures.CHARTS),
        "figure_formats": ("pdf", "svg"),
        "figure_widths": (("one", _("one column")), ("two", _("two columns"))),
        "chart_query": urlencode(values),
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
        return _bad_settings(form.errors)
    stored = _current_report(request, study, form.settings)
    if not isinstance(stored, StoredReport):
        return stored
    bom = request.GET.get("bom") != "0"  # CSV: the UTF-8 byte order mark unless ?bom=0
    # XLSX with ?names=1: for reading, named as on the page (else the report's ids)
    named = reader_naming(Labels(study)) if request.GET.get("names") == "1" else None
    return report_download(stored.report, fmt, table, bom=bom, naming=named)


def _bad_settings(errors: dict[str, str]) -> HttpResponse:
    problems = "\n".join(f"{name}: {message}" for name, message in errors.items())
    return HttpResponseBadRequest(problems, content_type="text/plain; charset=utf-8")


def _current_report(
    request: HttpRequest, study: Study, settings: ReportSettings
) -> StoredReport | HttpResponse:
    """The stored report for ``settings`` when it is current and complete (its heavy
    tables computed); else what to answer: 429 when the user may start no more reports
    now, or the page that waits for the job computing it or its heavy tables (202) and
    reloads itself into the download."""
    try:
        state = report_state(study, settings, request.user)
    except ReportRateLimited as exc:
        return rate_limited(exc)
    if state.complete and state.stored is not None:
        return state.stored
    # the report, or its heavy tables (never a download without them): wait for the job
    refresh = None if state.wait_failed else REFRESH_SECONDS
    ctx = {
        "study": study,
        "state": state,
        "refresh": refresh,
        "pending": pending_tables(state.head),
    }
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
        return _bad_settings(form.errors)
    settings = replace(form.settings, by=layouts.split_for(form.settings.by, named))
    stored = _current_report(request, study, settings)
    if not isinstance(stored, StoredReport):
        return stored
    try:
        return paper_download(stored.report, named, fmt)
    except layouts.PivotError as exc:
        text = f"{named.name}: {named.table}: {exc}"
        return HttpResponseBadRequest(text, content_type="text/plain; charset=utf-8")


@login_required
def download_responses(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    if fmt not in RESPONSE_FORMATS:
        raise Http404("No such download")
    bom = request.GET.get("bom") != "0"  # CSV: the UTF-8 byte order mark unless ?bom=0
    return responses_download(study.slug, study, fmt, bom=bom)  # type: ignore[return-value]


@login_required
def download_chart(request: HttpRequest, study_id: int, name: str, fmt: str) -> HttpResponse:
    """A dashboard chart for print: PDF (every page; ``?page=N`` one) or SVG (``?page=N``,
    default 1), ``?width=one|two`` journal columns, from the stored report when it is
    current (as the report's downloads; else the page that waits for its job)."""
    study = study_for(request.user, study_id)
    if name not in figures.CHARTS or fmt not in ("pdf", "svg"):
        raise Http404("No such chart")
    form = context.read_settings(study, request.GET)
    if form.errors:  # never a report computed for settings the researcher did not ask for
        return _bad_settings(form.errors)
    stored = _current_report(request, study, form.settings)
    if not isinstance(stored, StoredReport):
        return stored
    spec = figures.chart_spec(name, stored.report, study, request.GET, stored.rule_rates_by_form)
    if spec is None:
        raise Http404("Nothing to draw in this chart")
    return chart_file(spec, f"{study.slug}-{name}", fmt, request.GET)


def chart_file(spec: Any, stem: str, fmt: str, query: Any) -> HttpResponse:
    from research.figures.printed import FigureError, render  # matplotlib: only here

    page_text = query.get("page")
    width = query.get("width") or "one"
    try:
        page = int(page_text) if page_text else (1 if fmt == "svg" else None)
        data = render(spec, fmt, width, page)
    except (ValueError, FigureError) as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    suffix = f"-{width}" + (f"-p{page}" if page and fmt == "svg" else "")
    types = {"pdf": "application/pdf", "svg": "image/svg+xml"}
    response = HttpResponse(data, content_type=types[fmt])
    response["Content-Disposition"] = f'attachment; filename="{stem}{suffix}.{fmt}"'
    return response
