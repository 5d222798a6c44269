"""The researchers' API tokens in the admin: a token's key is shown to superusers only.

Django REST framework's own token admin lists every key; it is replaced here. Anyone
but a superuser sees only whether they have a token (never a key, not even their own),
and may add or change a token only for themselves.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Field, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.admin import TokenAdmin as RestTokenAdmin
from rest_framework.authtoken.models import TokenProxy

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
