"""The two audits of issue 22 item 10, over the bundled 唐诗三百首 (data/corpus/).

* :func:`faults` -- every fault the classical system reports in the 214 regulated poems
  (tagged 五言/七言 律诗/绝句 and of that shape): the poem-level faults (孤平, 三平尾, 失粘,
  失对) and every off-pattern position no licence allows.  Each row of the checked-in
  ``data/tang300_faults.tsv`` carries its classification (real / licence / ambiguous) and a
  note; :mod:`test_prosody_audit` fails when a fault appears or disappears without the
  file changing.
* :func:`disagreements` -- every character of the annotated poems (``tang_300_strains``,
  chinese-poetry's 平仄 annotation; ``○``/``？`` unannotated) whose tone differs from the
  classical reading: for a regulated poem the tone as scored (两读 and ambiguous positions
  read by the metre), for the others the reading alone.  Each row of
  ``data/strains_disagreements.tsv`` says why.
* the same agreement over a held-out sample (:func:`heldout`: 310 Tang poems of three
  chinese-poetry files, none in 唐诗三百首, ``data/heldout_tang.jsonl``), written to
  ``data/heldout_disagreements.tsv``: ``disagreements(heldout())``.

Regenerate the files after a deliberate change (classifications and hand notes are kept
for rows that stay)::

    python tests/prosody/prosody_audit.py --write
"""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "data" / "corpus"
HERE = Path(__file__).resolve().parent / "data"
FAULTS_FILE = HERE / "tang300_faults.tsv"
DISAGREE_FILE = HERE / "strains_disagreements.tsv"
HELDOUT_FILE = HERE / "heldout_tang.jsonl"
HELDOUT_DISAGREE_FILE = HERE / "heldout_disagreements.tsv"
REGULATED_TAGS = ("五言律诗", "七言律诗", "五言绝句", "七言绝句")

# Poems tagged 绝句/律诗 in the source that are 古绝 / 古体: most are now read as 古体
# (scoring/prosody/gu.py: 仄韵, 出律) and have no 律 faults; the faults of the rest, under
# gu.chu_lu's threshold, are real breaches of 近体 rules in poems that do not follow them.
GU_TI = {
    "新嫁娘詞三首 三",
    "春怨",
    "頌古三十二首  其二三",
    "送方外上人",
    "送靈澈上人",
    "春曉",
    "輞川集 鹿柴",
    "輞川集 竹里館",
    "雜詩三首 二",
    "崔九欲往南山馬上口號與別",
    "江雪",
    "尋隱者不遇",
    "訪羊尊師",
    "靜夜思",
    "玉臺體十二首 十一",
    "秋夜寄丘二十二員外",
    "怨情",
    "聽彈琴",
    "終南別業",
    "宿桐廬江寄廣陵舊遊",
    "歲除夜有懷",
    "終南望餘雪",
}
# Hand notes, keyed by (title, fault): class and reason.
NOTES: dict[tuple[str, str], tuple[str, str]] = {
    ("隋宮", "孤平"): (
        "ambiguous",
        "障 has a 平 (诸良切, 隔也) and a 仄 (之亮切) reading in 《广韵》; read 平 (障泥 as "
        "遮泥) the line is 仄仄平平仄仄平 and has no 孤平",
    ),
    ("遣悲懷三首 二", "拗"): (
        "ambiguous",
        "施 is 平 (式支切, 施舍) and 仄 (以寘切, 延也) in 平水韵; read 仄 the line keeps the pattern",
    ),
    ("黃鶴樓", "拗"): (
        "real",
        "崔颢《黄鹤楼》's 古风式 opening (王力《诗词格律》: 拗律); 2 of 4 couplets out: stays 近体",
    ),
    ("黃鶴樓", "三平尾"): (
        "real",
        "白云千载空悠悠: 三平尾 in 崔颢's 拗律 (王力《诗词格律》); 2 of 4 couplets out: stays 近体",
    ),
    ("望洞庭湖贈張丞相", "孤平"): ("real", "八月湖水平: an unsaved 拗 in the first line"),
    ("望洞庭湖贈張丞相", "拗"): ("real", "八月湖水平: an unsaved 拗 in the first line"),
    ("送人東遊", "拗"): ("real", "何当重相见 平平平平仄: 重 chóng, 相 xiāng; an unsaved 拗"),
    ("奉濟驛重送嚴公四韻", "拗"): ("real", "几时杯重把 仄平平平仄: 重 chóng (again); 拗"),
    ("詠懷古跡五首 二", "失粘"): (
        "licence",
        "怅望千秋一洒泪 must be 仄 at 望 for 对 with 萧条; 失粘 with the line before: "
        "粘 was not yet strict in 杜甫's time (王力《诗词格律》第二章§3 失粘)",
    ),
    ("和賈舍人早朝大明宮之作", "失粘"): ("licence", "失粘 (王维; 盛唐 粘 not yet strict: 王力)"),
    ("積雨輞川莊作", "失粘"): ("licence", "失粘 (王维; 盛唐 粘 not yet strict: 王力)"),
    ("滁州西澗", "失粘"): ("licence", "失粘 (折腰体; 王力《诗词格律》 cites 盛唐/中唐 cases)"),
    ("登金陵鳳凰臺", "失粘"): ("licence", "失粘 (李白, 古风式的律诗; 王力)"),
    ("贈闕下裴舍人", "失粘"): ("licence", "失粘: 长乐 (宫名) 乐 入声; 折腰体 (王力)"),
    ("黃鶴樓送孟浩然之廣陵", "失对"): ("real", "故人西辞黄鹤楼: 人/花 both 平; 李白's 古绝 manner"),
    ("黃鶴樓送孟浩然之廣陵", "拗"): ("real", "故人西辞黄鹤楼: 2nd character 平 where 仄 is due"),
    ("聽蜀僧濬彈琴", "三平尾"): ("real", "西下峨眉峰: 三平尾"),
    ("闕題", "三平尾"): ("real", "春与青溪长: 长 cháng (as long as), 三平尾"),
    ("闕題", "拗"): ("real", "刘眘虚《阙题》 is 古风式: 拗 unsaved"),
}


@dataclass(frozen=True)
class Poem:
    id: str
    title: str
    author: str
    text: str
    regulated: bool


def poems() -> list[Poem]:
    from scoring.prosody.normalize import split_lines
    from scoring.prosody.shi import detect

    out = []
    for p in json.loads((CORPUS / "tang_300.json").read_text(encoding="utf-8")):
        text = "\n".join(p["paragraphs"])
        shape = detect(tuple(len(x) for x in split_lines(text)))
        regulated = shape is not None and any(t in p["tags"] for t in REGULATED_TAGS)
        out.append(Poem(p["id"], p["title"], p["author"], text, regulated))
    return out


def _fault_rows() -> list[dict[str, str]]:
    from scoring.prosody import score_poem

    rows = []
    for p in poems():
        if not p.regulated:
            continue
        d = score_poem(p.text, None, tone_system="classical").diagnostics
        # a poem read as 古体 has no 律 faults or licences (scoring/prosody/gu.py)
        items: list[tuple[str, Any]] = [("poem", f) for f in d.get("faults", [])]
        items += [
            ("position", v) for x in d["lines"] for v in x.get("licences", []) if "fault" in v
        ]
        for kind, f in items:
            lines = [f["line"]] if "line" in f else f["lines"]
            where = ",".join(str(i + 1) for i in lines)
            if "position" in f:
                where += f":{f['position'] + 1}"
            rows.append(
                {
                    "id": p.id,
                    "title": p.title,
                    "kind": kind,
                    "fault": f["fault"],
                    "where": where,  # 1-based line(s)[:character]
                    "text": " / ".join(d["lines"][i]["text"] for i in lines),
                    "tones": " / ".join(d["lines"][i]["tones"] for i in lines),
                    "required": " / ".join(d["lines"][i]["required_licensed"] for i in lines),
                }
            )
    return rows


def _classify(row: dict[str, str]) -> tuple[str, str]:
    if row["title"] in GU_TI:
        return "real", (
            "古体 in the source's 绝句/律诗 tags, under the 出律 threshold (gu.chu_lu: at most "
            "half the couplets out, 粘对 kept at most joins, no 三平调 in a 绝句): scored as 近体"
        )
    return NOTES.get((row["title"], row["fault"]), ("", ""))


def _key(row: dict[str, str]) -> tuple[str, ...]:
    return (row["id"], row["kind"], row["fault"], row["where"])


def faults() -> list[dict[str, str]]:
    """The fault rows as computed now, classified (a row no rule classifies has class "")."""
    out = []
    for row in _fault_rows():
        cls, note = _classify(row)
        out.append({**row, "class": cls, "note": note})
    return out


# --- agreement with chinese-poetry's 平仄 annotation -------------------------------------


# A corpus to compare: its poems and chinese-poetry's annotation of them (id -> strains).
Corpus = tuple[list[Poem], dict[str, list[str]]]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _annotation() -> dict[str, list[str]]:
    return {row["id"]: row["strains"] for row in _jsonl(CORPUS / "tang_300_strains.jsonl")}


def tang300() -> Corpus:
    return poems(), _annotation()


def heldout() -> Corpus:
    """The held-out Tang poems (``data/heldout_tang.jsonl``, none in 唐诗三百首) with their
    annotation.  They carry no form tags: a poem counts as regulated when it has a 近体
    shape (``shi.detect``) and the scorer does not read it as 古体 (§5.0), the
    nearest the tags' rule can be applied without tags."""
    from scoring.prosody import score_poem
    from scoring.prosody.normalize import split_lines
    from scoring.prosody.shi import detect

    out, ann = [], {}
    for row in _jsonl(HELDOUT_FILE):
        text = "\n".join(row["paragraphs"])
        shaped = detect(tuple(len(x) for x in split_lines(text))) is not None
        regulated = shaped and (
            score_poem(text, None, tone_system="classical").diagnostics.get("ti") != "古体"
        )
        out.append(Poem(row["id"], row["title"], row["author"], text, regulated))
        ann[row["id"]] = row["strains"]
    return out, ann


def _why(
    ch: str, simp: str, ann: str, ours: str, decided: dict[str, Any] | None, gu: bool = False
) -> str:
    from scoring.prosody.senses import polyphones
    from scoring.prosody.tables import pingshui, shi_tone_table

    groups = [
        r if r.startswith(sec[:2]) else sec[:2] + r
        for sec, sub in pingshui().items()
        for r, cs in sub.items()
        if simp in cs
    ]
    if decided is not None:
        by = decided["by"]
        entry = polyphones().get(ch) or polyphones().get(simp)
        sense = ""
        if entry is not None:
            sense = next((r.sense for r in entry.readings if r.pinyin == decided["pinyin"]), "")
        if by == "metre" and gu:  # a 古体 or unregulated poem has no 律 to read it by
            return (
                f"两读 (one sense, both tones: {' / '.join(groups)}); not read by a metre "
                f"(古体 or not regulated): read {ours}"
            )
        if by == "metre":
            return (
                f"两读 (one sense, both tones: {' / '.join(groups)}); read {ours} as the metre asks"
            )
        if by.startswith("phrase:") or by.startswith("word:"):
            return f"{by[by.index(':') + 1 :]} selects {decided['pinyin']} {ours} ({sense})"
        if by.startswith("ambiguous"):
            return f"original undecided ({by}); read {ours} as the metre asks"
        if by == "common":
            return (
                f"commonest classical reading {decided['pinyin']} {ours} ({sense}); "
                f"the annotation takes the other reading"
            )
    book = shi_tone_table().get(simp)
    entry = polyphones().get(ch) or polyphones().get(simp)
    if book == "多" and entry is not None:  # an entry with no default (its note says why)
        return (
            f"both tones in 平水韵 ({' / '.join(groups)}); the reading table sources no sense "
            f"split here: read {ours} in context"
        )
    if book == "多":
        return f"both tones in 平水韵 ({' / '.join(groups)}); read {ours} in context"
    if book == ours:
        return f"平水韵 lists it only as {ours} ({' / '.join(groups)}): the annotation's {ann} is no reading of it"
    return "unexplained"


@dataclass(frozen=True)
class Compared:
    """One annotated character (平 or 仄 in the annotation) and the tone read for it."""

    poem: Poem
    where: str  # 1-based line:character
    line: str
    char: str
    annotation: str
    ours: str
    decided: dict[str, Any] | None  # the reading decision reported for it, if any
    no_metre: bool  # no metre to read a 两读 position by (古体 or not regulated)


def compared(corpus: Corpus | None = None) -> list[Compared]:
    """Every annotated character of the paired poems of ``corpus`` (default: 唐诗三百首)."""
    from scoring.prosody import score_poem
    from scoring.prosody.normalize import split_lines
    from scoring.prosody.reading import read_lines

    poems_, ann = corpus if corpus is not None else tang300()
    out = []
    for p in poems_:
        no_metre = not p.regulated  # a poem not read as 近体: no metre to read a 两读 by
        strains = ann.get(p.id)
        if strains is None:
            continue
        lines = split_lines(p.text)
        marks = [x for s in strains for x in split_lines(s.replace("○", "□").replace("？", "□"))]
        if [len(x) for x in marks] != [len(x) for x in lines]:
            continue  # 長恨歌: 59 annotated lines for 60
        if p.regulated:
            d = score_poem(p.text, None, tone_system="classical").diagnostics
            tones = [x["tones"] for x in d["lines"]]
            no_metre = d.get("ti") == "古体"
            decided = [{r["index"]: r for r in x.get("readings", [])} for x in d["lines"]]
        else:
            r = read_lines(lines, system="classical", family="shi")
            tones = list(r.tone_lines)
            decided = [
                {i: r.decision_report(k)[j] for j, i in enumerate(sorted(r.decisions[k]))}
                for k in range(len(lines))
            ]
        for k, (x, a, t) in enumerate(zip(lines, marks, tones, strict=True)):
            for i, (ch, an, ours) in enumerate(zip(x, a, t, strict=True)):
                if an in "平仄":
                    where = f"{k + 1}:{i + 1}"
                    out.append(Compared(p, where, x, ch, an, ours, decided[k].get(i), no_metre))
    return out


def agreement(cs: list[Compared], regulated: bool | None = None) -> tuple[int, int]:
    """(characters agreeing, characters compared), of the regulated poems only if asked."""
    cs = [c for c in cs if regulated is None or c.poem.regulated == regulated]
    return sum(c.annotation == c.ours for c in cs), len(cs)


def disagreements(corpus: Corpus | None = None) -> tuple[list[dict[str, str]], int, int]:
    """(rows, characters compared, characters agreeing) over the paired annotated poems of
    ``corpus`` (default: the bundled 唐诗三百首)."""
    from scoring.prosody.normalize import to_simplified

    cs = compared(corpus)
    agree, total = agreement(cs)
    rows = [
        {
            "id": c.poem.id,
            "title": c.poem.title,
            "where": c.where,
            "line": c.line,
            "char": c.char,
            "annotation": c.annotation,
            "ours": c.ours,
            "regulated": "yes" if c.poem.regulated else "no",
            "reason": _why(
                c.char, to_simplified(c.char), c.annotation, c.ours, c.decided, c.no_metre
            ),
        }
        for c in cs
        if c.annotation != c.ours
    ]
    return rows, total, agree


FAULT_COLUMNS = [
    "id",
    "title",
    "kind",
    "fault",
    "where",
    "text",
    "tones",
    "required",
    "class",
    "note",
]
DISAGREE_COLUMNS = [
    "id",
    "title",
    "where",
    "line",
    "char",
    "annotation",
    "ours",
    "regulated",
    "reason",
]


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def write_tsv(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    kept = {_key(r): r for r in read_tsv(FAULTS_FILE)} if FAULTS_FILE.exists() else {}
    rows = []
    for row in faults():
        old = kept.get(_key(row))
        if not row["class"] and old is not None:
            row["class"], row["note"] = old["class"], old["note"]
        rows.append(row)
    write_tsv(FAULTS_FILE, rows, FAULT_COLUMNS)
    dis, total, agree = disagreements()
    write_tsv(DISAGREE_FILE, dis, DISAGREE_COLUMNS)
    print(f"{len(rows)} faults; agreement {agree}/{total} = {agree / total:.4f}")
    dis, total, agree = disagreements(heldout())
    write_tsv(HELDOUT_DISAGREE_FILE, dis, DISAGREE_COLUMNS)
    print(f"held-out agreement {agree}/{total} = {agree / total:.4f}")


if __name__ == "__main__" and "--write" in sys.argv:
    main()
