"""Benchmark: prosody scoring throughput against a raw pypinyin pass over the same text.

Two workloads, each timed against ``pypinyin.lazy_pinyin(text, style=Style.TONE)`` (the
raw conversion in the style the scorer itself requests) on the same texts, in the same run:

* ``ci_modern``: the bundled Song ci (``data/corpus/song_ci_30cipai.jsonl``) scored with
  ``score_poem(text, "ci:<cipai>")`` in the modern system -- variant-aware over every
  template of the cipai, with rhyme, diagnostics and header stripping;
* ``classical``: the classical path with readings by sense (issue 22): the 214 regulated
  poems of the bundled 唐诗三百首 in simplified characters (``score_poem(text, None,
  tone_system="classical")``: the form detected, the 近体 checks, four patterns, the
  couplet arrangement, 古体 detection) and every 8th Song ci (every 28th with
  ``--quick``) with ``tone_system="classical"``.

(This file replaces ``bench_readings.py``, which timed the second workload with the same
harness.)  Each workload is cut into chunks; each chunk is converted and then scored back
to back, ``--repeats`` times, and the best time of each side per chunk is kept.  Times are
the process's CPU time (``time.process_time``): both sides are single-threaded and
CPU-bound, so this is their work, and load from other processes on a shared machine
(which moves wall-clock figures by 2x between runs) counts less.  Before timing, an
untimed pass over part of the texts loads the tables and fills the per-character tone
caches; the line, segment, word-evidence and alignment caches (with the alignment's
per-shape tables) are cleared before every timed chunk, so each chunk's text is segmented
and converted again.  The scorer segments with a port of pypinyin's own segmenter
(``pinyin._segment``: the same runs and forward maximum matching over pypinyin's prefix
set and phrase dictionary, tested equal to ``pypinyin.seg.simpleseg.seg`` on every bundled
text) and converts the segments with pypinyin; the raw side is ``lazy_pinyin`` whole, its
own segmenter included.

Goal: ratio = scoring chars/s / pypinyin chars/s >= 0.5 in each workload (scoring costs at
most ~2x a raw pypinyin pass).  Writes ``bench/results/prosody.json``.

    .venv/bin/python bench/bench_prosody.py            # all 10,707 ci; 214 shi + 1,339 ci
    .venv/bin/python bench/bench_prosody.py --quick    # 800 ci; 214 shi + 383 ci
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pypinyin import Style, lazy_pinyin  # noqa: E402
from pypinyin import __version__ as pypinyin_version  # noqa: E402

from bench.common import write_result  # noqa: E402
from scoring.prosody import RULES_VERSION, score_poem  # noqa: E402
from scoring.prosody.align import clear_cache as clear_align_cache  # noqa: E402
from scoring.prosody.normalize import to_simplified  # noqa: E402
from scoring.prosody.pinyin import clear_line_cache  # noqa: E402
from scoring.prosody.senses import _word_evidence  # noqa: E402
from scoring.prosody.tones import ToneSystem  # noqa: E402

CORPUS = ROOT / "data" / "corpus"
REGULATED = ("五言律诗", "七言律诗", "五言绝句", "七言绝句")
GOAL = 0.5

Items = list[tuple[str, str | None]]


def _song_ci() -> list[dict[str, Any]]:
    text = (CORPUS / "song_ci_30cipai.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def ci_items(limit: int | None) -> Items:
    rows = _song_ci()
    if limit is not None:
        step = max(1, len(rows) // limit)
        rows = rows[::step][:limit]
    return [(r["text"], "ci:" + r["cipai"]) for r in rows]


def classical_items(quick: bool) -> Items:
    tang = json.loads((CORPUS / "tang_300.json").read_text(encoding="utf-8"))
    items: Items = [
        (to_simplified("\n".join(p["paragraphs"])), None)
        for p in tang
        if any(t in p["tags"] for t in REGULATED)
    ]
    items += [(r["text"], "ci:" + r["cipai"]) for r in _song_ci()[:: 28 if quick else 8]]
    return items


def _time_raw(items: Items) -> float:
    t0 = time.process_time()
    for text, _ in items:
        lazy_pinyin(text, style=Style.TONE)
    return time.process_time() - t0


def _time_score(items: Items, system: ToneSystem) -> float:
    clear_line_cache()  # every line goes through pypinyin again
    _word_evidence.cache_clear()
    clear_align_cache()
    t0 = time.process_time()
    for text, form in items:
        score_poem(text, form, tone_system=system)
    return time.process_time() - t0


def measure(items: Items, system: ToneSystem, chunk: int, repeats: int) -> dict[str, Any]:
    """Paired timing of one workload: pypinyin and scoring, chunk by chunk, best of the
    repeats per chunk."""
    chars = sum(len(t) for t, _ in items)
    for text, form in items[::4]:  # warm-up: tables, templates, per-character caches
        score_poem(text, form, tone_system=system)
    _time_raw(items[:200])
    chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
    raw_best = [float("inf")] * len(chunks)
    score_best = [float("inf")] * len(chunks)
    for _ in range(repeats):
        for k, part in enumerate(chunks):
            gc.collect()
            raw_best[k] = min(raw_best[k], _time_raw(part))
            score_best[k] = min(score_best[k], _time_score(part, system))
    raw_s, score_s = sum(raw_best), sum(score_best)
    ratio = (chars / score_s) / (chars / raw_s)
    return {
        "poems": len(items),
        "chars": chars,
        "chunk_poems": chunk,
        "pypinyin_seconds": round(raw_s, 4),
        "scoring_seconds": round(score_s, 4),
        "pypinyin_chars_per_s": round(chars / raw_s),
        "scoring_chars_per_s": round(chars / score_s),
        "ratio": round(ratio, 3),
        "meets_goal": ratio >= GOAL,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer Song ci")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    ci = measure(ci_items(800 if args.quick else None), "modern", 250, args.repeats)
    ci["scoring_call"] = "score_poem(text, 'ci:<cipai>') modern, variant-aware, with diagnostics"
    classical = measure(classical_items(args.quick), "classical", 100, args.repeats)
    classical["scoring_call"] = (
        "score_poem(text, form, tone_system='classical'), simplified texts "
        "(214 regulated Tang poems, form detected, and Song ci)"
    )
    workloads = {"ci_modern": ci, "classical": classical}
    result = {
        "benchmark": "prosody scoring vs raw pypinyin",
        "rules_version": RULES_VERSION,
        "mode": "quick" if args.quick else "full",
        "clock": "process CPU time (time.process_time)",
        "repeats": args.repeats,
        # the headline: both workloads together
        "poems": ci["poems"] + classical["poems"],
        "pypinyin_seconds": round(ci["pypinyin_seconds"] + classical["pypinyin_seconds"], 4),
        "scoring_seconds": round(ci["scoring_seconds"] + classical["scoring_seconds"], 4),
        "ratio": min(ci["ratio"], classical["ratio"]),
        "goal_ratio": GOAL,
        "meets_goal": ci["meets_goal"] and classical["meets_goal"],
        "workloads": workloads,
        "baseline_call": "pypinyin.lazy_pinyin(text, style=Style.TONE)",
        "python": platform.python_version(),
        "pypinyin": pypinyin_version,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    path = write_result("prosody", result)
    for name, w in workloads.items():
        print(
            f"{name}: {w['poems']} poems, {w['chars']} chars: pypinyin "
            f"{w['pypinyin_chars_per_s']:,} chars/s, scoring {w['scoring_chars_per_s']:,} "
            f"chars/s, ratio {w['ratio']} ({'meets' if w['meets_goal'] else 'misses'} the "
            f"{GOAL} goal)"
        )
    print(f"-> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
