"""Dashboard pages: thin views over the report service, progress selectors and charts."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from annotation.models import AggregateResult
from research.access import study_for, visible_studies
from research.dashboard import charts, progress
from research.downloads import (
    REPORT_FORMATS,
    RESPONSE_FORMATS,
    report_download,
    responses_download,
)
from research.recruit import recruit_links
from scoring.report import TABLES
from scoring.report.service import report_for
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
    report = report_for(study)
    rules, metrics = charts.rule_choices(report), charts.metric_choices(report)
    # the study's default rule rater first (its rule_raters setting; classical unless it says)
    preferred = (f"prosody:{default_tone_system(study)}/structural", *PREFERRED)
    rule = _pick(request.GET.get("rule"), rules, *preferred)
    metric = _pick(request.GET.get("metric"), metrics, *preferred)
    tables = report.as_json()
    context = {
        "study": study,
        "unscored": unscored_poem_count(study),
        "report": report,
        "tables": tables,
        # Coefficients with a value first; those the data cannot give (too few shared
        # units, one rater) folded below with their reason.
        "agreement_defined": [r for r in tables["agreement"] if r["value"] is not None],
        "agreement_undefined": [r for r in tables["agreement"] if r["value"] is None],
        "table_names": TABLES,
        "funnel": progress.funnel(study),
        "answers": progress.task_progress(study),
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
    }
    return render(request, "research/dashboard.html", context)


@login_required
def download_report(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    table = request.GET.get("table") or None
    if fmt not in REPORT_FORMATS or (table is not None and table not in TABLES):
        raise Http404("No such download")
    return report_download(report_for(study), fmt, table)


@login_required
def download_responses(request: HttpRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_for(request.user, study_id)
    if fmt not in RESPONSE_FORMATS:
        raise Http404("No such download")
    return responses_download(study.slug, study, fmt)  # type: ignore[return-value]
