"""Parsing of the values shared by every file format (option indices, options, poems)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any, Protocol

from studies.loading.problems import Reporter

POEM_FORM = re.compile(r"^(ci:.+|shi:(jueju5|jueju7|lushi5|lushi7)|couplet)$")
POEM_KEYS = ("title", "author", "form", "text", "source", "condition")
# Longest text each poem field's column holds (studies.models.Item); text is unlimited.
POEM_LENGTHS = {"title": 300, "author": 200, "form": 60, "source": 200, "condition": 100}
MAX_OPTIONS = 10
LETTERS = "ABCDEFGHIJ"
MAX_COUNT = 2**31 - 1  # the largest value an integer column holds on every database


def canonical_hash(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


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


def is_digits(text: str) -> bool:
    """A short run of ASCII digits, safe for ``int()``: ``"²".isdigit()`` is true but
    ``int("²")`` fails, and ``int()`` refuses more than 4300 digits."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def read_index(value: Any) -> int | None:
    """A 0-based option index in every spelling accepted anywhere: an integer (or an
    integral float), a string of digits, or a letter ("A" = 0); None for anything else.
    The one reading for files, the answer rule and the shuffle's position mapping."""
    if is_int(value):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if is_digits(text):
            return int(text)
        if len(text) == 1 and text.upper() in LETTERS:
            return LETTERS.index(text.upper())
    return None


class Problems(Protocol):
    """Where a parse reports a problem: a file line's Reporter, or the answer rule's Parsed."""

    def error(self, field_name: str, message: str, /) -> None: ...


def parse_index(value: Any, n_options: int, report: Problems, field: str) -> int | None:
    """A 0-based option index given as an integer, a digit string or a letter ("A" = 0),
    within the options: the one rule for files and for answers given in the app."""
    index = read_index(value)
    if index is None:
        report.error(field, f"{value!r} is not an option index (0-based number or letter A-J)")
        return None
    if not 0 <= index < n_options:
        report.error(field, f"option {value!r} is out of range: there are {n_options} options")
        return None
    return index


def parse_options(
    value: Any, report: Reporter, field: str, *, minimum: int = 2
) -> list[dict[str, str]] | None:
    if not isinstance(value, list):
        report.error(field, "must be a list of options")
        return None
    if not minimum <= len(value) <= MAX_OPTIONS:
        report.error(field, f"has {len(value)} options; {minimum} to {MAX_OPTIONS} are allowed")
        return None
    options: list[dict[str, str]] = []
    for i, option in enumerate(value):
        if isinstance(option, str | int | float) and not isinstance(option, bool):
            text = str(option)
            explanation = ""
        elif isinstance(option, dict) and isinstance(option.get("text"), str):
            text = option["text"]
            explanation = option.get("explanation") or ""
            if not isinstance(explanation, str):
                report.error(f"{field}[{i}].explanation", "must be text")
        else:
            report.error(f"{field}[{i}]", "must be text or an object with a 'text' key")
            continue
        if not text.strip():
            report.error(f"{field}[{i}]", "is empty")
        entry = {"text": text}
        if explanation:
            entry["explanation"] = str(explanation)
        options.append(entry)
    return options


def parse_poem(value: Any, report: Reporter) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        report.error("poem", "must be an object with at least a 'text' key")
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
                report.error(f"poem.{key}", f"is longer than {limit} characters")
        else:
            report.error(f"poem.{key}", "must be text")
    if not poem.get("text", "").strip():
        report.error("poem.text", "is required and must not be empty")
    form = poem.get("form", "")
    if form and not POEM_FORM.match(form):
        report.error(
            "poem.form",
            f"{form!r} is not a form: use ci:<cipai>, shi:jueju5, shi:jueju7, shi:lushi5, "
            "shi:lushi7 or couplet",
        )
    return poem


def parse_text(
    value: Any, report: Reporter, field: str, *, required: bool, max_length: int | None = None
) -> str:
    if value is None or value == "":
        if required:
            report.error(field, "is required")
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        report.error(field, "must be text")
        return ""
    if max_length is not None and len(value) > max_length:
        report.error(field, f"is longer than {max_length} characters")
        return value[:max_length]
    return value


def parse_id(value: Any, report: Reporter, field: str = "id") -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        report.error(field, "is required (a non-empty text id)")
        return None
    if len(value) > 200:
        report.error(field, "is longer than 200 characters")
        return None
    return value.strip()
