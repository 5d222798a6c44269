"""Who may see which study's research pages: superusers all, researchers their shared
studies (the rule itself is ``studies.access``, shared with the admin)."""

from __future__ import annotations

from django.http import Http404

from studies.access import User, visible_studies
from studies.models import Study

__all__ = ["study_for", "visible_studies"]


def study_for(user: User, study_id: int) -> Study:
    """The study if ``user`` may see it; a 404 otherwise (no hint that it exists)."""
    study = visible_studies(user).filter(pk=study_id).first()
    if study is None:
        raise Http404("No such study")
    return study
