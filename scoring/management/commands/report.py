"""``manage.py report STUDY --format json|csv|xlsx --out PATH``: the statistics report.

With ``--paper NAME`` (``--paper list``) or ``--rows/--cols`` it writes one table in
paper layout instead (``scoring.report.paper``; docs/report.md §4c), as LaTeX, Markdown
or CSV, to ``--out`` or stdout.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext

from scoring.management.lookup import study_named
from scoring.report import (
    BY_KEYS,
    N_BOOT,
    SEED,
    SettingsError,
    build_report,
    paper,
    settings_from,
)
from scoring.report.prereg import deviations_record
from scoring.report.registry import TABLES
from scoring.report.settings import CLUSTER, CLUSTERS, MIN_SIDE, PASS_THRESHOLD, RATINGS_CI
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
        parser.add_argument("study", nargs="?", help="study slug (or numeric id)")
        parser.add_argument(
            "--format",
            choices=(*FORMATS, "latex", "markdown", *FIGURE_FORMATS),
            default=None,
            help="json|csv|xlsx for the report (default json); latex|markdown|csv|xlsx for "
            "--paper/--rows (default latex); pdf|svg for --figure (default pdf)",
        )
        parser.add_argument("--out", "-o", help="output path ('-' or absent: JSON to stdout)")
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
            help=f"the ratings table's interval: {', '.join(RATINGS_CI)} (default crossed)",
        )
        parser.add_argument(
            "--cluster",
            help=(
                "what answers are clustered in, for every accuracy, rate and mean: "
                f"{', '.join(CLUSTERS)} (default {CLUSTER}; none: answers independent)"
            ),
        )
        self.add_paper_arguments(parser)
        add_bundle_arguments(parser)
        add_figure_arguments(parser)

    def add_paper_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--paper", help="a named paper layout ('list' lists them): one table, wide"
        )
        parser.add_argument("--table", help=f"the table to pivot: {', '.join(TABLES)}")
        parser.add_argument("--rows", help="pivot: the row keys, comma-separated")
        parser.add_argument("--cols", help="pivot: the column keys, comma-separated")
        parser.add_argument("--value", help="pivot: the value column (default value)")
        parser.add_argument(
            "--ci", action="store_true", help="pivot: the interval in the cell, value [lo, hi]"
        )
        parser.add_argument("--digits", help="pivot: decimals (default 2 for [0, 1], else 3)")
        parser.add_argument("--best", choices=paper.BEST, help="pivot: bold the best (max)")
        parser.add_argument(
            "--where",
            action="append",
            default=[],
            help="pivot: keep rows whose COLUMN matches a glob, COLUMN=PAT[|PAT] (repeatable)",
        )
        parser.add_argument("--caption", help="pivot: the table's caption")
        parser.add_argument(
            "--delta",
            help="pivot: a difference column KEY=A,B (A minus B, e.g. condition=form_aware,direct)"
            " after each pair of columns",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts.get("paper") == "list":
            self.stdout.write(paper.listing())
            return
        wide = bool(opts.get("paper") or opts.get("rows") or opts.get("cols"))
        layout = self.layout(opts) if wide else None
        if layout is not None and layout.by:  # the layout's split beside any asked for
            opts["by"] = ",".join(paper.split_for(_keys(opts.get("by")), layout))
        study = self.study(opts.get("study"))
        try:
            settings = settings_from({k: opts.get(k) for k in (*SETTINGS, "ratings_ci", "cluster")})
        except SettingsError as exc:
            raise CommandError(f"--{exc.name.replace('_', '-')}: {exc.message}") from exc
        deviations_record(study, settings)  # departures from a frozen plan, first seen now
        try:
            only = (layout.table,) if layout is not None else ()
            report = build_report(study, settings, only=only)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if layout is not None:
            names = paper.Names(
                tasks=dict(study.tasks.values_list("slug", "title")),
                groups=dict(study.groups.values_list("slug", "name")),
                fields={
                    (t.slug, key): label
                    for t in study.tasks.all()
                    for key, label in t.dimension_labels().items()
                },
                every=gettext("with all categories"),
                without=gettext("without %(task)s"),
            )
            self.write_paper(report.tables[layout.table], layout, settings.as_json(), opts, names)
            return
        if opts.get("figure"):
            self.stderr.write(write_figure(study, report, opts))
            return
        if write_bundle_outputs(self, study, report, opts) and not opts.get("out"):
            return
        opts["format"] = opts["format"] or "json"
        if opts["format"] not in FORMATS:
            raise CommandError(
                "--format latex|markdown needs --paper or --rows/--cols; pdf|svg --figure"
            )
        out = opts.get("out")
        if not out or out == "-":
            if opts["format"] != "json":
                raise CommandError("--out is required for csv and xlsx")
            buffer = io.StringIO()
            write_json(report, buffer)
            self.stdout.write(buffer.getvalue())
            return
        paths = write(report, opts["format"], Path(out), bom=not opts.get("no_bom"))
        counts = ", ".join(f"{k}: {len(v)}" for k, v in report.tables.items())
        self.stderr.write(f"Wrote {', '.join(map(str, paths))} ({counts})")

    def study(self, key: str | None) -> Study:
        return study_named(key)

    def layout(self, opts: dict[str, Any]) -> paper.PaperLayout:
        """The named layout, or one made of --table/--rows/--cols (each may override)."""
        name = opts.get("paper")
        if name:
            if name not in paper.LAYOUT_BY_NAME:
                known = ", ".join(paper.LAYOUT_BY_NAME)
                raise CommandError(f"--paper: no layout {name!r}; known: {known}, list")
            base = paper.LAYOUT_BY_NAME[name]
        else:
            table = opts.get("table")
            if table not in TABLES:
                raise CommandError(f"--table: one of {', '.join(TABLES)}")
            if not opts.get("rows") or not opts.get("cols"):
                raise CommandError("--rows and --cols are both needed for a pivot")
            base = paper.PaperLayout("pivot", table, (), (), "value", caption="")
        return paper.PaperLayout(
            base.name,
            opts.get("table") or base.table,
            rows=_keys(opts.get("rows")) or base.rows,
            cols=_keys(opts.get("cols")) or base.cols,
            value=opts.get("value") or base.value,
            caption=opts.get("caption") or base.caption,
            filters=base.filters + tuple(_where(w) for w in opts.get("where") or ()),
            digits=_digits(opts.get("digits"), base.digits),
            best=opts.get("best") or base.best,
            ci=bool(opts.get("ci")) or base.ci,
            by=base.by,
            delta=_delta(opts.get("delta")) or base.delta,
        )

    def write_paper(
        self,
        rows: list[dict[str, Any]],
        layout: paper.PaperLayout,
        settings: Any,
        opts: Any,
        names: paper.Names | None = None,
    ) -> None:
        """The layout as a file; rows and columns named by ``names`` (the study's task and
        group names: the dashboard's, untranslated words aside)."""
        fmt = opts.get("format") or "latex"
        if fmt not in paper.FORMATS:
            raise CommandError(f"--format: one of {', '.join(paper.FORMATS)} with a paper layout")
        try:
            wide = paper.pivot(
                rows,
                layout.pivot(),
                table=layout.table,
                settings=settings,
                names=names.value if names is not None else None,
            )
        except paper.PivotError as exc:
            raise CommandError(f"{layout.table}: {exc}") from exc
        out = opts.get("out")
        if fmt == "xlsx":
            if not out or out == "-":
                raise CommandError("--out is required for xlsx")
            Path(out).write_bytes(paper.xlsx_bytes(wide, layout.caption))
            self.stderr.write(f"Wrote {out} ({len(wide.row_labels)} rows × {len(wide.col_labels)})")
            return
        text = paper.render(wide, fmt, layout.caption, layout.name)
        if not out or out == "-":
            self.stdout.write(text, ending="")
            return
        bom = fmt == "csv" and not opts.get("no_bom")  # a CSV file for Excel, as every CSV
        Path(out).write_text(text, encoding="utf-8-sig" if bom else "utf-8")
        self.stderr.write(f"Wrote {out} ({len(wide.row_labels)} rows × {len(wide.col_labels)})")


def _keys(text: str | None) -> tuple[str, ...]:
    return tuple(k.strip() for k in (text or "").split(",") if k.strip())


def _delta(text: str | None) -> paper.Delta | None:
    if not text:
        return None
    key, _, sides = text.partition("=")
    a, _, b = sides.partition(",")
    if not (key.strip() and a.strip() and b.strip()):
        raise CommandError(f"--delta {text!r}: write KEY=A,B (A minus B)")
    return paper.Delta(key.strip(), a.strip(), b.strip())


def _where(text: str) -> tuple[str, str]:
    column, sep, patterns = text.partition("=")
    if not sep or not column.strip():
        raise CommandError(f"--where {text!r}: write COLUMN=PATTERN")
    return column.strip(), patterns


def _digits(text: str | None, default: int | None) -> int | None:
    if text is None:
        return default
    if not is_digits(text) or int(text) > 12:
        raise CommandError(f"--digits {text!r}: a whole number 0-12")
    return int(text)


# --- The analysis bundle and the long table (issue 24 items 2-3): kept in one block ---


def add_bundle_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--bundle",
        help="write the analysis bundle (export, codebook, long table, report, provenance, "
        "recompute.py, mixed_models.R) as this zip file",
    )
    parser.add_argument(
        "--bundle-recruitment",
        action="store_true",
        help="keep the volunteers' recruitment platform ids (Prolific PID …) in the bundle's "
        "responses.csv (left blank by default: a bundle is made to be shared)",
    )
    parser.add_argument(
        "--long-table",
        help="write the model-ready long table (one row per judgment) as this CSV file",
    )
    parser.add_argument(
        "--no-bom",
        action="store_true",
        help="CSV files (--format csv, --paper/--rows … --format csv, --bundle, --long-table) "
        "without the UTF-8 byte order "
        "mark (written by default for Excel)",
    )


def write_bundle_outputs(command: BaseCommand, study: Study, report: Any, opts: dict) -> bool:
    """Write ``--bundle`` and ``--long-table`` when asked; True when either was."""
    from scoring.report.bundle import write_bundle
    from scoring.report.longtable import write_long_csv

    bom = not opts.get("no_bom")
    if bundle := opts.get("bundle"):
        try:
            keep = bool(opts.get("bundle_recruitment"))
            names = write_bundle(study, report, Path(bundle), bom=bom, recruitment=keep)
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


# --- Figures for print (issue 24 item 2): drawn by the research app, which owns the charts ---

FIGURE_FORMATS = ("pdf", "svg")


def add_figure_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--figure",
        help="write one dashboard chart for print (docs/report.md, Figures): accuracy, "
        "correlation, rules-vs-ratings, rule-scores, ratings, rule-rates, "
        "rule-rates-heatmap, validation, pairwise, echo-chamber, self-preference, "
        "form-length, published",
    )
    parser.add_argument(
        "--width", choices=("one", "two"), default="one", help="figure: journal columns"
    )
    parser.add_argument("--page", help="figure: only this page (SVG: default 1)")
    parser.add_argument(
        "--figure-choice",
        help="figure: the rule, metric or measure a chart shows (default: the dashboard's)",
    )
    parser.add_argument(
        "--figure-task", help="figure: only this task's rows (as the dashboard's filter)"
    )


def write_figure(study: Study, report: Any, opts: dict[str, Any]) -> str:
    """The research app's figure writer (``settings.REPORT_FIGURE_WRITER``): the chart
    specs and their labels live there, above this app."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    if opts.get("format") not in (None, *FIGURE_FORMATS):
        raise CommandError("--format: pdf or svg with --figure")
    writer = import_string(settings.REPORT_FIGURE_WRITER)
    try:
        return str(writer(study, report, opts))
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
