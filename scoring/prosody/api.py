"""The public entry point: :func:`score_poem` and the :class:`PoemScore` it returns.

Rule sources are named in each form's module (:mod:`.ci`, :mod:`.shi`, :mod:`.couplet`);
this module only normalises the text (:mod:`.normalize`), reads its tones (:mod:`.tones`)
and dispatches on the form (``ci:<cipai>``, ``shi:jueju5|jueju7|lushi5|lushi7``,
``shi:pailu5|pailu7`` (排律), ``shi:guti`` (古体 of any other shape, :mod:`.guti`),
``couplet`` or None, as in ``docs/formats.md``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import ccv as ccv_mode
from . import fuxi, guti, names, parallel, pauses, templates
from .ci import CIPU_SOURCES, CipuSource, score_ci
from .couplet import score_couplet, split_couplet
from .normalize import ccv_lines, split_lines, strip_apparatus
from .reading import Reading, read_lines
from .senses import check_overrides
from .shi import FORMS as SHI_FORMS
from .shi import PAILU, detect, pailu, resplit, score_shi
from .tables import ci_index_by_name, cipai2info
from .tones import CharTone, FormFamily, ToneSystem, check_tone_system

# 1.8: the characters 平水韵 lists under both tones, read by 《广韵》 (docs §12)
RULES_VERSION = "prosody-1.8"  # 1.7: 古体 of any shape and 排律 (docs §5.0); 1.6: polyphones

CI_METRICS = (
    "structural",
    "tonal",
    "rhyme",
    "rhyme_lenient",
    "structural_fuxi",
    "structural_standard",
    "tonal_standard",
    "structural_variant",
    "tonal_variant",
)
SHI_METRICS = ("structural", "pattern", "pattern_licensed", "rhyme", "rhyme_lenient", "faults")
COUPLET_METRICS = ("length", "tone_opposition", "ending", "pos_parallelism_heuristic")


@dataclass(frozen=True)
class PoemScore:
    """Rule scores of one poem.

    ``metrics`` is flat: metric name -> value in [0, 1] or None (not applicable / unknown).
    ``diagnostics`` is JSON-serialisable and explains every figure.
    """

    form: str | None
    metrics: dict[str, float | None]
    diagnostics: dict[str, Any] = field(default_factory=dict)
    tone_system: str = "classical"
    lenient: bool = False
    ccv_compatible: bool = False
    rules_version: str = RULES_VERSION

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return {
            "form": self.form,
            "rules_version": self.rules_version,
            "tone_system": self.tone_system,
            "lenient": self.lenient,
            "ccv_compatible": self.ccv_compatible,
            "metrics": dict(self.metrics),
            "diagnostics": copy.deepcopy(self.diagnostics),
        }


@lru_cache(maxsize=1)
def _header_names() -> frozenset[str]:
    return frozenset(cipai2info()) | frozenset(ci_index_by_name())


def _empty(keys: tuple[str, ...]) -> dict[str, float | None]:
    return dict.fromkeys(keys)


def _bare_title_lines(body: str, *, detecting: bool) -> list[int]:
    """How many leading lines (1 or 2) could be an unmarked title and author.

    Candidates are short lines (at most 12 characters) with no punctuation.  They are only
    dropped when the poem fits its form without them.  When the form is to be detected
    from the line lengths and the poem has line breaks only, a candidate must also be
    shorter than every poem line (else any six equal lines would become a 绝句 by losing
    two); with a form given or named by a title, fitting it is the test.
    """
    raw = [x for x in body.split("\n") if x.strip()]
    out: list[int] = []
    for k in (1, 2):
        if len(raw) <= k:
            break
        head = raw[k - 1]
        size = len("".join(split_lines(head)))
        if _PUNCT.search(head.strip()) or not 0 < size <= 12:
            break
        if detecting and not any(_PUNCT.search(x) for x in raw[k:]):
            # a poem printed with line breaks only: its lines look like a title, so a
            # head line counts only when it is shorter than every line after the first two
            rest = [len("".join(split_lines(x))) for x in raw[2:] or raw[k:]]
            if size >= min(rest):
                break
        out.append(k)
    return out


_PUNCT = re.compile(r"[，。！？；：、,.!?;:]")
_MARKED_TITLE = re.compile(r"[《〈【\[［]([^《》〈〉【】\[\]［］]+)[》〉】\]］]")


def _header_cipai(line: str) -> str | None:
    """The cipai a stripped header line names: ``如梦令·…``, or inside marks: ``《如梦令·…》``."""
    return names.resolve_cipai(line) or next(
        (c for t in _MARKED_TITLE.findall(line) if (c := names.resolve_cipai(t))), None
    )


def score_poem(
    text: str,
    form: str | None,
    *,
    tone_system: ToneSystem = "classical",
    lenient: bool = False,
    ccv_compatible: bool = False,
    reading_overrides: Mapping[str, str] | None = None,
    cipu_source: CipuSource = "best",
) -> PoemScore:
    """Score a poem's form.  Never raises on odd text; problems go to ``diagnostics``.

    ``tone_system``: ``"classical"`` or ``"modern"`` (ValueError on another value).

    ``cipu_source``: which 词谱's templates a ci's headline figures use, ``"best"`` (the
    better fit of the 钦定词谱 and 龙榆生's forms), ``"qinding"`` or ``"longyusheng"``
    (:mod:`.ci`; ValueError on another value; ignored in the CCiV-literal mode).

    ``reading_overrides``: character -> TONE3 reading (``ling2``) or 平/仄, taken before the
    reading table (:mod:`.senses`); a bad entry raises ValueError.

    ``ccv_compatible`` follows the CCiV paper literally: no header stripping, only
    U+4E00..U+9FFF counts as Chinese, every character read alone and as written (never
    converted to simplified) by CCiV's converter (:mod:`.ccv`; ``tone_system`` and
    ``lenient`` are then ignored), and the headline
    ``structural``/``tonal`` equal the variant-aware figures.
    """
    check_tone_system(tone_system)
    system: ToneSystem = "modern" if ccv_compatible else tone_system
    lenient = lenient and not ccv_compatible
    overrides = check_overrides(reading_overrides)
    if cipu_source not in CIPU_SOURCES:
        raise ValueError(f"cipu_source {cipu_source!r}: one of {', '.join(CIPU_SOURCES)}")
    diag: dict[str, Any] = {"tone_system": system}
    if overrides and not ccv_compatible:
        diag["reading_overrides"] = overrides
    header: list[str] = []
    if ccv_compatible:
        body = text
        diag["reading"] = ccv_mode.SOURCE
    else:
        stripped = strip_apparatus(text, _header_names())
        body = stripped.body
        header = stripped.header
        removed = {
            k: v for k, v in (("notes", stripped.notes), ("brackets", stripped.brackets)) if v
        }
        if removed:
            diag["stripped"] = removed
    fm = (form or "").strip() or None
    result = _score_body(
        body, fm, header, system, lenient, ccv_compatible, text, overrides, source=cipu_source
    )
    zayan = _zayan(result, fm)  # 杂言 perhaps only by a bare title line: try without
    if not ccv_compatible and (zayan or not _fits(result[1])):
        raw = [x for x in body.split("\n") if x.strip()]
        detecting = fm is None and not any(_header_cipai(h) for h in header)
        for k in _bare_title_lines(body, detecting=detecting):
            alt = _score_body(
                "\n".join(raw[k:]),
                fm,
                header + raw[:k],
                system,
                lenient,
                False,
                text,
                overrides,
                source=cipu_source,
            )
            # a 杂言 poem keeps an unpunctuated head line only when it has no punctuation
            # anywhere (else the head is a title: 将进酒 / 君不见黄河之水天上来，…)
            still = zayan and _zayan(alt, fm) and not any(_PUNCT.search(x) for x in raw[k:])
            if _fits(alt[1]) and not still:
                result = alt
                break
    f, metrics, extra, used_header = result
    if used_header:
        diag.setdefault("stripped", {})["header"] = [h.strip() for h in used_header]
    diag.update(extra)
    return PoemScore(f, metrics, diag, system, lenient, ccv_compatible)


def _zayan(result: tuple[str | None, Any, dict[str, Any], Any], given: str | None) -> bool:
    """Was the form detected as a 杂言 古体 (which a title line left in could make it)?"""
    gu_reasons = result[2].get("gu", {}).get("reasons") or [""]
    return given is None and result[0] == guti.FORM and gu_reasons[0].startswith("杂言")


def _fits(metrics: dict[str, float | None]) -> bool:
    return bool(metrics.get("structural") or metrics.get("length"))


def _read(
    lines: list[str],
    system: ToneSystem,
    family: FormFamily,
    ccv: bool,
    overrides: Mapping[str, str] | None = None,
) -> Reading:
    """The lines read in context by the platform's rules (with a study's or a reader's
    reading overrides), or as CCiV's converter reads them."""
    if ccv:
        return ccv_mode.read_lines(lines)
    return read_lines(lines, system=system, family=family, overrides=overrides)


def _detected_form(
    lines: list[str], header: list[str], extra: dict[str, Any], gu_ok: bool = False
) -> str | None:
    """The form the line lengths say (绝句, 律诗), else a cipai the title names, else (with
    ``gu_ok``) a 排律's shape or a 古体's (:mod:`.guti`; ``extra['detected']`` says which);
    None, with ``extra['error']``, when none does."""
    lens = tuple(len(x) for x in lines)
    detected = detect(lens)
    if detected is not None:
        extra["detected"] = detected
        return detected
    header_cipai = next((c for h in header if (c := _header_cipai(h))), None)
    if header_cipai is not None:
        extra["detected"] = f"ci:{header_cipai} (from the title)"
        return f"ci:{header_cipai}"
    if gu_ok and (found := pailu(lens) or (guti.FORM if guti.shape_reason(lens) else None)):
        extra["detected"] = found
        return found
    extra["error"] = (
        "no Chinese characters in the text"
        if not lines
        else f"form not given and not detected ({len(lines)} lines of lengths {list(lens)})"
    )
    return None


def _score_ci_body(
    body: str,
    fm: str,
    lines: list[str],
    system: ToneSystem,
    lenient: bool,
    ccv: bool,
    raw: str,
    overrides: Mapping[str, str] | None,
    extra: dict[str, Any],
    source: CipuSource = "best",
) -> tuple[str, dict[str, float | None]]:
    """(form, metrics) of a ci of form ``fm`` (``ci:`` and a tune's name or alias), with
    the FuxiBench structure check beside the rules; diagnostics go into ``extra``."""
    requested = fm[3:].strip()
    name = names.resolve_cipai(requested)
    cipai = templates.load_cipai(name, literal=ccv) if name else None
    if cipai is None:
        extra.update(error=f"unknown cipai {requested!r}", requested=requested)
        return fm, _empty(CI_METRICS)
    reading = _read(lines, system, "ci", ccv, overrides)
    optional = frozenset() if ccv else pauses.optional_breaks(body, lines)
    metrics, more = score_ci(
        reading, cipai, system=system, lenient=lenient, ccv=ccv, optional=optional, source=source
    )
    extra.update(more)
    tune = fuxi.tune_for(requested, name)
    if tune is None:
        metrics["structural_fuxi"] = None
        extra["fuxi_structure"] = {"tune": None, "note": "not a FuxiBench tune"}
    else:
        fx = fuxi.check(tune, raw)
        metrics["structural_fuxi"] = 1.0 if fx.passed else 0.0
        extra["fuxi_structure"] = fx.to_dict()
    if name != requested:
        extra["requested"] = requested
    return f"ci:{cipai.name}", metrics


def _pailu_or_gu(
    reading: Reading,
    fm: str,
    metrics: dict[str, float | None],
    more: dict[str, Any],
    system: ToneSystem,
    extra: dict[str, Any],
) -> tuple[str, dict[str, float | None], dict[str, Any]]:
    """A poem of 排律 shape scored as 排律: kept when it keeps the 律 (the 出律 threshold of
    an eight-line poem, :mod:`.gu`) in one level rhyme, else a 古体 of that line count read
    in rhyme segments (:mod:`.guti`); a detected form becomes ``shi:guti``."""
    lost = list(more["gu"]["reasons"]) if more.get("ti") == "古体" else []
    if not lost and system == "classical":
        lost = guti.changed_rhyme(reading, system)  # a 排律 keeps one rhyme throughout
    if not lost:
        return fm, metrics, more
    n = len(reading.lines)
    why = [f"line count not 绝句/律诗 ({n} lines of {reading.lengths[0]}), and not 排律"]
    why += [r for r in lost if r.startswith("出律")]
    gm, gd = guti.score_guti(reading, system, why)
    if extra.get("detected") == fm:
        fm = extra["detected"] = guti.FORM
    return fm, gm, gd


def _score_body(
    body: str,
    fm: str | None,
    header: list[str],
    system: ToneSystem,
    lenient: bool,
    ccv: bool,
    raw: str,
    overrides: Mapping[str, str] | None = None,
    *,
    source: CipuSource = "best",
) -> tuple[str | None, dict[str, float | None], dict[str, Any], list[str]]:
    """(form, metrics, diagnostics, header lines used) for one reading of the body.

    ``raw``: the text as given, which FuxiBench's structure check reads (:mod:`.fuxi`).
    """
    lines = ccv_lines(body) if ccv else split_lines(body)
    extra: dict[str, Any] = {}
    if not ccv and (fm is None or fm in SHI_FORMS) and detect(tuple(map(len, lines))) is None:
        cut = resplit(lines, fm)
        if cut is not None:  # only line breaks missing: supply them (see shi.resplit)
            extra["line_breaks_supplied"] = len(cut[1]) - len(lines)
            lines = cut[1]
    if fm is None:
        fm = _detected_form(lines, header, extra, gu_ok=not ccv)
        if fm == guti.FORM and (tune := guti.ci_fit(body, lines, system)) is not None:
            del extra["detected"]  # the shape and tones of a ci: not read as 古体
            extra["error"] = (
                f"form not given and not detected: the text has the lines and tones of "
                f"ci:{tune[0]} (tonal {tune[1]:.2f}); give the form to score it"
            )
            return None, {}, extra, header
        if fm is None:
            return None, {}, extra, header
    if fm.startswith("ci:") or fm.startswith("ci："):
        form, metrics = _score_ci_body(
            body, fm, lines, system, lenient, ccv, raw, overrides, extra, source
        )
        return form, metrics, extra, header
    if fm in SHI_FORMS or fm in PAILU:
        reading = _read(lines, system, "shi", ccv, overrides)
        metrics, more = score_shi(reading, fm, system=system, lenient=lenient)
        if fm in PAILU:
            fm, metrics, more = _pailu_or_gu(reading, fm, metrics, more, system, extra)
        extra.update(more)
        if more.get("ti") == "古体" and "detected" not in extra:
            extra["notice"] = (
                f"the form given is {fm} (近体), but the text reads as 古体 "
                f"({'; '.join(more['gu']['reasons'])}): no 律 pattern or faults are counted"
            )
        return fm, metrics, extra, header
    if fm == guti.FORM:
        reading = _read(lines, system, "shi", ccv, overrides)
        reason = guti.shape_reason(reading.lengths) or f"the form given is {fm}"
        metrics, more = guti.score_guti(reading, system, [reason])
        extra.update(more)
        return fm, metrics, extra, header
    if fm == "couplet":
        pair = split_couplet("\n".join(lines) if ccv else body)
        if pair is None:
            extra["error"] = "could not find two lines"
            return fm, _empty(COUPLET_METRICS), extra, header
        halves: list[tuple[list[str], list[tuple[CharTone, ...]]]] = []
        simplified: list[tuple[str, ...]] = []
        for half in pair:
            segs = ccv_lines(half) if ccv else split_lines(half)
            r = _read(segs, system, "shi", ccv, overrides)
            halves.append((segs, list(r.tones)))
            simplified.append(r.simplified)
        metrics, more = score_couplet(halves[0], halves[1], lenient=lenient)
        extra.update(more)
        # 词性对仗: a heuristic beside the rule metrics (not in the CCiV-literal mode)
        metrics["pos_parallelism_heuristic"] = None
        if not ccv:
            share, why = parallel.pos_parallelism(*simplified)
            metrics["pos_parallelism_heuristic"] = share
            extra["pos_parallelism_heuristic"] = why
        return fm, metrics, extra, header
    extra["error"] = f"unknown form {fm!r}"
    return fm, {}, extra, header
