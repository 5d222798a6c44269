"""Who may load which kind of file into which study (the admin's upload page).

Each kind of file needs the model permissions of everything it writes, and is loaded
only into a study the user may see (``studies.access``: superusers every study, anyone
else the studies shared with them). A study definition writes the study itself (adding
a new study needs ``add_study``, loading over an existing one ``change_study`` and that
study shared with the user) and its groups, screening questions and tasks. The grades
and rule scores a load brings up to date follow from what it wrote and need nothing more.
"""

from __future__ import annotations

from typing import Any

from studies.access import User, is_superuser, visible_studies
from studies.models import LoadKind, Study


def _add_change(*models: str) -> tuple[str, ...]:
    return tuple(
        f"{model.split('.')[0]}.{verb}_{model.split('.')[1]}"
        for model in models
        for verb in ("add", "change")
    )


STUDY_PARTS = _add_change("studies.group", "studies.screeningquestion", "studies.task")
UPLOAD_PERMISSIONS: dict[str, tuple[str, ...]] = {
    LoadKind.STUDY: STUDY_PARTS,  # and add_study or change_study: study_permissions
    LoadKind.POOL: _add_change("studies.item"),
    # Answers and ratings, generated poems (rating items) and published aggregates.
    LoadKind.LLM_OUTPUTS: (
        "annotation.add_rater",
        *_add_change("annotation.response", "studies.item", "annotation.aggregateresult"),
    ),
    # Imported participants (and their attention flags), their raters and answers.
    LoadKind.RESPONSES: (
        "annotation.add_rater",
        *_add_change("annotation.participant", "annotation.response"),
    ),
}


def study_permissions(*, new: bool) -> tuple[str, ...]:
    """What loading a study definition needs: over an existing study, or a new one."""
    return ("studies.add_study" if new else "studies.change_study", *STUDY_PARTS)


def upload_kinds(user: Any) -> list[str]:
    """The kinds of file ``user`` may load at all (a study definition: a new one, or over
    a study of theirs)."""
    if not getattr(user, "is_staff", False) or not user.is_active:
        return []
    kinds = []
    for kind, needed in UPLOAD_PERMISSIONS.items():
        if kind == LoadKind.STUDY:
            ok = user.has_perms(study_permissions(new=True)) or user.has_perms(
                study_permissions(new=False)
            )
        else:
            ok = user.has_perms(needed)
        if ok:
            kinds.append(str(kind))
    return kinds


def upload_studies(user: User) -> Any:
    """The studies ``user`` may load files into."""
    return visible_studies(user)


def may_load_study_definition(user: Any, existing: Study | None) -> bool:
    """Whether ``user`` may load a study definition whose slug names ``existing`` (None: a
    new study)."""
    if not user.has_perms(study_permissions(new=existing is None)):
        return False
    return (
        existing is None
        or is_superuser(user)
        or upload_studies(user).filter(pk=existing.pk).exists()
    )
