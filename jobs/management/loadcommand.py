"""The shared shape of every ``load_*`` command: validate all, write all or nothing.

The command runs the load itself (``jobs.loads.file_load``, as the upload page and
the job runner do), with a progress bar on a terminal; ``--background`` hands the file
to a background job instead and says which.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.loads import file_load
from jobs.services import command_submit
from studies.loading.encodings import known_encoding
from studies.loading.plain import loads
from studies.loading.problems import LoadError, Summary
from studies.loading.readers import Source
from studies.models import Study


class LoadCommand(BaseCommand):
    kind = ""  # a LoadKind
    needs_study = True
    formats: tuple[str, ...] = ("jsonl", "csv")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the file to load")
        if self.needs_study:
            parser.add_argument("--study", required=True, help="the study's slug")
        parser.add_argument("--format", choices=self.formats, help="default: from the file name")
        parser.add_argument(
            "--encoding",
            help="the text's encoding (utf-8, gb18030, big5, utf-16, ...); "
            "default: detected (docs/loading.md, Encodings)",
        )
        if "xlsx" in self.formats:
            parser.add_argument("--sheet", help="an XLSX workbook's sheet; default: the first")
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and count, write nothing"
        )
        if self.kind == "pool":
            parser.add_argument(
                "--remap",
                metavar="JSON_OR_FILE",
                help=(
                    "where the old options of items whose options change went: inline JSON "
                    "such as '{\"ck-001\": [1, 0, 2]}' or a .json file (docs/loading.md); the "
                    "stored answers are moved to the new positions in the same transaction"
                ),
            )
        parser.add_argument(
            "--background",
            action="store_true",
            help="run as a background job (a Celery worker when CELERY_BROKER_URL is set)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        encoding = opts.get("encoding")
        if encoding and known_encoding(encoding) is None:
            raise CommandError(
                f"unknown encoding {encoding!r}: try utf-8, gb18030 (also GBK), big5 or utf-16"
            )
        try:
            source = Source.from_path(
                opts["file"], opts.get("format"), encoding=encoding, sheet=opts.get("sheet")
            )
        except OSError as exc:
            raise CommandError(f"{opts['file']}: cannot read the file: {exc.strerror}") from exc
        kwargs: dict[str, Any] = {"dry_run": opts["dry_run"]}
        if self.needs_study:
            study = Study.objects.filter(slug=opts["study"]).first()
            if study is None:
                raise CommandError(
                    f"no study {opts['study']!r}: load its definition first (load_study)"
                )
            kwargs["study"] = study
            kwargs["show_progress"] = opts["verbosity"] >= 1 and sys.stderr.isatty()
        if opts.get("remap") is not None:
            kwargs["remap"] = read_remap(opts["remap"])
        if opts["background"]:
            self._submit(source, kwargs.get("study"), opts)
            return
        try:
            summary = file_load(kind=self.kind, source=source, **kwargs)
        except LoadError as exc:
            raise CommandError(exc.describe()) from exc
        self.stdout.write(self.style.SUCCESS(self.loaded(source, summary, opts).describe()))

    def loaded(self, source: Source, summary: Summary, opts: dict[str, Any]) -> Summary:
        """What to do once a file is loaded (a command's own option), before the summary
        is printed; returns the summary to print."""
        return summary

    def _submit(self, source: Source, study: Study | None, opts: dict[str, Any]) -> None:
        job = command_submit(
            kind=self.kind,
            study=study,
            content=source.content,
            name=source.name,
            params={
                "dry_run": opts["dry_run"],
                "format": opts.get("format"),
                **({"remap": read_remap(opts["remap"])} if opts.get("remap") else {}),
                "encoding": source.encoding,
                "sheet": source.sheet,
            },
        )
        if job["status"] == "failed":
            raise CommandError(job["message"])
        self.stdout.write(self.style.SUCCESS(job["message"]))


def read_remap(value: str) -> Any:
    """``--remap``: inline JSON (starting with ``{``) or the path of a JSON file."""
    text, name = value, "--remap"
    if not value.lstrip().startswith("{"):
        try:
            text, name = Path(value).read_text(encoding="utf-8-sig"), value
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--remap {value}: cannot read the file: {exc}") from exc
    try:
        return loads(text)
    except ValueError as exc:
        raise CommandError(f"{name}: not valid JSON: {exc}") from exc
