"""Prosody rule scores for Ci, regulated verse and couplets (pure Python, no Django).

Public API (stable; the Django app stores ``metrics`` as responses of ``rule`` raters
together with :data:`RULES_VERSION`)::

    RULES_VERSION: str                       # "prosody-1.8"; bump when any rule changes

    score_poem(text, form, *, tone_system="classical", lenient=False, ccv_compatible=False,
               reading_overrides=None, cipu_source="best") -> PoemScore
        form: "ci:<cipai>" | "shi:jueju5" | "shi:jueju7" | "shi:lushi5" | "shi:lushi7"
              | "shi:pailu5" | "shi:pailu7" (排律) | "shi:guti" (古体 of any other shape)
              | "couplet" | None (detect a shi form, or a cipai named in a title line)
        tone_system: "classical" (the default: 词林正韵 for ci, 平水韵 for shi and
              couplets; 入声 = 仄) | "modern" (中华新韵 via pypinyin, in context; only
              when asked)
        lenient: a character with both tones attested fits either
        ccv_compatible: the CCiV benchmark's literal definitions
        cipu_source: "best" | "qinding" | "longyusheng": the 词谱 a ci's headline figures
              use (the 钦定词谱 templates carry 龙榆生's 中 marks where CCiV ships none)

    PoemScore (frozen): form, metrics: dict[str, float | None], diagnostics: dict,
        tone_system, lenient, ccv_compatible, rules_version; .to_dict() -> JSON-ready dict

    char_tones(line, *, tone_system="classical", form_family="ci"|"shi") -> list[CharTone]
        CharTone (frozen): char, tone ("平"|"仄"|"?"), ambiguous, pinyin, source; .mark
        ("平"|"仄"|"中"|"?"), .fits(required, lenient=...), .to_dict()

    known_cipai() -> list[str]          # the 36 CCiV cipai, then 129 more from 龙榆生
    resolve_cipai(name) -> str | None   # aliases: 金缕曲/贺新郎, 望江南/忆江南, 乳燕飞 …

Metrics (every value in [0, 1], or None when not applicable):

* ci -- ``structural_standard``, ``tonal_standard`` (CCiV, standard form),
  ``structural_variant``, ``tonal_variant`` (CCiV, best over all templates), ``structural``
  and ``tonal`` (variant-aware and punctuation-tolerant; equal to the variant figures in
  CCiV-compatible mode), ``rhyme`` (share of the matched template's rhyme positions in the
  chosen rhyme group; None without a match).  Structural values are 0 or 1.
* shi -- ``structural`` (0/1: line count and length), ``pattern`` (share of positions
  fitting the best of the four standard patterns), ``pattern_licensed`` (same with
  一三五不论), ``rhyme`` (share of rhyme positions in one level rhyme), ``faults`` (1 minus
  the share of fault checks failed: 孤平, 三平尾, 失粘, 失对).
* couplet -- ``length`` (0/1), ``tone_opposition`` (weighted share of opposed positions),
  ``ending`` (0, 0.5 or 1: first line ends 仄, second 平).

Command-line helpers: ``python -m scoring.prosody.batch FILE`` (score a JSONL/CSV file of
poems) and ``python -m scoring.prosody.corpus_report FILE`` (rates per cipai).

See ``docs/prosody.md`` for the rules, sources, diagnostics and the corpus table.
"""

from .api import RULES_VERSION, PoemScore, score_poem
from .names import known_cipai, resolve_cipai
from .tones import CharTone, char_tones

__all__ = [
    "RULES_VERSION",
    "CharTone",
    "PoemScore",
    "char_tones",
    "known_cipai",
    "resolve_cipai",
    "score_poem",
]
