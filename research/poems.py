"""The researcher's view of one poem: each character's tone, mismatches, rhymes, template."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop as N_

from annotation.models import Response
from research.access import study_for
from scoring.prosody.context import SAME_MEANING_SOURCE
from scoring.prosody.families import family
from scoring.rules import TONE_SYSTEMS, default_tone_system, study_cipu_source
from studies.models import Item


def _rhyme_positions(diag: dict[str, Any]) -> set[int]:
    template = diag.get("template") or diag.get("nearest") or {}
    positions = set(template.get("rhyme_positions") or [])
    for rhyme_set in (
        (diag.get("rhyme") or {}).get("sets", []) if isinstance(diag.get("rhyme"), dict) else []
    ):
        positions.update(rhyme_set.get("positions", []))
    return positions


def annotated_lines(diag: dict[str, Any]) -> list[dict[str, Any]]:
    """Lines as lists of characters with their tone, the required tone and flags."""
    rhymes = _rhyme_positions(diag)
    offset = 0
    out = []
    for line in diag.get("lines", []):
        text, marks = line.get("text", ""), line.get("marks") or line.get("tones") or ""
        required = line.get("required") or ""
        bad = set(line.get("mismatches") or [])
        chars = []
        for i, ch in enumerate(text):
            chars.append(
                {
                    "char": ch,
                    "mark": marks[i] if i < len(marks) else "?",
                    "required": required[i] if i < len(required) else "",
                    "pinyin": (line.get("pinyin") or [""] * len(text))[i]
                    if i < len(line.get("pinyin") or [])
                    else "",
                    "mismatch": i in bad,
                    "rhyme": (offset + i) in rhymes,
                }
            )
        offset += len(text)
        out.append({"chars": chars, "required": required})
    return out


def _where(line: int, position: int | None = None) -> str:
    """A 1-based reference to 0-based diagnostics indices, for people."""
    if position is None:
        return _("line %(line)d") % {"line": line + 1}
    return _("line %(line)d, character %(char)d") % {"line": line + 1, "char": position + 1}


def _structure_notes(diag: dict[str, Any]) -> list[dict[str, str]]:
    """Why the structure fails: each line against the nearest form (ci) or the form (shi)."""
    ops_names = {
        "too_long": _("line too long"),
        "too_short": _("line too short"),
        "merged": _("two phrases in one line (a break missing)"),
        "split": _("one phrase in two lines (an extra break)"),
        "moved": _("the break between these lines is elsewhere"),
        "extra": _("a line the form does not have"),
        "missing": _("a phrase of the form is missing"),
    }
    near = diag.get("nearest") if isinstance(diag.get("nearest"), dict) else None
    ops = near["diff"] if near else diag.get("diff") or []
    out: list[dict[str, str]] = []
    if near:
        out.append(
            {
                "where": _("structure"),
                "what": _("fits no template; the nearest is %(name)s (%(chars)d characters)")
                % {"name": f"{near['id']} {near.get('name', '')}".strip(), "chars": near["chars"]},
                "source": near.get("gelv", ""),
            }
        )
    for o in ops:
        lines = o["poem_lines"]
        where = (
            "、".join(_where(k) for k in lines)
            if lines
            else _("phrase %(n)d of the form") % {"n": o["template_lines"][0] + 1}
        )
        problem = ops_names.get(o["op"], o["op"])
        if o["op"] in ("extra", "missing"):  # a line with no phrase, a phrase with no line
            size = o["poem_len"] if o["op"] == "extra" else o["template_len"]
            what = _("%(problem)s (%(n)d characters)") % {"problem": problem, "n": size}
        else:
            what = _("%(problem)s: %(poem)d characters where the form has %(form)d") % {
                "problem": problem,
                "poem": o["poem_len"],
                "form": o["template_len"],
            }
        out.append({"where": where, "what": what, "source": ""})
    return out


def _couplet_notes(diag: dict[str, Any]) -> list[dict[str, str]]:
    ending = diag.get("ending")
    if not isinstance(ending, dict):
        return []
    out = []
    if not ending.get("first_ends_ze"):
        out.append(
            {"where": _where(0), "what": _("the first line must end 仄 (上联仄收)"), "source": ""}
        )
    if not ending.get("second_ends_ping"):
        out.append(
            {"where": _where(1), "what": _("the second line must end 平 (下联平收)"), "source": ""}
        )
    return out


# The scorer's errors (scoring/prosody/api.py; English, as its diagnostics are), shown in
# the reader's language: (pattern, message with the pattern's named groups).
_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"no Chinese characters in the text"), N_("no Chinese characters in the text")),
    (re.compile(r"unknown cipai '(?P<name>.*)'"), N_("unknown tune (词牌): %(name)s")),
    (re.compile(r"unknown form '(?P<form>.*)'"), N_("unknown form: %(form)s")),
    (re.compile(r"could not find two lines"), N_("a couplet needs two lines")),
    (
        re.compile(
            r"form not given and not detected: the text has the lines and tones of "
            r"ci:(?P<tune>\S+) \(tonal (?P<tonal>[0-9.]+)\); give the form to score it"
        ),
        N_(
            "no form given; the text has the lines and tones of the ci %(tune)s "
            "(tones %(tonal)s): give the form to score it"
        ),
    ),
    (
        re.compile(
            r"form not given and not detected \((?P<n>\d+) lines of lengths \[(?P<lengths>.*)\]\)"
        ),
        N_("no form given, and none recognised (%(n)s lines, of %(lengths)s characters)"),
    ),
)


# Why a poem reads as 古体 (scoring/prosody/gu.py, guti.py, shi.py, api.py), in the reader's
# language: (pattern, message with the pattern's named groups).
_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"仄韵 \((?P<k>\d+) of (?P<n>\d+) rhyme lines end 仄\)"),
        N_("仄韵 (%(k)s of %(n)s rhyme lines end 仄)"),
    ),
    (
        re.compile(r"仄韵 \((?P<k>\d+) of (?P<n>\d+) rhymes oblique: (?P<rhymes>.*)\)"),
        N_("仄韵 (%(k)s of %(n)s rhymes oblique: %(rhymes)s)"),
    ),
    (
        re.compile(r"换韵 \(a new rhyme from line (?P<line>\d+)\)"),
        N_("换韵 (a new rhyme from line %(line)s)"),
    ),
    (
        re.compile(r"换韵 \((?P<n>\d+) rhymes, from lines (?P<lines>.*)\)"),
        N_("换韵 (%(n)s rhymes, from lines %(lines)s)"),
    ),
    (
        re.compile(r"出律 \(粘对 broken at (?P<k>\d+) of (?P<n>\d+) joins\)"),
        N_("出律 (粘对 broken at %(k)s of %(n)s joins)"),
    ),
    (
        re.compile(r"出律 \((?P<k>\d+) of (?P<n>\d+) couplets break the 律 beyond the licences\)"),
        N_("出律 (%(k)s of %(n)s couplets break the 律 beyond the licences)"),
    ),
    (
        re.compile(r"出律 \(三平调 in (?P<k>\d+) lines, the mark of 古风\)"),
        N_("出律 (三平调 in %(k)s lines, the mark of 古风)"),
    ),
    (
        re.compile(r"line count not 绝句/律诗 \((?P<n>\d+) lines of (?P<size>\d+)\), and not 排律"),
        N_("line count not 绝句/律诗 (%(n)s lines of %(size)s), and not 排律"),
    ),
    (
        re.compile(r"line count not 近体 \((?P<n>\d+) lines of (?P<size>\d+): .*\)"),
        N_("line count not 近体 (%(n)s lines of %(size)s: 绝句 4, 律诗 8, 排律 10+ even)"),
    ),
    (
        re.compile(r"杂言 \(lines of (?P<sizes>.*) characters\)"),
        N_("杂言 (lines of %(sizes)s characters)"),
    ),
)


def _readable(text: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """``text`` through the first message of ``table`` whose pattern it matches, in the
    reader's language; as given when none does."""
    for pattern, message in table:
        if m := pattern.fullmatch(text):
            return _(message) % m.groupdict()
    return text


def readable_reason(reason: str) -> str:
    """One reason a poem reads as 古体, in the reader's language (as given if unknown)."""
    return _readable(reason, _REASONS)


def readable_error(diag: dict[str, Any]) -> str | None:
    """Why the poem could not be scored, in the reader's language (the scorer's own words
    when the error is not one of the known ones)."""
    error = diag.get("error")
    return _readable(str(error), _ERRORS) if error else None


def readable_notes(diag: dict[str, Any]) -> list[dict[str, str]]:
    """Faults, licences, readings by the metre, and why a structure or a couplet's ending
    fails, each with a 1-based place."""
    out: list[dict[str, str]] = _structure_notes(diag) + _couplet_notes(diag)
    if diag.get("ti") == "古体":
        reasons = "；".join(readable_reason(r) for r in diag["gu"]["reasons"])
        what = (
            _(
                "the form given is 近体, but the text reads as 古体 (%(reasons)s): no 律 pattern or faults are counted"
            )
            if diag.get("notice")
            else _("古体 (%(reasons)s): no 律 pattern or faults are counted")
        )
        out.append(
            {
                "where": _("form"),
                "what": what % {"reasons": reasons},
                "source": diag["gu"]["source"],
            }
        )
    for k, line in enumerate(diag.get("lines") or []):
        for x in line.get("licences") or []:
            if "licence" in x:
                out.append(
                    {
                        "where": _where(k, x["position"]),
                        "what": _("licence: %(name)s") % {"name": x["licence"]},
                        "source": x["source"],
                    }
                )
            else:
                out.append(
                    {
                        "where": _where(k, x["position"]),
                        "what": _("fault: %(name)s") % {"name": x["fault"]},
                        "source": "",
                    }
                )
    for f in diag.get("faults") or []:
        where = "、".join(_where(i) for i in f.get("lines", [])) or _where(f["line"])
        out.append({"where": where, "what": _("fault: %(name)s") % {"name": f["fault"]}})
    for k, p in diag.get("resolved_by_rhyme") or []:
        out.append(
            {
                "where": _where(k, p),
                "what": _("both tones attested: read as the rhyme position requires"),
                "source": "",
            }
        )
    for k, p in diag.get("resolved_by_metre") or []:
        out.append(
            {
                "where": _where(k, p),
                "what": _("same meaning in both tones: read as the metre requires"),
                "source": SAME_MEANING_SOURCE,
            }
        )
    rhyme: dict[str, Any] = diag["rhyme"] if isinstance(diag.get("rhyme"), dict) else {}
    for rs in rhyme.get("sets") or []:
        if rs.get("allowance"):
            out.append(
                {
                    "where": rs["chars"],
                    "what": _("lenient rhyme: a documented 通押"),
                    "source": rs["allowance"],
                }
            )
    return out


@login_required
def poem_detail(request: HttpRequest, item_id: int) -> HttpResponse:
    item = Item.objects.select_related("task", "study").filter(pk=item_id).first()
    if item is None or not item.poem_text:
        raise Http404("No such poem")
    study_for(request.user, item.study_id)
    tone_system = request.GET.get("tones", "")
    if tone_system not in TONE_SYSTEMS:
        tone_system = default_tone_system(item.study)
    lenient = request.GET.get("lenient") == "1"
    score = family(tone_system).score(
        item.poem_text,
        item.poem_form or None,
        lenient=lenient,
        reading_overrides=item.study.reading_overrides or None,
        cipu_source=study_cipu_source(item.study),
    )
    diag = score.diagnostics
    stored = (
        Response.objects.filter(item=item, rater__kind="rule")
        .select_related("rater")
        .order_by("rater__name", "field")
    )
    context = {
        "item": item,
        "score": score,
        "diag": diag,
        "lines": annotated_lines(diag),
        "notes": readable_notes(diag),
        "error": readable_error(diag),
        "template": diag.get("template") or diag.get("nearest"),
        "matched": bool(diag.get("template")),
        "tone_system": tone_system,
        "lenient": lenient,
        "tone_systems": TONE_SYSTEMS,
        "stored": stored,
    }
    return render(request, "research/poem.html", context)
