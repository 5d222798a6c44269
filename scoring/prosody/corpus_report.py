"""Corpus report: CCiV structural and tonal rates per cipai, in markdown.

Rule source: the CCiV definitions (see :mod:`.ci`), applied to a JSONL corpus of ci with
``cipai`` and ``text`` fields (``data/corpus/song_ci_30cipai.jsonl``: 10,707 Song ci of the
30 CCiV cipai, from chinese-poetry).  Three scorings per poem:

* **CCiV literal** -- ``ccv_compatible=True`` (context-free modern tones, no stripping);
* **modern** -- our reading (context, header stripping, placeholders kept), 中华新韵;
* **classical** -- the same with the 词林正韵 tables (入声 = 仄).

Structural rate = share of poems with structure 1; tonal rate = mean tonal score (0 when
the structure fails, as CCiV defines it); ``T|fit`` = mean tonal among poems that fit some
form; rhyme = mean rhyme score among poems that fit.  Run::

    python -m scoring.prosody.corpus_report data/corpus/song_ci_30cipai.jsonl [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .api import score_poem

_KEYS = (
    "structural_standard",
    "structural_variant",
    "structural",
    "tonal_standard",
    "tonal_variant",
)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _reason(text: str, diag: dict[str, Any], metrics: dict[str, float | None]) -> str:
    """Why a poem fits no form, from its diagnostics (first matching reason wins)."""
    if metrics.get("structural") == 1.0:
        return "punctuation"
    if diag.get("sibling"):
        return "sibling"
    near = diag.get("nearest") or {}
    ops = {d["op"] for d in near.get("diff", [])}
    if ops and ops <= {"moved", "merged", "split"}:
        return "moved"
    if any(ch in text for ch in "□＊○"):
        return "lost chars"
    chars = sum(len(x["text"]) for x in diag.get("lines", []))
    if near and chars < 0.7 * near["chars"]:
        return "fragment"
    return "other"


def collect(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-cipai sums of every rate, plus failure reasons and siblings found."""
    acc: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        form = "ci:" + row["cipai"]
        runs = {
            "ccv": score_poem(row["text"], form, ccv_compatible=True),
            "mod": score_poem(row["text"], form, tone_system="modern"),
            "cla": score_poem(row["text"], form, tone_system="classical"),
        }
        a = acc[row["cipai"]]
        a["n"] += 1
        for run, s in runs.items():
            for k in _KEYS:
                a[f"{run}.{k}"] += s.metrics.get(k) or 0.0
            if s.metrics.get("structural") == 1.0:
                a[f"{run}.fit"] += 1
                a[f"{run}.tonal_fit"] += s.metrics.get("tonal") or 0.0
                if s.metrics.get("rhyme") is not None:
                    a[f"{run}.rhyme_n"] += 1
                    a[f"{run}.rhyme"] += s.metrics["rhyme"] or 0.0
        mod = runs["mod"]
        if mod.metrics.get("structural_variant") != 1.0:
            reasons = a.setdefault("reasons", Counter())
            reasons[_reason(row["text"], mod.diagnostics, mod.metrics)] += 1
            sib = mod.diagnostics.get("sibling")
            if sib:
                a.setdefault("siblings", Counter())[sib["cipai"]] += 1
    return acc


def render(acc: dict[str, dict[str, Any]]) -> str:
    """Markdown tables: structure, tones (both systems), failure reasons."""
    order = sorted(acc, key=lambda c: -acc[c]["n"])
    total: dict[str, Any] = defaultdict(float)
    for c in order:
        for k, v in acc[c].items():
            if isinstance(v, float):
                total[k] += v
    rows = [(c, acc[c]) for c in order] + [("**all**", total)]

    def rate(a: dict[str, Any], key: str, den: str = "n") -> str:
        d = a.get(den, 0.0)
        return _pct(a.get(key, 0.0) / d) if d else "–"

    out = [
        "### Structure (% of poems)",
        "",
        "| cipai | n | CCiV std | CCiV var | std | var | var + punct. |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c, a in rows:
        out.append(
            f"| {c} | {int(a['n'])} | {rate(a, 'ccv.structural_standard')} | "
            f"{rate(a, 'ccv.structural_variant')} | {rate(a, 'mod.structural_standard')} | "
            f"{rate(a, 'mod.structural_variant')} | {rate(a, 'mod.structural')} |"
        )
    out += [
        "",
        "### Tones (mean tonal score, %; 0 for a poem that fails structure) and rhyme",
        "",
        "| cipai | CCiV std | CCiV var | modern std | modern var | modern T\\|fit | "
        "classical std | classical var | classical T\\|fit | rhyme 新韵 | rhyme 词林 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c, a in rows:
        out.append(
            f"| {c} | {rate(a, 'ccv.tonal_standard')} | {rate(a, 'ccv.tonal_variant')} | "
            f"{rate(a, 'mod.tonal_standard')} | {rate(a, 'mod.tonal_variant')} | "
            f"{rate(a, 'mod.tonal_fit', 'mod.fit')} | {rate(a, 'cla.tonal_standard')} | "
            f"{rate(a, 'cla.tonal_variant')} | {rate(a, 'cla.tonal_fit', 'cla.fit')} | "
            f"{rate(a, 'mod.rhyme', 'mod.rhyme_n')} | {rate(a, 'cla.rhyme', 'cla.rhyme_n')} |"
        )
    out += [
        "",
        "### Poems failing every form (variant-aware), by diagnosed reason",
        "",
        "| cipai | failing | fits without a comma break | fits a sibling cipai | "
        "comma moved | has □ | fragment | other |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in order:
        r: Counter[str] = acc[c].get("reasons", Counter())
        if not r:
            continue
        sib = ", ".join(f"{k} {v}" for k, v in acc[c].get("siblings", Counter()).most_common(3))
        out.append(
            f"| {c} | {sum(r.values())} | {r['punctuation']} | {r['sibling']}"
            f"{f' ({sib})' if sib else ''} | {r['moved']} | {r['lost chars']} | "
            f"{r['fragment']} | {r['other']} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="CCiV rule rates per cipai, as markdown.")
    ap.add_argument("corpus", type=Path, help="JSONL with cipai and text fields")
    ap.add_argument("--limit", type=int, default=None, help="score only the first N poems")
    args = ap.parse_args(argv)
    lines = args.corpus.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(x) for x in lines if x.strip()][: args.limit]
    sys.stdout.write(render(collect(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
