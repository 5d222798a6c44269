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


def notes(diag: dict[str, Any]) -> list[str]:
    """One short note per fault, licence, mismatch, reading by the metre and rhyme miss."""
    out: list[str] = []
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
            out.append(f"rhyme ({rhyme.get('book')}, {s['group']}): {''.join(misses)} off")
        if s.get("allowance"):
            out.append(f"rhyme lenient: {s['allowance']}")
    return out
