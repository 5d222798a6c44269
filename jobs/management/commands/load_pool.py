from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.POOL
    formats = ("jsonl", "csv", "xlsx")
    help = "Load a question pool into a study (JSONL, CSV or XLSX, formats.md §2)."
