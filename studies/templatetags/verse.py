"""Template filters that show poems: ``{% load verse %}``.

``{{ text|verse }}``: a poem, one block per line, each line cut into phrases it may wrap
between (see ``studies.verse``), the longest line's length in ``--n`` for the CSS that
fits it to the width (static/css/site.css, "Verse"). ``{{ text|blanks }}``: text whose
runs of □ (missing characters) show as a blank with an accessible label.
``{{ text|first_words }}``: a poem's first words. ``{{ lines|longest }}``: the longest
of a list of lines (texts, or dicts with their ``chars``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from studies import verse as text

register = template.Library()


def _with_blanks(value: str) -> str:
    """Escaped ``value`` with each run of blank marks as one labelled blank."""
    out: list[str] = []
    at = 0
    for m in text.BLANK_RUN.finditer(value):
        out.append(conditional_escape(value[at : m.start()]))
        n = len(m.group()) if m.group()[0] == "□" else 0
        label = (
            ngettext("blank: %(n)d missing character", "blank: %(n)d missing characters", n)
            % {"n": n}
            if n
            else gettext("blank")
        )
        out.append(
            format_html(
                '<span class="blank" role="img" aria-label="{}" style="--len: {}"></span>',
                label,
                n or 4,
            )
        )
        at = m.end()
    out.append(conditional_escape(value[at:]))
    return "".join(out)


@register.filter(is_safe=True)
def blanks(value: Any) -> SafeString:
    return mark_safe(_with_blanks(str(value or "")))


@register.filter(is_safe=True)
def verse(value: Any) -> SafeString:
    poem = str(value or "")
    lines = "".join(
        '<span class="vl">'
        + "<wbr>".join(
            f'<span class="ph">{_with_blanks(phrase)}</span>' for phrase in text.phrases(line)
        )
        + "</span>"
        for line in text.verse_lines(poem)
    )
    return format_html(
        '<div class="poem" lang="zh-Hans" style="--n: {}">{}</div>',
        text.longest_line(poem),
        mark_safe(lines),
    )


@register.filter
def first_words(value: Any) -> str:
    return text.first_words(str(value or ""))


@register.filter
def longest(lines: Iterable[Any]) -> int:
    """The longest of ``lines`` in characters (at least 1)."""
    sizes = [len(line["chars"]) if isinstance(line, dict) else len(str(line)) for line in lines]
    return max(sizes, default=1) or 1


@register.filter
def one_based(indices: Iterable[Any]) -> list[Any]:
    """0-based indices (as the JSON diagnostics give them) counted from 1, for people."""
    return [i + 1 if isinstance(i, int) else i for i in indices or []]
