"""Who may open which admin page: every registered model's list, add, change (a row of
study A and of study B), history and delete pages, and the job pages, for each role.

| role | pages of a model it may view | other models | a row of study B |
|---|---|---|---|
| anonymous | login | login | login |
| superuser | 200 (add: 200 where the admin adds) | — | 200 |
| researcher of A (the Researchers role) | 200 read-only; add, delete 403 | 403 | not found |
| staff with one model's view permission, A shared | 200 read-only; add, delete 403 | 403 | not found |

"Not found" is the admin's redirect to its index with "doesn't exist": a row of a study
not shared with the user is never listed, opened, nor named. Lists hold rows of A only,
and no page shows a credential (resume code, invitation or public token, API token) to
anyone but a superuser.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.db.models import Model
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from jobs.models import Job
from research.roles import RESEARCHER_PERMISSIONS
from studies.models import AnalysisPlan, ImportLog, Item, ScreeningQuestion, Study, Task
from tests.app.admin_world import World, study_of, user_make, world_build

pytestmark = pytest.mark.django_db
NO_ADD_PAGE = {Task, ScreeningQuestion, Item, ImportLog, Job, AnalysisPlan}  # files, jobs, CLI
# django-axes' login records (admin login throttle) are written by axes alone.
NO_ADD_PAGE |= {m for m in admin.site._registry if m._meta.app_label == "axes"}
PAGES = ("changelist", "add", "change A", "change B", "history A", "delete A")


@pytest.fixture
def world() -> World:
    return world_build()


def label(model: type[Model]) -> str:
    return f"{model._meta.app_label}.view_{model._meta.model_name}"


def row(world: World, model: type[Model], which: str, user: Any) -> Model | None:
    """A row of ``model`` in study A or B (None for a model bound to no study: a user, an
    auth group, and the user's own API token, or the superuser's)."""
    path = getattr(admin.site._registry[model], "study_path", None)
    study = world.a if which == "A" else world.b
    if path is None:
        if which == "B":
            return None
        boss = world.users["superuser"]
        token = Token.objects.filter(user=user).first() or Token.objects.get(user=boss)
        own: dict[str | None, Any] = {"user": boss, "tokenproxy": token}
        return own.get(model._meta.model_name, model._default_manager.first())
    rows = model._default_manager.all()
    if model is Study:
        return study
    return next(r for r in rows if study_of(r, path) == study.pk)


def url(world: World, model: type[Model], page: str, user: Any = None) -> str | None:
    name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    if page in ("changelist", "add"):
        return reverse(f"{name}_{page}")
    obj = row(world, model, page[-1], user)
    if obj is None:
        return None
    pk = obj.user_id if isinstance(obj, Token) else obj.pk
    return reverse(f"{name}_{page.split()[0]}", args=[pk])


def expected(role: str, viewable: set[str], model: type[Model], page: str) -> str:
    if role == "anonymous":
        return "login"
    if role == "superuser":
        return "403" if page == "add" and model in NO_ADD_PAGE else "200"
    if label(model) not in viewable or page in ("add", "delete A"):
        return "403"
    bound = getattr(admin.site._registry[model], "study_path", None) is not None
    return "missing" if page == "change B" and bound else "200"


def outcome(client: Client, path: str) -> tuple[str, Any]:
    response = client.get(path)
    if response.status_code == 302:
        return ("login" if "/admin/login/" in response["Location"] else "missing"), response
    return str(response.status_code), response


def check_pages(
    world: World, role: str, client: Client, viewable: set[str], models: Any
) -> list[str]:
    """Every page of ``models`` against :func:`expected`; what a 200 page shows, checked."""
    wrong = []
    secrets_a = world.secrets(world.a)
    for model in models:
        for page in PAGES:
            path = url(world, model, page, getattr(client, "user", None))
            if path is None:
                continue
            want = expected(role, viewable, model, page)
            got, response = outcome(client, path)
            if got != want:
                wrong.append(f"{role} {page} {model._meta.label}: {got}, expected {want}")
                continue
            if got != "200" or role == "superuser":
                continue
            html = response.content.decode()
            wrong += [
                f"{role} {page} {model._meta.label} shows {s}" for s in secrets_a if s in html
            ]
            if page == "changelist":
                wrong += only_study_a(world, role, model, response)
    return wrong


def only_study_a(world: World, role: str, model: type[Model], response: Any) -> list[str]:
    path = getattr(admin.site._registry[model], "study_path", None)
    if path is None:
        return []
    studies = {study_of(obj, path) for obj in response.context["cl"].result_list}
    if studies != {world.a.pk}:
        return [f"{role} changelist {model._meta.label} lists studies {studies}"]
    return []


def test_anonymous_is_sent_to_the_login_page_everywhere(world: World, client: Client) -> None:
    assert check_pages(world, "anonymous", client, set(), admin.site._registry) == []
    for name in ("admin:upload", "admin:index"):
        assert "/admin/login/" in client.get(reverse(name))["Location"]


@pytest.mark.slow
def test_a_superuser_opens_every_page_of_every_study(world: World, client: Client) -> None:
    client.force_login(world.users["superuser"])
    assert check_pages(world, "superuser", client, set(), admin.site._registry) == []
    listed = client.get(reverse("admin:studies_study_changelist")).context["cl"].result_list
    assert {s.slug for s in listed} == {"poetry-understanding", "study-b"}


@pytest.mark.slow
def test_a_researcher_reads_their_studys_data_and_nothing_else(
    world: World, client: Client
) -> None:
    client.force_login(world.users["researcher"])
    client.user = world.users["researcher"]  # type: ignore[attr-defined]
    viewable = set(RESEARCHER_PERMISSIONS)
    assert check_pages(world, "researcher", client, viewable, admin.site._registry) == []
    assert client.get(reverse("admin:upload")).status_code == 403
    assert client.get(reverse("admin:jobs_job_changelist")).status_code == 403


@pytest.mark.slow
@pytest.mark.parametrize("model", list(admin.site._registry), ids=lambda m: m._meta.label)
def test_staff_with_one_model_permission_see_that_model_of_their_studies_only(
    world: World, client: Client, model: type[Model]
) -> None:
    user = user_make("staff-one", perms=(label(model),), study=world.a)
    Token.objects.create(user=user)
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    wrong = check_pages(world, "staff", client, {label(model)}, [model])
    others = [m for m in admin.site._registry if m is not model]
    for other in others:
        got, _ = outcome(
            client, reverse(f"admin:{other._meta.app_label}_{other._meta.model_name}_changelist")
        )
        if got != "403":
            wrong.append(f"staff with {label(model)}: {other._meta.label} list {got}")
    assert wrong == []
    assert client.get(reverse("admin:upload")).status_code == 403


def test_job_state_is_served_to_the_studys_researchers_only(world: World, client: Client) -> None:
    job_a, job_b = (Job.objects.get(study=s) for s in (world.a, world.b))
    status = {}
    for role in ("anonymous", "researcher", "superuser"):
        if role != "anonymous":
            client.force_login(world.users[role])
        status[role] = [
            client.get(reverse("jobs:job", args=[job.pk])).status_code for job in (job_a, job_b)
        ]
    assert status == {"anonymous": [404, 404], "researcher": [200, 404], "superuser": [200, 200]}
