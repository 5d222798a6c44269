from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotation.services import tallies_refresh
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Count a study's claim tallies and its participants' task counts afresh from its "
        "assignments (after assignments were changed outside the platform; loads and the "
        "admin do it themselves)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's slug")

    def handle(self, *args: Any, **opts: Any) -> None:
        study = Study.objects.filter(slug=opts["study"]).first()
        if study is None:
            raise CommandError(f"no study {opts['study']!r}")
        with transaction.atomic():
            tallies_refresh(study_id=study.pk)
        self.stdout.write(
            self.style.SUCCESS(f"tallies and task counts of {study.slug!r} counted afresh")
        )
