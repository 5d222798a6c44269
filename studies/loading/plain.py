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

MAX_DEPTH = 64
MAX_VALUES = 1_000_000  # YAML aliases can expand a small file into a huge tree


class NotPlainJSON(ValueError):
    pass


class DuplicateKey(NotPlainJSON):
    """One object names a key twice: JSON leaves which value wins to the parser (Python
    keeps the last), so a study file with two ``slug`` keys would quietly be another study."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(duplicate_key_message(key))


def duplicate_key_message(key: object) -> str:
    return f"the key {key!r} appears twice in one object: keep one"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
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
    raise NotPlainJSON(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotPlainJSON(f"{text} is too large a number")
    return value


def loads(text: str) -> Any:
    """``json.loads``, but NaN, Infinity, numbers beyond float range and a key repeated in
    one object (:class:`DuplicateKey`) are errors.

    Raises ``json.JSONDecodeError`` or ``NotPlainJSON`` (both ``ValueError``), also for
    nesting too deep to parse.
    """
    try:
        return json.loads(
            text, parse_constant=_constant, parse_float=_float, object_pairs_hook=_unique_keys
        )
    except RecursionError as exc:
        raise NotPlainJSON("nested too deeply") from exc


def text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"contains {text[exc.start]!r}, an unpaired surrogate: not valid Unicode text"
    return None


def impurities(data: Any) -> Iterator[tuple[str, str]]:
    """``(field path, message)`` for every value that cannot be stored as it is."""
    return _walk(data, "", 0, [MAX_VALUES])


def _walk(data: Any, path: str, depth: int, budget: list[int]) -> Iterator[tuple[str, str]]:
    budget[0] -= 1
    if budget[0] < 0:
        if budget[0] == -1:
            yield path, f"holds more than {MAX_VALUES} values"
        return
    if depth > MAX_DEPTH:  # named by its top-level field: the full path is unreadable
        top = re.split(r"[.\[]", path, maxsplit=1)[0]
        yield top, f"nested more than {MAX_DEPTH} levels deep (or contains itself)"
        return
    if isinstance(data, str):
        problem = text_problem(data)
        if problem:
            yield path, problem
    elif isinstance(data, bool) or data is None or isinstance(data, int):
        return
    elif isinstance(data, float):
        if not math.isfinite(data):
            yield path, f"{data} is not a number JSON allows"
    elif isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                yield path, f"key {key!r} is not text"
                continue
            problem = text_problem(key)
            if problem:
                yield path, f"a key {problem}"
                continue
            yield from _walk(value, f"{path}.{key}" if path else key, depth + 1, budget)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _walk(value, f"{path}[{index}]", depth + 1, budget)
    else:
        yield path, f"a {type(data).__name__} is not a plain value (text, number, list, object)"
