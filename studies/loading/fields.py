"""Parsing of the fields shared by every file format: poems, ids, counts, content hashes.
(Option indices, option lists and texts are read by ``studies.values``, shared with the
answer rule.)"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.loading.problems import Reporter
from studies.values import Text, is_digits, is_int, with_params

POEM_FORM = re.compile(r"^(ci:.+|shi:(jueju5|jueju7|lushi5|lushi7|pailu5|pailu7|guti)|couplet)$")
POEM_KEYS = ("title", "author", "form", "text", "source", "condition")
# Longest text each poem field's column holds (studies.models.Item); text is unlimited.
POEM_LENGTHS = {"title": 300, "author": 200, "form": 60, "source": 200, "condition": 100}
MAX_COUNT = 2**31 - 1  # the largest value an integer column holds on every database


def canonical_hash(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def is_number(value: Any) -> bool:
    """An int or float that is a finite float (what a FloatField stores)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def is_count(value: Any) -> bool:
    """A whole number ≥ 0 that fits an integer column."""
    return is_int(value) and 0 <= value <= MAX_COUNT


def count_problem(value: Any, low: int = 0) -> Text | None:
    """What is wrong with ``value`` as a whole number from ``low`` to ``MAX_COUNT``, said
    as it is (a positive number is never told it "must be ≥ 0"); None when it is one."""
    if isinstance(value, int) and not isinstance(value, bool):
        shown = str(value)
    else:
        shown = f"{value:g}" if isinstance(value, float) else repr(value)
    if isinstance(value, str):
        if is_digits(value.strip()):
            return with_params(_("%(value)s is text: write the number without quotes"), value=shown)
        return with_params(_("%(value)s is not a whole number"), value=shown)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return with_params(_("%(value)s is not a whole number"), value=shown)
    if isinstance(value, float) and not math.isfinite(value):
        return with_params(_("%(value)s is not a whole number"), value=shown)
    if value < low:
        return with_params(
            _("%(value)s is too small: the smallest allowed is %(low)s"), value=shown, low=low
        )
    if value > MAX_COUNT:
        return with_params(
            _("%(value)s is too large: the largest allowed is %(high)s"),
            value=shown,
            high=MAX_COUNT,
        )
    if not is_int(value):
        return with_params(_("%(value)s is not a whole number"), value=shown)
    return None


def parse_poem(value: Any, report: Reporter) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        report.error("poem", _("must be an object with at least a 'text' key"))
        return None
    poem: dict[str, str] = {}
    for key in POEM_KEYS:
        raw = value.get(key)
        if raw is None:
            poem[key] = ""
        elif isinstance(raw, str):
            poem[key] = raw.strip() if key != "text" else raw.strip("\n")
            limit = POEM_LENGTHS.get(key)
            if limit is not None and len(poem[key]) > limit:
                report.error(
                    f"poem.{key}",
                    with_params(_("is longer than %(limit)s characters"), limit=limit),
                )
        else:
            report.error(f"poem.{key}", _("must be text"))
    if not poem.get("text", "").strip():
        report.error("poem.text", _("is required and must not be empty"))
    form = poem.get("form", "")
    if form and not POEM_FORM.match(form):
        report.error(
            "poem.form",
            with_params(
                _(
                    "%(form)r is not a form: use ci:<cipai>, shi:jueju5, shi:jueju7, shi:lushi5, shi:lushi7, shi:pailu5, shi:pailu7, shi:guti or couplet"
                ),
                form=form,
            ),
        )
    return poem


def parse_id(value: Any, report: Reporter, field: str = "id") -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        report.error(field, _("is required (a non-empty text id)"))
        return None
    if len(value) > 200:
        report.error(field, _("is longer than 200 characters"))
        return None
    return value.strip()
