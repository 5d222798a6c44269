"""The researchers' API tokens in the admin: a token's key is shown to superusers only.

Django REST framework's own token admin lists every key; it is replaced here. Anyone
but a superuser sees only whether they have a token (never a key, not even their own),
and may add or change a token only for themselves. A token is named by its key
(``Token.__str__``), so the user admin's delete confirmation, which lists the token among
the objects deleted with a user, shows it masked to anyone but a superuser too.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Field, QuerySet
from django.http import HttpRequest
from django.utils.html import escape
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.admin import TokenAdmin as RestTokenAdmin
from rest_framework.authtoken.models import Token, TokenProxy

from studies.access import is_superuser
from studies.admin_scope import SecretFields, secret_display

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class TokenAdmin(SecretFields, RestTokenAdmin):
    secret_fields = ("key",)
    key_hidden = secret_display("key", _("API token"))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        tokens = super().get_queryset(request)
        return tokens if is_superuser(request.user) else tokens.filter(user=request.user)

    def formfield_for_foreignkey(
        self, db_field: Field[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        if db_field.name == "user" and not is_superuser(request.user):
            kwargs["queryset"] = get_user_model()._default_manager.filter(pk__in=[request.user.pk])
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[arg-type]


def _masked(listed: list[Any], keys: set[str], hidden: str) -> list[Any]:
    """The delete confirmation's nested list of objects, every key in it replaced."""
    out: list[Any] = []
    for entry in listed:
        if isinstance(entry, list):
            out.append(_masked(entry, keys, hidden))
            continue
        safe = isinstance(entry, SafeData)
        text = str(entry)
        for key in keys:
            text = text.replace(key, str(escape(hidden)) if safe else hidden)
        out.append(mark_safe(text) if safe else text)
    return out


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin, its delete confirmation naming a user's API token without
    its key to anyone but a superuser."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        listed, counts, perms, protected = super().get_deleted_objects(objs, request)
        if not is_superuser(request.user):
            users = [u.pk for u in objs]
            keys = set(Token.objects.filter(user__in=users).values_list("key", flat=True))
            if keys:
                listed = _masked(listed, keys, gettext("(key hidden)"))
        return listed, counts, perms, protected
