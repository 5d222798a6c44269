"""The model-ready long table (docs/report.md §"Analysis bundle"): one row per judgment.

One row per response of a human or a model (the raw export's rows, ``annotation.exports``),
with the item's provenance, the rater's type, whether the report leaves the row out (and
why), and the item's rule metrics joined as columns: one column per rule rater × metric
(``rule_<rule>__<metric>``, non-word characters as ``_``), read from the rule raters'
stored responses to the same item (the latest stored when a rule was run more than once).
Ready for ``lme4::glmer(correct ~ … + (1 | rater) + (1 | item))`` or statsmodels.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from typing import IO, Any

from annotation.exports import BOM, export_rows
from annotation.exports import COLUMNS as EXPORT_COLUMNS
from annotation.models import Rater, Response
from annotation.selectors import flagged_rater_ids
from annotation.spreadsheet import csv_row
from scoring.report.data import rater_exclusions
from scoring.report.sets import model_label
from studies.kinds import KINDS
from studies.models import Item, Study, Task

#: The columns before the rule metrics.
BASE_COLUMNS = (
    "study",
    "task",
    "item",
    "field",
    "value",
    "correct",
    "time_ms",
    "sample",
    "answered_at",
    "rater_kind",
    "rater",
    "run",
    "rater_id",
    "group",
    "model",
    "item_source",
    "item_condition",
    "item_form",
    "item_sample",
    "item_category",
    "item_attention_check",
    "rater_flagged",
    "excluded",
    "rating",
)
_NON_WORD = re.compile(r"\W+")
_AT = {name: i for i, name in enumerate(EXPORT_COLUMNS)}


def rule_column(rule: str, metric: str) -> str:
    """The column of a rule rater's metric, a valid name in R and pandas formulas."""
    return f"rule_{_NON_WORD.sub('_', rule).strip('_')}__{_NON_WORD.sub('_', metric)}"


def rule_metrics(study: Study) -> tuple[list[str], dict[tuple[str, str], dict[str, float | int]]]:
    """(rule columns in order, (task slug, item id) -> column -> value) of ``study``."""
    query = (
        Response.objects.filter(study=study, rater__kind=Rater.Kind.RULE)
        .order_by("pk")
        .values_list("task__slug", "item__external_id", "rater__name", "field", "value")
    )
    columns: set[str] = set()
    values: dict[tuple[str, str], dict[str, float | int]] = {}
    for task, item, rule, metric, value in query.iterator(chunk_size=5000):
        col = rule_column(rule, metric)
        columns.add(col)
        if value is not None:
            # the latest stored wins; whole numbers as the export writes them (1, not 1.0)
            values.setdefault((task, item), {})[col] = int(value) if value.is_integer() else value
    return sorted(columns), values


def long_rows(study: Study) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
    """The long table's columns and its rows (streamed from the raw export)."""
    rule_cols, metrics = rule_metrics(study)
    flagged = set(
        Rater.objects.filter(pk__in=flagged_rater_ids(study)).values_list("kind", "name", "run")
    )
    # who the report leaves out whole, and why (scoring.report.data.rater_exclusions)
    basis = rater_exclusions(study).basis()
    left_out = {
        (kind, name, run): basis[pk]
        for pk, kind, name, run in Rater.objects.filter(pk__in=list(basis)).values_list(
            "pk", "kind", "name", "run"
        )
    }
    rated = {
        slug
        for slug, kind in Task.objects.filter(study=study).values_list("slug", "kind")
        if KINDS[kind].scale
    }
    checks = set(
        Item.objects.filter(study=study, is_attention_check=True).values_list(
            "task__slug", "external_id"
        )
    )

    def rows() -> Iterator[tuple[Any, ...]]:
        for row in export_rows(study):
            kind = row[_AT["rater_kind"]]
            if kind == Rater.Kind.RULE:
                continue  # a rule's scores are the rule columns of the items it scored
            task, item, name, run = (row[_AT[k]] for k in ("task", "item", "rater", "run"))
            is_flagged = (kind, name, run) in flagged
            is_check = (task, item) in checks
            sample = row[_AT["sample"]]
            whole = left_out.get((kind, name, run))
            if whole is not None:
                excluded = whole
            elif is_check:
                excluded = "attention_check"
            elif sample:
                excluded = "sample"
            else:
                excluded = ""
            here = metrics.get((task, item), {})
            yield (
                *(row[_AT[k]] for k in BASE_COLUMNS[:12]),
                f"{kind}:{name}@{run}" if run else f"{kind}:{name}",
                row[_AT["group"]],
                model_label(name, run) if kind == Rater.Kind.MODEL else "",
                *(row[_AT[k]] for k in BASE_COLUMNS[15:20]),
                is_check,
                is_flagged,
                excluded,
                task in rated,
                *(here.get(c) for c in rule_cols),
            )

    return [*BASE_COLUMNS, *rule_cols], rows()


def write_long_csv(study: Study, out: IO[str], *, bom: bool = True) -> int:
    """Write the long table as CSV (with a UTF-8 BOM unless ``bom`` is off); rows written."""
    columns, rows = long_rows(study)
    if bom:
        out.write(BOM)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    n = 0
    for row in rows:
        writer.writerow(csv_row(row))
        n += 1
    return n
