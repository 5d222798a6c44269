"""Benchmark: classical scoring with readings by sense, against pypinyin alone.

The classical reading path (issue 22): every line goes through pypinyin in context, then
the reading table and the recovery of original characters (``scoring/prosody/senses.py``:
phrase look-ups, pypinyin's segmenter + OpenCC for a merged character no listed word decides), then the
form's checks.  Texts: the 214 regulated poems of the bundled 唐诗三百首 in simplified
characters (``score_poem(text, None, tone_system="classical")``) and every 8th bundled
Song ci (simplified; ``score_poem(text, "ci:<cipai>", tone_system="classical")``).  In the
same run, the same texts go through ``pypinyin.lazy_pinyin(text, style=Style.TONE)``.  As
in ``bench_prosody.py``: chunks scored and converted back to back, best of the repeats,
an untimed warm-up (tables, OpenCC), the line, segment and word caches cleared
before every timed chunk.

Goal: ratio = scoring chars/s / pypinyin chars/s >= 0.5.  Writes
``bench/results/readings.json``.

    .venv/bin/python bench/bench_readings.py --quick    # ~600 poems
    .venv/bin/python bench/bench_readings.py            # ~1,550 poems
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

from scoring.prosody import RULES_VERSION, score_poem  # noqa: E402
from scoring.prosody.normalize import to_simplified  # noqa: E402
from scoring.prosody.pinyin import clear_line_cache  # noqa: E402
from scoring.prosody.senses import _word_evidence  # noqa: E402

CORPUS = ROOT / "data" / "corpus"
OUT = ROOT / "bench" / "results" / "readings.json"
REGULATED = ("五言律诗", "七言律诗", "五言绝句", "七言绝句")


def _load(quick: bool) -> list[tuple[str, str | None]]:
    tang = json.loads((CORPUS / "tang_300.json").read_text(encoding="utf-8"))
    items: list[tuple[str, str | None]] = [
        (to_simplified("\n".join(p["paragraphs"])), None)
        for p in tang
        if any(t in p["tags"] for t in REGULATED)
    ]
    rows = [
        json.loads(x)
        for x in (CORPUS / "song_ci_30cipai.jsonl").read_text(encoding="utf-8").splitlines()
        if x
    ]
    step = 28 if quick else 8
    items += [(r["text"], "ci:" + r["cipai"]) for r in rows[::step]]
    return items


def _time_raw(items: list[tuple[str, str | None]]) -> float:
    t0 = time.perf_counter()
    for text, _ in items:
        lazy_pinyin(text, style=Style.TONE)
    return time.perf_counter() - t0


def _time_score(items: list[tuple[str, str | None]]) -> float:
    clear_line_cache()
    _word_evidence.cache_clear()
    t0 = time.perf_counter()
    for text, form in items:
        score_poem(text, form, tone_system="classical")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer Song ci")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=100)
    args = ap.parse_args(argv)
    items = _load(args.quick)
    chars = sum(len(t) for t, _ in items)
    for text, form in items[::3]:  # warm-up
        score_poem(text, form, tone_system="classical")
    _time_raw(items[:100])
    chunks = [items[i : i + args.chunk] for i in range(0, len(items), args.chunk)]
    raw_best = [float("inf")] * len(chunks)
    score_best = [float("inf")] * len(chunks)
    for _ in range(args.repeats):
        for k, chunk in enumerate(chunks):
            gc.collect()
            raw_best[k] = min(raw_best[k], _time_raw(chunk))
            score_best[k] = min(score_best[k], _time_score(chunk))
    raw_s, score_s = sum(raw_best), sum(score_best)
    ratio = (chars / score_s) / (chars / raw_s)
    result = {
        "benchmark": "classical scoring with readings by sense vs raw pypinyin",
        "rules_version": RULES_VERSION,
        "mode": "quick" if args.quick else "full",
        "poems": len(items),
        "chars": chars,
        "repeats": args.repeats,
        "pypinyin_seconds": round(raw_s, 4),
        "scoring_seconds": round(score_s, 4),
        "pypinyin_chars_per_s": round(chars / raw_s),
        "scoring_chars_per_s": round(chars / score_s),
        "ratio": round(ratio, 3),
        "goal_ratio": 0.5,
        "meets_goal": ratio >= 0.5,
        "scoring_call": "score_poem(text, form, tone_system='classical'), simplified texts",
        "baseline_call": "pypinyin.lazy_pinyin(text, style=Style.TONE)",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(
        f"{len(items)} poems, {chars} chars: pypinyin {chars / raw_s:,.0f} chars/s, "
        f"scoring {chars / score_s:,.0f} chars/s, ratio {result['ratio']} "
        f"({'meets' if result['meets_goal'] else 'misses'} the 0.5 goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
