"""The production URLs and the benchmarks' floor view (bench/settings.py)."""

from __future__ import annotations

import random

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from annotation.models import Response
from config.urls import urlpatterns as production
from research.access import study_for


@csrf_exempt
@require_http_methods(["POST"])
def bench_floor(request: HttpRequest) -> HttpResponse:
    """The benchmark's floor: one INSERT of a Response through the same middleware and
    database as an answer (bench/bench_submit.py, bench_pages.py, loadtest.py)."""
    Response.objects.create(
        study_id=int(request.POST["study"]), task_id=int(request.POST["task"]),
        item_id=int(request.POST["item"]), rater_id=int(request.POST["rater"]),
        field="floor", value=1, sample=random.getrandbits(31),
    )  # fmt: skip
    return JsonResponse({"ok": True}, status=201)


@login_required
def bench_floor_page(request: HttpRequest, study_id: int) -> HttpResponse:
    """The researchers' floor page: a logged-in GET through the same middleware, session
    and study access check as the dashboard, and nothing more (bench_dashboard_1m.py)."""
    study = study_for(request.user, study_id)
    return HttpResponse(f"<p>{study.pk}</p>")


urlpatterns = [
    *production,
    path("bench/floor/", bench_floor, name="bench-floor"),
    path("bench/floor-page/<int:study_id>/", bench_floor_page, name="bench-floor-page"),
]
