"""No admin page shows a secret to anyone but its owner and superusers: every page
(list, add, change, history, delete confirmation) of every registered model, opened by
staff users who each hold exactly one permission (of any registered model, shared on
study A), searched for every API token key and every credential of both studies. Before,
a staff user holding only ``auth.delete_user`` read the superuser's API token key on
the user's delete confirmation (the token listed among the objects deleted with it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db.models import Model
from django.test import Client
from django.urls import NoReverseMatch, reverse
from rest_framework.authtoken.models import Token

from tests.app.admin_world import World, user_make, world_build
from tests.app.test_admin_permissions import row

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
PAGES = ("changelist", "add", "change A", "change B", "history A", "delete A")


def _permissions() -> list[Permission]:
    types = [
        ContentType.objects.get_for_model(m, for_concrete_model=False) for m in admin.site._registry
    ]
    return list(Permission.objects.filter(content_type__in=types).select_related("content_type"))


def _paths(world: World, model: type[Model], user: Any) -> list[str]:
    name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    paths = []
    for page in PAGES:
        try:
            if page in ("changelist", "add"):
                paths.append(reverse(f"{name}_{page}"))
                continue
            obj = row(world, model, page[-1], user)
        except (NoReverseMatch, StopIteration):
            continue
        if obj is not None:
            pk = obj.user_id if isinstance(obj, Token) else obj.pk
            paths.append(reverse(f"{name}_{page.split()[0]}", args=[pk]))
    return paths


def _secrets(world: World, user: Any) -> list[str]:
    keys = Token.objects.exclude(user=user).values_list("key", flat=True)
    return [*keys, *world.secrets(world.a), *world.secrets(world.b)]


def _staff(world: World, client: Client) -> Iterator[tuple[str, Any, list[str], type[Model]]]:
    """For each permission: a staff user holding it alone (shared on study A, with a token
    of its own), logged in on ``client``; yields the permission's name, the user, the
    secrets it must not see, and the permission's model."""
    for i, permission in enumerate(_permissions()):
        perm = f"{permission.content_type.app_label}.{permission.codename}"
        user = user_make(f"staff-{i}", perms=(perm,), study=world.a)
        Token.objects.create(user=user)
        client.force_login(user)
        model = permission.content_type.model_class()
        assert model is not None
        yield perm, user, _secrets(world, user), model


def test_no_single_permission_shows_a_secret_on_any_admin_page(client: Client) -> None:
    world = world_build()
    leaks: list[str] = []
    for perm, user, secrets, model in _staff(world, client):
        paths = [reverse("admin:index"), *_paths(world, model, user)]
        for path in paths:
            html = client.get(path).content.decode()
            leaks += [f"{perm}: {path} shows {s[:6]}…" for s in secrets if s in html]
    assert leaks == []


def test_the_owner_and_superusers_still_see_a_key(client: Client) -> None:
    world = world_build()
    boss = world.users["superuser"]
    key = Token.objects.get(user=boss).key
    client.force_login(boss)
    page = client.get(reverse("admin:auth_user_delete", args=[boss.pk])).content.decode()
    assert key in page


def test_no_single_permission_shows_a_secret_on_bulk_deletes_or_related_object_lists(
    client: Client,
) -> None:
    """The other admin pages that list objects: the "delete selected" action's
    confirmation (every object deleted with the chosen row, as the delete page lists them)
    and the changelist opened as a related-object picker (``_popup``, as the change forms'
    lookups open it), for every single-permission staff user."""
    world = world_build()
    leaks: list[str] = []
    for perm, user, secrets, model in _staff(world, client):
        try:
            changelist = reverse(
                f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"
            )
            obj = row(world, model, "A", user)
        except (NoReverseMatch, StopIteration):
            continue
        replies = {"popup list": client.get(changelist, {"_popup": "1", "_to_field": "id"})}
        if obj is not None:
            pk = obj.user_id if isinstance(obj, Token) else obj.pk
            replies["delete selected"] = client.post(
                changelist, {"action": "delete_selected", "_selected_action": [pk]}
            )
        for page, reply in replies.items():
            html = reply.content.decode()
            leaks += [f"{perm}: {page} shows {s[:6]}…" for s in secrets if s in html]
    assert leaks == []
