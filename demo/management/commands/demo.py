"""Load the demo study from real data and print how to take part and how to log in."""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from annotation import poemfont
from demo.build import SLUG, build
from jobs.loads import file_load
from research.roles import researcher_role
from scoring.rules import unscored_poem_count
from studies.loading.readers import Source
from studies.models import LoadKind, Study
from studies.services import studies_open


class Command(BaseCommand):
    help = "Load the demo study (built from the bundled Song ci and published results)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="http://127.0.0.1:8000")
        parser.add_argument("--no-users", action="store_true", help="do not create the demo logins")

    def handle(self, *args: Any, **opts: Any) -> None:
        paths = build(settings.BASE_DIR / "data", settings.DATA_DIR / "demo")
        for kind in (LoadKind.STUDY, LoadKind.POOL, LoadKind.LLM_OUTPUTS):
            summary = file_load(
                kind=kind,
                source=Source.from_path(paths[kind]),
                study=Study.objects.filter(slug=SLUG).first(),
            )
            # The demo opens the study itself below: the loader's "still a draft" note
            # would say the opposite of what the command did.
            summary.notes = [n for n in summary.notes if n.code != "study_draft"]
            self.stdout.write(summary.describe())
        study = Study.objects.get(slug=SLUG)
        studies_open(studies=[study])  # a loaded study is a draft until opened
        unscored = unscored_poem_count(study)
        self.stdout.write(
            f"Opened the study {study.slug!r} to volunteers; poems rule-scored"
            + (
                f" ({unscored} left to score: manage.py score_poems {study.slug})"
                if unscored
                else "."
            )
        )
        # The poems' web font for the study's pages (annotation.poemfont): the faces every
        # volunteer meets are built now, so that the first one's pages need not wait.
        for font in poemfont.shared_page_fonts(study):
            poemfont.font_file(font)
        host = opts["host"].rstrip("/")
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Volunteer link:   {host}/s/{study.slug}/"))
        for group in study.groups.all():
            self.stdout.write(
                f"  invitation for group {group.slug} ({group.name}): {host}/s/{study.slug}/i/{group.invite_token}/"
            )
        if not opts["no_users"]:
            password = os.environ.get("DEMO_PASSWORD") or secrets.token_urlsafe(9)
            user_model = get_user_model()
            researcher, _ = user_model.objects.get_or_create(username="researcher")
            researcher.is_staff = True
            researcher.set_password(password)
            researcher.save()
            researcher.groups.add(researcher_role())
            study.researchers.add(researcher)
            admin, _ = user_model.objects.get_or_create(username="admin")
            admin.is_staff = admin.is_superuser = True
            admin.set_password(password)
            admin.save()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Researcher dashboard: {host}/research/  user 'researcher'  password '{password}'"
                )
            )
            self.stdout.write(
                f"Admin login:      {host}/admin/  user 'admin'  password '{password}'"
            )
