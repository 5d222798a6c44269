"""``shiping-prosody FILE``: rule scores of a file of poems, offline.

Plain Python (no Django, no project settings): installed as a console script by
``pip install`` (pyproject.toml ``[project.scripts]``), and what ``manage.py prosody``
runs. Input: JSONL or CSV (by suffix) of ``id, form, text`` (or pool lines with a
``poem``; form ``ci:<cipai>``, ``shi:jueju5|jueju7|lushi5|lushi7|pailu5|pailu7|guti``, ``couplet``, or empty
to detect a shi form). Every bad line is named with its line and field before anything
is scored; every problem is said on standard error (exit status 2), never a traceback.
Output rows: :mod:`.batch` (JSONL with diagnostics, or CSV).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .batch import poem_fields, score_rows, write_rows

# The same rule as the pool loader's (studies.loading.fields.POEM_FORM; a test keeps
# the two equal): this package imports nothing of the project.
POEM_FORM = re.compile(r"^(ci:.+|shi:(jueju5|jueju7|lushi5|lushi7|pailu5|pailu7|guti)|couplet)$")
MAX_PROBLEMS = 200
DESCRIPTION = (
    "Score a JSONL or CSV file of poems (id, form, text; or pool lines with a 'poem'; form "
    "as in formats.md §2, or empty to detect a shi form) and write rule scores as JSONL "
    "(with diagnostics) or CSV (flat columns)."
)


class ToolError(Exception):
    """A problem with the input or the options, said in a few lines at most."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    parser.add_argument("--out", help="output file (default: standard output)")
    parser.add_argument(
        "--format", choices=("jsonl", "csv"), help="default: from --out, else jsonl"
    )
    parser.add_argument(
        "--tone-system",
        choices=("classical", "modern"),
        default="classical",
        help="classical (词林正韵 / 平水韵, 入声 = 仄; the default) or modern (中华新韵)",
    )
    parser.add_argument(
        "--lenient", action="store_true", help="characters with both tones fit either"
    )
    parser.add_argument(
        "--ccv", action="store_true", help="the CCiV benchmark's literal definitions"
    )
    parser.add_argument(
        "--cipu-source",
        choices=("best", "qinding", "longyusheng"),
        default="best",
        help="the 词谱 a ci is judged against: the better fit of both (default), the "
        "钦定词谱 or 龙榆生's forms",
    )
    parser.add_argument(
        "--reading",
        action="append",
        default=[],
        metavar="CHAR=READING",
        help="read CHAR as READING (a TONE3 reading such as 令=ling2, or 平/仄); repeatable",
    )


def reading_overrides(specs: Sequence[str]) -> dict[str, str]:
    """``--reading`` options as a mapping, checked (ToolError names the bad one)."""
    from .senses import check_overrides

    pairs = []
    for spec in specs:
        ch, sep, value = spec.partition("=")
        if not sep:
            raise ToolError(f"--reading {spec!r}: write CHAR=READING, e.g. 令=ling2")
        pairs.append((ch.strip(), value.strip()))
    try:
        return check_overrides(dict(pairs))
    except ValueError as exc:
        raise ToolError(f"--reading: {exc}") from exc


def _text_problem(value: Any) -> str | None:
    """Text that could not be written out again: NUL, or not encodable as UTF-8."""
    if isinstance(value, str):
        if "\x00" in value:
            return "contains a NUL character"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "is not valid Unicode text (a lone surrogate)"
    elif isinstance(value, dict):
        for key, inner in value.items():
            if (problem := _text_problem(key)) or (problem := _text_problem(inner)):
                return problem
    elif isinstance(value, list):
        for inner in value:
            if problem := _text_problem(inner):
                return problem
    return None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: an object naming a key twice is refused, not read as its last."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r} appears twice in one object: keep one")
            seen.add(key)
    return data


def _records(text: str, csv_file: bool, problem: Callable[..., None]) -> Iterator[tuple[int, Any]]:
    if csv_file:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            header = reader.fieldnames
            if not header:
                problem(1, None, "the CSV file has no header row")
                return
            if len(set(header)) != len(header):
                problem(1, None, "duplicate column(s) in the header")
                return
            start = reader.line_num + 1
            for row in reader:
                if row.pop(None, None):  # type: ignore[call-overload,unused-ignore]
                    problem(start, None, "row has more cells than the header")
                yield start, {k: (v if v is not None else "") for k, v in row.items()}
                start = reader.line_num + 1
        except csv.Error as exc:
            problem(reader.line_num, None, f"CSV syntax error: {exc}")
        return
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield (
                number,
                json.loads(raw, parse_constant=_no_constants, object_pairs_hook=_unique_keys),
            )
        except json.JSONDecodeError as exc:
            problem(number, None, f"not valid JSON: {exc.msg} at column {exc.colno}")
        except (ValueError, RecursionError) as exc:
            problem(number, None, f"not valid JSON: {exc or 'nested too deeply'}")


def read_poems(path: Path) -> list[dict[str, Any]]:
    """The poems of ``path``, every one checked; raises :class:`ToolError` naming each
    bad line and field (nothing is scored then)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ToolError(f"{path}: cannot read the file: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{path}: cannot read the file as UTF-8 text (byte {exc.start})") from exc
    problems: list[str] = []

    def problem(line: int | None, field: str | None, message: str) -> None:
        where = (
            str(path) + (f", line {line}" if line else "") + (f", field {field!r}" if field else "")
        )
        problems.append(f"{where}: {message}")

    poems: list[dict[str, Any]] = []
    for line, data in _records(text, path.suffix.lower() == ".csv", problem):
        before = len(problems)
        if not isinstance(data, dict):
            problem(line, None, f"expected a JSON object, got {type(data).__name__}")
            continue
        if bad := _text_problem(data):
            problem(line, None, bad)
            continue
        pid, body, form = poem_fields(data)
        if not pid:
            problem(line, "id", "is required")
        given = (data["poem"] if isinstance(data.get("poem"), dict) else data).get("text")
        if given is not None and not isinstance(given, str):  # 5, ["…"]: not a poem's text
            problem(line, "text", f"must be a string, got {type(given).__name__}")
        elif not body.strip():
            problem(line, "text", "is required and must not be empty")
        if form is not None and (not isinstance(form, str) or not POEM_FORM.match(form)):
            problem(
                line,
                "form",
                f"{form!r} is not a form: use ci:<cipai>, shi:jueju5|jueju7|lushi5|lushi7|pailu5|pailu7|guti or couplet",
            )
        if len(problems) == before:
            poems.append(data)
    if not poems and not problems:
        problem(None, None, "the file holds no poems")
    if problems:
        count = len(problems)
        head = f"{count} problem{'s' if count != 1 else ''} found; nothing was scored."
        more = [f"... and {count - MAX_PROBLEMS} more problems"] if count > MAX_PROBLEMS else []
        raise ToolError("\n".join([head, *problems[:MAX_PROBLEMS], *more]))
    return poems


def run(opts: argparse.Namespace, stdout: Any, say: Callable[[str], object]) -> None:
    """Score ``opts.file`` to ``opts.out`` (or ``stdout``); ``say`` reports the count."""
    overrides = reading_overrides(getattr(opts, "reading", []))
    poems = read_poems(Path(opts.file))
    rows = score_rows(
        poems,
        tone_system=opts.tone_system,
        lenient=opts.lenient,
        ccv_compatible=opts.ccv,
        reading_overrides=overrides,
        cipu_source=getattr(opts, "cipu_source", "best"),
    )
    fmt = opts.format or ("csv" if (opts.out or "").endswith(".csv") else "jsonl")
    if not opts.out:
        write_rows(rows, stdout, fmt=fmt)
        return
    try:
        with open(opts.out, "w", encoding="utf-8", newline="") as fh:
            write_rows(rows, fh, fmt=fmt)
    except OSError as exc:
        raise ToolError(f"{opts.out}: cannot write the file: {exc.strerror}") from exc
    say(f"{len(poems)} poems scored to {opts.out}")


def main(argv: Sequence[str] | None = None, prog: str = "shiping-prosody") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_arguments(parser)
    opts = parser.parse_args(argv)
    try:
        run(opts, sys.stdout, lambda line: print(line, file=sys.stderr))
    except ToolError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
