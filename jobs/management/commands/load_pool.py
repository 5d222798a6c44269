from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.POOL
    help = "Load a question pool into a study (JSONL or CSV, formats.md §2)."
