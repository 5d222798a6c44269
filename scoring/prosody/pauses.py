"""In-line pauses: breaks a printed ci may or may not mean as a 句/读 of its tune.

Editions print a 读 (a pause inside a phrase) with an enumeration comma, 怎一个、愁字了得
(李清照《声声慢》), and some print a space where a line pauses.  Whether such a mark
coincides with a phrase break of the template differs from 体 to 体 and from editor to
editor (龙榆生《唐宋词格律》 marks 读 in its forms, the 钦定词谱 often does not), so it is an
*optional* break: a template fits when every other break of the poem is one of its phrase
breaks and every phrase break of it is a break of the poem, optional or not.

An optional break is a run of ``、``, spaces or ideographic spaces (U+3000) with a poem
character on both sides; any other punctuation, a tab or a line break is a break.
"""

from __future__ import annotations

import itertools
import re

from .normalize import is_poem_char, split_lines

_PAUSE_RUN = re.compile("[、 \u3000]+")


def _drop_pauses(text: str) -> str:
    def keep(m: re.Match[str]) -> str:
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        inside = before and after and is_poem_char(before) and is_poem_char(after)
        return "" if inside else m.group()

    return _PAUSE_RUN.sub(keep, text)


def offsets(lengths: tuple[int, ...]) -> frozenset[int]:
    """Character offsets of the breaks between lines (the last line's end excluded)."""
    return frozenset(itertools.accumulate(lengths[:-1]))


def optional_breaks(body: str, lines: list[str]) -> frozenset[int]:
    """Offsets (in the poem's characters) of the breaks of ``lines`` that are in-line pauses.

    ``lines`` is ``split_lines(body)``; an offset is returned when the text without its
    in-line pauses has no break there.
    """
    if _PAUSE_RUN.search(body) is None:
        return frozenset()  # no pause marks: every break is a break
    merged = split_lines(_drop_pauses(body))
    if "".join(merged) != "".join(lines):
        return frozenset()
    return offsets(tuple(map(len, lines))) - offsets(tuple(map(len, merged)))
