"""Benchmark: prosody scoring throughput against a raw pypinyin pass over the same text.

Scores the bundled Song ci (``data/corpus/song_ci_30cipai.jsonl``) with
``score_poem(text, "ci:<cipai>")`` -- variant-aware over every template of the cipai, with
rhyme, diagnostics and header stripping -- and, in the same run, converts the same texts
with ``pypinyin.lazy_pinyin(text, style=Style.TONE)`` (pypinyin's raw conversion in the
style the scorer itself requests).  The corpus is cut into chunks of 250 poems; each
chunk is converted and then scored back to back (so load from other processes on the
machine hits both sides alike), twice, and the best time of each side per chunk is kept.
Before timing, an untimed pass over every 4th poem loads the tables and fills the
per-character tone caches; the line and segment reading caches are cleared before every
timed chunk, so each chunk's text goes through pypinyin again.

Goal: ratio = scoring chars/s / pypinyin chars/s >= 0.5 (scoring costs at most ~2x a raw
pypinyin pass).  Writes ``bench/results/prosody.json``.

    .venv/bin/python bench/bench_prosody.py            # all 10,707 poems
    .venv/bin/python bench/bench_prosody.py --quick    # 800 poems
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pypinyin import Style, lazy_pinyin  # noqa: E402
from pypinyin import __version__ as pypinyin_version  # noqa: E402

from scoring.prosody import RULES_VERSION, score_poem  # noqa: E402
from scoring.prosody.pinyin import clear_line_cache  # noqa: E402

CORPUS = ROOT / "data" / "corpus" / "song_ci_30cipai.jsonl"
OUT = ROOT / "bench" / "results" / "prosody.json"


def _load(limit: int | None) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    if limit is not None:
        step = max(1, len(rows) // limit)
        rows = rows[::step][:limit]
    return [(r["text"], "ci:" + r["cipai"]) for r in rows]


def _time_raw(items: list[tuple[str, str]]) -> float:
    t0 = time.perf_counter()
    for text, _ in items:
        lazy_pinyin(text, style=Style.TONE)
    return time.perf_counter() - t0


def _time_score(items: list[tuple[str, str]]) -> float:
    clear_line_cache()  # every line goes through pypinyin again
    t0 = time.perf_counter()
    for text, form in items:
        score_poem(text, form)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="800 poems instead of all")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=250, help="poems per interleaved chunk")
    args = ap.parse_args(argv)
    items = _load(800 if args.quick else None)
    chars = sum(len(t) for t, _ in items)
    for text, form in items[::4]:  # warm-up: tables, templates, per-character caches
        score_poem(text, form)
    _time_raw(items[:200])
    chunks = [items[i : i + args.chunk] for i in range(0, len(items), args.chunk)]
    # Paired timing: each chunk is converted and scored back to back, so load from other
    # processes on the machine hits both sides alike; the best of the repeats is kept.
    raw_best = [float("inf")] * len(chunks)
    score_best = [float("inf")] * len(chunks)
    for _ in range(args.repeats):
        for k, chunk in enumerate(chunks):
            gc.collect()
            raw_best[k] = min(raw_best[k], _time_raw(chunk))
            score_best[k] = min(score_best[k], _time_score(chunk))
    raw_s, score_s = sum(raw_best), sum(score_best)
    raw_cps, score_cps = chars / raw_s, chars / score_s
    result = {
        "benchmark": "prosody scoring vs raw pypinyin",
        "rules_version": RULES_VERSION,
        "mode": "quick" if args.quick else "full",
        "poems": len(items),
        "chars": chars,
        "repeats": args.repeats,
        "chunk_poems": args.chunk,
        "pypinyin_seconds": round(raw_s, 4),
        "scoring_seconds": round(score_s, 4),
        "pypinyin_chars_per_s": round(raw_cps),
        "scoring_chars_per_s": round(score_cps),
        "ratio": round(score_cps / raw_cps, 3),
        "goal_ratio": 0.5,
        "meets_goal": score_cps / raw_cps >= 0.5,
        "scoring_call": "score_poem(text, 'ci:<cipai>') modern, variant-aware, with diagnostics",
        "baseline_call": "pypinyin.lazy_pinyin(text, style=Style.TONE)",
        "python": platform.python_version(),
        "pypinyin": pypinyin_version,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(items)} poems, {chars} chars: pypinyin {raw_cps:,.0f} chars/s, "
        f"scoring {score_cps:,.0f} chars/s, ratio {result['ratio']} "
        f"({'meets' if result['meets_goal'] else 'misses'} the 0.5 goal) -> {OUT.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
