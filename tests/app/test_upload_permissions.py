"""The upload page: each kind of file needs the permissions of what it writes, and goes
only into a study the user may see (issue 11, defect 5).

| user | study definition | pool | LLM outputs | responses |
|---|---|---|---|---|
| superuser | any study, new or not | any study | any study | any study |
| staff with a kind's permissions, A shared | new, or over A (add/change study) | A only | A only | A only |
| staff with another kind's permissions | refused | refused | refused | refused |
| staff with "add item" only, a researcher | the page is a 403 | | | |

A refused upload writes nothing.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from jobs.models import Job
from jobs.upload_rights import UPLOAD_PERMISSIONS, study_permissions
from studies.models import LoadKind, Study
from tests.app.admin_world import World, file_bytes, user_make, world_build
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db
KINDS = [str(k) for k in LoadKind]
NAMES = {
    "study": "study.json",
    "pool": "pool.jsonl",
    "llm_outputs": "llm.jsonl",
    "responses": "r.jsonl",
}


@pytest.fixture
def world(settings, tmp_path) -> World:
    settings.DATA_DIR = tmp_path
    return world_build()


def rights(kind: str) -> tuple[str, ...]:
    if kind == LoadKind.STUDY:
        return tuple(dict.fromkeys([*study_permissions(new=True), *study_permissions(new=False)]))
    return UPLOAD_PERMISSIONS[kind]


def post(client: Client, kind: str, target: str, world: World, **extra: str):
    """Upload the example file of ``kind`` into study A or B (a study definition: the
    definition of A, of B, or of a new study)."""
    study = {"A": world.a, "B": world.b}.get(target)
    slug = study.slug if study is not None else "brand-new"
    content = file_bytes(kind, slug) if kind == LoadKind.STUDY else file_bytes(kind)
    data = {"kind": kind, "file": SimpleUploadedFile(NAMES[kind], content), **extra}
    if kind != LoadKind.STUDY and study is not None:
        data["study"] = str(study.pk)
    return client.post(reverse("admin:upload"), data)


def loaded(response) -> bool:
    form = response.context["form"] if response.context else None
    return (
        response.status_code == 200
        and 'id="summary"' in response.content.decode()
        and not (form and form.errors)
    )


def refused(response) -> bool:
    return response.status_code == 200 and bool(response.context["form"].errors)


@pytest.mark.slow
def test_a_superuser_loads_every_kind_into_any_study(world: World, client: Client) -> None:
    client.force_login(world.users["superuser"])
    for kind in KINDS:
        for target in ("A", "B"):
            assert loaded(post(client, kind, target, world)), (kind, target)
    assert loaded(post(client, "study", "new", world))
    assert not Study.objects.get(slug="brand-new").researchers.exists()


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_kinds_permissions_load_that_kind_into_the_users_studies_only(
    world: World, client: Client, kind: str
) -> None:
    user = user_make(f"loader-{kind}", perms=rights(kind), study=world.a)
    client.force_login(user)
    # LLM outputs write items too (generated poems): their rights cover a pool's.
    covered = [k for k in KINDS if set(rights(k)) <= set(rights(kind))]
    page = client.get(reverse("admin:upload"))
    assert [k for k, _ in page.context["form"].fields["kind"].choices] == covered
    assert list(page.context["form"].fields["study"].queryset) == [world.a]
    before = snapshot()
    assert refused(post(client, kind, "B", world))
    for other in KINDS:
        if other not in covered:
            response = post(client, other, "A", world)
            assert refused(response) and "kind" in response.context["form"].errors, other
    assert snapshot() == before
    assert loaded(post(client, kind, "A", world))
    if kind == LoadKind.STUDY:  # a new study is theirs: shared with them
        assert loaded(post(client, kind, "new", world))
        assert list(Study.objects.get(slug="brand-new").researchers.all()) == [user]


def test_a_study_definition_over_another_study_names_it_and_writes_nothing(
    world: World, client: Client
) -> None:
    client.force_login(user_make("editor", perms=rights("study"), study=world.a))
    before = snapshot()
    response = post(client, "study", "B", world)
    assert response.context["form"].errors["file"] == [
        "此文件定义的研究“study-b”不在您可修改的范围内。"
    ]
    assert snapshot() == before


def test_changing_studies_without_adding_them_cannot_create_one(
    world: World, client: Client
) -> None:
    client.force_login(user_make("changer", perms=study_permissions(new=False), study=world.a))
    assert loaded(post(client, "study", "A", world))
    response = post(client, "study", "new", world)
    assert response.context["form"].errors["file"] == ["您无权新建研究。"]
    assert not Study.objects.filter(slug="brand-new").exists()


def test_a_refused_upload_starts_no_job(
    world: World, client: Client, django_capture_on_commit_callbacks
) -> None:
    client.force_login(user_make("pooler", perms=rights("pool"), study=world.a))
    jobs = Job.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        assert refused(post(client, "pool", "B", world, background="on"))
        assert refused(post(client, "responses", "A", world, background="on"))
        done = post(client, "pool", "A", world, background="on")
    assert done.status_code == 302 and Job.objects.count() == jobs + 1
    assert Job.objects.latest("pk").status == "done"


@pytest.mark.slow
@pytest.mark.parametrize("who", ["add item only", "researcher"])
def test_staff_without_a_kinds_rights_get_a_403(world: World, client: Client, who: str) -> None:
    user = (
        user_make("adder", perms=("studies.add_item",), study=world.a)
        if who == "add item only"
        else world.users["researcher"]
    )
    client.force_login(user)
    before = snapshot()
    assert client.get(reverse("admin:upload")).status_code == 403
    for kind in KINDS:
        assert post(client, kind, "A", world).status_code == 403
    assert snapshot() == before
