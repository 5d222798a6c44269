"""Ci templates (词谱): the CCiV forms, their variants and their rhyme positions.

Sources:

* ``cipai/cipai2info.json`` (CCiV / Fuxi): the standard form is ``longyusheng_template[0]``;
  the variants are every 龙榆生 and 钦定词谱 template, in that order.  One symbol per syllable
  (平 / 仄 / 中 = either); phrases split on runs of ``\\t``, stanzas on ``\\n``.
* ``cipu/`` (couyun): aliases from ``ci_index.json`` (贺新郎 = 金缕曲, 忆江南 = 望江南 …), and
  rhyme positions from ``longyusheng/cipai_<idx>_long.json`` (``rhyme_pos`` and
  ``yun_classify``; a negative position there marks a 叶 rhyme in the same group).  A CCiV
  template takes the rhyme positions of the couyun form with the identical tone string;
  otherwise those of a couyun form with the same phrase lengths or positions inferred from
  the template's own example poem (phrase ends sharing the final character's 词林正韵 部
  and tone), whichever makes that example rhyme best.
* 可平可仄 marks: 187 of CCiV's 245 钦定词谱 templates carry their example poem's own
  tones and no 中.  Outside the CCiV-literal mode (``load_cipai(literal=True)``) each takes
  the 中 marks of a 龙榆生 form (CCiV's or couyun's) position by position: the form of its
  体 (same phrase lengths and final tone; same rhyme positions first), else the
  corresponding phrases of a neighbouring 体's form; ``marks`` names the donor or says
  ``absent`` (:func:`_borrow_marks`).
* Cipai outside the CCiV 36 use the couyun 龙榆生 forms directly (163 cipai in all), so a
  浪淘沙 poem can be recognised as its sibling 浪淘沙令 (names and siblings: :mod:`.names`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from . import tables
from .align import align
from .normalize import to_simplified

_PHRASE_SPLIT = re.compile(r"[\t\n\u3000 ]+")


@dataclass(frozen=True, slots=True)
class CiTemplate:
    """One form of a cipai, precompiled for matching."""

    cipai: str
    id: str  # "longyusheng:0", "qinding:3" or "couyun:1"
    name: str
    gelv: str
    tones: str  # 平/仄/中, one per character, no separators
    lengths: tuple[int, ...]  # phrase lengths
    stanza_starts: tuple[int, ...]  # indices of phrases opening a stanza (after the first)
    breaks: frozenset[int]  # character offsets where a phrase ends (excluding the last)
    rhyme_groups: tuple[tuple[int, ...], ...]
    rhyme_source: str
    example: str
    source: str = "龙榆生"  # the 词谱: "钦定词谱" or "龙榆生" (CCiV's or couyun's form)
    marks: str = "original"  # its 中 marks: "original", "borrowed:<id>" or "absent"

    @property
    def total(self) -> int:
        return len(self.tones)

    def phrase_tones(self) -> list[str]:
        out, pos = [], 0
        for n in self.lengths:
            out.append(self.tones[pos : pos + n])
            pos += n
        return out

    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary (cached: treat it as read-only)."""
        return _describe(self)

    def _describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cipai": self.cipai,
            "name": self.name,
            "gelv": self.gelv,
            "chars": self.total,
            "lengths": list(self.lengths),
            "tones": self.phrase_tones(),
            "rhyme_positions": sorted(p for g in self.rhyme_groups for p in g),
            "rhyme_source": self.rhyme_source,
            "source": self.source,
            "marks": self.marks,
        }


@lru_cache(maxsize=4096)
def _describe(t: CiTemplate) -> dict[str, Any]:
    return t._describe()


@dataclass(frozen=True)
class Cipai:
    """All templates of one cipai, indexed for constant-time structure lookup."""

    name: str
    idx: int | None
    aliases: tuple[str, ...]
    templates: tuple[CiTemplate, ...]
    by_lengths: dict[tuple[int, ...], tuple[CiTemplate, ...]] = field(repr=False)
    by_total: dict[int, tuple[CiTemplate, ...]] = field(repr=False)

    @property
    def standard(self) -> CiTemplate:
        return self.templates[0]


def _offsets(lengths: tuple[int, ...]) -> frozenset[int]:
    acc, out = 0, set()
    for n in lengths[:-1]:
        acc += n
        out.add(acc)
    return frozenset(out)


def _couyun_groups(form: dict[str, Any]) -> tuple[tuple[int, ...], ...]:
    yc: dict[str, list[int]] = form.get("yun_classify") or {}
    if yc:
        return tuple(tuple(sorted(abs(p) for p in ps)) for ps in yc.values() if ps)
    rp: list[int] = form.get("rhyme_pos") or []
    return (tuple(sorted(rp)),) if rp else ()


def _couyun_lengths(form: dict[str, Any]) -> tuple[int, ...]:
    return tuple(len(p) for seg in form["ci_sep"] for p in seg.split("\u3000") if p)


def _infer_rhyme(chars: str, lengths: tuple[int, ...], tones: str) -> tuple[tuple[int, ...], ...]:
    """Rhyme positions from an example poem: the phrase ends whose character shares the
    final character's 词林正韵 部 and whose template tone agrees with the final's (a 部 spans
    平 and 仄, but a tune rhyming in 平 does not rhyme on its 仄 phrase ends)."""
    if len(chars) != sum(lengths) or len(tones) != len(chars):
        return ()
    groups = tables.cilin_groups()
    ends, pos = [], 0
    for n in lengths:
        pos += n
        ends.append(pos - 1)
    last = ends[-1]
    final = groups.get(chars[last], frozenset())
    if not final:
        return ()
    ends = [e for e in ends if tones[e] in (tones[last], "中") or tones[last] == "中"]
    counts = Counter(g for e in ends for g in groups.get(chars[e], frozenset()))
    best = max(sorted(final), key=lambda g: counts[g])
    return (tuple(e for e in ends if best in groups.get(chars[e], frozenset())),)


def _example_rhyme(example: str, groups: tuple[tuple[int, ...], ...]) -> float:
    """How well an example poem rhymes (词林正韵) at the given position sets: the share of
    positions in their set's majority 部."""
    table = tables.cilin_groups()
    hit = total = 0
    for group in groups:
        chars = [example[p] for p in group if p < len(example)]
        counts = Counter(g for c in chars for g in table.get(c, frozenset()))
        if counts:
            hit += max(counts.values())
        total += len(chars)
    return hit / total if total else 0.0


def _compile_ccv(
    cipai: str, key: str, i: int, t: dict[str, Any], forms: tuple[Any, ...]
) -> CiTemplate:
    raw = t["template"].strip()
    lengths = tuple(len(p) for p in _PHRASE_SPLIT.split(raw) if p)
    tones = "".join(_PHRASE_SPLIT.split(raw))
    starts, count = [], 0
    for s_i, stanza in enumerate(re.split(r"\n+", raw)):
        if s_i:
            starts.append(count)
        count += len([p for p in _PHRASE_SPLIT.split(stanza) if p])
    groups: tuple[tuple[int, ...], ...] = ()
    source = "none"
    for f in forms:
        if f["ge_lyu_str"] == tones:
            groups, source = _couyun_groups(f), "couyun (same tones)"
            break
    if not groups:
        # Candidates: couyun forms with the same phrase lengths (their rhyme schemes may
        # differ: 水调歌头 has a 叶韵 form), and positions inferred from the example.
        example = to_simplified(re.sub(r"\s", "", t.get("example", "")))
        cands = [
            (_couyun_groups(f), "couyun (same phrase lengths)")
            for f in forms
            if _couyun_lengths(f) == lengths
        ]
        inferred = _infer_rhyme(example, lengths, tones)
        if inferred:
            cands.append((inferred, "inferred from the example"))
        if cands:
            # Best-rhyming scheme first; on a tie a borrowed one (it knows rhyme changes,
            # which inference from one final character cannot), then the fuller one.
            groups, source = max(
                cands,
                key=lambda c: (
                    round(_example_rhyme(example, c[0]), 3),
                    c[1].startswith("couyun"),
                    sum(map(len, c[0])),
                ),
            )
    return CiTemplate(
        cipai=cipai,
        id=f"{key}:{i}",
        name=t.get("name", ""),
        gelv=t.get("gelv", ""),
        tones=tones,
        lengths=lengths,
        stanza_starts=tuple(starts),
        breaks=_offsets(lengths),
        rhyme_groups=groups,
        rhyme_source=source,
        example=t.get("example", ""),
        source="钦定词谱" if key == "qinding" else "龙榆生",
    )


def _compile_couyun(cipai: str, i: int, f: dict[str, Any]) -> CiTemplate:
    lengths = _couyun_lengths(f)
    return CiTemplate(
        cipai=cipai,
        id=f"couyun:{i}",
        name="定格" if i == 0 else f"格{i + 1}",
        gelv="",
        tones=f["ge_lyu_str"],
        lengths=lengths,
        stanza_starts=(),
        breaks=_offsets(lengths),
        rhyme_groups=_couyun_groups(f),
        rhyme_source="couyun",
        example="\t".join(p for seg in f["ci_sep"] for p in seg.split("\u3000")),
    )


def _index(name: str, idx: int | None, aliases: tuple[str, ...], ts: list[CiTemplate]) -> Cipai:
    by_len: dict[tuple[int, ...], list[CiTemplate]] = {}
    by_tot: dict[int, list[CiTemplate]] = {}
    for t in ts:
        if sum(t.lengths) != t.total:
            continue  # malformed template; never matches
        by_len.setdefault(t.lengths, []).append(t)
        by_tot.setdefault(t.total, []).append(t)
    return Cipai(
        name=name,
        idx=idx,
        aliases=aliases,
        templates=tuple(ts),
        by_lengths={k: tuple(v) for k, v in by_len.items()},
        by_total={k: tuple(v) for k, v in by_tot.items()},
    )


def _positions(t: CiTemplate) -> frozenset[int]:
    return frozenset(p for g in t.rhyme_groups for p in g)


def _agreement(a: str, b: str) -> float:
    """Share of the positions fixed (平 or 仄) in both tone strings where they agree."""
    both = [(x, y) for x, y in zip(a, b, strict=True) if x != "中" and y != "中"]
    return sum(x == y for x, y in both) / len(both) if both else 0.0


MIN_AGREEMENT = 0.8
_ALIGNED_OPS = ("ok", "merged", "split", "moved")  # characters correspond one to one


def _donor(t: CiTemplate, donors: list[CiTemplate]) -> CiTemplate | None:
    """The 龙榆生 form of the same 体 as ``t``: the same phrase lengths, the same tone at
    the final rhyme (a 平韵 and a 仄韵 体 share their lengths), and where both know their
    rhyme positions, the same positions first; then the most fixed tones in common.  Only
    a form agreeing with ``t`` on at least 80% of the positions both fix is the same 体."""
    same = [
        d
        for d in donors
        if d.lengths == t.lengths
        and "中" in d.tones
        and d.tones[-1] in (t.tones[-1], "中")
        and _agreement(d.tones, t.tones) >= MIN_AGREEMENT
    ]
    if not same:
        return None
    own = _positions(t)
    return max(same, key=lambda d: (_positions(d) == own, round(_agreement(d.tones, t.tones), 3)))


def _corresponding(t: CiTemplate, d: CiTemplate) -> tuple[list[int], list[int]] | None:
    """Character offsets of ``t`` and of ``d`` that correspond phrase by phrase (the
    phrase-length alignment of :mod:`.align`: equal phrases, one phrase against two or
    three of the same joint length, or two phrases of the same joint length broken
    elsewhere, 上六下五 for 上四下七); None when fewer than half of ``t``'s do."""
    _, ops = align(t.lengths, d.lengths)
    mine: list[int] = []
    theirs: list[int] = []
    pos_t = pos_d = 0
    for o in ops:
        if o["op"] in _ALIGNED_OPS:
            mine += range(pos_t, pos_t + o["poem_len"])
            theirs += range(pos_d, pos_d + o["template_len"])
        pos_t += o["poem_len"] if o["poem_lines"] else 0
        pos_d += o["template_len"] if o["template_lines"] else 0
    return (mine, theirs) if 2 * len(mine) >= t.total else None


def _aligned_donor(
    t: CiTemplate, donors: list[CiTemplate]
) -> tuple[CiTemplate, list[int], list[int]] | None:
    """A 龙榆生 form of a neighbouring 体 (a phrase added, dropped or broken otherwise):
    its phrases that correspond to ``t``'s one to one, when they agree on at least 80% of
    the tones both fix there and end on the same tone; the most corresponding characters,
    then the best agreement, wins."""
    best: tuple[tuple[int, float], tuple[CiTemplate, list[int], list[int]]] | None = None
    for d in donors:
        if "中" not in d.tones or d.tones[-1] not in (t.tones[-1], "中"):
            continue
        pair = _corresponding(t, d)
        if pair is None:
            continue
        mine, theirs = pair
        agree = _agreement("".join(t.tones[i] for i in mine), "".join(d.tones[j] for j in theirs))
        key = (len(mine), round(agree, 3))
        if agree >= MIN_AGREEMENT and (best is None or key > best[0]):
            best = (key, (d, mine, theirs))
    return best[1] if best else None


def _borrow_marks(t: CiTemplate, donors: list[CiTemplate]) -> CiTemplate:
    """An unmarked 钦定词谱 template (no 中: CCiV ships the example poem's own tones) with
    the 中 marks of a 龙榆生 form, position by position.  ``marks`` says whence:
    ``borrowed:<id>`` (the form of the same 体, :func:`_donor`), ``aligned:<id>:<k>/<n>``
    (a neighbouring 体's corresponding phrases, ``k`` of the ``n`` characters,
    :func:`_aligned_donor`) or ``absent`` (no form agrees)."""
    if t.source != "钦定词谱" or "中" in t.tones:
        return t
    d = _donor(t, donors)
    if d is not None:
        tones = "".join("中" if m == "中" else c for c, m in zip(t.tones, d.tones, strict=True))
        return replace(t, tones=tones, marks=f"borrowed:{d.id}")
    near = _aligned_donor(t, donors)
    if near is None:
        return replace(t, marks="absent")
    d, mine, theirs = near
    out = list(t.tones)
    for i, j in zip(mine, theirs, strict=True):
        if d.tones[j] == "中":
            out[i] = "中"
    return replace(t, tones="".join(out), marks=f"aligned:{d.id}:{len(mine)}/{t.total}")


@lru_cache(maxsize=1024)
def load_cipai(name: str, *, literal: bool = False) -> Cipai | None:
    """The compiled templates of a canonical cipai name (see :func:`resolve_cipai`).

    ``literal``: CCiV's templates as it ships them (the CCiV-literal mode); otherwise each
    unmarked 钦定词谱 template takes the 中 marks of the 龙榆生 form of its 体
    (:func:`_borrow_marks`).
    """
    info = tables.cipai2info().get(name)
    entry = tables.ci_index_by_name().get(name)
    idx = int(entry["idx"]) if entry is not None else None
    aliases = tuple(n for n in (entry["names"] if entry else []) if n != name)
    forms = tables.longyusheng_forms(idx) if idx is not None else ()
    if info is not None:
        ts = [
            _compile_ccv(name, key, i, t, forms)
            for key in ("longyusheng", "qinding")
            for i, t in enumerate(
                info[f"{key}_template" if key == "longyusheng" else "qinding_templates"]
            )
        ]
        if not literal:
            donors = [t for t in ts if t.source == "龙榆生"]
            donors += [_compile_couyun(name, i, f) for i, f in enumerate(forms)]
            ts = [_borrow_marks(t, donors) for t in ts]
        return _index(name, idx, aliases, ts)
    if forms:
        return _index(
            name, idx, aliases, [_compile_couyun(name, i, f) for i, f in enumerate(forms)]
        )
    return None
