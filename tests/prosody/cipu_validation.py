"""The 词谱 templates validated per source (issue 22 item 3), for docs/prosody.md §3.1.

Two measures per template source:

* each template's own example poem (CCiV ships it beside the template) read by the
  classical rules and scored against its template: the goal is 1.0;
* the Song ci of the 30 CCiV cipai (``data/corpus/song_ci_30cipai.jsonl``) scored with each
  ``cipu_source``: how many fit a form, their mean tonal score, and by the kind of marks of
  the template they were judged against.

``python tests/prosody/cipu_validation.py --write`` regenerates ``data/cipu_sources.json``
(the corpus part takes a few minutes), which ``test_cipu_marks.py`` compares with the
example table and (slow) with the corpus table; docs/prosody.md §3.1 shows both.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scoring.prosody import score_poem  # noqa: E402
from scoring.prosody.ci import CIPU_SOURCES, tonal_share  # noqa: E402
from scoring.prosody.normalize import to_simplified  # noqa: E402
from scoring.prosody.reading import read_lines  # noqa: E402
from scoring.prosody.tables import cipai2info  # noqa: E402
from scoring.prosody.templates import CiTemplate, load_cipai  # noqa: E402

SONG_CI = ROOT / "data" / "corpus" / "song_ci_30cipai.jsonl"


def kind(t: CiTemplate) -> str:
    """The template's class: its book and where its 中 marks come from."""
    if t.source == "龙榆生":
        return "龙榆生"
    return f"钦定词谱 {t.marks.split(':')[0]}"


def example_score(t: CiTemplate) -> float | None:
    """The template's own example poem (classical reading) against the template."""
    lines = [x for x in re.split(r"[\t\n]+", to_simplified(t.example)) if x]
    if not lines or sum(map(len, lines)) != t.total:
        return None
    r = read_lines(lines, system="classical", family="ci")
    return tonal_share(r.tone_string(), "".join(r.mark_lines), t.tones, lenient=False)[0]


def example_table() -> dict[str, dict[str, float]]:
    """Per class of template (platform marks, and the same templates as CCiV ships them):
    templates with a readable example, mean score, share scoring 1.0."""
    scores: dict[str, list[float]] = defaultdict(list)
    for name in cipai2info():
        own, literal = load_cipai(name), load_cipai(name, literal=True)
        assert own is not None and literal is not None
        for t, lit in zip(own.templates, literal.templates, strict=True):
            for label, tt in ((kind(t), t), (f"{kind(t)} (as CCiV ships it)", lit)):
                s = example_score(tt)
                if s is not None:
                    scores[label].append(s)
    return {
        k: {
            "n": len(v),
            "mean": round(statistics.fmean(v), 4),
            "perfect": round(sum(x > 0.9999 for x in v) / len(v), 4),
        }
        for k, v in sorted(scores.items())
    }


def corpus_table(step: int = 1) -> dict[str, dict[str, dict[str, float]]]:
    """Per ``cipu_source``, per class of the template the poem was judged against (and
    ``all``): fitting poems and their mean tonal score (classical)."""
    rows = [json.loads(x) for x in SONG_CI.read_text(encoding="utf-8").splitlines() if x]
    rows = rows[::step]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for source in CIPU_SOURCES:
        tonal: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            s = score_poem(str(r["text"]), f"ci:{r['cipai']}", cipu_source=source)
            t = s.diagnostics.get("template")
            if not s.metrics.get("structural") or not t:
                continue
            value = float(s.metrics["tonal"] or 0.0)
            label = (
                t["source"] if t["source"] == "龙榆生" else f"钦定词谱 {t['marks'].split(':')[0]}"
            )
            tonal[label].append(value)
            tonal["all"].append(value)
        out[source] = {
            k: {"n": len(v), "mean": round(statistics.fmean(v), 4)}
            for k, v in sorted(tonal.items())
        }
        out[source]["all"]["poems"] = len(rows)
    return out


PUBLISHED = Path(__file__).parent / "data" / "cipu_sources.json"

if __name__ == "__main__":
    tables = {"examples": example_table(), "song_ci": corpus_table()}
    text = json.dumps(tables, ensure_ascii=False, indent=1) + "\n"
    if "--write" in sys.argv:
        PUBLISHED.write_text(text, encoding="utf-8")
    print(text, end="")
