"""Reads about studies, returning plain data for views and the API."""

from __future__ import annotations

from django.db.models import QuerySet

from studies.models import Study


def listed_studies() -> QuerySet[Study]:
    """The studies the public home page lists: open and marked ``listed`` (a study is
    unlisted by default: its links work, but nobody finds it by browsing)."""
    return Study.objects.filter(status=Study.Status.OPEN, listed=True).order_by("title")
