from studies.loading.pool import pool_load
from studies.management.loadcommand import LoadCommand


class Command(LoadCommand):
    kind = "pool"
    help = "Load a question pool into a study (JSONL or CSV, formats.md §2)."

    def loader(self):  # type: ignore[no-untyped-def]
        return pool_load
