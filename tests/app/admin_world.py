"""Two studies with a row in every admin model each, and the users of the admin's roles.

Study A (the formats.md example, ``poetry-understanding``) is shared with the researcher
and the staff users; study B (the same files under another slug) with no one. Each
study has its groups, screening, tasks, items, LLM outputs, imported responses, a
volunteer of the app with a claimed item and a resume code, an import log and a job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Model
from rest_framework.authtoken.models import Token

from annotation import services
from annotation.models import Participant
from jobs.loads import file_load
from jobs.models import Job
from research.roles import researcher_role
from scoring.report.prereg import Commitments, deviations_record, plan_freeze
from scoring.report.settings import ReportSettings
from studies.loading.readers import Source
from studies.models import Study

FORMATS = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
FILES = {
    "study": "study.json",
    "pool": "pool.jsonl",
    "llm_outputs": "llm_outputs.jsonl",
    "responses": "responses.jsonl",
}


def file_bytes(kind: str, slug: str = "poetry-understanding") -> bytes:
    """A formats.md example file; a study definition under ``slug``."""
    content = (FORMATS / FILES[kind]).read_bytes()
    if kind == "study" and slug != "poetry-understanding":
        data = json.loads(content)
        data.update(slug=slug, title=f"Study {slug}")
        content = json.dumps(data, ensure_ascii=False).encode()
    return content


def study_load(slug: str) -> Study:
    """A study loaded from every example file, with a volunteer of the app who claimed
    an item (so an assignment and a resume code exist) and a job."""
    file_load(kind="study", source=Source("study.json", file_bytes("study", slug), "json"))
    study = Study.objects.get(slug=slug)
    study.status = Study.Status.OPEN  # studies load as drafts; volunteers need it open
    study.save(update_fields=["status"])
    for kind in ("pool", "llm_outputs", "responses"):
        source = Source(FILES[kind], file_bytes(kind), "jsonl")
        file_load(kind=kind, source=source, study=study)
    volunteer = services.participant_enrol(
        study=study, consent=True, invite_token=study.groups.get(slug="A").invite_token
    )
    services.next_item(participant_id=volunteer.pk)
    Job.objects.create(kind="pool", study=study, status="done", message=f"loaded into {slug}")
    return study


def user_make(name: str, *, staff: bool = True, perms: tuple[str, ...] = (), study: Any = None):
    user = get_user_model().objects.create_user(name, password="pw", is_staff=staff)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    if study is not None:
        study.researchers.add(user)
    return get_user_model().objects.get(pk=user.pk)  # a fresh permission cache


@dataclass
class World:
    a: Study
    b: Study
    users: dict[str, Any] = field(default_factory=dict)

    def secrets(self, study: Study) -> list[str]:
        """The credentials of ``study`` an admin page could show."""
        volunteer = Participant.objects.filter(study=study, entry="invite").get()
        return [
            volunteer.resume_code,
            study.public_token,
            *study.groups.values_list("invite_token", flat=True),
        ]


def world_build() -> World:
    world = World(a=study_load("poetry-understanding"), b=study_load("study-b"))
    boss = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    researcher = user_make("researcher", study=world.a)
    researcher.groups.add(researcher_role())
    world.users = {"superuser": boss, "researcher": get_user_model().objects.get(pk=researcher.pk)}
    Token.objects.create(user=boss)
    Token.objects.create(user=researcher)
    for study in (world.a, world.b):  # a frozen analysis plan each, one deviation seen
        plan_freeze(study, ReportSettings(), Commitments(note=study.slug))
        deviations_record(study, ReportSettings(pass_threshold=0.9))
    return world


def study_of(obj: Model, path: str) -> int | None:
    """The study id of ``obj`` along an admin's ``study_path`` ("" = the study itself)."""
    if not path:
        return obj.pk
    for part in path.split("__"):
        obj = getattr(obj, part)
        if obj is None:
            return None
    return obj.pk
