"""The admin shows each user what the research pages show them, and no one's secrets.

* :class:`StudyScoped`: lists, change, history and delete pages hold only rows of the
  studies shared with the user (``studies.access``; superusers see everything), and the
  choices of every study-bound foreign key (form fields and list filters) are scoped the
  same way, so another study is neither listed, nor opened by its id, nor named in a
  filter. Model permissions say *what kind* of row a user may see; the studies shared
  with them say *which*.
* :class:`SecretFields`: a credential (a volunteer's resume code, an invitation token, an
  API token) is shown to superusers only; anyone else sees that it is set, never its
  value, and can neither search nor filter by it (a filter on a secret would let them
  guess it a character at a time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import Field, Model, Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from studies.access import in_visible_studies, is_superuser, visible_studies

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    _Base = admin.ModelAdmin[Any]
else:
    _Base = object

HIDDEN = _("set (shown to superusers only)")
SUFFIX = "_hidden"


def secret_display(field: str, label: StrOrPromise) -> Callable[[Any, Model], Any]:
    """An admin display of the secret ``field`` that says whether it is set, never what."""

    @admin.display(description=label)
    def show(model_admin: Any, obj: Model) -> Any:
        return HIDDEN if getattr(obj, field, "") else "—"

    return show


class ScopedRelatedFilter(admin.RelatedFieldListFilter):
    """A filter by a related object that lists only objects of the user's studies."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: Any) -> Any:
        rows = in_visible_studies(field.related_model, request.user)
        if rows is None:
            return super().field_choices(field, request, model_admin)
        ordering = self.field_admin_ordering(field, request, model_admin)
        if ordering:
            rows = rows.order_by(*ordering)
        if any(f.name == "study" for f in field.related_model._meta.get_fields()):
            rows = rows.select_related("study")  # their names show the study's slug
        return [(obj.pk, str(obj)) for obj in rows]


def scoped_filters(*paths: str) -> tuple[tuple[str, type[ScopedRelatedFilter]], ...]:
    return tuple((path, ScopedRelatedFilter) for path in paths)


class SecretFields(_Base):
    """Show ``secret_fields`` as "set" (:data:`HIDDEN`) to anyone but a superuser. Each
    secret ``x`` needs an ``x_hidden = secret_display("x", label)`` on the admin."""

    secret_fields: tuple[str, ...] = ()

    def _reveals(self, request: HttpRequest) -> bool:
        return not self.secret_fields or is_superuser(request.user)

    def _mask(self, names: Iterable[Any]) -> list[Any]:
        masked: list[Any] = []
        for name in names:
            if isinstance(name, list | tuple):
                name = tuple(self._mask(name))
            elif name in self.secret_fields:
                name += SUFFIX
            if name not in masked:
                masked.append(name)
        return masked

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if self._reveals(request):
            return fieldsets
        return [
            (name, {**options, "fields": self._mask(options["fields"])})
            for name, options in fieldsets
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_readonly_fields(request, obj))
        if self._reveals(request):
            return fields
        hidden = [f + SUFFIX for f in self.secret_fields]
        return list(dict.fromkeys([*fields, *self.secret_fields, *hidden]))

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = super().get_list_display(request)
        return shown if self._reveals(request) else self._mask(shown)

    def get_search_fields(self, request: HttpRequest) -> Any:
        fields = super().get_search_fields(request)
        if self._reveals(request):
            return fields
        return [f for f in fields if f.lstrip("^=@").split("__")[-1] not in self.secret_fields]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        hidden = request is None or not self._reveals(request)
        if hidden and lookup.split("__")[0] in self.secret_fields:
            return False
        return super().lookup_allowed(lookup, value, request)


class StudyScoped(SecretFields):
    """Rows of the studies the user may see (``study_path`` leads from a row to its
    study, "" for ``Study`` itself), plus, with ``own_path``, the rows they created that
    belong to no study (once a study is no longer shared with them, its rows are hidden
    from them, the ones they created included)."""

    study_path = "study"
    own_path = ""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        if is_superuser(request.user):
            return rows
        studies = visible_studies(request.user)
        where = Q(**{f"{self.study_path}__in" if self.study_path else "pk__in": studies})
        if self.own_path and self.study_path:  # theirs of no study: a study's rows
            # follow its sharing, also for whoever created them
            where |= Q(**{self.own_path: request.user.pk, f"{self.study_path}__isnull": True})
        elif self.own_path:
            where |= Q(**{self.own_path: request.user.pk})
        return rows.filter(where)

    def formfield_for_foreignkey(
        self, db_field: Field[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        if not is_superuser(request.user) and "queryset" not in kwargs:
            rows = in_visible_studies(db_field.related_model, request.user)  # type: ignore[arg-type]
            if rows is not None:
                kwargs["queryset"] = rows
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[arg-type]
