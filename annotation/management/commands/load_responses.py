from annotation.loading.responses import responses_load
from studies.management.loadcommand import LoadCommand


class Command(LoadCommand):
    kind = "responses"
    help = "Load human responses collected elsewhere (JSONL, or CSV in the export's shape, formats.md §4)."

    def loader(self):  # type: ignore[no-untyped-def]
        return responses_load
