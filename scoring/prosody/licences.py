"""The recognised licences (拗救) of regulated verse: which off-pattern tones are allowed.

Rule source: 王力《诗词格律》 (中华书局, 1962; 第二章 §3 "近体诗的平仄": 一三五不论, 孤平,
拗救, 特定的平仄格式) and 王力《汉语诗律学》 (1958, 第一章 §10-§13, 拗救 and 特拗).  With
the five-character core of a line (a 七言 line is two characters + a 五言 core) of type
A 仄仄平平仄, B 平平仄仄平, C 平平平仄仄 or D 仄仄仄平平, an off-pattern character is:

* 一三五不论 -- the 1st character of a 七言 line, always; the core's 1st and 3rd, except
  where that makes 孤平 (B: 仄平仄仄平) or 三平尾 (D: 仄仄平平平);
* 孤平拗救 (本句自救) -- B with core 1st 仄 saved by core 3rd 平: 仄平平仄平;
* 小拗 -- A with core 3rd 仄 (仄仄仄平仄), allowed with or without a 救;
* 对句相救 -- A with core 4th 仄 (大拗: 仄仄平仄仄 / 仄仄仄仄仄) saved by the next line's
  core 3rd 平 (B becomes 平平平仄平); unsaved, the 4th is a fault;
* 特拗 -- C becoming 平平仄平仄 (core 3rd 仄, 4th 平), common in the 3rd/7th lines of
  绝句/律诗 (王之涣《凉州词》 羌笛何须怨杨柳);
* anything else off-pattern (the core's 2nd, 4th and 5th, the 2nd of a 七言 line) is a fault.

Characters of unknown tone are never off-pattern; ambiguous ones are not in lenient mode.

The licences live inside a couplet, so :func:`arrange` judges each couplet against the
couplet of the standard patterns it fits best (a 失粘 between couplets, the 折腰体, is then
one fault in ``faults``), and :func:`by_metre` reads a 两读同义 character (看 听 望 …) in
the tone that leaves the fewest faults once the licences apply.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .context import SAME_MEANING
from .tones import PING, UNKNOWN, ZE

SOURCE_WANG_GELU = "王力《诗词格律》第二章§3"
SOURCE_WANG_SHILU = "王力《汉语诗律学》§10-§13"

LICENCES = {
    "一三五不论": SOURCE_WANG_GELU,
    "孤平拗救": SOURCE_WANG_GELU + "（本句自救）",
    "小拗": SOURCE_WANG_SHILU + "（可救可不救）",
    "对句相救": SOURCE_WANG_GELU,
    "特拗": SOURCE_WANG_GELU + "（特定的平仄格式 平平仄平仄）",
}

TYPES5 = {"A": "仄仄平平仄", "B": "平平仄仄平", "C": "平平平仄仄", "D": "仄仄仄平平"}
_FLIP = {PING: ZE, ZE: PING}
_TYPES = {"仄仄平平仄": "A", "平平仄仄平": "B", "平平平仄仄": "C", "仄仄仄平平": "D"}


@dataclass(frozen=True)
class Verdict:
    """An off-pattern position: the licence that allows it, or None for a fault."""

    line: int  # 0-based
    position: int  # 0-based in the line
    licence: str | None
    fault: str | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "position": self.position}
        if self.licence is not None:
            out.update(licence=self.licence, source=LICENCES[self.licence])
        else:
            out["fault"] = self.fault
        return out


def _core(s: str) -> str:
    return s[-5:]


def _off(actual: str, required: str, ambiguous: bool, lenient: bool) -> bool:
    return actual not in (UNKNOWN, required) and not (lenient and ambiguous)


def judge(
    tones: list[str], marks: list[str], required: list[str], *, lenient: bool
) -> list[Verdict]:
    """Every off-pattern position of a poem against its pattern, with its licence or fault.

    ``tones`` (平/仄/?), ``marks`` (中 = ambiguous) and ``required`` are one string a line.
    """
    out: list[Verdict] = []
    for i, (t, m, r) in enumerate(zip(tones, marks, required, strict=True)):
        if t == r:  # on the pattern: nothing to judge
            continue
        nxt = _core(tones[i + 1]) if i + 1 < len(tones) and i % 2 == 0 else None
        prev = _core(tones[i - 1]) if i % 2 == 1 else None
        prev_kind = _TYPES.get(_core(required[i - 1]), "") if i % 2 == 1 else ""
        out.extend(
            Verdict(i, j, lic, fault)
            for j, lic, fault in _judge_line(t, m, r, nxt, prev, prev_kind, lenient)
        )
    return out


@lru_cache(maxsize=65536)
def _judge_line(
    t: str, m: str, r: str, nxt: str | None, prev: str | None, prev_kind: str, lenient: bool
) -> tuple[tuple[int, str | None, str | None], ...]:
    """(position, licence, fault) of each off-pattern position of one line (cached: the
    same line is judged against the same pattern for every candidate arrangement)."""
    out: list[tuple[int, str | None, str | None]] = []
    o = len(r) - 5
    kind = _TYPES.get(_core(r), "")
    core = _core(t)
    for j, (a, need) in enumerate(zip(t, r, strict=True)):
        if not _off(a, need, m[j] == "中", lenient):
            continue
        c = j - o + 1  # position in the core, 1-5 (<= 0 for a 七言 line's first two)
        lic, fault = _verdict(c, kind, core, nxt, prev, prev_kind)
        out.append((j, lic, None if lic else fault))
    return tuple(out)


Judged = tuple[str | None, str]  # (licence, or None; the fault if there is no licence)
_LOOSE: Judged = ("一三五不论", "拗")


def _verdict(
    c: int, kind: str, core: str, nxt: str | None, prev: str | None, prev_kind: str
) -> Judged:
    """An off-pattern position ``c`` of a line of type ``kind`` whose 5-character core
    is ``core`` (``nxt``, ``prev``: the couplet's other line, as in :func:`_judge_line`)."""
    if c == -1:
        return _LOOSE
    if c == 1:
        if kind != "B":
            return _LOOSE
        return ("孤平拗救", "拗") if core[2] == PING else (None, "孤平")
    if c == 3:
        return _third(kind, core, nxt, prev, prev_kind)
    if c == 4:
        if kind == "C" and core[2] == ZE:
            return "特拗", "拗"
        if kind == "A" and nxt is not None and nxt[2] == PING:
            return "对句相救", "拗"
    return None, "拗"


def _third(kind: str, core: str, nxt: str | None, prev: str | None, prev_kind: str) -> Judged:
    """The core's third position off the pattern (:func:`_verdict`)."""
    if kind == "A":
        saved = nxt is not None and nxt[2] == PING
        return ("对句相救" if saved else "小拗"), "拗"
    if kind == "B":
        if core[0] == ZE:
            return "孤平拗救", "拗"
        if prev_kind == "A" and prev is not None and ZE in (prev[2], prev[3]):
            return "对句相救", "拗"
        return _LOOSE
    if kind == "C":
        return ("特拗" if core[3] == PING else "一三五不论"), "拗"
    if core[3] == PING and core[4] == PING:
        return None, "三平尾"
    return None, "拗"


def licensed_share(
    tones: list[str], required: list[str], verdicts: list[Verdict]
) -> tuple[float, list[tuple[int, int]]]:
    """(share of known positions on the pattern or licensed, the faulty positions)."""
    known = sum(
        len(t)
        - (
            sum(1 for a, need in zip(t, r, strict=True) if a == UNKNOWN and need != "中")
            if UNKNOWN in t
            else 0
        )
        for t, r in zip(tones, required, strict=True)
    )
    bad = [(v.line, v.position) for v in verdicts if v.licence is None]
    return ((known - len(bad)) / known if known else 0.0), bad


@lru_cache(maxsize=16)
def line_type(t: str, n: int) -> str:
    five = TYPES5[t]
    return five if n == 5 else _FLIP[five[0]] * 2 + five


TYPE_OF = {v: k for k, v in TYPES5.items()}
# The couplets a pattern may be built of: line 1 may rhyme (D B, B D) or not (A B, C D);
# later couplets never rhyme their first line.
_FIRST_COUPLETS = ("AB", "DB", "CD", "BD")
_LATER_COUPLETS = ("AB", "CD")


def judge_poem(
    tones: str, marks: str, lines: list[str], n: int, lenient: bool
) -> tuple[float, list[tuple[int, int]], list[Verdict]]:
    """(licensed share, faulty positions, verdicts) of a poem against pattern ``lines``."""
    share, bad, verdicts = _judge_poem(tones, marks, tuple(lines), n, lenient)
    return share, list(bad), list(verdicts)


@lru_cache(maxsize=65536)
def _judge_poem(
    tones: str, marks: str, lines: tuple[str, ...], n: int, lenient: bool
) -> tuple[float, tuple[tuple[int, int], ...], tuple[Verdict, ...]]:
    """:func:`judge_poem`, cached: couplets of the same tones recur across poems, and the
    arrangement judges each couplet against every candidate pattern."""
    tl = [tones[i * n : (i + 1) * n] for i in range(len(lines))]
    ml = [marks[i * n : (i + 1) * n] for i in range(len(lines))]
    verdicts = judge(tl, ml, list(lines), lenient=lenient)
    share, bad = licensed_share(tl, list(lines), verdicts)
    return share, tuple(bad), tuple(verdicts)


MetreMemo = dict[tuple[Any, ...], str]


def by_metre(
    chars: str,
    tones: str,
    marks: str,
    lines: list[str],
    n: int,
    lenient: bool,
    memo: MetreMemo | None = None,
) -> tuple[str, list[int]]:
    """Read each 两读同义 character (:data:`.context.SAME_MEANING`, mark 中) as the metre does.

    Not simply the pattern's tone at its position: the reading that leaves the fewest
    faults once the licences are applied (then the fewest off-pattern positions, then the
    contextual reading), couplet by couplet, since the licences live inside a couplet.
    明朝望乡处 keeps 望 仄 (平平仄平仄 is 特拗); 晓看红湿处 reads 看 平.

    ``memo``: couplet readings already found for one poem (:func:`.shi.score_shi` asks for
    the same couplet against the same pattern lines several times).
    """
    if "中" not in marks or SAME_MEANING.isdisjoint(chars):
        return tones, []
    free = [i for i, c in enumerate(chars) if c in SAME_MEANING and marks[i] == "中"]
    if not free:
        return tones, []
    out = list(tones)
    for k in range(0, len(lines), 2):
        lo, hi = k * n, min(len(lines), k + 2) * n
        pos = tuple(i - lo for i in free if lo <= i < hi)
        if not pos or len(pos) > 8:
            continue
        req = lines[k : k + 2]
        key = (tones[lo:hi], marks[lo:hi], pos, n, lenient, *req)
        best = memo.get(key) if memo is not None else None
        if best is None:
            best = _metre_couplet(tones[lo:hi], marks[lo:hi], pos, req, n, lenient)
            if memo is not None:
                memo[key] = best
        out[lo:hi] = best
    fixed = "".join(out)
    return fixed, [i for i, (a, b) in enumerate(zip(fixed, tones, strict=True)) if a != b]


def _metre_couplet(
    tones: str, marks: str, pos: tuple[int, ...], req: list[str], n: int, lenient: bool
) -> str:
    """One couplet's tones with the free positions ``pos`` read as :func:`by_metre` says."""
    best: tuple[tuple[int, int, int], str] | None = None
    for combo in itertools.product((PING, ZE), repeat=len(pos)):
        t = list(tones)
        for i, tone in zip(pos, combo, strict=True):
            t[i] = tone
        cand = "".join(t)
        _, bad, verdicts = judge_poem(cand, marks, req, n, lenient)
        changes = sum(a != b for a, b in zip(cand, tones, strict=True))
        key = (len(bad), len(verdicts), changes)
        if best is None or key < best[0]:
            best = (key, cand)
    assert best is not None
    return best[1]


def arrange(
    tones: str,
    marks: str,
    chars: str,
    lines: list[str],
    n: int,
    lenient: bool,
    metre: bool,
    memo: MetreMemo | None = None,
) -> list[str]:
    """The pattern each couplet is judged against for ``pattern_licensed``.

    The licences (拗救) live inside a couplet, so each couplet is judged against the couplet
    of the standard patterns it fits best (fewest faulty positions; then, for the first
    couplet, the one whose line 1 ends in the tone the poem's does; then the global
    pattern's own couplet).  When a couplet leaves the global pattern the poem breaks 粘
    there (折腰体: 王维《送元二使安西》): that is one 失粘 in ``faults``, not a run of 拗 at
    every position after it.
    """
    out: list[str] = []
    for k in range(0, len(lines), 2):
        own = TYPE_OF[lines[k][-5:]] + TYPE_OF[lines[k + 1][-5:]]
        span = slice(k * n, (k + 2) * n)
        t, mk, ch = tones[span], marks[span], chars[span]
        best: tuple[tuple[int, bool, bool], list[str]] | None = None
        for pair in _FIRST_COUPLETS if k == 0 else _LATER_COUPLETS:
            req = [line_type(x, n) for x in pair]
            tt = by_metre(ch, t, mk, req, n, lenient, memo)[0] if metre else t
            _, bad, _ = judge_poem(tt, mk, req, n, lenient)
            key = (-len(bad), k > 0 or req[0][-1] == t[n - 1], pair == own)
            if best is None or key > best[0]:
                best = (key, req)
        assert best is not None
        out.extend(best[1])
    return out
