"""Offline batch scoring: a JSONL or CSV file of poems in, one row of rule scores per poem out.

Rules: those of :func:`~.api.score_poem` (see ``docs/prosody.md``).  Input rows need ``text``
and may carry ``id`` and ``form`` (``ci:<cipai>``, ``shi:…``, ``couplet``); a bare
``cipai`` field is read as ``ci:<cipai>``, and pool lines of ``docs/formats.md``
(``{"id": …, "poem": {"form": …, "text": …}}``) are accepted as they are.  Output rows
hold ``id``, ``form``, ``rules_version``, ``tone_system``, every metric, and (JSONL only)
the diagnostics.  Run::

    python -m scoring.prosody.batch poems.jsonl [--out scores.csv] [--tone-system modern]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .api import CI_METRICS, COUPLET_METRICS, SHI_METRICS, score_poem
from .ci import CipuSource
from .explain import notes
from .tones import ToneSystem

METRIC_COLUMNS = tuple(dict.fromkeys((*CI_METRICS, *SHI_METRICS, *COUPLET_METRICS)))


class InputError(ValueError):
    """A line of the input that is not usable JSON, named with the file and line."""


def read_poems(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL (one object a line, blank lines skipped) or CSV file (by suffix).
    A JSONL line that is not JSON, or names a key twice in one object (JSON would keep
    the last), raises :class:`InputError` with the file, the line and the key."""
    from .cli import _no_constants, _unique_keys  # the console tool's checks (it imports us)

    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".csv":
        return list(csv.DictReader(io.StringIO(text)))
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append(
                json.loads(line, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
            )
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{path}, line {number}: {exc or 'nested too deeply'}") from None
    return rows


def poem_fields(row: dict[str, Any]) -> tuple[str, str, str | None]:
    poem = row.get("poem") if isinstance(row.get("poem"), dict) else row
    assert isinstance(poem, dict)
    form = poem.get("form") or (f"ci:{poem['cipai']}" if poem.get("cipai") else None)
    return str(row.get("id", "")), str(poem.get("text") or ""), form


def score_rows(
    rows: Iterable[dict[str, Any]],
    *,
    tone_system: ToneSystem = "classical",
    lenient: bool = False,
    ccv_compatible: bool = False,
    reading_overrides: Mapping[str, str] | None = None,
    cipu_source: CipuSource = "best",
) -> Iterator[dict[str, Any]]:
    """One flat result row per input row (metrics of other forms are None)."""
    for row in rows:
        pid, text, form = poem_fields(row)
        s = score_poem(
            text,
            form,
            tone_system=tone_system,
            lenient=lenient,
            ccv_compatible=ccv_compatible,
            reading_overrides=reading_overrides,
            cipu_source=cipu_source,
        )
        out: dict[str, Any] = {
            "id": pid,
            "form": s.form,
            "rules_version": s.rules_version,
            "tone_system": s.tone_system,
        }
        out.update({m: s.metrics.get(m) for m in METRIC_COLUMNS})
        out["diagnostics"] = s.to_dict()["diagnostics"]
        out["notes"] = "; ".join(notes(out["diagnostics"]))
        yield out


def write_rows(rows: Iterable[dict[str, Any]], fh: Any, *, fmt: str) -> None:
    """JSONL keeps the diagnostics; CSV keeps the flat columns and a short error column."""
    if fmt == "csv":
        cols = ["id", "form", "rules_version", "tone_system", *METRIC_COLUMNS, "notes", "error"]
        writer = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({**r, "error": r["diagnostics"].get("error", "")})
        return
    for r in rows:
        fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score a JSONL/CSV file of poems offline.")
    ap.add_argument("file", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="output file (.jsonl or .csv)")
    ap.add_argument("--tone-system", choices=("classical", "modern"), default="classical")
    ap.add_argument("--lenient", action="store_true")
    ap.add_argument("--ccv-compatible", action="store_true")
    args = ap.parse_args(argv)
    try:
        poems = read_poems(args.file)
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 2
    rows = score_rows(
        poems,
        tone_system=args.tone_system,
        lenient=args.lenient,
        ccv_compatible=args.ccv_compatible,
    )
    fmt = "csv" if args.out is not None and args.out.suffix.lower() == ".csv" else "jsonl"
    if args.out is None:
        write_rows(rows, sys.stdout, fmt=fmt)
    else:
        with args.out.open("w", encoding="utf-8", newline="") as fh:
            write_rows(rows, fh, fmt=fmt)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
