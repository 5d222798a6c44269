"""Read-only API views for researchers; each calls one selector and serializes."""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Response as ResponseRow
from research.access import study_for, visible_studies
from research.api import serializers as out
from research.downloads import (
    REPORT_FORMATS,
    RESPONSE_FORMATS,
    paper_download,
    report_download,
    responses_download,
)
from research.reports import ReportRateLimited, report_state
from scoring.report import (
    BY_KEYS,
    N_BOOT,
    TABLES,
    Report,
    ReportSettings,
    SettingsError,
    paper,
    settings_from,
)
from scoring.report.build import unknown_tasks
from scoring.report.plan import Goals, plan_rows
from scoring.report.settings import (
    CLUSTER,
    CLUSTERS,
    MAX_BOOT,
    MAX_SEED,
    MIN_SIDE,
    PASS_THRESHOLD,
    RATINGS_CI,
    SETTING_NAMES,
)
from studies.models import Item, Study

TAGS = ["research"]


def _choice(request: Request, name: str, allowed: tuple[str, ...], default: str | None) -> Any:
    value = request.query_params.get(name, default)
    if value is not None and value not in allowed:
        raise exceptions.ValidationError({name: f"one of {', '.join(allowed)}"})
    return value


def report_settings(request: Request, study: Study) -> ReportSettings:
    """The report settings of the query string (docs/report.md §1), checked (one rule
    for every interface: ``scoring.report.settings.check``)."""
    values = {name: request.query_params.get(name) for name in SETTING_NAMES}
    try:
        settings = settings_from(values)
    except SettingsError as exc:
        raise exceptions.ValidationError({exc.name: exc.message}) from exc
    if missing := unknown_tasks(study, settings.tasks):
        raise exceptions.ValidationError({"tasks": f"no task {', '.join(missing)} in this study"})
    return settings


SETTING_PARAMETERS = [
    OpenApiParameter(
        "n_boot", int, description=f"bootstrap resamples (default {N_BOOT}, at most {MAX_BOOT})"
    ),
    OpenApiParameter("seed", int, description=f"random seed of the bootstrap (0 to {MAX_SEED})"),
    OpenApiParameter("confidence", float, description="confidence level (default 0.95)"),
    OpenApiParameter(
        "pass_threshold",
        float,
        description=f"a graded rule metric passes at or above it (default {PASS_THRESHOLD})",
    ),
    OpenApiParameter(
        "min_side",
        int,
        description=f"fewer poems on a pass/fail side: no interval (default {MIN_SIDE})",
    ),
    OpenApiParameter(
        "by", str, description=f"split every table by item provenance: {', '.join(BY_KEYS)}"
    ),
    OpenApiParameter("tasks", str, description="only these task slugs (comma-separated)"),
    OpenApiParameter("ratings_ci", str, enum=list(RATINGS_CI), description="default crossed"),
    OpenApiParameter(
        "cluster",
        str,
        enum=list(CLUSTERS),
        description=f"what answers are clustered in (default {CLUSTER}; none: independent)",
    ),
]


class StudyList(generics.ListAPIView):
    """Studies shared with you (every study for an administrator)."""

    serializer_class = out.StudyOut

    @extend_schema(tags=TAGS)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Study]:
        return visible_studies(self.request.user).order_by("slug")


class StudyDetail(APIView):
    @extend_schema(responses=out.StudyDetailOut, tags=TAGS)
    def get(self, request: Request, study_id: int) -> Response:
        """One study: groups, tasks and counts."""
        study = study_for(request.user, study_id)
        data = {
            **out.StudyOut(study).data,
            "description": study.description,
            "groups": out.GroupOut(study.groups.all(), many=True).data,
            "tasks": out.TaskOut(study.tasks.all(), many=True).data,
            "n_items": study.items.count(),
            "n_participants": study.participants.filter(is_test=False).count(),
            "n_responses": study.responses.exclude(rater__participant__is_test=True).count(),
        }
        return Response(data)


class ItemList(generics.ListAPIView):
    """The study's items with their answer keys (researchers only)."""

    serializer_class = out.ItemOut

    @extend_schema(tags=TAGS, parameters=[OpenApiParameter("task", str, description="task slug")])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Item]:
        study = study_for(self.request.user, self.kwargs["study_id"])
        query = Item.objects.filter(study=study).select_related("task").order_by("pk")
        task = self.request.query_params.get("task")
        return query.filter(task__slug=task) if task else query


class ResponseList(generics.ListAPIView):
    """Item-level responses (formats.md §4 columns), paginated; filter by task or kind."""

    serializer_class = out.ResponseOut

    @extend_schema(
        tags=TAGS,
        parameters=[
            OpenApiParameter("task", str, description="task slug"),
            OpenApiParameter("rater_kind", str, enum=["human", "model", "rule"]),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Any]:
        study = study_for(self.request.user, self.kwargs["study_id"])
        query = (
            ResponseRow.objects.filter(study=study)
            .exclude(rater__participant__is_test=True)  # staff's preview: never counted
            .order_by("pk")
        )
        if task := self.request.query_params.get("task"):
            query = query.filter(task__slug=task)
        if kind := self.request.query_params.get("rater_kind"):
            query = query.filter(rater__kind=kind)
        return query.values(
            "id",
            "task__slug",
            "item__external_id",
            "rater__kind",
            "rater__name",
            "rater__run",
            "rater__participant__group__slug",
            "field",
            "value",
            "correct",
            "time_ms",
            "sample",
            "answered_at",
        )


REPORT_RESPONSES: dict[Any, Any] = {
    202: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description="Being computed by a background job: poll ``status_url`` (the job's "
        "state), then ask again. ``stale`` describes the last complete report, if any.",
    ),
    400: OpenApiResponse(OpenApiTypes.OBJECT, description="A setting is not valid."),
    503: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description="The report job failed (without a broker, where it runs at once); "
        "``detail`` says why. With a broker the next request starts it again.",
    ),
    429: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description="Too many report computations started this hour (REPORT_STARTS_PER_HOUR); "
        "Retry-After says when to try again.",
    ),
}


def stored_report(
    request: Request, study: Study, settings: ReportSettings | None = None
) -> Report | Response:
    """The stored report of the query's settings (or of ``settings``) when it is current;
    else a 202 naming the background job computing it (started if need be), or a 429.
    Never computes."""
    settings = settings or report_settings(request, study)
    try:
        state = report_state(study, settings, request.user)
    except ReportRateLimited as exc:
        limit = {"detail": exc.message, "retry_after": exc.retry_after}
        return Response(limit, status=429, headers={"Retry-After": str(exc.retry_after)})
    if state.complete and state.stored is not None:
        return state.stored.report
    stale = state.head
    url = state.wait_status_url
    detail = (
        _("The report's tables %(tables)s are being computed; ask again shortly.")
        % {"tables": ", ".join(state.pending)}
        if state.current
        else _("The report is being computed; ask again shortly.")
    )
    body: dict[str, Any] = {
        "status": "failed" if state.wait_failed else "computing",
        "detail": state.wait_failed or detail,
        "job": state.wait_job_id,
        "pending": list(state.pending),
        "status_url": request.build_absolute_uri(url) if url else None,
        "fingerprint": state.fingerprint,
        "stale": None
        if stale is None
        else {
            "fingerprint": stale.fingerprint,
            "computed_at": stale.computed_at.isoformat(),
            "answers_since": state.answers_since,
        },
    }
    if body["status"] == "failed":
        return Response(body, status=503)
    headers = {"Retry-After": "5"}
    if url:
        headers["Location"] = request.build_absolute_uri(url)
    return Response(body, status=202, headers=headers)


class ReportView(APIView):
    @extend_schema(
        responses={200: out.ReportOut, **REPORT_RESPONSES}, tags=TAGS, parameters=SETTING_PARAMETERS
    )
    def get(self, request: Request, study_id: int) -> Response:
        """The statistics report (formats.md §5): every table as flat rows; the settings
        used are echoed under ``settings``. Computed by a background job: 202 with the
        job's ``status_url`` until the report for the current data is stored."""
        study = study_for(request.user, study_id)
        found = stored_report(request, study)
        return found if isinstance(found, Response) else Response(found.as_json())


class ReportExport(APIView):
    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, **REPORT_RESPONSES},
        tags=TAGS,
        parameters=[
            OpenApiParameter("file", str, enum=list(REPORT_FORMATS), description="default json"),
            OpenApiParameter("table", str, enum=list(TABLES), description="one table only"),
            OpenApiParameter(
                "bom", str, enum=["0", "1"], description="CSV: UTF-8 byte order mark (default 1)"
            ),
            *SETTING_PARAMETERS,
        ],
    )
    def get(self, request: Request, study_id: int) -> Any:
        """The report as a file: JSON, CSV (one table, or a zip of all) or XLSX; 202 with
        the job's ``status_url`` while it is computed (as ``report``)."""
        study = study_for(request.user, study_id)
        fmt = _choice(request, "file", REPORT_FORMATS, "json")
        table = _choice(request, "table", TABLES, None)
        found = stored_report(request, study)
        if isinstance(found, Response):
            return found
        return report_download(found, fmt, table, bom=request.GET.get("bom") != "0")


class PaperExport(APIView):
    @extend_schema(
        responses={
            (200, "application/octet-stream"): OpenApiTypes.BINARY,
            **REPORT_RESPONSES,
            400: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="A setting is not valid, or the report has no rows for this "
                "layout (``layout`` says why, e.g. no rule rater's rows to fill Table 2).",
            ),
            404: OpenApiResponse(OpenApiTypes.OBJECT, description="No such study or layout."),
        },
        tags=TAGS,
        parameters=[
            OpenApiParameter(
                "layout",
                str,
                OpenApiParameter.PATH,
                enum=list(paper.LAYOUT_BY_NAME),
                description="a named paper layout (docs/report.md §4c)",
            ),
            OpenApiParameter("file", str, enum=list(paper.FORMATS), description="default latex"),
            OpenApiParameter(
                "bom", str, enum=["0", "1"], description="CSV: UTF-8 byte order mark (default 1)"
            ),
            *SETTING_PARAMETERS,
        ],
    )
    def get(self, request: Request, study_id: int, layout: str) -> Any:
        """One table as a paper prints it (``manage.py report --paper``): LaTeX, Markdown
        or CSV. The layout's own split (``by``) is added to any asked for; 202 with the
        job's ``status_url`` while that report is computed (as ``report``)."""
        study = study_for(request.user, study_id)
        if layout not in paper.LAYOUT_BY_NAME:
            raise exceptions.NotFound(f"no paper layout {layout!r}")
        named = paper.LAYOUT_BY_NAME[layout]
        fmt = _choice(request, "file", paper.FORMATS, "latex")
        asked = report_settings(request, study)
        settings = replace(asked, by=paper.split_for(asked.by, named))
        found = stored_report(request, study, settings)
        if isinstance(found, Response):
            return found
        try:
            return paper_download(found, named, fmt, bom=request.GET.get("bom") != "0")
        except paper.PivotError as exc:
            raise exceptions.ValidationError({"layout": f"{named.table}: {exc}"}) from exc


PLAN_GOALS = {
    "half_width": float,
    "power": float,
    "alpha": float,
    "alpha_width": float,
    "confidence": float,
    "n_sims": int,
}


class PlanView(APIView):
    @extend_schema(
        responses=out.PlanOut,
        tags=TAGS,
        parameters=[
            OpenApiParameter(name, kind, description="a goal (docs/statistics.md, planning)")
            for name, kind in PLAN_GOALS.items()
        ],
    )
    def get(self, request: Request, study_id: int) -> Response:
        """How many more volunteers (or items) each goal needs, from the data so far."""
        study = study_for(request.user, study_id)
        given: dict[str, Any] = {}
        for name, kind in PLAN_GOALS.items():
            raw = request.query_params.get(name)
            if raw is None or not raw.strip():
                continue
            try:
                given[name] = kind(raw)
            except ValueError:
                raise exceptions.ValidationError({name: f"not a valid {kind.__name__}"}) from None
        try:
            goals = Goals(**given)
        except ValueError as exc:
            name, _, what = str(exc).partition(": ")
            raise exceptions.ValidationError({name: what}) from exc
        rows = [
            {
                k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in r.items()
            }
            for r in plan_rows(study, goals)
        ]
        return Response({"study": study.slug, "goals": asdict(goals), "rows": rows})


class ResponsesExport(APIView):
    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
        tags=TAGS,
        parameters=[
            OpenApiParameter("file", str, enum=list(RESPONSE_FORMATS), description="default csv"),
            OpenApiParameter(
                "bom", str, enum=["0", "1"], description="CSV: UTF-8 byte order mark (default 1)"
            ),
        ],
    )
    def get(self, request: Request, study_id: int) -> Any:
        """Every raw response, streamed (formats.md §4)."""
        study = study_for(request.user, study_id)
        fmt = _choice(request, "file", RESPONSE_FORMATS, "csv")
        return responses_download(study.slug, study, fmt, bom=request.GET.get("bom") != "0")
