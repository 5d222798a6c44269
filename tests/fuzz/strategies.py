"""Hypothesis strategies for hostile files: plausible records with hostile values.

Records are built from each format's own keys, each filled either with a plausible value
(so that validation gets deep, past the first check) or with any JSON value at all, and
the values include the classics: NUL, lone surrogates, huge numbers, NaN and infinities,
over-long text, non-ASCII digits, markup, and keys of the wrong type.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from studies.loading.problems import LoadError
from tests.loading.helpers import snapshot

# Bounded for `make test`; FUZZ_EXAMPLES=2000 for a long hunt.
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

NASTY_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",
        "\udfff",
        "x" * 301,
        "长" * 1000,
        "<script>alert(1)</script>",
        "²",
        "٣",
        "１",
        "-0",
        "1e400",
        "NaN",
        "Infinity",
        "-1",
        "0",
        "1",
        "3",
        "A",
        "Z",
        "true",
        "null",
        "\u2028",
        "😀" * 70,
        "2026-13-45T10:00:00Z",
        "2026-11-20T10:15:00Z",
        "2026-11-20T10:15:00",
        "99999-01-01T00:00:00Z",
        "{",
        "{}",
        "[]",
        '{"a": 1}',
        "ci:如梦令",
        "shi:jueju5",
        "couplet",
        "ci:",
        "ck",
        "au",
        "oq",
        "quality",
        "ck-001",
        "au-017",
        "oq-005",
        "poem-0001",
        "prosody",
        "aesthetic",
        "person",
        "B",
    ]
)
NUMBERS = st.one_of(
    st.integers(min_value=-3, max_value=12),
    st.integers(),
    st.sampled_from([2**31, 2**63, 10**30, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=12), NASTY_TEXT)
ANY_JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | NASTY_TEXT, inner, max_size=4)
    ),
    max_leaves=10,
)


def either(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a plausible value, sometimes anything at all."""
    return st.one_of(plausible, plausible, ANY_JSON)


# Text longer than the columns it may land in (slugs 50, fields 64, runs 100, names 200, ...).
LONG_TEXT = st.integers(min_value=40, max_value=600).map(lambda n: "长" * n)
HOSTILE = st.one_of(NASTY_TEXT, LONG_TEXT, NUMBERS, ANY_JSON)
Where = tuple[str | int, ...]


def paths(data: Any, prefix: Where = ()) -> list[Where]:
    """Every place in ``data`` a value sits (object keys and list positions)."""
    found: list[Where] = []
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else []
    )
    for key, value in items:
        found.append((*prefix, key))
        found += paths(value, (*prefix, key))
    return found


def put(data: Any, path: Where, value: Any) -> Any:
    """A copy of ``data`` with ``value`` at ``path`` (replacing, or adding a key)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: put(data.get(head), rest, value)}
    if isinstance(data, list) and isinstance(head, int) and head < len(data):
        return [put(v, rest, value) if i == head else v for i, v in enumerate(data)]
    return data


def mutants(bases: list[dict[str, Any]], new_keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid record with one or two values replaced (or keys added) by hostile ones.

    Starting from valid records gets validation past its first checks, to the deep
    ones and to the database writes, where crashes hide.
    """

    def mutate(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        where = st.sampled_from(paths(base) + [(k,) for k in new_keys])
        changes = st.lists(st.tuples(where, HOSTILE), min_size=0, max_size=2)

        def apply(changes: list[tuple[Where, Any]]) -> dict[str, Any]:
            out = base
            for path, value in changes:
                out = put(out, path, value)
            return out

        return changes.map(apply)

    return st.sampled_from(bases).flatmap(mutate)


def record(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object with any subset of ``fields`` and perhaps a stray key."""
    optional = {key: either(value) for key, value in fields.items()}
    extra = st.dictionaries(NASTY_TEXT | st.text(max_size=6), ANY_JSON, max_size=1)
    return st.builds(lambda d, e: {**e, **d}, st.fixed_dictionaries({}, optional=optional), extra)


def jsonl(
    records: st.SearchStrategy[dict[str, Any]], *, garbage: bool = True, max_lines: int = 3
) -> st.SearchStrategy[bytes]:
    """JSONL bytes: records (NaN and ±Infinity included), maybe a broken line."""
    lines = [
        records.map(lambda r: json.dumps(r, allow_nan=True)),
        records.map(lambda r: json.dumps(r, ensure_ascii=False, allow_nan=True)),
    ]
    if garbage:
        lines.append(st.sampled_from(["", "{oops", "[1, 2]", "null", "[" * 5000, "\x00"]))
    return st.lists(st.one_of(*lines), min_size=1, max_size=max_lines).map(
        lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")
    )


def csv_rows(header: list[str], bases: list[list[str]]) -> st.SearchStrategy[bytes]:
    """CSV bytes: valid rows with hostile cells, maybe a ragged row or a changed header."""
    cell = st.one_of(NASTY_TEXT, LONG_TEXT, st.text(max_size=12), ANY_JSON.map(json.dumps))

    def mutate(row: list[str]) -> st.SearchStrategy[list[str]]:
        spot = st.integers(min_value=0, max_value=len(row))
        return st.lists(st.tuples(spot, cell), max_size=2).map(
            lambda cs: (
                [dict(cs).get(i, v) for i, v in enumerate(row)]
                + ([dict(cs)[len(row)]] if len(row) in dict(cs) else [])
            )
        )

    def write(head: list[str], rows: list[list[str]]) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(head)
        writer.writerows(rows)
        return out.getvalue().encode("utf-8", "surrogatepass")

    heads = st.one_of(st.just(header), st.just(header), mutate(header))
    rows = st.lists(st.sampled_from(bases).flatmap(mutate), min_size=1, max_size=3)
    return st.builds(write, heads, rows)


def hostile_bytes() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe{", b"[" * 100_000, b"{}" * 10, b"\r\r\n"]),
    )


def assert_loads_or_rejects(run: Callable[[], object]) -> None:
    """The whole property: a clean load, or a LoadError naming file, line and field,
    with every table exactly as it was. Any other exception fails the test.

    Each example runs in a transaction rolled back at the end, so examples are independent.
    """
    before = snapshot()
    with transaction.atomic():
        try:
            run()
        except LoadError as exc:
            assert exc.problems, "a LoadError must carry its problems"
            for problem in exc.problems:
                assert isinstance(problem.file, str) and problem.message
                assert problem.line is None or problem.line >= 1
                assert problem.field is None or isinstance(problem.field, str)
            assert snapshot() == before
            str(exc)  # the message can be shown
        transaction.set_rollback(True)


__all__ = [
    "ANY_JSON",
    "FUZZ",
    "HOSTILE",
    "NASTY_TEXT",
    "NUMBERS",
    "assert_loads_or_rejects",
    "csv_rows",
    "either",
    "fixture_records",
    "hostile_bytes",
    "jsonl",
    "mutants",
    "record",
]


def fixture_records(name: str) -> list[dict[str, Any]]:
    """The valid records of a formats.md example file, as bases for mutants."""
    path = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
