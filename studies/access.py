"""Which studies a user may see: superusers every study, anyone else the studies shared
with them (``Study.researchers``). The one rule behind the research pages, the
researchers' API, the admin's lists and pages and the upload page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Model, QuerySet

from studies.models import Study

User = AbstractBaseUser | AnonymousUser


def is_superuser(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False) and getattr(user, "is_superuser", False))


def visible_studies(user: User) -> QuerySet[Study]:
    if not user.is_authenticated:
        return Study.objects.none()
    if is_superuser(user):
        return Study.objects.all()
    return Study.objects.filter(researchers__pk=user.pk)


def in_visible_studies(model: type[Model], user: User) -> QuerySet[Any] | None:
    """``model``'s rows that belong to a study ``user`` may see (``Study`` itself, or a
    model with a ``study`` foreign key); None for a model that belongs to no study."""
    if model is Study:
        return visible_studies(user)
    names = {f.name for f in model._meta.get_fields()}
    if "study" not in names:
        return None
    rows = model._default_manager.all()
    return rows if is_superuser(user) else rows.filter(study__in=visible_studies(user))
