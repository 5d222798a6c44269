"""Score any file of poems offline: ``id, form, text`` in, rule scores and diagnostics out.

The rows are those of :mod:`scoring.prosody.batch` (one output shape for both ways in);
this command adds what a researcher needs around it: every bad line named with its line
and field before anything is scored.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.prosody.batch import poem_fields, score_rows, write_rows
from studies.loading.problems import Collector, LoadError
from studies.loading.readers import Source, read_records
from studies.loading.values import POEM_FORM


class Command(BaseCommand):
    help = (
        "Score a JSONL or CSV file of poems (id, form, text; or pool lines with a 'poem'; form "
        "as in formats.md §2, or empty to detect a shi form) and write rule scores as JSONL "
        "(with diagnostics) or CSV (flat columns)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--out", help="output file (default: standard output)")
        parser.add_argument(
            "--format", choices=("jsonl", "csv"), help="default: from --out, else jsonl"
        )
        parser.add_argument("--tone-system", choices=("modern", "classical"), default="modern")
        parser.add_argument(
            "--lenient", action="store_true", help="characters with both tones fit either"
        )
        parser.add_argument(
            "--ccv", action="store_true", help="the CCiV benchmark's literal definitions"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            source = Source.from_path(opts["file"])
        except OSError as exc:
            raise CommandError(f"{opts['file']}: cannot read the file: {exc.strerror}") from exc
        poems = self._read(source)
        rows = score_rows(
            poems,
            tone_system=opts["tone_system"],
            lenient=opts["lenient"],
            ccv_compatible=opts["ccv"],
        )
        fmt = opts["format"] or ("csv" if (opts.get("out") or "").endswith(".csv") else "jsonl")
        if not opts.get("out"):
            write_rows(rows, sys.stdout, fmt=fmt)
            return
        with open(opts["out"], "w", encoding="utf-8", newline="") as fh:
            write_rows(rows, fh, fmt=fmt)
        self.stderr.write(f"{len(poems)} poems scored to {opts['out']}")

    def _read(self, source: Source) -> list[dict[str, Any]]:
        collector = Collector(source.name)
        poems: list[dict[str, Any]] = []
        for record in read_records(source, collector):
            report = collector.at(record.line)
            pid, text, form = poem_fields(record.data)
            if not pid:
                report.error("id", "is required")
            if not text.strip():
                report.error("text", "is required and must not be empty")
            if form is not None and (not isinstance(form, str) or not POEM_FORM.match(form)):
                report.error(
                    "form",
                    f"{form!r} is not a form: use ci:<cipai>, shi:jueju5|jueju7|lushi5|lushi7 or couplet",
                )
            if not report.count:
                poems.append(record.data)
        if not poems and not collector.problems:
            collector.add(None, None, "the file holds no poems")
        try:
            collector.raise_if_any()
        except LoadError as exc:
            raise CommandError(
                exc.describe().replace("nothing was loaded", "nothing was scored")
            ) from exc
        return poems
