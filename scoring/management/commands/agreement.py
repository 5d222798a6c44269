"""``manage.py agreement FILE [--level ...] [--json]``: agreement of any rating table.

The tool itself is plain Python (``scoring.agreement.cli``, also installed as
``shiping-agreement``); ``manage.py`` runs it without loading the project's settings,
and this command makes it callable as ``call_command("agreement", ...)`` too.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.agreement.cli import DESCRIPTION, ToolError, add_arguments, run


class Command(BaseCommand):
    help = DESCRIPTION

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run(argparse.Namespace(**opts), self.stdout.write)
        except ToolError as exc:
            raise CommandError(str(exc)) from exc
