"""The values an item is made of, read one way for files and for answers given in the app:
option indices (a number, a digit string or a letter), option lists and texts.

The answer rule (``studies.kinds``) and the file loaders (``studies.loading``) both read
with these. Messages a volunteer may see are translatable, with named parameters, and
translated when shown (:func:`with_params`), so a page or an API reply speaks the
request's language while a file's problem list stays in English (:func:`in_english`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, cast

from django.utils import translation
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _

MAX_OPTIONS = 10
LETTERS = "ABCDEFGHIJ"

# A message: plain text, or translatable text rendered in the language active when shown.
Text = str | Promise


class Problems(Protocol):
    """Where a check reports a problem: a file line's ``Reporter`` (studies.loading), or
    the answer rule's ``Parsed`` (studies.kinds)."""

    def error(self, field_name: str | None, message: Text, /) -> None: ...


class Report(Problems, Protocol):
    """A file line's reporter, which can name sub-fields (``parts[0].answer``)."""

    def child(self, prefix: str) -> Report: ...


class _Missing:
    """A parameter that is None (a cell or key left out), named for people in the
    language active when the message is shown, never as Python's ``None``."""

    def __str__(self) -> str:
        return str(_("(missing)"))

    __repr__ = __str__


_MISSING = _Missing()


def _fill(message: Text, params: Mapping[str, Any]) -> str:
    return str(message) % {k: _MISSING if v is None else v for k, v in params.items()}


_fill_lazy = lazy(_fill, str)


def with_params(message: Text, **params: Any) -> Promise:
    """``message`` (``gettext_lazy`` text with ``%(name)s`` placeholders) filled with
    ``params`` when it is shown, in the language active then."""
    return cast(Promise, _fill_lazy(message, params))


def in_english(message: Text) -> str:
    """A message as written in the code, whatever language is active."""
    if isinstance(message, str):
        return message
    with translation.override(None):
        return str(message)


def is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and value.is_integer()


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


EXCERPT = 40


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """``repr(value)`` cut to ``limit`` characters: a refused value is named in its
    message, never echoed whole (2 MB sent in must not come back as 2 MB)."""
    if isinstance(value, str) and len(value) > limit:
        value = value[: limit * 2]  # no repr of a huge text just to cut it
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def parse_index(value: Any, n_options: int, report: Problems, field: str) -> int | None:
    """A 0-based option index given as an integer, a digit string or a letter ("A" = 0),
    within the options: the one rule for files and for answers given in the app."""
    if is_blank(value):
        report.error(field, _("is missing: choose an option"))
        return None
    index = read_index(value)
    if index is None:
        last = LETTERS[min(max(n_options, 1), len(LETTERS)) - 1]
        message = _("%(value)s is not an option index (0-based number or letter A-%(last)s)")
        report.error(field, with_params(message, value=excerpt(value), last=last))
        return None
    if not 0 <= index < n_options:
        message = _("option %(value)s is out of range: there are %(count)s options")
        report.error(field, with_params(message, value=excerpt(value), count=n_options))
        return None
    return index


def parse_options(
    value: Any, report: Problems, field: str, *, minimum: int = 2
) -> list[dict[str, str]] | None:
    if not isinstance(value, list):
        report.error(field, _("must be a list of options"))
        return None
    if not minimum <= len(value) <= MAX_OPTIONS:
        report.error(
            field,
            with_params(
                _("has %(count)s options; %(minimum)s to %(MAX_OPTIONS)s are allowed"),
                count=len(value),
                minimum=minimum,
                MAX_OPTIONS=MAX_OPTIONS,
            ),
        )
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
                report.error(f"{field}[{i}].explanation", _("must be text"))
        else:
            report.error(f"{field}[{i}]", _("must be text or an object with a 'text' key"))
            continue
        if not text.strip():
            report.error(f"{field}[{i}]", _("is empty"))
        entry = {"text": text}
        if explanation:
            entry["explanation"] = str(explanation)
        options.append(entry)
    return options


def parse_text(
    value: Any, report: Problems, field: str, *, required: bool, max_length: int | None = None
) -> str:
    if value is None or value == "":
        if required:
            report.error(field, _("is required"))
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        report.error(field, _("must be text"))
        return ""
    if max_length is not None and len(value) > max_length:
        report.error(
            field, with_params(_("is longer than %(max_length)s characters"), max_length=max_length)
        )
        return value[:max_length]
    return value
