"""The researcher's view of one poem: each character's tone, mismatches, rhymes, template."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from annotation.models import Response
from research.access import study_for
from scoring.prosody import score_poem
from scoring.prosody.context import SAME_MEANING_SOURCE
from scoring.rules import TONE_SYSTEMS, default_tone_system
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


def readable_notes(diag: dict[str, Any]) -> list[dict[str, str]]:
    """Faults, licences and readings by the metre, each with a 1-based place."""
    out: list[dict[str, str]] = []
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
    score = score_poem(
        item.poem_text,
        item.poem_form or None,
        tone_system="classical" if tone_system == "classical" else "modern",
        lenient=lenient,
        reading_overrides=item.study.reading_overrides or None,
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
        "template": diag.get("template") or diag.get("nearest"),
        "matched": bool(diag.get("template")),
        "tone_system": tone_system,
        "lenient": lenient,
        "tone_systems": TONE_SYSTEMS,
        "stored": stored,
    }
    return render(request, "research/poem.html", context)
