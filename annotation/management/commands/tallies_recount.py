from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotation.hotpath.audit import differences
from annotation.services import tallies_refresh
from studies.models import Study, Task


class Command(BaseCommand):
    help = (
        "Count a study's claim tallies and its participants' task counts afresh from its "
        "assignments (after assignments were changed outside the platform; loads and the "
        "admin do it themselves). With --check, change nothing: list every counter that "
        "differs from its recount and exit 1 if any does."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", nargs="?", help="the study's slug (--check: all if none)")
        parser.add_argument(
            "--check",
            action="store_true",
            help="compare the counters with a recount; write nothing; exit 1 on a difference",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        studies = Study.objects.order_by("slug")
        if opts["study"]:
            studies = studies.filter(slug=opts["study"])
            if not studies.exists():
                raise CommandError(f"no study {opts['study']!r}")
        elif not opts["check"]:
            raise CommandError("name a study (only --check runs over every study)")
        if opts["check"]:
            self._check(list(studies))
            return
        study = studies.get()
        with transaction.atomic():
            tallies_refresh(study_id=study.pk)
        self.stdout.write(
            self.style.SUCCESS(f"tallies and task counts of {study.slug!r} counted afresh")
        )

    def _check(self, studies: list[Study]) -> None:
        found = 0
        for study in studies:
            tasks = list(Task.objects.filter(study=study).values_list("pk", flat=True))
            for line in differences(tasks):
                found += 1
                self.stdout.write(f"{study.slug}: {line}")
        if found:
            raise CommandError(f"{found} counter(s) differ from their recount", returncode=1)
        self.stdout.write(self.style.SUCCESS(f"counters of {len(studies)} study(ies) all true"))
