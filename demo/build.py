"""Build the demo study's files from real data: Song ci, and published model results.

Every question is made from the chinese-poetry Song ci corpus; the only model results
loaded are the published FuxiBench/CCiV tables, as aggregates. Nothing is invented.
The output is ordinary interchange files (formats.md), loaded by the ordinary loaders.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

SLUG = "song-ci-demo"
AUTHORS = (
    "苏轼",
    "辛弃疾",
    "李清照",
    "柳永",
    "周邦彦",
    "晏殊",
    "欧阳修",
    "秦观",
    "姜夔",
    "陆游",
    "晏几道",
    "贺铸",
)
SPLIT = re.compile(r"[，。？！、；：,.?!;:]")
HOMONYM = re.compile(r"(?<=\D)\d+$")
PER_TASK = 24
MERGE = {"金缕曲": "贺新郎", "忆江南": "望江南"}  # one tune, two names (data/SOURCES.md §6a)

RATING_DIMENSIONS = [
    # The Tang-poetry generation study's five dimensions (domain.md §1.2) ...
    {
        "key": "prosody",
        "label": "韵律格律",
        "min": 1,
        "max": 5,
        "description": "平仄、押韵、节奏是否合律",
    },
    {
        "key": "theme",
        "label": "主题切合",
        "min": 1,
        "max": 5,
        "description": "内容是否切合词牌与题旨",
    },
    {
        "key": "emotion",
        "label": "情感一致",
        "min": 1,
        "max": 5,
        "description": "情感表达是否连贯一致",
    },
    {
        "key": "imagery",
        "label": "意象与结构",
        "min": 1,
        "max": 5,
        "description": "意象是否鲜明，章法是否完整",
    },
    {
        "key": "language",
        "label": "语言地道",
        "min": 1,
        "max": 5,
        "description": "是否像古典诗词的语言",
    },
    # ... and CCiV's two.
    {
        "key": "informativeness",
        "label": "信息量",
        "min": 1,
        "max": 5,
        "description": "内容是否充实",
    },
    {"key": "aesthetic", "label": "审美", "min": 1, "max": 5, "description": "整体的艺术美感"},
]


def load_corpus(path: Path) -> list[dict[str, Any]]:
    poems = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            poem = json.loads(line)
            if "□" in poem["text"]:
                continue  # lost characters make poor questions
            poem["cipai"] = MERGE.get(poem["cipai"], poem["cipai"])
            poem["lines"] = [s for s in SPLIT.split(poem["text"]) if s]
            poem["author"] = HOMONYM.sub("", poem["author"])  # "王炎2": the corpus's number
            poems.append(poem)
    return poems


def poem_text(poem: dict[str, Any]) -> str:
    return "\n".join(poem["paragraphs"])


def study_definition() -> dict[str, Any]:
    return {
        "slug": SLUG,
        "title": "宋词理解与品评（演示）",
        "description": (
            "这是一个演示研究，题目全部取自真实的宋词（chinese-poetry 语料）。"
            "您将辨认词牌、补全词句、识别作者，并对几首宋词作出评价。"
        ),
        "consent": (
            "本研究用于学术研究，考察读者对古典诗词的理解与评价。参与完全自愿，您可随时退出。"
            "我们只保存您的作答、作答用时和您对背景问题的回答，不收集姓名、邮箱或 IP 地址；"
            "数据以匿名编号保存，仅以汇总形式发表。点击“同意并开始”即表示您已阅读并同意以上内容。"
        ),
        "groups": [
            {"slug": "A", "name": "初中及以下"},
            {"slug": "B", "name": "高中/理工科本科"},
            {"slug": "C", "name": "中文专业/诗词作者"},
        ],
        "screening": [
            {
                "key": "education",
                "prompt": "您的最高学历/背景？",
                "options": [
                    {"label": "初中及以下", "group": "A"},
                    {"label": "高中或理工科本科", "group": "B"},
                    {"label": "中文相关专业或诗词作者", "group": "C"},
                ],
            }
        ],
        "tasks": [
            {
                "slug": "cipai",
                "title": "辨认词牌",
                "kind": "choice",
                "per_participant": 3,
                "instructions": "阅读下面这首宋词（不显示词牌），选出它所用的词牌。",
            },
            {
                "slug": "fill",
                "title": "补全词句",
                "kind": "choice",
                "per_participant": 3,
                "instructions": "词中有一句被“□”替代，请选出原句。",
            },
            {
                "slug": "ident",
                "title": "作者与下句",
                "kind": "multi",
                "per_participant": 2,
                "instructions": "根据所给词的开头，回答两个小题：作者是谁？下一句是什么？",
            },
            {
                "slug": "best3",
                "title": "三首择优",
                "kind": "best_worst",
                "per_participant": 2,
                "instructions": "下面是同一词牌的三首宋词，请选出您认为最好和最差的一首。",
            },
            {
                "slug": "rate",
                "title": "宋词评分",
                "kind": "rating",
                "per_participant": 2,
                "instructions": "请从以下七个方面为这首词打分（1 = 很差，5 = 很好）。",
                "dimensions": RATING_DIMENSIONS,
            },
        ],
        "target_per_item": {"A": 3, "B": 3, "C": 3},
        "settings": {"shuffle_options": True, "attention_max_failures": 0, "listed": True},
    }


def _famous(poems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in poems if p["author"] in AUTHORS and 4 <= len(p["lines"]) <= 24]


def cipai_items(poems: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    names = sorted({p["cipai"] for p in poems})
    items = []
    for n, poem in enumerate(rng.sample(_famous(poems), PER_TASK)):
        options = [poem["cipai"], *rng.sample([c for c in names if c != poem["cipai"]], 3)]
        rng.shuffle(options)
        items.append(
            {
                "id": f"cipai-{n + 1:03d}",
                "task": "cipai",
                "stem": "这首词的词牌是？",
                "poem": _ci_poem(poem),
                "options": options,
                "answer": options.index(poem["cipai"]),
                "meta": {"source_id": poem["id"]},
            }
        )
    items.append(_cipai_check(poems))
    return items


def _cipai_check(poems: list[dict[str, Any]]) -> dict[str, Any]:
    """An attention check: the answer is in the question itself. It shows a poem like the
    task's other items (the task's instructions say "read the poem below"): a real one of
    the corpus, chosen without the random generator (the other items stay as they were),
    whose tune is none of the options, so reading the poem alone points to no option."""
    options = ["菩萨蛮", "浣溪沙", "西江月", "清平乐"]
    poem = min((p for p in _famous(poems) if p["cipai"] not in options), key=lambda p: p["id"])
    return {
        "id": "cipai-check-1",
        "task": "cipai",
        "attention_check": True,
        "stem": "注意力检查：不论这首词用的是哪个词牌，请直接选择“浣溪沙”。",
        "poem": _ci_poem(poem),
        "options": options,
        "answer": 1,
        "meta": {"source_id": poem["id"]},
    }


def _ci_poem(poem: dict[str, Any]) -> dict[str, Any]:
    """A corpus ci as an item's poem (formats.md)."""
    return {
        "author": poem["author"],
        "text": poem_text(poem),
        "form": f"ci:{poem['cipai']}",
        "source": "human",
    }


def _by_cipai(poems: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    by_cipai: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in poems:
        by_cipai[p["cipai"]].append(p)
    return by_cipai


def _same_slot_lines(poem: dict[str, Any], pos: int, tune: list[dict[str, Any]]) -> list[str]:
    """Distractors: lines of the same length at the same position in other poems of the tune."""
    target = poem["lines"][pos]
    return sorted(
        {
            o["lines"][pos]
            for o in tune
            if o is not poem
            and len(o["lines"]) > pos
            and len(o["lines"][pos]) == len(target)
            and o["lines"][pos] != target
        }
    )


def fill_items(poems: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    by_cipai = _by_cipai(poems)
    items: list[dict[str, Any]] = []
    for poem in rng.sample(_famous(poems), len(_famous(poems))):
        if len(items) == PER_TASK:
            break
        pos = rng.randrange(1, len(poem["lines"]))
        target = poem["lines"][pos]
        pool = _same_slot_lines(poem, pos, by_cipai[poem["cipai"]])
        if len(pool) < 3 or len(target) < 4:
            continue
        options = [target, *rng.sample(pool, 3)]
        rng.shuffle(options)
        blanked = _blank(poem, pos)
        items.append(
            {
                "id": f"fill-{len(items) + 1:03d}",
                "task": "fill",
                "stem": f"《{poem['cipai']}》 {poem['author']}",
                "poem": {"text": blanked, "form": "", "source": "human"},
                "options": options,
                "answer": options.index(target),
                "meta": {"source_id": poem["id"], "line": pos},
            }
        )
    return items


def _blank(poem: dict[str, Any], pos: int) -> str:
    """The poem with line ``pos`` replaced by □ marks, punctuation and breaks kept."""
    out, index, buffer = [], 0, ""
    text = poem_text(poem)
    for ch in text:
        if SPLIT.match(ch) or ch == "\n":
            out.append("□" * len(buffer) if index == pos else buffer)
            out.append(ch)
            buffer = ""
            index += 0 if ch == "\n" else 1
        else:
            buffer += ch
    out.append("□" * len(buffer) if index == pos else buffer)
    return "".join(out)


def ident_items(poems: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    by_cipai = _by_cipai(poems)
    items: list[dict[str, Any]] = []
    for poem in rng.sample(_famous(poems), len(_famous(poems))):
        if len(items) == PER_TASK:
            break
        first, second = poem["lines"][0], poem["lines"][1]
        pool = _same_slot_lines(poem, 1, by_cipai[poem["cipai"]])
        if len(pool) < 3:
            continue
        authors = [poem["author"], *rng.sample([a for a in AUTHORS if a != poem["author"]], 3)]
        nexts = [second, *rng.sample(pool, 3)]
        rng.shuffle(authors)
        rng.shuffle(nexts)
        items.append(
            {
                "id": f"ident-{len(items) + 1:03d}",
                "task": "ident",
                "stem": f"《{poem['cipai']}》：{first}……",
                "parts": [
                    {
                        "key": "author",
                        "prompt": "作者是谁？",
                        "options": authors,
                        "answer": authors.index(poem["author"]),
                    },
                    {
                        "key": "next",
                        "prompt": "下一句是？",
                        "options": nexts,
                        "answer": nexts.index(second),
                    },
                ],
                "meta": {"source_id": poem["id"]},
            }
        )
    return items


def best3_items(poems: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    by_cipai: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in poems:
        # Short tunes keep three poems readable on a phone; whole poems only (the corpus
        # has fragments of a line or two, and placeholders such as "（缺词文）").
        if len(p["text"]) <= 70 and len(p["paragraphs"]) >= 4 and "缺" not in p["text"]:
            by_cipai[p["cipai"]].append(p)
    tunes = sorted(c for c, ps in by_cipai.items() if len(ps) >= 3)
    items = []
    for n in range(PER_TASK):
        cipai = tunes[n % len(tunes)]
        three = rng.sample(by_cipai[cipai], 3)
        items.append(
            {
                "id": f"best3-{n + 1:03d}",
                "task": "best3",
                "stem": f"同一词牌《{cipai}》的三首宋词",
                # No author beside the poems: a famous name biases the judgment.
                "options": [poem_text(p) for p in three],
                "meta": {
                    "source_ids": [p["id"] for p in three],
                    "authors": [p["author"] for p in three],
                    "cipai": cipai,
                },
            }
        )
    return items


def rate_items(poems: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    chosen = rng.sample([p for p in poems if len(p["text"]) <= 120], PER_TASK)
    return [
        {
            "id": f"rate-{n + 1:03d}",
            "task": "rate",
            "poem": {
                "title": p["rhythmic"],
                "author": p["author"],
                "form": f"ci:{p['cipai']}",
                "text": poem_text(p),
                "source": "human",
            },
            "meta": {"source_id": p["id"]},
        }
        for n, p in enumerate(chosen)
    ]


def published_aggregates(published: Path) -> list[dict[str, Any]]:
    """The FuxiBench/CCiV published tables as aggregate results (never item-level)."""
    rows: list[dict[str, Any]] = []
    source = "FuxiBench published cipai_stats.csv (zero-shot; standard-form structural accuracy)"
    with (published / "cipai_stats.csv").open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh):
            model = rec["Model_ID"]
            for column, value in rec.items():
                if column in ("Model", "Model_ID"):
                    continue
                task = "CiG" if column == "Overall" else f"CiG:{column}"
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        # Fùxì publishes it as accuracy; published_vs_computed reads CiG's
                        # accuracy as structural_fuxi (scoring/report/published.py)
                        "accuracy": round(float(value.rstrip("%")) / 100, 4),
                        "run": "zero-shot",
                        "n": 300 if column == "Overall" else 10,
                        "source": source,
                    }
                )
    with (published / "eval_results_icl.csv").open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh):
            model = rec[""]
            for task in ("CG", "CiG"):
                rows.append(
                    {
                        "model": model,
                        "task": task,
                        "accuracy": round(float(rec[task]) / 100, 4),
                        "run": "5-shot",
                        "source": "FuxiBench published eval_results_icl.csv (5-shot)",
                    }
                )
    return rows


def build(data_dir: Path, out_dir: Path, seed: int = 20261122) -> dict[str, Path]:
    """Write study.json, pool.jsonl and llm_outputs.jsonl for the demo into ``out_dir``."""
    rng = random.Random(seed)
    poems = load_corpus(data_dir / "corpus" / "song_ci_30cipai.jsonl")
    items = [
        *cipai_items(poems, rng),
        *fill_items(poems, rng),
        *ident_items(poems, rng),
        *best3_items(poems, rng),
        *rate_items(poems, rng),
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "study": out_dir / "study.json",
        "pool": out_dir / "pool.jsonl",
        "llm_outputs": out_dir / "llm_outputs.jsonl",
    }
    paths["study"].write_text(
        json.dumps(study_definition(), ensure_ascii=False, indent=2), encoding="utf-8"
    )
    with paths["pool"].open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    with paths["llm_outputs"].open("w", encoding="utf-8") as fh:
        for row in published_aggregates(data_dir / "published"):
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return paths
