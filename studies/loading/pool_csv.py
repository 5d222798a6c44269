"""Question pools as CSV (formats.md §2): a row mapped onto the JSONL shape.

Columns ``id, task, stem, option_a … option_j, answer, text, title, author, form, source,
condition, meta, parts, explanation, attention_check``; ``meta``, ``parts`` and an
``answer`` starting with ``{`` are JSON (NaN and Infinity refused, as in JSONL).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.loading.fields import POEM_KEYS
from studies.loading.plain import loads
from studies.loading.problems import Reporter
from studies.values import LETTERS, with_params

CSV_POEM = POEM_KEYS


def csv_to_item(data: dict[str, str], report: Reporter) -> dict[str, Any]:
    """Map a CSV row onto the JSONL shape (columns as in formats.md §2)."""
    item: dict[str, Any] = {"id": data.get("id", ""), "task": data.get("task", "")}
    if data.get("stem"):
        item["stem"] = data["stem"]
    if options := _options(data, report):
        item["options"] = options
    if data.get("text", "").strip():
        item["poem"] = {k: data.get(k, "") for k in CSV_POEM}
    _json_cells(data, item, report)
    if data.get("explanation", "").strip():
        item.setdefault("meta", {})
        if isinstance(item["meta"], dict):
            item["meta"]["explanation"] = data["explanation"]
    if data.get("attention_check", "").strip().lower() in {"1", "true", "yes"}:
        item["attention_check"] = True
    return item


def _options(data: dict[str, str], report: Reporter) -> list[str]:
    """The option columns (option_a, option_b, …) up to the first empty one; a filled
    column after an empty one is a problem (it would shift the letters)."""
    options = []
    blank = ""  # the first empty option column
    for letter in LETTERS.lower():
        cell = data.get(f"option_{letter}", "")
        if not cell.strip():
            blank = blank or f"option_{letter}"
        elif blank:
            report.error(
                blank,
                with_params(
                    _("is empty but option_%(letter)s is not: leave no gaps between options"),
                    letter=letter,
                ),
            )
            break
        else:
            options.append(cell)
    return options


def _json_cells(data: dict[str, str], item: dict[str, Any], report: Reporter) -> None:
    """The cells that may hold JSON: ``answer`` (JSON when it starts with ``{``, else the
    cell's text), ``meta`` and ``parts`` (always JSON), into ``item``."""
    cell = data.get("answer", "").strip()
    if cell.startswith("{"):
        try:
            item["answer"] = loads(cell)
        except ValueError:
            report.error("answer", _("looks like JSON but cannot be read"))
    elif cell:
        item["answer"] = cell
    for key in ("meta", "parts"):
        cell = data.get(key, "").strip()
        if cell:
            try:
                item[key] = loads(cell)
            except ValueError as exc:
                report.error(
                    key,
                    with_params(_("must be JSON: %(reason)s"), reason=getattr(exc, "msg", exc)),
                )
