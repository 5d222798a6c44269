"""The characters 平水韵 lists under both tones that the reading table lacks (issue 22).

A reading aid, not shipped and not a test: it lists every character that the bundled
平水韵 (``scoring/prosody/data/rhyme/Pingshui_Rhyme.json``) files under a 平 rhyme and a
仄 (上/去/入) rhyme, that occurs in the bundled corpora (``data/corpus/``: every string
of every record, titles and names included, read in simplified characters) and that
``polyphones.json`` does not hold, with its occurrence count, its 平水韵 groups and its
《广韵》 readings (fanqie, rhyme, tone, gloss), taken from the 《广韵》 rows of the
``qieyun`` package's ``rhyme_book.csv`` (nk2028; installed apart, never a project
dependency)::

    pip install --target /tmp/qieyun qieyun
    python tests/prosody/two_tone_candidates.py [--qieyun /tmp/qieyun/Qieyun/rhyme_book.csv]
        [--tsv out.tsv] [--all]

Each 《广韵》 head character is mapped to simplified with OpenCC ``t2s`` (character by
character), so a simplified candidate gathers the readings of every traditional character
it stands for (只: 只 諸氏切 and 隻 之石切), each named.  ``kind`` is the mechanical first
sort of the task: ``one:平`` / ``one:仄`` when every 《广韵》 reading has one tone,
``both`` when 《广韵》 has both, ``none`` when 《广韵》 has none of them.  ``--all`` also
lists the characters already in the table.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "data" / "corpus"
DATA = ROOT / "scoring" / "prosody" / "data"
QIEYUN = Path("/tmp/qieyun/Qieyun/rhyme_book.csv")
PING_SECTIONS = ("上平声部", "下平声部")
SKIP_KEYS = ("id", "text", "tags")
TONE_OF = {"平": "平", "上": "仄", "去": "仄", "入": "仄"}


@dataclass(frozen=True)
class Guangyun:
    """One 《广韵》 reading: the head as printed, its fanqie, rhyme, tone and gloss."""

    head: str
    fanqie: str
    rhyme: str
    tone: str  # 平 上 去 入
    gloss: str

    @property
    def ping_ze(self) -> str:
        return TONE_OF[self.tone]

    def short(self, width: int = 24) -> str:
        g = self.gloss if len(self.gloss) <= width else self.gloss[:width] + "…"
        return f"{self.head} {self.fanqie}切 {self.rhyme}{self.tone}：{g}"


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, list):
        return [s for x in obj for s in _strings(x)]
    if isinstance(obj, dict):
        # "text" repeats "paragraphs" in the Song ci file; ids and tags are no text
        return [s for k, x in obj.items() if k not in SKIP_KEYS for s in _strings(x)]
    return []


def corpus_counts() -> Counter[str]:
    """Occurrences of each simplified character over every string of the bundled corpora."""
    from scoring.prosody.normalize import to_simplified

    counts: Counter[str] = Counter()
    for path in sorted(CORPUS.iterdir()):
        if path.name.endswith("_strains.jsonl"):
            continue  # the 平仄 annotation, not text
        if path.suffix == ".jsonl":
            records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
        else:
            records = json.loads(path.read_text(encoding="utf-8"))
        for rec in records:
            for s in _strings(rec):
                counts.update(to_simplified(s))
    return counts


def poem_lines() -> list[str]:
    """The poem lines (``paragraphs``) of every record of the bundled corpora."""
    from scoring.prosody.normalize import split_lines

    out: list[str] = []
    for path in sorted(CORPUS.iterdir()):
        if path.name.endswith("_strains.jsonl"):
            continue
        if path.suffix == ".jsonl":
            records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
        else:
            records = json.loads(path.read_text(encoding="utf-8"))
        for rec in records:
            out.extend(split_lines("\n".join(rec["paragraphs"])))
    return out


def contextual(chars: set[str]) -> dict[str, Counter[str]]:
    """How the classical reader reads each of ``chars`` in the poem lines now: a Counter of
    "pinyin 平/仄" (for a character the table lacks, pypinyin's contextual reading)."""
    from scoring.prosody.reading import read_lines

    out: dict[str, Counter[str]] = {c: Counter() for c in chars}
    lines = [x for x in poem_lines() if not chars.isdisjoint(x)]
    for k in range(0, len(lines), 500):
        r = read_lines(lines[k : k + 500], system="classical", family="shi")
        for s, py, tn in zip(r.simplified, r.readings, r.tone_lines, strict=True):
            for c, p, t in zip(s, py, tn, strict=True):
                if c in out:
                    out[c][f"{p} {t}"] += 1
    return out


def _records() -> list[tuple[str, str | None]]:
    """(text, form) of every poem of the bundled corpora: the Song ci with their cipai,
    the 唐诗三百首 with the form detected."""
    out: list[tuple[str, str | None]] = []
    for line in (CORPUS / "song_ci_30cipai.jsonl").read_text(encoding="utf-8").splitlines():
        if line:
            rec = json.loads(line)
            out.append(("\n".join(rec["paragraphs"]), f"ci:{rec['cipai']}"))
    for rec in json.loads((CORPUS / "song_ci_300.json").read_text(encoding="utf-8")):
        out.append(("\n".join(rec["paragraphs"]), f"ci:{rec['rhythmic']}"))
    for rec in json.loads((CORPUS / "tang_300.json").read_text(encoding="utf-8")):
        out.append(("\n".join(rec["paragraphs"]), None))
    return out


STRICT_SHI = {5: (1, 3, 4), 7: (1, 3, 5, 6)}  # 0-based positions 一三五不论 leaves fixed


def metre_evidence(chars: set[str]) -> dict[str, Counter[str]]:
    """Where the poets put each of ``chars``: a Counter of the tone the form requires at
    each occurrence in a fixed position ("平", "仄"), and of "word 平"/"word 仄" for the
    two-character words around it.  Ci: the required tones of the template the scorer
    fits (中 positions left out); 近体诗: the pattern's 2nd/4th/6th and last positions.
    Independent of how the character is read, except through the choice of template."""
    from scoring.prosody import score_poem
    from scoring.prosody.normalize import to_simplified

    out: dict[str, Counter[str]] = {c: Counter() for c in chars}
    for text, form in _records():
        if chars.isdisjoint(to_simplified(text)):
            continue
        d = score_poem(text, form, tone_system="classical").diagnostics
        if form is None and d.get("ti") == "古体":
            continue
        for x in d.get("lines", []):
            req = x.get("required")
            s = x.get("simplified") or to_simplified(x["text"])
            if not req or len(req) != len(s):
                continue
            fixed = range(len(s)) if form else STRICT_SHI.get(len(s), ())
            for i in fixed:
                c, t = s[i], req[i]
                if c in out and t in "平仄":
                    out[c][t] += 1
                    if i > 0:
                        out[c][f"{s[i - 1 : i + 1]} {t}"] += 1
                    if i + 1 < len(s):
                        out[c][f"{s[i : i + 2]} {t}"] += 1
    return out


def _evidence_text(c: Counter[str], tone: str) -> str:
    words = [(k[:-2], n) for k, n in c.most_common() if len(k) > 1 and k.endswith(tone)]
    return f"{c[tone]} " + " ".join(f"{w}×{n}" for w, n in words[:8])


def pingshui_groups() -> dict[str, list[str]]:
    """Each character -> its 平水韵 groups, named as in the reading table (下平十一尤)."""
    data = json.loads((DATA / "rhyme" / "Pingshui_Rhyme.json").read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for section, sub in data.items():
        prefix = section.removesuffix("部")
        for rhyme, chars in sub.items():
            members = chars if rhyme[-1] in chars else [rhyme[-1], *chars]
            name = rhyme if rhyme.startswith(prefix) else prefix + rhyme
            if section in PING_SECTIONS:
                name = prefix.removesuffix("声") + rhyme
            for ch in members:
                if name not in out.setdefault(ch, []):
                    out[ch].append(name)
    return out


def is_two_tone(groups: list[str]) -> bool:
    ping = any(g.startswith(("上平", "下平")) for g in groups)
    ze = any(g.startswith(("上声", "去声", "入声")) for g in groups)
    return ping and ze


def guangyun(path: Path) -> dict[str, list[Guangyun]]:
    """The 《广韵》 readings keyed by the simplified form of each head character."""
    from opencc import OpenCC

    t2s = OpenCC("t2s.json").convert
    out: dict[str, list[Guangyun]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["資料名稱"] != "廣韻":
                continue
            head = row["字頭"] or row["字頭覈校前"]
            fanqie = row["反切"] or row["反切覈校前"]
            desc = row["最簡描述"]
            gloss = row["釋義"]
            if "義見上注" in gloss or gloss in ("", "…"):
                gloss = (row["釋義補充"] or gloss).strip()
            simp = t2s(head) if len(t2s(head)) == 1 else head
            for key in dict.fromkeys((simp, head)):
                out.setdefault(key, []).append(
                    Guangyun(head, fanqie, row["韻部原貌"], desc[-1], gloss)
                )
    return out


def kind(readings: list[Guangyun]) -> str:
    tones = {r.ping_ze for r in readings}
    if not tones:
        return "none"
    return "both" if len(tones) == 2 else f"one:{tones.pop()}"


def candidates(
    qieyun: Path, include_table: bool = False, metre: bool = False
) -> list[dict[str, str]]:
    table = json.loads((DATA / "readings" / "polyphones.json").read_text(encoding="utf-8"))
    # the merged simplified characters (干 几 并 …) are decided by originals.json first
    merged = json.loads((DATA / "readings" / "originals.json").read_text(encoding="utf-8"))
    counts = corpus_counts()
    groups = pingshui_groups()
    gy = guangyun(qieyun)
    two = {c for c, g in groups.items() if is_two_tone(g) and c in counts}
    ctx = contextual(two)
    ev = (
        metre_evidence(two - (set() if include_table else set(table) | set(merged)))
        if metre
        else {}
    )
    rows = []
    for ch, n in counts.most_common():
        g = groups.get(ch)
        if g is None or not is_two_tone(g):
            continue
        if (ch in table or ch in merged) and not include_table:
            continue
        readings = gy.get(ch, [])
        rows.append(
            {
                "char": ch,
                "count": str(n),
                "in_table": "yes" if ch in table else ("merged" if ch in merged else ""),
                "pingshui": " / ".join(g),
                "kind": kind(readings),
                "read_ping": str(sum(n for k, n in ctx[ch].items() if k.endswith("平"))),
                "read_ze": str(sum(n for k, n in ctx[ch].items() if k.endswith("仄"))),
                "readings_now": " ".join(f"{k}×{n}" for k, n in ctx[ch].most_common(4)),
                "guangyun": " | ".join(r.short() for r in readings),
                "metre_ping": _evidence_text(ev[ch], "平") if ch in ev else "",
                "metre_ze": _evidence_text(ev[ch], "仄") if ch in ev else "",
            }
        )
    return rows


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qieyun", type=Path, default=QIEYUN)
    ap.add_argument("--tsv", type=Path)
    ap.add_argument("--all", action="store_true", help="also the characters already in the table")
    ap.add_argument("--metre", action="store_true", help="where the forms put them (a minute)")
    args = ap.parse_args(argv)
    rows = candidates(args.qieyun, args.all, args.metre)
    cols = [
        "char",
        "count",
        "in_table",
        "pingshui",
        "kind",
        "read_ping",
        "read_ze",
        "readings_now",
        "guangyun",
        "metre_ping",
        "metre_ze",
    ]
    if args.tsv:
        with args.tsv.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols, delimiter="\t", lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    else:
        for r in rows:
            print("\t".join(r[c] for c in cols))
    kinds = Counter(r["kind"] for r in rows if not r["in_table"])
    total = sum(int(r["count"]) for r in rows if not r["in_table"])
    print(
        f"# {sum(kinds.values())} characters, {total} occurrences; by 《广韵》: "
        + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
