"""``manage.py prosody FILE``: score any file of poems offline (``id, form, text`` in, rule
scores and diagnostics out).

The tool itself is plain Python (``scoring.prosody.cli``, also installed as
``shiping-prosody``); ``manage.py`` runs it without loading the project's settings,
and this command makes it callable as ``call_command("prosody", ...)`` too.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.prosody.cli import DESCRIPTION, ToolError, add_arguments, run


class Command(BaseCommand):
    help = DESCRIPTION

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run(argparse.Namespace(**opts), self.stdout, self.stderr.write)
        except ToolError as exc:
            raise CommandError(str(exc)) from exc
