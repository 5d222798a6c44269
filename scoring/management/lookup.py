"""What the scoring commands share: finding the study a command names."""

from __future__ import annotations

from django.core.management.base import CommandError

from studies.models import Study
from studies.values import is_digits


def study_named(key: str | None) -> Study:
    """The study whose slug (or, failing that, numeric id) is ``key``; a CommandError
    naming it otherwise."""
    if not key:
        raise CommandError("give a study slug (or numeric id)")
    study = Study.objects.filter(slug=key).first()
    if study is None and is_digits(key):
        study = Study.objects.filter(pk=int(key)).first()
    if study is None:
        raise CommandError(f"no study {key!r}")
    return study
