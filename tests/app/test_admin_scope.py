"""The admin shows each user only the studies shared with them, and credentials (resume
codes, invitation and public tokens, API tokens) to superusers only, as "set"."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from annotation.models import Participant
from research.roles import RESEARCHER_PERMISSIONS, RESEARCHERS
from studies.models import Group, Study
from tests.app.admin_world import World, user_make, world_build

pytestmark = pytest.mark.django_db
HIDDEN_ZH = "已设置（仅超级用户可见）"


@pytest.fixture
def world() -> World:
    return world_build()


def change(obj: object) -> str:
    meta = obj._meta  # type: ignore[attr-defined]
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])  # type: ignore[attr-defined]


def volunteer(study: Study) -> Participant:
    return Participant.objects.get(study=study, entry="invite")


@pytest.mark.slow
def test_credentials_are_shown_to_superusers_and_hidden_from_researchers(
    world: World, client: Client
) -> None:
    person, group = volunteer(world.a), Group.objects.get(study=world.a, slug="A")
    pages = [change(person), change(group), change(world.a)]
    client.force_login(world.users["superuser"])
    shown = "".join(client.get(page).content.decode() for page in pages)
    assert person.resume_code in shown and group.invite_token in shown
    assert world.a.public_token in shown
    client.force_login(world.users["researcher"])
    for page in pages:
        html = client.get(page).content.decode()
        assert HIDDEN_ZH in html, page
        assert not [secret for secret in world.secrets(world.a) if secret in html], page


def test_a_researcher_cannot_find_a_volunteer_by_resume_code(world: World, client: Client) -> None:
    code = volunteer(world.a).resume_code
    url = reverse("admin:annotation_participant_changelist")
    client.force_login(world.users["superuser"])
    assert len(client.get(url, {"q": code}).context["cl"].result_list) == 1
    client.force_login(world.users["researcher"])
    assert len(client.get(url, {"q": code}).context["cl"].result_list) == 0
    # Nor guess it a character at a time through a filter in the address.
    guess = client.get(url, {"resume_code__startswith": code[:1]})
    assert guess.status_code == 400  # the admin refuses a lookup it does not allow
    tokens = reverse("admin:studies_group_changelist")
    token = Group.objects.filter(study=world.a).first().invite_token  # type: ignore[union-attr]
    assert client.get(tokens, {"invite_token__startswith": token[:1]}).status_code == 400


def test_filters_name_only_the_users_studies_groups_and_tasks(world: World, client: Client) -> None:
    client.force_login(world.users["researcher"])
    html = client.get(reverse("admin:annotation_response_changelist")).content.decode()
    assert "poetry-understanding" in html and "study-b" not in html
    client.force_login(world.users["superuser"])
    html = client.get(reverse("admin:annotation_response_changelist")).content.decode()
    assert "study-b" in html


def test_staff_who_may_change_groups_change_only_their_studys(world: World, client: Client) -> None:
    user = user_make(
        "editor",
        perms=("studies.view_group", "studies.change_group", "studies.add_group"),
        study=world.a,
    )
    client.force_login(user)
    theirs, other = (Group.objects.get(study=s, slug="A") for s in (world.a, world.b))
    form = {"name": "改名", "target_per_item": 4, "position": 0}
    assert client.post(change(theirs), form).status_code == 302
    theirs.refresh_from_db()
    assert theirs.name == "改名"
    refused = client.post(change(other), form)
    assert refused.status_code == 302 and refused["Location"] == reverse("admin:index")
    other.refresh_from_db()
    assert other.name != "改名"
    add = reverse("admin:studies_group_add")
    page = client.post(add, {**form, "study": world.b.pk, "slug": "D"})
    assert page.status_code == 200 and "study" in page.context["adminform"].form.errors
    assert not Group.objects.filter(slug="D").exists()
    assert client.post(add, {**form, "study": world.a.pk, "slug": "D"}).status_code == 302
    assert Group.objects.get(slug="D").study == world.a


def test_api_tokens_show_their_key_to_superusers_only(world: World, client: Client) -> None:
    boss_key = Token.objects.get(user=world.users["superuser"]).key
    url = reverse("admin:authtoken_tokenproxy_changelist")
    client.force_login(world.users["superuser"])
    assert boss_key in client.get(url).content.decode()
    user = user_make("keeper", perms=("authtoken.view_tokenproxy", "authtoken.add_tokenproxy"))
    own = Token.objects.create(user=user)
    client.force_login(user)
    page = client.get(url)
    assert [t.user for t in page.context["cl"].result_list] == [user]
    html = page.content.decode()
    assert HIDDEN_ZH in html and own.key not in html and boss_key not in html
    # A token may be added for oneself only (never for the superuser, whose key one
    # could then not read, but whose rights one would not get either).
    form = client.get(reverse("admin:authtoken_tokenproxy_add")).context["adminform"].form
    assert list(form.fields["user"].queryset) == [user]


def test_the_researcher_role_has_exactly_the_read_only_rights_of_the_research_pages(
    world: World,
) -> None:
    user = world.users["researcher"]
    held = {
        f"{p.content_type.app_label}.{p.codename}"
        for p in Permission.objects.filter(group__name=RESEARCHERS)
    }
    assert held == set(RESEARCHER_PERMISSIONS)
    assert all(p.split(".")[1].startswith("view_") for p in held)
    assert not user.has_perm("auth.view_user") and not user.has_perm("authtoken.view_tokenproxy")
    assert not user.has_perm("studies.add_item") and not user.has_perm("jobs.view_job")


@pytest.mark.slow
def test_the_demo_and_the_researcher_command_give_the_same_narrow_role(
    db: None, django_user_model
) -> None:
    call_command("demo", stdout=io.StringIO())
    demo = django_user_model.objects.get(username="researcher")
    assert set(demo.get_all_permissions()) == set(RESEARCHER_PERMISSIONS)
    assert list(demo.shared_studies.values_list("slug", flat=True)) == ["song-ci-demo"]
    other = django_user_model.objects.create_user("li", password="pw")
    out = io.StringIO()
    call_command("researcher", "li", "--study", "song-ci-demo", stdout=out)
    other.refresh_from_db()
    assert other.is_staff and set(other.get_all_permissions()) == set(RESEARCHER_PERMISSIONS)
    assert "song-ci-demo" in out.getvalue() and other.shared_studies.count() == 1


def test_a_study_added_by_a_non_superuser_is_shared_with_them(world: World, client: Client) -> None:
    user = user_make("maker", perms=("studies.add_study", "studies.view_study"))
    client.force_login(user)
    add = client.get(reverse("admin:studies_study_add")).content.decode()
    assert 'name="researchers"' not in add  # only superusers share studies
    form = {
        "slug": "new-one",
        "title": "新研究",
        "status": "draft",
        "attention_max_failures": 0,
        "cipu_source": "best",
        "meta": "{}",
        **{
            f"{p}-{k}": v
            for p in ("groups", "screening", "tasks")
            for k, v in (("TOTAL_FORMS", 0), ("INITIAL_FORMS", 0))
        },
    }
    response = client.post(reverse("admin:studies_study_add"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(Study.objects.get(slug="new-one").researchers.all()) == [user]
