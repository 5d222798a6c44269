from jobs.management.loadcommand import LoadCommand
from studies.models import LoadKind


class Command(LoadCommand):
    kind = LoadKind.LLM_OUTPUTS
    help = (
        "Load stored LLM outputs: answers, judge ratings, generations, aggregates (formats.md §3)."
    )
