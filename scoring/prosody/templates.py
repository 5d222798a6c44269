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
* Cipai outside the CCiV 36 use the couyun 龙榆生 forms directly (163 cipai in all), so a
  浪淘沙 poem can be recognised as its sibling 浪淘沙令 (names and siblings: :mod:`.names`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import tables
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


@lru_cache(maxsize=512)
def load_cipai(name: str) -> Cipai | None:
    """The compiled templates of a canonical cipai name (see :func:`resolve_cipai`)."""
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
        return _index(name, idx, aliases, ts)
    if forms:
        return _index(
            name, idx, aliases, [_compile_couyun(name, i, f) for i, f in enumerate(forms)]
        )
    return None
