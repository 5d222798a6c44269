from annotation.loading.llm_outputs import llm_outputs_load
from studies.management.loadcommand import LoadCommand


class Command(LoadCommand):
    kind = "llm_outputs"
    help = (
        "Load stored LLM outputs: answers, judge ratings, generations, aggregates (formats.md §3)."
    )

    def loader(self):  # type: ignore[no-untyped-def]
        return llm_outputs_load
