from studies.loading.study import study_load
from studies.management.loadcommand import LoadCommand


class Command(LoadCommand):
    kind = "study"
    help = "Load or update a study definition (JSON or YAML, formats.md §1)."
    needs_study = False
    formats = ("json", "yaml")

    def loader(self):  # type: ignore[no-untyped-def]
        return study_load
