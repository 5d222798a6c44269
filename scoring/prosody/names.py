"""Cipai names: canonical names, aliases (别名) and sibling tunes.

Source: the couyun 钦定词谱 index ``cipu/ci_index.json`` (names and aliases, simplified and
traditional) and the CCiV template keys (``cipai/cipai2info.json``).  贺新郎 = 金缕曲 = 乳燕飞,
忆江南 = 望江南 = 江南好; siblings share a name stem (浪淘沙 / 浪淘沙令 / 浪淘沙慢).
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import tables
from .normalize import to_simplified
from .templates import load_cipai

_NAME_CLEAN = re.compile(r"^\s*(?:ci\s*[:：]|词牌名?\s*[:：])?\s*")


@lru_cache(maxsize=4096)
def resolve_cipai(name: str) -> str | None:
    """Canonical cipai name for a name or alias (贺新郎, 金缕曲, 乳燕飞 …), or None.

    Accepts ``水调歌头·明月几时有``-style titles and traditional characters.  A CCiV key is
    returned as given (贺新郎 and 金缕曲 are both CCiV keys, with identical templates).  A
    name joined by a middle dot is tried part by part, the first first: chinese-poetry's
    ``rhythmic`` writes ``别名・词牌`` (凤栖梧・蝶恋花, 江神子・江城子), so when the first
    part is unknown the tune may be the second.
    """
    s = _NAME_CLEAN.sub("", to_simplified(name)).strip()
    head = re.split(r"[(（:：\s]", s)[0]
    for part in re.split(r"[·・.．]", head):
        if found := _resolve_one(part):
            return found
    return None


def _resolve_one(s: str) -> str | None:
    """One name (no dot, no title) to its canonical cipai, or None."""
    if not s:
        return None
    ccv = tables.cipai2info()
    if s in ccv:
        return s
    entry = tables.ci_index_by_name().get(s)
    if entry is None:
        return None
    for n in entry["names"]:
        if n in ccv:
            return str(n)
    return str(entry["names"][0]) if entry.get("long_exist") else None


@lru_cache(maxsize=1)
def known_cipai() -> list[str]:
    """Every cipai that has templates: the 36 CCiV keys, then the other couyun 龙榆生 cipai."""
    ccv = list(tables.cipai2info())
    out = list(ccv)
    for entry in sorted(tables.ci_index(), key=lambda e: e["idx"]):
        if entry.get("long_exist") and not any(n in ccv for n in entry["names"]):
            out.append(str(entry["names"][0]))
    return out


@lru_cache(maxsize=512)
def siblings(name: str) -> tuple[str, ...]:
    """Cipai whose name contains, or is contained in, this one's (浪淘沙 / 浪淘沙令 / 浪淘沙慢)."""
    own = load_cipai(name)
    own_names = {name, *(own.aliases if own else ())}
    out: list[str] = []
    for cand in known_cipai():
        other = load_cipai(cand)
        if other is None:
            continue
        names = {cand, *other.aliases}
        if names & own_names or (own and other.idx is not None and other.idx == own.idx):
            continue
        if any(a in b or b in a for a in own_names for b in names if min(len(a), len(b)) > 1):
            out.append(cand)
    return tuple(out)
