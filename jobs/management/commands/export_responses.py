import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.exports import FORMATS, export_rows, export_write
from jobs.services import command_submit
from studies.models import Study

TEXT: dict[str, Any] = {"encoding": "utf-8", "newline": ""}


class Command(BaseCommand):
    help = "Export a study's responses, one row per answered part or dimension (formats.md §4)."
    # A read of the database, written out: no system checks, whose URL check imports every
    # view and with them the statistics stack (pandas, SciPy, statsmodels), about 130 MB
    # of the process's memory that an export never uses (docs/performance.md).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="the study's slug")
        parser.add_argument("--format", choices=FORMATS, default="jsonl")
        parser.add_argument(
            "--out", help="file to write (default: standard output; required for xlsx)"
        )
        parser.add_argument(
            "--no-bom",
            action="store_true",
            help="CSV without the UTF-8 byte order mark (written by default for Excel)",
        )
        parser.add_argument(
            "--background",
            action="store_true",
            help="run as a background job writing under DATA_DIR/exports",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        study = Study.objects.filter(slug=opts["study"]).first()
        if study is None:
            raise CommandError(f"no study {opts['study']!r}")
        fmt, out = opts["format"], opts.get("out")
        if opts["background"]:
            if out:
                raise CommandError("--background writes under DATA_DIR/exports; drop --out")
            job = command_submit(
                kind="export", study=study, params={"format": fmt, "bom": not opts["no_bom"]}
            )
            if job["status"] == "failed":
                raise CommandError(job["message"])
            self.stdout.write(job["message"])
            return
        rows = export_rows(study)
        if fmt == "xlsx" and not out:
            raise CommandError("--out is required for xlsx")
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            binary = fmt == "xlsx"
            with open(out, "wb" if binary else "w", **({} if binary else TEXT)) as fh:
                n = export_write(rows, fmt, fh, bom=not opts["no_bom"])
        else:
            n = export_write(rows, fmt, sys.stdout, bom=not opts["no_bom"])
        if out:
            self.stderr.write(f"{n} rows written to {out}")
