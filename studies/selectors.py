"""Reads about studies, returning plain data for views and the API."""

from __future__ import annotations

from django.db.models import QuerySet

from studies.models import Study


def open_studies() -> QuerySet[Study]:
    return Study.objects.filter(status=Study.Status.OPEN).order_by("title")
