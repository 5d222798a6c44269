"""Parsed data that can be stored as it is: plain JSON values, valid Unicode text.

A file can be well-formed and still hold values no database column takes: a NUL
character (PostgreSQL text refuses it), an unpaired surrogate such as ``"\\ud800"``
(not encodable as UTF-8), NaN or an infinity (not JSON, and NULL in SQLite), nesting
deep enough to exhaust the stack, or, from YAML, dates, binary and sets. ``loads``
parses JSON refusing NaN and infinities; ``impurities`` lists what else is wrong, each
with the path of the field where it sits.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.values import Text, in_english, with_params

MAX_DEPTH = 64
MAX_VALUES = 1_000_000  # YAML aliases can expand a small file into a huge tree
NESTED_TOO_DEEPLY = _("nested too deeply to read")


class NotPlainJSON(ValueError):
    """A parsed value no column takes; ``message`` is said in the reader's language."""

    def __init__(self, message: Text) -> None:
        self.message = message
        super().__init__(in_english(message))


class DuplicateKey(NotPlainJSON):
    """One object names a key twice: JSON leaves which value wins to the parser (Python
    keeps the last), so a study file with two ``slug`` keys would quietly be another study."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(duplicate_key_message(key))


def duplicate_key_message(key: object) -> Text:
    return with_params(_("the key %(key)r appears twice in one object: keep one"), key=key)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object, or :class:`DuplicateKey` for its first repeat."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return data


def _constant(name: str) -> Any:
    raise NotPlainJSON(with_params(_("%(value)s is not a number JSON allows"), value=name))


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotPlainJSON(with_params(_("%(value)s is too large a number"), value=text))
    return value


def loads(text: str) -> Any:
    """``json.loads``, but NaN, Infinity, numbers beyond float range and a key repeated in
    one object (:class:`DuplicateKey`) are errors.

    Raises ``json.JSONDecodeError`` or ``NotPlainJSON`` (both ``ValueError``), also for
    nesting too deep to parse.
    """
    try:
        return json.loads(
            text, parse_constant=_constant, parse_float=_float, object_pairs_hook=unique_keys
        )
    except RecursionError as exc:
        raise NotPlainJSON(NESTED_TOO_DEEPLY) from exc


def text_problem(text: str) -> Text | None:
    if "\x00" in text:
        return _("contains a NUL character (\\u0000)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return with_params(
            _("contains %(character)r, an unpaired surrogate: not valid Unicode text"),
            character=text[exc.start],
        )
    return None


def impurities(data: Any) -> Iterator[tuple[str, Text]]:
    """``(field path, message)`` for every value that cannot be stored as it is."""
    return _walk(data, "", 0, [MAX_VALUES])


def _walk(data: Any, path: str, depth: int, budget: list[int]) -> Iterator[tuple[str, Text]]:
    budget[0] -= 1
    if budget[0] < 0:
        if budget[0] == -1:
            yield path, with_params(_("holds more than %(n)d values"), n=MAX_VALUES)
        return
    if depth > MAX_DEPTH:  # named by its top-level field: the full path is unreadable
        top = re.split(r"[.\[]", path, maxsplit=1)[0]
        yield (
            top,
            with_params(_("nested more than %(n)d levels deep (or contains itself)"), n=MAX_DEPTH),
        )
        return
    if isinstance(data, str):
        problem = text_problem(data)
        if problem:
            yield path, problem
    elif isinstance(data, bool) or data is None or isinstance(data, int):
        return
    elif isinstance(data, float):
        if not math.isfinite(data):
            yield path, with_params(_("%(value)s is not a number JSON allows"), value=data)
    elif isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                yield path, with_params(_("key %(key)r is not text"), key=key)
                continue
            problem = text_problem(key)
            if problem:
                yield path, with_params(_("a key %(problem)s"), problem=problem)
                continue
            yield from _walk(value, f"{path}.{key}" if path else key, depth + 1, budget)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _walk(value, f"{path}[{index}]", depth + 1, budget)
    else:
        yield (
            path,
            with_params(
                _("a %(type)s is not a plain value (text, number, list, object)"),
                type=type(data).__name__,
            ),
        )
