"""Human-readable notes on a poem's diagnostics, with 1-based line and character numbers.

The JSON diagnostics count lines and positions from 0 (as a program reads them); every
note meant for a person counts from 1: "line 3, char 6".  Used by the offline tool's CSV
``notes`` column; the poem page builds the same 1-based references itself.
"""

from __future__ import annotations

from typing import Any


def at(line: int, position: int | None = None) -> str:
    """``line 3`` or ``line 3, char 6`` from 0-based indices."""
    return f"line {line + 1}" + ("" if position is None else f", char {position + 1}")


_OPS = {
    "too_long": "too long",
    "too_short": "too short",
    "merged": "two phrases in one line (a break missing)",
    "split": "one phrase in two lines (an extra break)",
    "moved": "the break between these lines is elsewhere",
    "extra": "a line the form does not have",
    "missing": "a phrase the form has is missing",
}


def _lines(ks: list[int]) -> str:
    return at(ks[0]) if len(ks) == 1 else f"lines {ks[0] + 1}-{ks[-1] + 1}"


def structure_notes(diag: dict[str, Any]) -> list[str]:
    """Why the structure fails: the error, the alignment with the nearest form (ci) or the
    form's lines (shi), and a sibling tune the poem fits."""
    out: list[str] = []
    if diag.get("error"):
        out.append(f"not scored: {diag['error']}")
    near = diag.get("nearest") if isinstance(diag.get("nearest"), dict) else None
    ops = near["diff"] if near else diag.get("diff") or []
    if near:
        out.append(
            f"structure: fits no template; nearest {near['id']} {near.get('name', '')} "
            f"({near['chars']} chars, cost {near['cost']:g})".replace("  ", " ")
        )
    elif ops:
        out.append("structure: the lines are not the form's")
    for o in ops:
        what = _OPS.get(o["op"], o["op"])
        if o["op"] == "extra":
            size = f"{o['poem_len']} chars"
        elif o["op"] == "missing":
            size = f"the form's phrase of {o['template_len']} chars"
        else:
            size = f"{o['poem_len']} chars where the form has {o['template_len']}"
        where = (
            _lines(o["poem_lines"])
            if o["poem_lines"]
            else f"the form's phrase {o['template_lines'][0] + 1}"
        )
        out.append(f"{where}: {what} ({size})")
    sib = diag.get("sibling")
    if isinstance(sib, dict):
        out.append(f"structure: {sib['note']}")
    return out


def template_note(diag: dict[str, Any]) -> list[str]:
    """Where the matched ci template's 可平可仄 marks come from, when not its own book's
    (docs/prosody.md §3.1): borrowed from a 龙榆生 form, or none found."""
    t = diag.get("template") if isinstance(diag.get("template"), dict) else None
    marks = str((t or {}).get("marks") or "original")
    if t is None or marks == "original":
        return []
    head = f"template: {t['id']} ({t.get('source', '')} {t.get('gelv', '')})".replace(" )", ")")
    if marks == "absent":
        return [f"{head}: no 可平可仄 marks found, its example's own tones required"]
    kind, rest = marks.split(":", 1)
    if kind == "aligned":
        donor, share = rest.rsplit(":", 1)
        return [
            f"{head}: 中 marks of 龙榆生's {donor} on its corresponding phrases ({share} chars)"
        ]
    return [f"{head}: 中 marks of 龙榆生's {rest} (the same 体)"]


def couplet_notes(diag: dict[str, Any]) -> list[str]:
    """A couplet's failed ending: the first line must end 仄, the second 平."""
    ending = diag.get("ending")
    if not isinstance(ending, dict):
        return []
    out = []
    lines = diag.get("lines") or []
    if not ending.get("first_ends_ze") and lines:
        out.append(f"line 1: ends {lines[0]['tones'][-1:] or '?'}, 仄 required (上联仄收)")
    if not ending.get("second_ends_ping") and len(lines) > 1:
        out.append(f"line 2: ends {lines[1]['tones'][-1:] or '?'}, 平 required (下联平收)")
    return out


def notes(diag: dict[str, Any]) -> list[str]:
    """One short note per fault, licence, mismatch, reading by the metre and rhyme miss,
    and why a structure or a couplet's ending fails."""
    out: list[str] = structure_notes(diag) + template_note(diag) + couplet_notes(diag)
    if diag.get("ti") == "古体":
        out.append(diag.get("notice") or f"古体: {'; '.join(diag['gu']['reasons'])}")
    for k, line in enumerate(diag.get("lines") or []):
        for x in line.get("licences") or []:
            what = x.get("licence") or x.get("fault")
            kind = "licence" if "licence" in x else "fault"
            out.append(f"{at(k, x['position'])}: {what} ({kind})")
        for p in line.get("mismatches") or []:
            if "licences" not in line:  # shi lines list every off-pattern position above
                req = (line.get("required") or "")[p : p + 1]
                both = p in (line.get("mismatches_ambiguous") or [])
                what = "ambiguous (both tones attested)" if both else "mismatch"
                out.append(
                    f"{at(k, p)}: {line['text'][p]} is {line['tones'][p]}, {req} required: {what}"
                )
    for f in diag.get("faults") or []:
        where = " & ".join(at(i) for i in f.get("lines", [])) or at(f["line"])
        out.append(f"{where}: {f['fault']}")
    for k, p in diag.get("resolved_by_rhyme") or []:
        out.append(f"{at(k, p)}: both tones attested, read as the rhyme position requires")
    for k, p in diag.get("resolved_by_metre") or []:
        out.append(f"{at(k, p)}: 两读同义, read as the metre requires")
    rhyme: dict[str, Any] = diag["rhyme"] if isinstance(diag.get("rhyme"), dict) else {}
    for s in rhyme.get("sets") or []:
        misses = [c for c, ok in zip(s["chars"], s["ok"], strict=False) if ok is False]
        if misses:
            group = s["group"] or "no two rhyme lines share a rhyme"
            out.append(f"rhyme ({rhyme.get('book')}, {group}): {''.join(misses)} off")
        if s.get("allowance"):
            out.append(f"rhyme lenient: {s['allowance']}")
    return out
