from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from jobs.services import command_submit
from scoring.rules import rule_scores_compute
from studies.models import Item, Study


class Command(BaseCommand):
    help = (
        "Compute (or recompute) the rule scores of a study's poem items, under both tone systems."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's slug")
        parser.add_argument(
            "--item", action="append", default=[], help="only this item id (repeatable)"
        )
        parser.add_argument("--background", action="store_true", help="run as a background job")

    def handle(self, *args: Any, **opts: Any) -> None:
        study = Study.objects.filter(slug=opts["study"]).first()
        if study is None:
            raise CommandError(f"no study {opts['study']!r}")
        item_ids = None
        if opts["item"]:
            found = dict(
                Item.objects.filter(study=study, external_id__in=opts["item"]).values_list(
                    "external_id", "pk"
                )
            )
            missing = sorted(set(opts["item"]) - set(found))
            if missing:
                raise CommandError(f"no item(s) {', '.join(missing)} in study {study.slug!r}")
            item_ids = list(found.values())
        if opts["background"]:
            job = command_submit(kind="rule_scores", study=study, params={"item_ids": item_ids})
            if job["status"] == "failed":
                raise CommandError(job["message"])
            self.stdout.write(job["message"])
            return
        with transaction.atomic():
            summary = rule_scores_compute(study=study, item_ids=item_ids)
        self.stdout.write(
            self.style.SUCCESS(
                f"{summary.rows} poems scored; " + summary.describe().split("; ", 1)[1]
            )
        )
