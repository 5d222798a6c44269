"""The researcher role: what a researcher may do beyond the research pages.

The research pages and the researchers' API need no model permission at all: a login and
the studies shared with the user (``Study.researchers``, see ``studies.access``). The
role adds read-only admin pages over those studies' data, and nothing else: no user,
group, token, job, import log or claim, no change, and no upload (docs/deploy.md,
"Roles").
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

RESEARCHERS = "Researchers"
RESEARCHER_PERMISSIONS = (
    "studies.view_study",
    "studies.view_group",
    "studies.view_screeningquestion",
    "studies.view_task",
    "studies.view_item",
    "annotation.view_rater",
    "annotation.view_participant",
    "annotation.view_response",
    "annotation.view_aggregateresult",
)


def researcher_role() -> Group:
    """The ``Researchers`` group with exactly :data:`RESEARCHER_PERMISSIONS` (created, or
    brought back to them: a role widened by hand is narrowed again)."""
    role, _ = Group.objects.get_or_create(name=RESEARCHERS)
    wanted = Q()
    for name in RESEARCHER_PERMISSIONS:
        app_label, codename = name.split(".")
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    permissions = list(Permission.objects.filter(wanted))
    if len(permissions) != len(RESEARCHER_PERMISSIONS):
        raise LookupError("researcher permissions missing: run `manage.py migrate` first")
    role.permissions.set(permissions)
    return role
