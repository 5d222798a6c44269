from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.RESPONSES
    help = "Load human responses collected elsewhere (JSONL, or CSV in the export's shape, formats.md §4)."
