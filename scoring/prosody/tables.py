"""Cached loaders for the bundled prosody tables (read once with importlib.resources).

Sources (see ``data/SOURCES.md``):

* ``cipai/cipai2info.json`` -- the CCiV / Fuxi cipai templates (cubenlp/FuxiBench, Apache-2.0).
* ``cipu/ci_index.json`` and ``cipu/longyusheng/cipai_<idx>_long.json`` -- the 钦定词谱 index
  and 龙榆生《唐宋词格律》 forms with rhyme positions (hulbji/couyun, MIT).
* ``rhyme/*.json`` -- 中华新韵, 平水韵 and 词林正韵 tables and per-character 平/仄 summaries
  (charlesix59/chinese_word_rhyme, MIT).

Every loader is wrapped in :func:`functools.lru_cache`, so each file is parsed at most once
per process.  The tables are plain dicts and frozensets; callers must not mutate them.

Data quirk handled here: ``Word_Tune.json`` marks 157 characters that the 平水韵 table lists
under both a level and an oblique rhyme (空 离 施 重 长 …) as plain ``仄``; likewise some
``Ci_Word_Tune.json`` entries.  A character listed under both tones in the rhyme book is
treated as ``多`` (both readings attested), which is what the rhyme book itself says.

A second quirk: every 平水韵 rhyme is named after its first character (一东 东, 一先 先),
and ``Pingshui_Rhyme.json`` leaves 先 out of 下平一先 (it lists it only under 去声 十七霰),
so 先 was read 仄 and did not rhyme in 一先.  :func:`pingshui` puts each rhyme's name
character back into its rhyme (checked over all 106 rhymes: 先 is the only one missing).

A third: the table is written in simplified characters, so a rhyme character that the
simplification merged with another word of another rhyme is lost from its rhyme:
:data:`PINGSHUI_ADDED` puts it back (蘋 in 十一真: 刘长卿 相思愁白蘋 rhymed 巾人春蘋).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

_PACKAGE = "scoring.prosody"

PING_SECTIONS = ("上平声部", "下平声部")

# Traditional characters that the simplification merges with a character of another
# classical tone, and that the bundled books (keyed by simplified characters) do not list
# under their own form: (tone, source).  Filled from the class check over the bundled
# corpus (tests/prosody/test_prosody_readings.py); the rhymes are 《广韵》's.
TRADITIONAL_TONES: dict[str, tuple[str, str]] = {
    "乾": ("平", "广韵 渠焉切 仙 / 古寒切 寒 (both 平; 干 is 多)"),
    "幹": ("仄", "广韵 古案切 翰 (去; 干 is 多)"),
    "徵": ("多", "广韵 陟陵切 蒸 (平) / 陟里切 止 (上, the note 徵)"),
    "隻": ("仄", "广韵 之石切 昔 (入; 只 is 多)"),
    "並": ("仄", "广韵 蒲迥切 迥 (上; 并 is 多)"),
    "併": ("仄", "广韵 畀政切 劲 (去; 并 is 多)"),
    "閒": ("多", "广韵 古閑切 山 (平) / 古莧切 裥 (去)"),
    "瀋": ("仄", "广韵 昌枕切 寝 (上; 沈 is 多)"),
}


# Characters the simplified 平水韵 file lost to a merge, put back in their rhyme: (section,
# rhyme, characters, source).  The simplified form is added too, since it stands for both
# words (苹 = 蘋 | 苹): a merged character is in the rhymes of each, as a polyphone is.
PINGSHUI_ADDED: tuple[tuple[str, str, str, str], ...] = (
    (
        "上平声部",
        "十一真",
        "蘋苹",
        "广韵 符真切 真韵 蘋 (大萍, 白蘋); the file lists 苹 (广韵 符兵切 庚韵, 草名) under "
        "八庚 only, where the simplification put 蘋",
    ),
    (
        "入声部",
        "入声五物",
        "髴",
        "广韵 敷勿切 物韵 (髣髴, = 彿); the file lists 佛 only: 髣髴 was read in modern 平 "
        "(the held-out audit's 4 rows)",
    ),
)


def _load(relpath: str) -> Any:
    ref = resources.files(_PACKAGE).joinpath("data", *relpath.split("/"))
    with ref.open("r", encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=1)
def pingshui() -> dict[str, dict[str, list[str]]]:
    """``Pingshui_Rhyme.json`` with each rhyme's name character in its own rhyme (一先 先) and
    the characters of :data:`PINGSHUI_ADDED` in theirs."""
    data: dict[str, dict[str, list[str]]] = _load("rhyme/Pingshui_Rhyme.json")
    out = {
        section: {
            rhyme: chars if rhyme[-1] in chars else [rhyme[-1], *chars]
            for rhyme, chars in sub.items()
        }
        for section, sub in data.items()
    }
    for section, rhyme, chars, _source in PINGSHUI_ADDED:
        listed = out[section][rhyme]
        listed += [c for c in chars if c not in listed]
    return out


@lru_cache(maxsize=1)
def cipai2info() -> dict[str, Any]:
    """The CCiV template file, keyed by cipai name (36 keys, insertion order kept)."""
    data: dict[str, Any] = _load("cipai/cipai2info.json")
    return data


@lru_cache(maxsize=1)
def ci_index() -> list[dict[str, Any]]:
    """The couyun 钦定词谱 index: 817 entries with ``idx``, ``names`` and ``long_exist``."""
    data: list[dict[str, Any]] = _load("cipu/ci_index.json")
    return data


@lru_cache(maxsize=1)
def ci_index_by_name() -> dict[str, dict[str, Any]]:
    """Map every name and alias (simplified and traditional) to its ci_index entry.

    When a name is shared, the first entry whose forms exist wins, then index order.
    """
    out: dict[str, dict[str, Any]] = {}
    entries = sorted(ci_index(), key=lambda e: (not e.get("long_exist", False), e["idx"]))
    for entry in entries:
        for name in [*entry["names"], *entry.get("names_trad", [])]:
            out.setdefault(name, entry)
    return out


@lru_cache(maxsize=256)
def longyusheng_forms(idx: int) -> tuple[dict[str, Any], ...]:
    """The 龙榆生 forms of ci_index entry ``idx`` (定格 first); empty when none exist."""
    try:
        data: list[dict[str, Any]] = _load(f"cipu/longyusheng/cipai_{idx}_long.json")
    except FileNotFoundError:
        return ()
    return tuple(data)


def _ping_ze_sets(groups: dict[str, Any], ping_keys: tuple[str, ...]) -> tuple[set[str], set[str]]:
    ping: set[str] = set()
    ze: set[str] = set()
    for section, sub in groups.items():
        for key, chars in sub.items():
            target = ping if (section in ping_keys or key in ping_keys) else ze
            target.update(chars)
    return ping, ze


@lru_cache(maxsize=1)
def shi_tone_table() -> dict[str, str]:
    """平水韵 tone of each character: ``平``, ``仄`` or ``多`` (入声 counts as 仄).

    ``Word_Tune.json`` as shipped, except that characters found under both level and oblique
    rhymes of ``Pingshui_Rhyme.json`` become ``多`` (see the module docstring) and characters
    the rhyme book lists (:data:`PINGSHUI_ADDED`) that it lacks take the book's tone.
    """
    table: dict[str, str] = dict(_load("rhyme/Word_Tune.json"))
    ping, ze = _ping_ze_sets(pingshui(), PING_SECTIONS)
    for ch in ping & ze:
        table[ch] = "多"
    for ch in ping - ze:  # the rhyme book's characters Word_Tune.json lacks (PINGSHUI_ADDED)
        table.setdefault(ch, "平")
    for ch in ze - ping:
        table.setdefault(ch, "仄")
    return table


@lru_cache(maxsize=1)
def ci_tone_table() -> dict[str, str]:
    """词林正韵 tone of each character: ``平``, ``仄`` or ``多`` (入声 counts as 仄).

    ``Ci_Word_Tune.json`` first; characters only in ``Cilin_Rhyme.json`` are added, and a
    character listed under both 平声 and 仄声/入声 becomes ``多``.
    """
    raw: dict[str, dict[str, str]] = _load("rhyme/Ci_Word_Tune.json")
    table = {ch: v["tune"] for ch, v in raw.items()}
    ping, ze = _ping_ze_sets(_load("rhyme/Cilin_Rhyme.json"), ("平声",))
    for ch in ping | ze:
        if ch in ping and ch in ze:
            table[ch] = "多"
        elif ch not in table:
            table[ch] = "平" if ch in ping else "仄"
    return table


def _char_groups(pairs: list[tuple[str, list[str]]]) -> dict[str, frozenset[str]]:
    acc: dict[str, set[str]] = {}
    for group, chars in pairs:
        for ch in chars:
            acc.setdefault(ch, set()).add(group)
    return {ch: frozenset(gs) for ch, gs in acc.items()}


@lru_cache(maxsize=1)
def xinyun_groups() -> dict[str, frozenset[str]]:
    """中华新韵: character -> the rhyme groups (of 14) it belongs to, either tone."""
    data: dict[str, dict[str, list[str]]] = _load("rhyme/Xinyun_Rhyme.json")
    return _char_groups([(g, chars) for g, sub in data.items() for chars in sub.values()])


@lru_cache(maxsize=1)
def cilin_groups() -> dict[str, frozenset[str]]:
    """词林正韵: character -> the 部 (of 19) it belongs to, any tone."""
    data: dict[str, dict[str, list[str]]] = _load("rhyme/Cilin_Rhyme.json")
    return _char_groups([(g, chars) for g, sub in data.items() for chars in sub.values()])


@lru_cache(maxsize=1)
def pingshui_ping_groups() -> dict[str, frozenset[str]]:
    """平水韵: character -> its level-tone rhymes (上平/下平 30 韵), for regulated verse."""
    data = pingshui()
    pairs = [
        (f"{section[:2]}{rhyme}", chars)
        for section, sub in data.items()
        if section in PING_SECTIONS
        for rhyme, chars in sub.items()
    ]
    return _char_groups(pairs)
