from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.RESPONSES
    formats = ("jsonl", "csv", "xlsx")
    help = "Load human responses collected elsewhere (JSONL, or CSV or XLSX in the export's shape, formats.md §4)."
