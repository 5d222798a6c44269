from dataclasses import replace
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from jobs.management.loadcommand import LoadCommand
from studies.loading.problems import Note, Summary
from studies.loading.readers import Source
from studies.loading.study import validate_study
from studies.models import LoadKind, Study
from studies.services import studies_open


class Command(LoadCommand):
    kind = LoadKind.STUDY
    help = (
        "Load or update a study definition (JSON or YAML, formats.md §1). A new study is a "
        "draft (closed to volunteers, unlisted) unless --open is given or the file sets its "
        "status."
    )
    needs_study = False
    formats = ("json", "yaml")

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--open", action="store_true", help="open the study to volunteers once it is loaded"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["open"] and opts["background"]:
            raise CommandError(
                "--open cannot be combined with --background: open the study once its job "
                'is done (the admin\'s action "Open", or load_study --open)'
            )
        super().handle(*args, **opts)

    def loaded(self, source: Source, summary: Summary, opts: dict[str, Any]) -> Summary:
        if not opts["open"] or summary.dry_run:
            return summary
        slug = validate_study(source).slug
        if not Study.objects.filter(slug=slug, groups__isnull=False).exists():
            # generated poems only: no volunteer answers it (formats.md §1)
            text = gettext(
                "Study %(slug)r has no groups: no volunteer answers it; it stays a draft."
            )
            return replace(
                summary, notes=[*summary.notes, Note("study_no_groups", text % {"slug": slug})]
            )
        studies_open(studies=Study.objects.filter(slug=slug))
        notes = [n for n in summary.notes if n.code != "study_draft"]
        notes.append(
            Note("study_open", gettext("Study %(slug)r is open to volunteers.") % {"slug": slug})
        )
        return replace(summary, notes=notes)
