"""Make a user a researcher: staff, in the Researchers role, and (optionally) sharing studies."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from research.roles import researcher_role
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Give USERNAME the researcher role (read-only admin pages of the studies shared with "
        "them, the research pages and API) and share the --study studies with them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--study", action="append", default=[], help="a study's slug (repeatable)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        user = get_user_model().objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(
                f"no user {opts['username']!r}: create it first (createsuperuser "
                "makes a superuser; the admin's user page makes any user)"
            )
        studies = []
        for slug in opts["study"]:
            study = Study.objects.filter(slug=slug).first()
            if study is None:
                raise CommandError(f"no study {slug!r}")
            studies.append(study)
        user.is_staff = True  # the admin's read-only pages; the research pages need a login only
        user.save(update_fields=["is_staff"])
        user.groups.add(researcher_role())
        for study in studies:
            study.researchers.add(user)
        shared = ", ".join(s.slug for s in user.shared_studies.order_by("slug")) or "none yet"
        self.stdout.write(f"{user.username} is a researcher; studies shared: {shared}")
