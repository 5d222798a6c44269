"""Writes about a study itself (its content comes from files: ``studies.loading``)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from studies.models import Study


@transaction.atomic
def studies_open(*, studies: Iterable[Study]) -> int:
    """Open drafts (and closed studies) to volunteers; returns how many changed.

    A study is loaded as a draft (a 404 for volunteers, never listed): a researcher
    opens it here, from the admin's "Open" action or ``load_study --open``. Whether the
    home page lists it is its own setting (``Study.listed``). A study with no groups (of
    generated poems only: no volunteer answers it) is left as it is."""
    studies = [s for s in studies if s.groups.exists()]
    pks = [s.pk for s in studies]
    changed = (
        Study.objects.filter(pk__in=pks)
        .exclude(status=Study.Status.OPEN)
        .update(status=Study.Status.OPEN)
    )
    for s in studies:
        s.status = Study.Status.OPEN
    return changed
