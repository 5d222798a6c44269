"""Text normalisation: what counts as a character, where lines break, what is not the poem.

Rule source: the CCiV paper's normalisation (strip non-Chinese characters, turn separators
into line breaks, trim, split into lines), extended for real inputs:

* A *character* is a CJK unified or compatibility ideograph of any plane, counted by code
  point (so 𪖙 U+2A599 is one character), or a placeholder for a lost character
  (``□ ■ ○ ● ◯ ＊ * ＿ _ ×``), which keeps its position and has an unknown tone.
* A *separator* is any punctuation or whitespace; other non-Chinese characters (Latin
  letters, digits, symbols) are dropped without breaking the line, so they never shift
  character positions.
* Around the poem, titles, author lines, bracketed notes and trailing commentary are
  stripped and reported (:func:`strip_apparatus`).
* Traditional characters are converted to simplified with OpenCC ``t2s`` before any table
  lookup (:func:`to_simplified`); positions are kept one to one.

In CCiV-compatible mode (:func:`ccv_lines`) only U+4E00..U+9FFF counts as Chinese, as in the
benchmark's own code, and placeholders are stripped like any non-Chinese character (never
turned into a line break: ``*`` is a placeholder, not a separator, in both modes).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

PLACEHOLDERS = frozenset("□■○●◯＊*＿_×")

_CJK_RANGES = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2EBEF),
    (0x2F800, 0x2FA1F),
    (0x30000, 0x323AF),
)


def is_cjk(ch: str) -> bool:
    """True for a CJK ideograph of any plane (one code point)."""
    if "\u4e00" <= ch <= "\u9fff":
        return True
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def is_poem_char(ch: str) -> bool:
    """A position-bearing character: a CJK ideograph or a lost-character placeholder."""
    return "\u4e00" <= ch <= "\u9fff" or ch in PLACEHOLDERS or is_cjk(ch)


def _is_separator(ch: str) -> bool:
    if ch in PLACEHOLDERS:
        return False
    cat = unicodedata.category(ch)
    return cat[0] in "PZ" or ch in "\t\n\r\v\f|｜/"


_POEM_CLASS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df\U0002a700-\U0002ebef"
    "\U0002f800-\U0002fa1f\U00030000-\U000323af" + re.escape("".join(sorted(PLACEHOLDERS)))
)
_CHUNKS = re.compile(f"([{_POEM_CLASS}]+)")


_JOINS: dict[str, bool] = {}  # run of non-poem characters -> has no separator


def _joins(part: str) -> bool:
    """True when a run of non-poem characters holds no separator (cached: the runs are
    mostly the same few punctuation marks and line breaks)."""
    found = _JOINS.get(part)
    if found is None:
        if len(_JOINS) > 4096:
            _JOINS.clear()
        found = _JOINS[part] = not any(_is_separator(ch) for ch in part)
    return found


def split_lines(text: str) -> list[str]:
    """Split text into lines of poem characters; separators break, other symbols vanish."""
    parts = _CHUNKS.split(text)
    lines: list[str] = []
    joined = False  # may the next run of poem characters continue the previous line?
    for k, part in enumerate(parts):
        if k % 2:  # a run of poem characters
            if joined and lines:
                lines[-1] += part
            else:
                lines.append(part)
        elif part:
            joined = _joins(part)
        else:
            joined = False
    return lines


def ccv_lines(text: str) -> list[str]:
    """CCiV-compatible normalisation: only U+4E00..U+9FFF is Chinese; all else separates or goes.

    Punctuation and whitespace are separators; any other character is deleted.  A
    placeholder for a lost character (:data:`PLACEHOLDERS`, ``*`` included although
    Unicode calls it punctuation) is deleted without separating: it is never a separator,
    in either mode.
    """
    lines: list[str] = []
    cur: list[str] = []
    for ch in text:
        if "\u4e00" <= ch <= "\u9fff":
            cur.append(ch)
        elif ch in PLACEHOLDERS:
            continue  # a lost character: not Chinese, and never a separator
        elif unicodedata.category(ch)[0] in "PZ" or ch in "\t\n\r":
            if cur:
                lines.append("".join(cur))
            cur = []
    if cur:
        lines.append("".join(cur))
    return lines


@lru_cache(maxsize=1)
def _t2s() -> Callable[[str], str]:
    """OpenCC's ``t2s`` conversion (the C++ library through its Python binding)."""
    from opencc import OpenCC

    convert: Callable[[str], str] = OpenCC("t2s.json").convert
    return convert


# Standard simplified characters that ``t2s`` would still replace, losing their own reading:
# 拚 pàn (拚醉, 拚却; 仄) is not 拼 pīn (平).
T2S_KEEP = frozenset("拚")


# Every character looked up so far, and those that t2s converts on their own (to one
# character): a text's characters are looked up once, then translated at C speed.
_T2S_SEEN: set[str] = set()
_T2S_ALONE: dict[int, str] = {}
# A character class of the keys of _T2S_ALONE, with how many there were when it was built:
# a text with none of them (most simplified text) is recognised by one C-level scan.  The
# dict only grows, so a class built from as many keys as it has now is current (also when
# threads convert at once: the keys are copied in one step before the class is built).
_T2S_ALONE_RE: tuple[int, re.Pattern[str]] | None = None


def _alone_re() -> re.Pattern[str]:
    global _T2S_ALONE_RE
    cached = _T2S_ALONE_RE
    if cached is None or cached[0] != len(_T2S_ALONE):
        keys = list(_T2S_ALONE)
        chars = "".join(sorted(map(chr, keys)))
        cached = (len(keys), re.compile(f"[{re.escape(chars)}]" if chars else "(?!)"))
        _T2S_ALONE_RE = cached
    return cached[1]


def to_simplified(line: str) -> str:
    """Traditional -> simplified, keeping the length (positions never shift).

    Text with no traditional character (none that OpenCC ``t2s`` converts on its own) is
    returned as it is.  Otherwise ``t2s`` converts it whole when that keeps its length (its
    phrases keep 乾坤), else character by character (a conversion that is not one character
    long is ignored).  The characters of :data:`T2S_KEEP` are never converted.
    """
    if not _T2S_SEEN.issuperset(line):
        fresh = set(line).difference(_T2S_SEEN)
        t2s = _t2s()
        for ch in fresh.difference(T2S_KEEP):
            out = t2s(ch)
            if len(out) == 1 and out != ch:
                _T2S_ALONE[ord(ch)] = out
        _T2S_SEEN.update(fresh)
    if _alone_re().search(line) is None:  # nothing t2s converts alone: as translate() would
        return line
    by_char = line.translate(_T2S_ALONE)
    if by_char == line:
        return line
    # Convert the whole line when OpenCC keeps its length: its phrase table keeps characters
    # that are also standard simplified ones (乾坤 stays 乾坤; 乾 alone would become 干 and
    # read gàn, 仄).  Otherwise the character by character conversion.
    # Separators (punctuation, line breaks) must stay where they are, so that lines and
    # positions are the same in the copy as in the text.
    whole = _t2s()(line)
    if len(whole) != len(line) or any(
        w != c and not is_cjk(c) for w, c in zip(whole, line, strict=True)
    ):
        return by_char
    if T2S_KEEP.isdisjoint(line):
        return whole
    return "".join(c if c in T2S_KEEP else w for w, c in zip(whole, line, strict=True))


def to_simplified_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """:func:`to_simplified` of each line; lines with no character that ``t2s`` converts on
    its own (most simplified text) are recognised in one scan and returned as they are."""
    text = "".join(lines)
    if _T2S_SEEN.issuperset(text) and _alone_re().search(text) is None:
        return tuple(lines)
    return tuple(map(to_simplified, lines))


# --- apparatus around the poem -------------------------------------------------------------

_NOTE_START = re.compile(
    r"(?:^|\n)\s*(?:【[^】\n]{0,8}】|\[[^\]\n]{0,8}\])?\s*"
    r"(?:注释|注解|注|附注|自注|原注|赏析|鉴赏|简析|评析|解析|译文|翻译|白话|创作背景|背景|"
    r"作者简介|说明|后记|题解|作品简介)\s*[0-9０-９一二三四五六七八九十]*\s*[：:]"
    r"|(?:^|\n)\s*【(?:注释|注解|注|赏析|鉴赏|译文|简析|评析|创作背景|作者简介|说明|题解)】"
    # a heading alone on its line, as gushiwen-style pages print it ("译文\n…", "注释\n…")
    r"|(?:^|\n)[ \t\u3000]*(?:注释|注解|译文|翻译|白话译文|译文及注释|注释及译文|注释译文|赏析|"
    r"鉴赏|简析|评析|创作背景|作者简介|题解|参考资料)[ \t\u3000]*(?=\n|$)"
)
_BRACKETS = re.compile(r"（[^（）]*）|\([^()]*\)|〔[^〔〕]*〕|\[[^\[\]]*\]|［[^［］]*］")
_LABEL_LINE = re.compile(
    r"^\s*(?:词牌名?|曲牌|题目|标题|诗题|题|作者|朝代|年代|体裁|格式|格律|形式|词题|韵部|"
    r"title|author|form|cipai)\s*[：:]",
    re.IGNORECASE,
)
_TITLE_MARKS = re.compile(r"[《》〈〉]")
_AUTHOR_LINE = re.compile(
    r"^\s*(?:[—－-]{1,3}\s*)?[\[［【（(]?(?:先秦|汉|魏|晋|南北朝|隋|唐|五代|宋|南宋|北宋|辽|金|元|明|清|近代|现代|当代)"
    r"(?:代|朝)?[\]］】）)]?\s*[·・．.:：\s]\s*\S{1,6}\s*$"
)
_SIGNATURE = re.compile(r"^\s*[—－-]{1,3}")
_LINE_LABEL = re.compile(r"^\s*(?:上联|下联|出句|对句|正文)\s*[：:]\s*")
# a couplet's second label inside a line ("上联：… 下联：…") starts a new line
_INNER_LABEL = re.compile(r"(?<=\S)[\s，,；;。、]*(?=(?:下联|对句)\s*[：:])")
# the horizontal scroll of a 春联 (横批：…) is not part of the couplet
_HENGPI = re.compile(r"(?:^|(?<=[\s，,；;。！!？?]))(?:横批|横额|横联)\s*[：:][^\n]*")


# Words one of which every match of _NOTE_START / _HENGPI contains: a text with none of them
# is not searched (the searches try every position; the ``in`` tests are C-level scans).
_NOTE_WORDS = ("注", "析", "赏", "译", "白话", "背景", "简介", "说明", "后记", "题解", "参考资料")
_HENGPI_WORDS = ("横批", "横额", "横联")


@dataclass
class Stripped:
    """The poem body and what was removed around it."""

    body: str
    header: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    brackets: list[str] = field(default_factory=list)


def _is_cipai_header(line: str, cipai_names: frozenset[str]) -> bool:
    core = line.strip()
    for sep in "·・.．:： \u3000-—":
        core = core.split(sep)[0]
    return core in cipai_names and len(split_lines(line)) <= 2 and not _has_inner_stop(line)


def _titled(header: list[str]) -> bool:
    """Was the last header line a marked title (《…》 or cipai·title)?"""
    return bool(header) and any(m in header[-1] for m in "《》·・")


def _is_author_name(line: str) -> bool:
    """A bare name (2-4 characters, no punctuation) right under a title is its author."""
    core = line.strip()
    return 2 <= len(core) <= 4 and all(is_cjk(c) for c in core)


def _has_inner_stop(line: str) -> bool:
    return any(p in line for p in "，。！？；")


def _cut(text: str, probe: str, pattern: re.Pattern[str], by: str = "") -> tuple[str, str]:
    """``pattern.sub(by, …)`` on the text and its simplified copy, matched on the copy."""
    for x in reversed(list(pattern.finditer(probe))):
        text = text[: x.start()] + by + text[x.end() :]
        probe = probe[: x.start()] + by + probe[x.end() :]
    return text, probe


def strip_apparatus(text: str, cipai_names: frozenset[str] = frozenset()) -> Stripped:
    """Remove titles, author lines, labels, bracketed notes and trailing commentary.

    Header lines are removed only from the top (a line with 《》, a ``作者：``-style label, a
    ``宋·苏轼``-style author line, or a line that is a cipai name optionally followed by
    ``·title``); notes are cut from the first ``注：`` / ``【注释】``-style marker on.
    """
    result = Stripped(body="")
    # The markers are matched on a simplified copy of the same length, cut alongside the
    # text (注釋, 詞牌：, 下聯： and 橫批 are the traditional pages' 注释, 词牌：, 下联： and 横批);
    # what is cut or kept is the text as given.
    text = text.replace("\r", "")
    probe = to_simplified(text)
    m = _NOTE_START.search(probe) if any(w in probe for w in _NOTE_WORDS) else None
    if m is not None:
        result.notes.append(text[m.start() :].strip())
        text, probe = text[: m.start()], probe[: m.start()]
    while True:
        b = _BRACKETS.search(text)
        if b is None:
            break
        result.brackets.append(b.group(0))
        text, probe = text[: b.start()] + text[b.end() :], probe[: b.start()] + probe[b.end() :]
    hengpi: list[str] = []
    if any(w in probe for w in _HENGPI_WORDS):
        hengpi = [text[h.start() : h.end()].strip() for h in _HENGPI.finditer(probe)]
        text, probe = _cut(text, probe, _HENGPI)
    if "下联" in probe or "对句" in probe:
        text, probe = _cut(text, probe, _INNER_LABEL, "\n")
    body: list[str] = []
    at_top = True
    for raw, raw_probe in zip(text.split("\n"), probe.split("\n"), strict=True):
        label = _LINE_LABEL.match(raw_probe)
        line, simple = (raw[label.end() :], raw_probe[label.end() :]) if label else (raw, raw_probe)
        if not line.strip():
            continue
        is_header = (
            _LABEL_LINE.match(simple) is not None
            or (at_top and _TITLE_MARKS.search(line) is not None and len(split_lines(line)) <= 3)
            or _AUTHOR_LINE.match(simple) is not None
            or (at_top and not result.header and _is_cipai_header(simple, cipai_names))
            or (not at_top and _SIGNATURE.match(line) is not None)
            or (at_top and _titled(result.header) and _is_author_name(line))
        )
        if is_header:
            result.header.append(line.strip())
            continue
        at_top = False
        body.append(line)
    result.header.extend(hengpi)
    result.body = "\n".join(body)
    return result
