"""The rule families: the one place a way of scoring poems is named.

A study's ``rule_raters`` setting lists families by name (its first is the study's
default, which the poem pages and the dashboard open with); each family becomes one
stored rule rater, ``prosody:<name>``. The study settings' validator, the scoring of
stored rule raters, the poem page and the docs read this registry, so a new family is
one ``RuleFamily`` here (and its section in docs/prosody.md): no migration, no branch
elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .api import PoemScore, score_poem
from .ci import CipuSource
from .tones import ToneSystem


@dataclass(frozen=True)
class RuleFamily:
    """One way of scoring poems.

    ``tone_system``: the tones it reads. ``ccv_compatible``: the CCiV benchmark's literal
    definitions. ``default_ok``: it may be a study's default (a tone system a reader
    opens the poem pages with); a benchmark's literal mode is for comparison only.
    """

    name: str
    description: str
    tone_system: ToneSystem
    ccv_compatible: bool = False
    default_ok: bool = True

    def score(
        self,
        text: str,
        form: str | None,
        *,
        lenient: bool = False,
        reading_overrides: Mapping[str, str] | None = None,
        cipu_source: CipuSource = "best",
    ) -> PoemScore:
        """The poem scored by this family's definitions (``reading_overrides``: a study's
        or a reader's readings by character; ``cipu_source``: the study's 词谱, which the
        CCiV-literal family ignores; docs/prosody.md)."""
        return score_poem(
            text, form, tone_system=self.tone_system, lenient=lenient,
            ccv_compatible=self.ccv_compatible, reading_overrides=reading_overrides,
            cipu_source=cipu_source,
        )  # fmt: skip


FAMILIES: tuple[RuleFamily, ...] = (
    RuleFamily(
        "classical", "词林正韵 / 平水韵, 入声 = 仄 (the pre-modern forms' own)", "classical"
    ),
    RuleFamily("modern", "中华新韵 through pypinyin (for comparison)", "modern"),
    RuleFamily(
        "ccv",
        "the CCiV benchmark's literal definitions (its Table 2 as the paper computed it)",
        "modern",
        ccv_compatible=True,
        default_ok=False,
    ),
)
BY_NAME: dict[str, RuleFamily] = {f.name: f for f in FAMILIES}
#: What a study scores with when it says nothing: classical first, modern beside it.
DEFAULT_FAMILIES: tuple[str, ...] = ("classical", "modern")
#: The families a page can open with (the study's default must be one of them).
TONE_FAMILIES: tuple[str, ...] = tuple(f.name for f in FAMILIES if f.default_ok)


def family(name: str) -> RuleFamily:
    """The family ``name``; KeyError naming the known ones if there is none."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown rule family {name!r} (known: {', '.join(BY_NAME)})") from None
