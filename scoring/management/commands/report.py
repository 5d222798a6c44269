"""``manage.py report STUDY --format json|csv|xlsx --out PATH``: the statistics report."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.report import (
    BY_KEYS,
    N_BOOT,
    SEED,
    SettingsError,
    build_report,
    settings_from,
)
from scoring.report.settings import MIN_SIDE, PASS_THRESHOLD, RATINGS_CI
from scoring.report.writers import FORMATS, write, write_json
from studies.models import Study
from studies.values import is_digits

SETTINGS = ("n_boot", "seed", "confidence", "pass_threshold", "min_side", "by", "tasks")


class Command(BaseCommand):
    help = (
        "Compute a study's statistics report (docs/report.md). JSON: one document; "
        "CSV: --out is a directory with one file per table; XLSX: one sheet per table."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="study slug (or numeric id)")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--out", help="output path ('-' or absent: JSON to stdout)")
        parser.add_argument("--n-boot", help=f"bootstrap resamples (default {N_BOOT})")
        parser.add_argument("--seed", help=f"random seed (default {SEED})")
        parser.add_argument("--confidence", help="confidence level (default 0.95)")
        parser.add_argument(
            "--pass-threshold",
            help=f"a graded rule metric passes at or above it (default {PASS_THRESHOLD})",
        )
        parser.add_argument(
            "--min-side",
            help=f"fewer poems on a pass/fail side: no interval (default {MIN_SIDE})",
        )
        parser.add_argument(
            "--by", help=f"split every table by item provenance: {','.join(BY_KEYS)}"
        )
        parser.add_argument("--tasks", help="only these task slugs, comma-separated")
        parser.add_argument(
            "--ratings-ci",
            help=f"the ratings table's interval: {', '.join(RATINGS_CI)} (default t)",
        )
        add_bundle_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        key = opts["study"]
        study = Study.objects.filter(slug=key).first()
        if study is None and is_digits(key):
            study = Study.objects.filter(pk=int(key)).first()
        if study is None:
            raise CommandError(f"no study {key!r}")
        try:
            settings = settings_from({k: opts.get(k) for k in (*SETTINGS, "ratings_ci")})
        except SettingsError as exc:
            raise CommandError(f"--{exc.name.replace('_', '-')}: {exc.message}") from exc
        try:
            report = build_report(study, settings)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if write_bundle_outputs(self, study, report, opts) and not opts.get("out"):
            return
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


# --- The analysis bundle and the long table (issue 24 items 2-3): kept in one block ---


def add_bundle_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--bundle",
        help="write the analysis bundle (export, codebook, long table, report, provenance, "
        "recompute.py, mixed_models.R) as this zip file",
    )
    parser.add_argument(
        "--long-table",
        help="write the model-ready long table (one row per judgment) as this CSV file",
    )
    parser.add_argument(
        "--no-bom",
        action="store_true",
        help="CSV files without the UTF-8 byte order mark (written by default for Excel)",
    )


def write_bundle_outputs(command: BaseCommand, study: Study, report: Any, opts: dict) -> bool:
    """Write ``--bundle`` and ``--long-table`` when asked; True when either was."""
    from scoring.report.bundle import write_bundle
    from scoring.report.longtable import write_long_csv

    bom = not opts.get("no_bom")
    if bundle := opts.get("bundle"):
        try:
            names = write_bundle(study, report, Path(bundle), bom=bom)
        except OSError as exc:
            raise CommandError(f"--bundle {bundle}: {exc.strerror or exc}") from exc
        command.stderr.write(f"Wrote {bundle} ({len(names)} files)")
    if long_table := opts.get("long_table"):
        path = Path(long_table)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8", newline="") as fh:
                n = write_long_csv(study, fh, bom=bom)
        except OSError as exc:
            raise CommandError(f"--long-table {long_table}: {exc.strerror or exc}") from exc
        command.stderr.write(f"Wrote {long_table} ({n} rows)")
    return bool(opts.get("bundle") or opts.get("long_table"))
