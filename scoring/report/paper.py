"""Paper layouts: a report table pivoted wide, rounded, the best marked, with a footnote.

The report's tables are tidy (one row per estimate); papers print them wide (model ×
condition, metric × subset, group × task). ``pivot`` turns a table's rows into a
:class:`Wide` table (pandas pivot; rows and columns in first-seen order), and the
writers render it as LaTeX (booktabs; CJK under xeCJK), Markdown or CSV. Numbers are
rounded to ``digits`` (auto: 2 when every value lies in [0, 1], else 3), the best per
column is bold, an optional interval goes in the cell as ``value [lo, hi]``, and the
footnote gives n and the interval method from the rows' own ``ci_method`` and the report
settings. ``LAYOUTS`` holds the seed papers' named layouts (docs/report.md §4c).

Pure layout code: no Django import; the ``report`` command feeds it the report's rows.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

import pandas as pd

from annotation.spreadsheet import xlsx_text
from scoring.report.sets import SetName, show_model, show_set_name

Rows = list[dict[str, Any]]
#: The text formats (``render``); ``xlsx`` is a workbook (``xlsx_bytes``).
TEXT_FORMATS = ("latex", "markdown", "csv")
FORMATS = (*TEXT_FORMATS, "xlsx")
BEST = ("max", "min", "none")
#: The label of a missing key (a human poem's condition, an unsplit table's source).
MISSING = "—"
#: The label of a difference column (``Delta``).
DELTA = "Δ"
#: The columns counted for the footnote's n, first found wins.
N_COLUMNS = ("n", "n_responses", "n_ratings", "n_items")
#: A derived key of ``validation``'s rows: which categories a figure pools, as Fùxì's
#: Table 6 heads its columns (with every category / without one): ``SUBSET_ALL`` for
#: ``scope = pooled``, ``without:<left_out>`` for ``scope = without``, else the task.
SUBSET = "subset"
SUBSET_ALL = "all"
SUBSET_WITHOUT = "without:"
#: The marks of cells by interval method when a table's methods vary cell by cell.
METHOD_MARKS = ("†", "‡", "§", "¶")
#: The interval method of tables whose rows have no ``ci_method`` (docs/report.md §4).
CI_METHOD_OF = {"accuracy": "wilson"}
TEX_PREAMBLE = "% needs \\usepackage{booktabs,xeCJK} (compile with xelatex or lualatex)"
_TEX_SPECIALS = {
    # an en dash (ranges, "n–m") as TeX's ligature, set in the text font: xeCJK sends
    # U+2013 to the CJK font, and a CJK font may have no glyph for it (AR PL KaitiM GB)
    "\u2013": "--",
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "−": "$-$",  # a number's minus (``MINUS``), never a hyphen
    "†": r"\textsuperscript{\dag}",
    "‡": r"\textsuperscript{\ddag}",
    "§": r"\textsuperscript{\S}",
    "¶": r"\textsuperscript{\P}",
}
#: The minus of a negative number in LaTeX and Markdown (CSV and XLSX keep ``-``).
MINUS = "−"
#: The interval method's column in the pivot's frame (``ci_method`` may be a key).
_METHOD = "__ci_method"


class PivotError(ValueError):
    """The rows do not make a wide table (a column missing, a cell given twice…).

    ``code`` and ``params`` let a caller say it in the reader's language (the message
    itself is English): ``no_rows``; ``no_column`` (``columns``); ``no_filter_column``
    (``columns``); ``not_number`` (``columns``: the value column holds text); ``empty`` (the table has no rows at all); ``twice``;
    ``other``."""

    def __init__(self, message: str, code: str = "other", **params: str) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


#: A key's reader-facing name: (column, raw value, the other keys of the same row or
#: column label) → text. The caller resolves names (a study's group and task names);
#: this module stays free of them. ``Names.value`` is the plain one.
Namer = Callable[[str, str, Mapping[str, str]], str]


@dataclass(frozen=True)
class Names:
    """The names a paper table shows for a study's keys, as the dashboard names them:
    a task by its title, a group by its name (``group:A`` → 初中及以下), a rating
    dimension by its label, a model without its ``model:`` prefix and ``@run`` as
    `` (run)``; anything else as it is."""

    tasks: Mapping[str, str] = field(default_factory=dict)
    groups: Mapping[str, str] = field(default_factory=dict)
    #: a rating dimension's label by (task, dimension key), as the study configures it
    fields: Mapping[tuple[str, str], str] = field(default_factory=dict)
    #: ``subset``'s words (the command passes them through gettext).
    every: str = "with all categories"
    without: str = "without %(task)s"

    def rater_set(self, text: str) -> str:
        return show_set_name(text, self._set_part, lambda shown, suffix: f"{shown} {suffix}")

    def _set_part(self, name: SetName) -> str:
        if name.kind == "group":
            return self.groups.get(name.key) or name.key
        if name.kind == "model":
            return show_model(name.key)
        return name.text

    def field_name(self, task: str | None, key: str) -> str:
        """A dimension's label: of the label's own task, else the one label every task
        with a dimension of that key gives it (a layout that filters the task away);
        the key when none or several."""
        if task is not None and (task, key) in self.fields:
            return self.fields[(task, key)]
        found = {label for (_, k), label in self.fields.items() if k == key}
        return found.pop() if len(found) == 1 else key

    def value(self, column: str, value: str, others: Mapping[str, str]) -> str:
        if value == MISSING:
            return value
        if column == "field":
            return self.field_name(others.get("task"), value)
        if column in ("task", "left_out"):
            return self.tasks.get(value) or value
        if column == SUBSET:
            return subset_name(value, self.every, self.without, lambda t: self.tasks.get(t) or t)
        if column in ("rater_set", "judge", "reference", "model"):
            return self.rater_set(value)
        return value


def subset_of(row: Mapping[str, Any]) -> Any:
    """A ``validation`` row's ``subset`` (``SUBSET``): all, without one, or its task."""
    scope = row.get("scope")
    if scope == "pooled":
        return SUBSET_ALL
    if scope == "without":
        return f"{SUBSET_WITHOUT}{row.get('left_out')}"
    return row.get("task")


def subset_name(value: str, every: str, without: str, task: Callable[[str], str]) -> str:
    """``subset``'s value in words: ``every`` for all, ``without % {"task": name}``."""
    if value == SUBSET_ALL:
        return every
    if value.startswith(SUBSET_WITHOUT):
        return without % {"task": task(value.removeprefix(SUBSET_WITHOUT))}
    return task(value)


def derive(rows: Rows, keys: Sequence[str]) -> Rows:
    """``rows`` with the derived key ``subset`` when ``keys`` use it and the rows lack it."""
    if SUBSET not in keys or not rows or any(SUBSET in r for r in rows):
        return rows
    if all("scope" not in r for r in rows):
        return rows
    return [{**r, SUBSET: subset_of(r)} for r in rows]


@dataclass(frozen=True)
class Pivot:
    """How to widen a table: row keys, column keys, the value and its presentation.

    ``filters``: (column, patterns) pairs, patterns ``|``-separated shell globs matched
    against the cell's text (``MISSING`` for an absent key), e.g. ``("judge", "model:*")``.
    ``digits``: decimals (None: 2 when every value lies in [0, 1], else 3). ``best``:
    ``max``, ``min`` or ``none`` (the best per column is bold).
    """

    rows: tuple[str, ...]
    cols: tuple[str, ...]
    value: str = "value"
    ci: bool = False
    digits: int | None = None
    best: str = "max"
    filters: tuple[tuple[str, str], ...] = ()
    delta: Delta | None = None


@dataclass(frozen=True)
class Delta:
    """A difference column: for each combination of the other column keys, ``key = a``
    minus ``key = b`` (e.g. condition form_aware − direct), labelled ``DELTA``."""

    key: str
    a: str
    b: str

    def text(self) -> str:
        return f"{DELTA} = {self.a} − {self.b}"


@dataclass(frozen=True)
class PaperLayout:
    """One published table: which report table, how it is widened, its caption.

    ``by``: the report's ``--by`` split it needs (the command adds it to any asked for).
    """

    name: str
    table: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    value: str
    caption: str
    filters: tuple[tuple[str, str], ...] = ()
    digits: int | None = None
    best: str = "max"
    ci: bool = False
    by: tuple[str, ...] = ()
    delta: Delta | None = None

    def pivot(self, **changes: Any) -> Pivot:
        given = {k: v for k, v in changes.items() if v is not None}
        base = {
            "rows": self.rows,
            "cols": self.cols,
            "value": self.value,
            "ci": self.ci,
            "digits": self.digits,
            "best": self.best,
            "filters": self.filters,
            "delta": self.delta,
        }
        return Pivot(**{**base, **given})


@dataclass
class Wide:
    """A pivoted table: labels per row and column (tuples, one entry per key) and cells."""

    row_keys: tuple[str, ...]
    col_keys: tuple[str, ...]
    row_labels: list[tuple[str, ...]]
    col_labels: list[tuple[str, ...]]
    values: list[list[float | None]]
    lows: list[list[float | None]] = field(default_factory=list)
    highs: list[list[float | None]] = field(default_factory=list)
    digits: int = 2
    best: list[list[bool]] = field(default_factory=list)
    footnote: str = ""
    #: Per cell, the mark of its interval method (``METHOD_MARKS``) when the table's
    #: methods vary cell by cell (neither by row nor by column), else ``""``.
    marks: list[list[str]] = field(default_factory=list)


#: The seed papers' tables (docs/report.md §4c); ``--paper list`` shows them.
LAYOUTS: tuple[PaperLayout, ...] = (
    PaperLayout(
        "cciv-table2",
        "rule_rates",
        rows=("source",),
        cols=("condition", "field"),
        value="value",
        filters=(
            ("rule", "*ccv"),
            ("field", "structural_standard|structural_variant|tonal_standard|tonal_variant"),
        ),
        caption="CCiV Table 2: rule accuracy per model and prompt condition",
    ),
    PaperLayout(
        "cciv-table3",
        "rule_rates",
        rows=("source",),
        cols=("field", "condition"),
        value="value",
        filters=(
            ("rule", "*ccv"),
            ("field", "structural_standard|structural_variant|tonal_standard|tonal_variant"),
            ("condition", "direct|form_aware"),
        ),
        delta=Delta("condition", "form_aware", "direct"),
        caption="CCiV Table 3: form-aware against direct prompting per model, with the differences",
    ),
    PaperLayout(
        "cciv-heatmap",
        "rule_rates",
        rows=("form",),
        cols=("source",),
        value="value",
        filters=(("rule", "*ccv"), ("field", "tonal_standard"), ("condition", "direct")),
        caption="CCiV: tonal accuracy per cipai and model (direct prompting)",
        by=("form",),
    ),
    PaperLayout(
        "cciv-length",
        "form_length",
        rows=("condition",),
        cols=("measure",),
        value="value",
        filters=(
            ("measure", "rule:*ccv/*"),
            ("form", "[*]"),
            ("source", "[*]"),
            ("statistic", "spearman"),
        ),
        digits=2,
        best="none",  # a correlation per condition: no best
        caption="CCiV: Spearman's rho of per-cipai accuracy against the cipai's length, per prompt condition",
    ),
    PaperLayout(
        "fuxi-table4",
        "published_vs_computed",
        rows=("model",),
        cols=("run", "task", "metric"),  # Fùxì's figures come zero-shot and 5-shot
        value="computed",
        caption="Fùxì Table 4: the models' figures computed from the study",
    ),
    PaperLayout(
        "fuxi-table6",
        "validation",
        rows=("metric",),
        cols=(SUBSET,),  # as the paper heads them: with every category / without one
        value="value",
        filters=(("judge", "model:*"), ("reference", "key"), ("scope", "pooled|without")),
        best="none",  # rows are different metrics: no best across them
        caption="Fùxì Table 6: the evaluator against the experts' key, with and without a category",
    ),
    PaperLayout(
        "cpdue-accuracy",
        "accuracy",
        rows=("rater_set",),
        cols=("task", "field"),
        value="value",
        filters=(("rater_set", "group:*|model:*"),),
        caption="CP-DUE: accuracy per group and task",
    ),
    PaperLayout(
        "tang-ratings",
        "ratings",
        rows=("source",),
        cols=("field",),
        value="mean",
        filters=(("rater_set", "group:*"),),
        ci=True,
        caption="Tang: the experts' mean rating per generator and dimension",
        by=("source",),
    ),
    PaperLayout(
        "tang-correlations",
        "validation",
        rows=("judge", "generator"),
        cols=("field", "metric"),
        value="value",
        filters=(
            ("judge", "model:*"),
            ("reference", "group:* mean"),
            ("metric", "pearson|spearman|kendall"),
        ),
        digits=2,  # coefficients in [-1, 1]
        caption="Tang: each LLM judge against the experts' mean rating, per generator",
    ),
    PaperLayout(
        "ccpm-accuracy",
        "accuracy",
        rows=("rater_set",),
        cols=("task",),
        value="value",
        filters=(("rater_set", "model:*"), ("field", "answer")),
        caption="CCPM: accuracy of each model per multiple-choice task",
    ),
)
LAYOUT_BY_NAME: dict[str, PaperLayout] = {layout.name: layout for layout in LAYOUTS}


def label(v: Any) -> str:
    """A key's text in the table (``MISSING`` for None/NaN/empty)."""
    if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    return str(v)


def number(v: Any) -> float | None:
    """A cell's number (None for missing, non-numeric or non-finite)."""
    if v is None or isinstance(v, bool):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def select(rows: Rows, filters: Sequence[tuple[str, str]]) -> Rows:
    """The rows every filter accepts (``|``-separated globs against the cell's text)."""
    absent = [col for col, _ in filters if rows and all(col not in r for r in rows)]
    if absent:
        raise PivotError(
            f"no column {', '.join(absent)} to filter on in these rows",
            "no_filter_column",
            columns=", ".join(absent),
        )

    def keep(row: dict[str, Any]) -> bool:
        return all(
            any(fnmatchcase(label(row.get(col)), p) for p in patterns.split("|"))
            for col, patterns in filters
        )

    return [r for r in rows if keep(r)]


def auto_digits(values: Sequence[float]) -> int:
    """2 decimals when every value is a share or coefficient in [0, 1], else 3."""
    return 2 if all(0.0 <= v <= 1.0 for v in values) else 3


def _numbers_only(rows: Rows, value: str) -> None:
    """Refuse a value column that holds text (``--value ci_method``): its cells would
    all print as missing, a table of dashes that looks like a result."""
    given = [r[value] for r in rows if r.get(value) is not None]
    text = [v for v in given if number(v) is None and isinstance(v, str)]
    if text:
        raise PivotError(
            f"column {value} holds text ({text[0]!r}), not numbers: choose a number column "
            "for --value",
            "not_number",
            columns=value,
        )


def _frame(rows: Rows, p: Pivot) -> pd.DataFrame:
    keys = [*p.rows, *p.cols]
    if not rows:
        raise PivotError("no rows left after the filters", "no_rows")
    wanted = [*keys, p.value] + (["ci_low", "ci_high"] if p.ci else [])
    missing = [c for c in wanted if all(c not in r for r in rows)]
    if missing:
        raise PivotError(
            f"no column {', '.join(missing)} in these rows", "no_column", columns=", ".join(missing)
        )
    _numbers_only(rows, p.value)
    frame = pd.DataFrame(
        {
            **{k: [label(r.get(k)) for r in rows] for k in keys},
            **{c: [number(r.get(c)) for r in rows] for c in wanted[len(keys) :]},
        }
    )
    if any(r.get("ci_method") for r in rows):
        frame[_METHOD] = [label(r.get("ci_method")) for r in rows]
    twice = frame[frame.duplicated(keys, keep=False)]
    if not twice.empty:
        first = twice.iloc[0]
        where = ", ".join(f"{k}={first[k]}" for k in keys)
        in_cell = [r for r in rows if all(label(r.get(k)) == first[k] for k in keys)]
        varying = [
            c for c in rows[0] if c not in keys and len({label(r.get(c)) for r in in_cell}) > 1
        ]
        raise PivotError(
            f"{len(in_cell)} rows share the cell {where}: add one of "
            f"{', '.join(varying[:6]) or 'the other columns'} to --rows/--cols or a --where filter",
            "twice",
        )
    return frame


def key_order(frame: pd.DataFrame, keys: Sequence[str]) -> list[tuple[str, ...]]:
    """The combinations of ``keys`` present, each key's labels in first-seen order,
    the first key outermost (so a paper's column groups stay together)."""
    rank = {k: {v: i for i, v in enumerate(dict.fromkeys(frame[k]))} for k in keys}
    present = set(map(tuple, frame[list(keys)].to_numpy().tolist()))
    return sorted(present, key=lambda t: tuple(rank[k][v] for k, v in zip(keys, t, strict=True)))


def _grid(frame: pd.DataFrame, p: Pivot, column: str) -> pd.DataFrame:
    index, cols = key_order(frame, p.rows), key_order(frame, p.cols)
    table = frame.pivot_table(
        index=list(p.rows), columns=list(p.cols), values=column, aggfunc="first", dropna=False
    )
    table.index = pd.MultiIndex.from_tuples([_tuple(i) for i in table.index])
    table.columns = pd.MultiIndex.from_tuples([_tuple(c) for c in table.columns])
    return table.reindex(index=pd.MultiIndex.from_tuples(index)).reindex(
        columns=pd.MultiIndex.from_tuples(cols)
    )


def _tuple(key: Any) -> tuple[str, ...]:
    return tuple(key) if isinstance(key, tuple) else (key,)


def _cells(grid: pd.DataFrame) -> list[list[float | None]]:
    return [[number(v) for v in line] for line in grid.to_numpy().tolist()]


def mark_best(values: list[list[float | None]], digits: int, best: str) -> list[list[bool]]:
    """Per column, the cells whose rounded value is the highest (``max``) or lowest; a
    column with fewer than two distinct rounded values has no best and marks nothing."""
    marks = [[False] * len(line) for line in values]
    if best == "none" or not values:
        return marks
    for j in range(len(values[0])):
        column = [(i, line[j]) for i, line in enumerate(values)]
        shown = [(i, round(v, digits)) for i, v in column if v is not None]
        if len({v for _, v in shown}) < 2:
            continue
        target = (max if best == "max" else min)(v for _, v in shown)
        for i, v in shown:
            marks[i][j] = v == target
    return marks


def cell_methods(
    frame: pd.DataFrame, p: Pivot, values: Cells, table: str
) -> list[list[str | None]]:
    """Each cell's interval method: its row's ``ci_method`` (the table's own,
    ``CI_METHOD_OF``, when the rows carry none); ``""`` for a cell without an interval
    method, None for an empty cell."""
    default = CI_METHOD_OF.get(table, "")
    if _METHOD in frame:
        grid = _grid(frame, p, _METHOD).to_numpy().tolist()
    else:
        grid = [[None] * len(line) for line in values]

    def method(m: Any, v: float | None) -> str | None:
        if v is None:
            return None
        return m if isinstance(m, str) and m != MISSING else default

    return [
        [method(m, v) for m, v in zip(ms, vs, strict=True)]
        for ms, vs in zip(grid, values, strict=True)
    ]


def _mark(k: int) -> str:
    return METHOD_MARKS[k % len(METHOD_MARKS)] * (k // len(METHOD_MARKS) + 1)


def _one_each(lines: Sequence[Sequence[str | None]]) -> list[str | None] | None:
    """Each line's one method ("" none) over its filled cells, or None when a line has two."""
    out: list[str | None] = []
    for line in lines:
        kinds = {m for m in line if m is not None}
        if len(kinds) > 1:
            return None
        out.append(next(iter(kinds), None))
    return out


def _where(methods: list[str | None], labels: list[tuple[str, ...]], m: str) -> str:
    return ", ".join(" / ".join(lab) for lab, x in zip(labels, methods, strict=True) if x == m)


def attribute_methods(
    methods: list[list[str | None]],
    row_labels: list[tuple[str, ...]],
    col_labels: list[tuple[str, ...]],
) -> tuple[str, list[list[str]]]:
    """(the intervals' methods as the footnote gives them, each cell's mark). One method
    for every filled cell: its name. Several (or cells without any): which rows use which
    when each row has one, else which columns when each column has one, else each cell
    marked (``METHOD_MARKS``) per method."""
    marks = [[""] * len(line) for line in methods]
    kinds = list(dict.fromkeys(m for line in methods for m in line if m is not None))
    found = [m for m in kinds if m]
    if len(kinds) < 2:
        return "; ".join(found), marks
    per_row = _one_each(methods)
    if per_row is not None:
        return "; ".join(f"{m} (rows {_where(per_row, row_labels, m)})" for m in found), marks
    per_col = _one_each([list(c) for c in zip(*methods, strict=True)])
    if per_col is not None:
        return "; ".join(f"{m} (columns {_where(per_col, col_labels, m)})" for m in found), marks
    symbol = {m: _mark(k) for k, m in enumerate(found)}
    marks = [[symbol[m] if m else "" for m in line] for line in methods]
    return "; ".join(f"{symbol[m]} {m}" for m in found), marks


def footnote(
    rows: Rows,
    table: str,
    settings: dict[str, Any],
    p: Pivot,
    *,
    bold: bool | None = None,
    intervals: str | None = None,
) -> str:
    """n per cell, the intervals' level and method (from the rows), how the best is marked.
    ``bold``: whether any cell is bold (``mark_best`` skips columns with fewer than two
    distinct values, so one row marks nothing): the footnote says only what the table shows.
    ``intervals``: the methods as said (``attribute_methods``), else the rows' own listed."""
    parts = []
    n_col = next((c for c in N_COLUMNS if any(c in r for r in rows)), None)
    counts = (
        sorted({int(x) for r in rows if (x := number(r.get(n_col))) is not None}) if n_col else []
    )
    if counts:
        span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        parts.append(f"n = {span} per cell ({n_col})")
    if intervals is None:
        methods = sorted({str(r["ci_method"]) for r in rows if r.get("ci_method")})
        methods = methods or ([CI_METHOD_OF[table]] if table in CI_METHOD_OF else [])
        intervals = "; ".join(methods)
    if p.ci and intervals:
        level = float(settings.get("confidence", 0.95))
        text = f"{level:.0%} intervals: {intervals}"
        if "bootstrap" in intervals:
            text += f" ({settings.get('n_boot')} resamples, seed {settings.get('seed')})"
        parts.append(text)
    elif intervals:
        parts.append(f"Intervals in the report: {intervals}")
    if p.best != "none" and bold is not False:
        parts.append(f"Bold: the {'highest' if p.best == 'max' else 'lowest'} per column")
    parts.append(f"Source: report table {table}")
    return ". ".join(parts) + "."


def _named(
    keys: tuple[str, ...], labels: list[tuple[str, ...]], namer: Namer | None
) -> list[tuple[str, ...]]:
    """Each label tuple with its keys' names (``namer``); a difference column kept."""
    if namer is None:
        return labels
    out = []
    for lab in labels:
        if len(lab) != len(keys):
            out.append(lab)
            continue
        others = dict(zip(keys, lab, strict=True))
        out.append(
            tuple(v if v == DELTA else namer(k, v, others) for k, v in zip(keys, lab, strict=True))
        )
    return out


def pivot(
    rows: Rows,
    p: Pivot,
    *,
    table: str = "",
    settings: dict[str, Any] | None = None,
    names: Namer | None = None,
) -> Wide:
    """``rows`` (a report table) widened as ``p`` says; raises :class:`PivotError`.
    ``names``: the keys' names in the row and column labels (filters and differences
    still use the raw values): e.g. ``Names(tasks, groups).value``."""
    if p.best not in BEST:
        raise PivotError(f"--best must be one of {', '.join(BEST)}")
    if not rows:  # not "no rows left after the filters": there were none to filter
        raise PivotError(
            "the table is empty in this report (nothing in the study to compute it from)", "empty"
        )
    rows = derive(rows, (*p.rows, *p.cols, *(c for c, _ in p.filters)))
    kept = select(rows, p.filters)
    frame = _frame(kept, p)
    grid = _grid(frame, p, p.value)
    values = _cells(grid)
    present = [v for line in values for v in line if v is not None]
    digits = p.digits if p.digits is not None else auto_digits(present)
    labels = [_tuple(c) for c in grid.columns]
    lows = _cells(_grid(frame, p, "ci_low")) if p.ci else []
    highs = _cells(_grid(frame, p, "ci_high")) if p.ci else []
    methods = cell_methods(frame, p, values, table)
    if p.delta is not None:
        labels, values, lows, highs, methods = add_delta(
            labels, p.cols, p.delta, values, lows, highs, methods
        )
    best = mark_best(values, digits, p.best)
    row_labels = _named(p.rows, [_tuple(i) for i in grid.index], names)
    col_labels = _named(p.cols, labels, names)
    intervals, marks = attribute_methods(methods, row_labels, col_labels)
    note = footnote(kept, table, settings or {}, p, bold=any(map(any, best)), intervals=intervals)
    if p.delta is not None:
        note = f"{p.delta.text()}. {note}"
    return Wide(
        row_keys=p.rows,
        col_keys=p.cols,
        row_labels=row_labels,
        col_labels=col_labels,
        values=values,
        lows=lows,
        highs=highs,
        digits=digits,
        best=best,
        footnote=note,
        marks=marks,
    )


Cells = list[list[float | None]]


def _delta_columns(
    labels: list[tuple[str, ...]], k: int, delta: Delta
) -> list[tuple[int, int, int, tuple[str, ...]]]:
    """Per combination of the other column keys having both sides: (where the Δ column
    goes, the column of ``a``, of ``b``, its label)."""
    where = {label: j for j, label in enumerate(labels)}
    out, seen = [], set()
    for label in labels:
        rest = label[:k] + label[k + 1 :]
        if rest in seen:
            continue
        seen.add(rest)
        a, b = ((*label[:k], side, *label[k + 1 :]) for side in (delta.a, delta.b))
        if a in where and b in where:
            last = max(j for j, x in enumerate(labels) if x[:k] + x[k + 1 :] == rest)
            spot = len(labels) if k == 0 else last + 1  # outermost key: Δ block at the end
            out.append((spot, where[a], where[b], (*label[:k], DELTA, *label[k + 1 :])))
    return out


def add_delta(
    labels: list[tuple[str, ...]],
    keys: tuple[str, ...],
    delta: Delta,
    values: Cells,
    lows: Cells,
    highs: Cells,
    methods: list[list[str | None]] | None = None,
) -> tuple[list[tuple[str, ...]], Cells, Cells, Cells, list[list[str | None]]]:
    """The columns with a ``Δ`` column (a − b) after each pair (no interval in it, so no
    interval method: ``methods``, per cell, gets None there)."""
    if delta.key not in keys:
        raise PivotError(f"the difference's key {delta.key} is not one of the columns")
    columns = _delta_columns(labels, keys.index(delta.key), delta)
    if not columns:
        raise PivotError(f"no column pair {delta.key} = {delta.a} and {delta.b} to subtract")
    before: dict[int, list[tuple[int, int, int, tuple[str, ...]]]] = {}
    for column in columns:
        before.setdefault(column[0], []).append(column)
    order: list[int | tuple[int, int]] = []
    new_labels: list[tuple[str, ...]] = []
    for j in range(len(labels) + 1):
        for _spot, a, b, label in before.get(j, []):
            order.append((a, b))
            new_labels.append(label)
        if j < len(labels):
            order.append(j)
            new_labels.append(labels[j])

    def diff(line: list[float | None], a: int, b: int) -> float | None:
        x, y = line[a], line[b]
        return None if x is None or y is None else x - y

    def widen(cells: list[list[Any]], compute: bool) -> list[list[Any]]:
        return [
            [
                line[j] if isinstance(j, int) else (diff(line, *j) if compute else None)
                for j in order
            ]
            for line in cells
        ]

    return (
        new_labels,
        widen(values, True),
        widen(lows, False),
        widen(highs, False),
        widen(methods or [], False),
    )


def rounded(x: float, digits: int) -> float:
    """``x`` rounded to ``digits``, a negative value that rounds to zero as 0 (a paper
    prints 0.00, never −0.00)."""
    return round(x, digits) + 0.0


def cell_text(w: Wide, i: int, j: int, minus: str = "-", marks: bool = True) -> str:
    """A cell as printed: the rounded value, ``value [lo, hi]`` with an interval, then
    its interval method's mark (``marks``); negative numbers with ``minus`` (``MINUS``
    in LaTeX and Markdown, ``-`` in CSV and XLSX)."""
    v = w.values[i][j]
    if v is None:
        return MISSING

    def num(x: float) -> str:
        text = f"{rounded(x, w.digits):.{w.digits}f}"
        return minus + text[1:] if text.startswith("-") else text

    text = num(v)
    low, high = (w.lows[i][j], w.highs[i][j]) if w.lows else (None, None)
    if low is not None and high is not None:
        text += f" [{num(low)}, {num(high)}]"
    if marks and w.marks:
        text += w.marks[i][j]
    return text


def tex_escape(text: str) -> str:
    """``text`` with TeX's special characters escaped (CJK passes through for xeCJK)."""
    return "".join(_TEX_SPECIALS.get(ch, ch) for ch in text)


def _header_groups(labels: list[tuple[str, ...]], level: int) -> list[tuple[str, int]]:
    """Runs of equal labels (up to ``level``) on one header level: (text, span)."""
    groups: list[tuple[str, int]] = []
    previous: tuple[str, ...] | None = None
    for key in labels:
        if previous is not None and key[: level + 1] == previous:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((key[level], 1))
        previous = key[: level + 1]
    return groups


def latex(w: Wide, caption: str = "", name: str = "") -> str:
    """A booktabs ``table`` (needs booktabs and xeCJK: the first line says so)."""
    n_rows = len(w.row_keys)
    lines = [TEX_PREAMBLE, r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{tex_escape(caption)}}}")
    if name:
        lines.append(rf"\label{{tab:{tex_escape(name)}}}")
    lines += [rf"\begin{{tabular}}{{{'l' * n_rows}{'r' * len(w.col_labels)}}}", r"\toprule"]
    for level in range(len(w.col_keys) - 1):
        cells, rules, start = [], [], n_rows + 1
        for text, span in _header_groups(w.col_labels, level):
            cells.append(rf"\multicolumn{{{span}}}{{c}}{{{tex_escape(text)}}}")
            rules.append(rf"\cmidrule(lr){{{start}-{start + span - 1}}}")
            start += span
        lines.append(" & ".join([""] * n_rows + cells) + r" \\")
        lines.append(" ".join(rules))
    last = [tex_escape(k) for k in w.row_keys] + [tex_escape(c[-1]) for c in w.col_labels]
    lines += [" & ".join(last) + r" \\", r"\midrule"]
    for i, key in enumerate(w.row_labels):
        cells = [tex_escape(k) for k in key]
        for j in range(len(w.col_labels)):
            text = tex_escape(cell_text(w, i, j, MINUS))
            cells.append(rf"\textbf{{{text}}}" if w.best[i][j] else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if w.footnote:
        lines += [r"\par\smallskip", rf"{{\footnotesize {tex_escape(w.footnote)}}}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", r"\|")


def markdown(w: Wide, caption: str = "") -> str:
    """A pipe table (column keys joined with `` / ``), the best in bold, the footnote below."""
    head = [*w.row_keys, *(" / ".join(c) for c in w.col_labels)]
    lines = [f"**{_md(caption)}**", ""] if caption else []
    lines.append("| " + " | ".join(_md(h) for h in head) + " |")
    lines.append("|" + "---|" * len(w.row_keys) + "---:|" * len(w.col_labels))
    for i, key in enumerate(w.row_labels):
        cells = [_md(k) for k in key]
        for j in range(len(w.col_labels)):
            text = _md(cell_text(w, i, j, MINUS))
            cells.append(f"**{text}**" if w.best[i][j] else text)
        lines.append("| " + " | ".join(cells) + " |")
    if w.footnote:
        lines += ["", f"*{_md(w.footnote)}*"]
    return "\n".join(lines) + "\n"


def csv_text(w: Wide) -> str:
    """The wide table as CSV: the rounded cells (no marks, no footnote)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*w.row_keys, *(" / ".join(c) for c in w.col_labels)])
    for i, key in enumerate(w.row_labels):
        writer.writerow(
            [*key, *(cell_text(w, i, j, marks=False) for j in range(len(w.col_labels)))]
        )
    return out.getvalue()


def render(w: Wide, fmt: str, caption: str = "", name: str = "") -> str:
    """``w`` as ``latex``, ``markdown`` or ``csv``."""
    if fmt == "latex":
        return latex(w, caption, name)
    if fmt == "markdown":
        return markdown(w, caption)
    if fmt == "csv":
        return csv_text(w)
    raise PivotError(f"unknown format {fmt!r}; use one of {', '.join(TEXT_FORMATS)}")


def xlsx_bytes(w: Wide, caption: str = "") -> bytes:
    """The wide table as one sheet: the caption, the header (column keys joined with
    `` / ``), the rows (numbers rounded to the table's digits, shown with them; with an
    interval the cell is its text, ``value [lo, hi]``), the best in bold, the footnote;
    an interval method's mark (``Wide.marks``) is in the number's format, so the cell stays
    a plain number. Text is always a string cell, never a formula."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    book = Workbook(write_only=True)
    sheet = book.create_sheet("table")

    def cell(value: Any, bold: bool = False, mark: str = "") -> Any:
        c = WriteOnlyCell(sheet, value=xlsx_text(value) if isinstance(value, str) else value)
        if isinstance(value, str):
            c.data_type = "s"
        elif value is not None:  # a number, its method's mark shown beside it (a format)
            c.number_format = ("0." + "0" * w.digits if w.digits else "0") + (
                f'"{mark}"' if mark else ""
            )
        if bold:
            c.font = Font(bold=True)
        return c

    if caption:
        sheet.append([cell(caption, bold=True)])
    sheet.append([cell(h) for h in (*w.row_keys, *(" / ".join(c) for c in w.col_labels))])
    for i, key in enumerate(w.row_labels):
        line = [cell(k) for k in key]
        for j in range(len(w.col_labels)):
            v = w.values[i][j]
            shown: Any = (
                cell_text(w, i, j)
                if w.lows
                else (rounded(v, w.digits) if v is not None else MISSING)
            )
            mark = w.marks[i][j] if w.marks else ""
            line.append(cell(shown, bold=w.best[i][j], mark=mark))
        sheet.append(line)
    if w.footnote:
        sheet.append([])
        sheet.append([cell(w.footnote)])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


#: Each format's file extension and media type (the API's and the dashboard's downloads).
EXTENSIONS = {"latex": "tex", "markdown": "md", "csv": "csv", "xlsx": "xlsx"}
MEDIA_TYPES = {
    "latex": "application/x-tex; charset=utf-8",
    "markdown": "text/markdown; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def split_for(by: Sequence[str], layout: PaperLayout) -> tuple[str, ...]:
    """The report's ``by`` for ``layout``: the keys asked for, then the layout's own split."""
    return (*by, *(k for k in layout.by if k not in by))


def unavailable(rows: Rows, layout: PaperLayout, by: Sequence[str]) -> PivotError | None:
    """Why ``layout`` cannot be made from ``rows`` (its report table, split by ``by``),
    or None when it can — the one place every interface decides it (the dashboard's
    links, the downloads). A layout with a split of its own (``layout.by``) not in ``by``
    is computed when downloaded: its filters are tried on these rows (each filter on a
    column the rows have; the split adds its own), so a layout whose rows the study
    lacks (no CCV rule, for ``cciv-heatmap``) is marked unavailable, not offered."""
    if any(k not in by for k in layout.by):
        present = {c for r in rows for c in r}
        filters = tuple((c, pat) for c, pat in layout.filters if c in present)
        if not select(rows, filters):
            return PivotError("no rows left after the filters", "no_rows")
        return None
    try:
        pivot(rows, layout.pivot(), table=layout.table)
    except PivotError as exc:
        return exc
    return None


def paper_bytes(
    rows: Rows,
    layout: PaperLayout,
    fmt: str,
    settings: dict[str, Any],
    names: Namer | None = None,
) -> bytes:
    """``rows`` (the layout's report table) in paper layout, as ``fmt`` (text as UTF-8);
    raises :class:`PivotError` when they make no such table (e.g. no row passes the
    filters). ``names``: the keys' names (``pivot``)."""
    wide = pivot(rows, layout.pivot(), table=layout.table, settings=settings, names=names)
    if fmt == "xlsx":
        return xlsx_bytes(wide, layout.caption)
    return render(wide, fmt, layout.caption, layout.name).encode("utf-8")


def listing() -> str:
    """The named layouts, one a line (``--paper list``)."""
    return "\n".join(
        f"{x.name}\t{x.table}\trows {','.join(x.rows)}\tcols {','.join(x.cols)}\t{x.caption}"
        for x in LAYOUTS
    )
