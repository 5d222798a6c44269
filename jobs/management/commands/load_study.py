from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.STUDY
    help = "Load or update a study definition (JSON or YAML, formats.md §1)."
    needs_study = False
    formats = ("json", "yaml")
