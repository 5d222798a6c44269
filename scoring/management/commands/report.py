"""``manage.py report STUDY --format json|csv|xlsx --out PATH``: the statistics report."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.report import N_BOOT, SEED, ReportSettings, build_report
from scoring.report.writers import FORMATS, write, write_json
from studies.models import Study
from studies.values import is_digits


class Command(BaseCommand):
    help = (
        "Compute a study's statistics report (docs/report.md). JSON: one document; "
        "CSV: --out is a directory with one file per table; XLSX: one sheet per table."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="study slug (or numeric id)")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--out", help="output path ('-' or absent: JSON to stdout)")
        parser.add_argument("--n-boot", type=int, default=N_BOOT, help="bootstrap resamples")
        parser.add_argument("--seed", type=int, default=SEED)
        parser.add_argument("--confidence", type=float, default=0.95)

    def handle(self, *args: Any, **opts: Any) -> None:
        key = opts["study"]
        study = Study.objects.filter(slug=key).first()
        if study is None and is_digits(key):
            study = Study.objects.filter(pk=int(key)).first()
        if study is None:
            raise CommandError(f"no study {key!r}")
        if opts["n_boot"] < 0 or not 0 < opts["confidence"] < 1:
            raise CommandError("--n-boot must be >= 0 and --confidence between 0 and 1")
        settings = ReportSettings(
            n_boot=opts["n_boot"], seed=opts["seed"], confidence=opts["confidence"]
        )
        report = build_report(study, settings)
        out = opts.get("out")
        if not out or out == "-":
            if opts["format"] != "json":
                raise CommandError("--out is required for csv and xlsx")
            buffer = io.StringIO()
            write_json(report, buffer)
            self.stdout.write(buffer.getvalue())
            return
        paths = write(report, opts["format"], Path(out))
        counts = ", ".join(f"{k}: {len(v)}" for k, v in report.tables.items())
        self.stderr.write(f"Wrote {', '.join(map(str, paths))} ({counts})")
