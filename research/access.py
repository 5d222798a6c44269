"""Who may see which study's research pages: staff see all, researchers their shared studies."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from studies.models import Study


def visible_studies(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Study]:
    if not user.is_authenticated:
        return Study.objects.none()
    if getattr(user, "is_superuser", False):
        return Study.objects.all()
    return Study.objects.filter(researchers__pk=user.pk)


def study_for(user: AbstractBaseUser | AnonymousUser, study_id: int) -> Study:
    """The study if ``user`` may see it; a 404 otherwise (no hint that it exists)."""
    study = visible_studies(user).filter(pk=study_id).first()
    if study is None:
        raise Http404("No such study")
    return study
