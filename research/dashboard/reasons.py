"""The report's notes (``reason`` and like columns) in the reader's language.

The report keeps its notes in English in every row it stores and exports (the JSON
document and the API are a contract: docs/report.md); the dashboard translates them when
it shows them. Each note the report writes is one template below, written as the report
writes it with ``%(name)s`` for what varies; a note is matched against the templates and
shown through gettext with the same values. A placeholder named ``why`` is a note of its
own (translated in turn). A note no template matches goes through gettext as it is (the
exclusions' reasons are msgids of ``scoring/report/data.py``), else is shown unchanged.

Add a template here when a new note is added to ``scoring/report`` or
``scoring/agreement``; ``tests/report/test_dashboard_language.py`` renders the worked
studies in Chinese and fails on any English sentence left.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

#: Notes as the report writes them (msgids are the English text).
TEMPLATES: tuple[str, ...] = (
    # exclusions (scoring/report/data.py)
    gettext_noop("excluded by a researcher: %(why)s"),
    # departures from the frozen plan (scoring/report/prereg.py, ``note``)
    gettext_noop("added after freezing"),
    gettext_noop("removed after freezing"),
    gettext_noop("changed after freezing"),
    gettext_noop("model rater added after freezing: %(name)s"),
    gettext_noop("model rater removed after freezing: %(name)s"),
    gettext_noop("model rater's runs changed after freezing: %(name)s"),
    gettext_noop("rule rater added after freezing: %(name)s"),
    gettext_noop("rule rater removed after freezing: %(name)s"),
    gettext_noop("rule rater's version changed after freezing: %(name)s"),
    gettext_noop("%(n)s participant(s) excluded by a researcher after freezing: %(ids)s"),
    gettext_noop("participant %(who)s excluded by a researcher after freezing (%(why)s)"),
    gettext_noop("exclusion of participant %(who)s withdrawn after freezing"),
    gettext_noop("reason for excluding participant %(who)s changed after freezing (%(why)s)"),
    # pass/fail gaps and echo chamber (scoring/agreement/gaps.py, scoring/report/echo.py)
    gettext_noop("not estimable: %(why)s"),
    gettext_noop("fewer than %(min)s poems on a side (%(short)s)"),
    gettext_noop("no variation on either side (a zero-width interval would be spurious)"),
    gettext_noop("no other model judge rated these poems"),
    gettext_noop("fewer than two clusters or answers"),
    gettext_noop("no answers"),
    # agreement coefficients (scoring/agreement)
    gettext_noop("no unit has two or more ratings (no pairable values)"),
    gettext_noop("no unit has two or more ratings"),
    gettext_noop("empty table"),
    gettext_noop(
        "all pairable values are identical: expected disagreement D_e = 0, alpha = 0/0 is undefined"
    ),
    gettext_noop("chance agreement p_e = 1 (every rating in one category): kappa = 0/0"),
    gettext_noop("chance agreement p_e = 1: kappa = 0/0"),
    gettext_noop("p_e = 1 (both raters used a single category): 0/0"),
    gettext_noop("Cohen's kappa needs exactly two raters; the table has %(n)s"),
    gettext_noop("no unit was rated by both raters"),
    gettext_noop("percent agreement is undefined"),
    gettext_noop("Cronbach's alpha needs numeric ratings (ordinal, interval or ratio)"),
    gettext_noop(
        "needs two or more items and two or more complete cases (%(cases)s); has %(k)s and %(n)s"
    ),
    gettext_noop("units rated by every rater"),
    gettext_noop("the total score has no variance: alpha = 0/0"),
    gettext_noop("category never used: kappa_j = 0/0"),
    gettext_noop("every rating is in this category: kappa_j = 0/0"),
    gettext_noop("a value is infinite or too large for float64: alpha is undefined"),
    # item fit (scoring/agreement/itemfit.py)
    gettext_noop("%(n)s units: S-X² is computed up to %(max)s"),
    gettext_noop("%(n)s respondents answered every unit: S-X² needs %(min)s"),
    gettext_noop(
        "fewer than %(min)s respondents share a set of answered units with this one in it (S-X²)"
    ),
    gettext_noop("its booklets are past S-X²'s computing budget (larger booklets first)"),
    # pairwise (scoring/report/pairwise.py)
    gettext_noop("no pair with a defined value"),
    gettext_noop("%(n)s raters: pairs are listed for sets of at most %(max)s"),
    gettext_noop("%(a)s × %(b)s raters: pairs are listed for sets of at most %(max)s"),
    # comparisons (scoring/report/comparisons.py)
    gettext_noop("no bootstrap (n_boot = 0)"),
    gettext_noop("%(n)s shared item(s); the paired bootstrap needs 2 or more"),
    gettext_noop("no items shared with the best model"),
    # form length (scoring/report/form_length.py)
    gettext_noop("fewer than %(min)s forms with a length (%(n)s)"),
    gettext_noop("constant lengths or values: rho is 0/0"),
    # ICC (scoring/report/icc.py)
    gettext_noop("no variance among the ratings"),
    gettext_noop(
        "no 2 raters rated 2 items in common: ICC needs a complete items × raters "
        "table (see the agreement table's alpha, which allows missing ratings)"
    ),
    gettext_noop(
        "the complete-case subset kept %(kept)s of %(all)s raters (%(used)s): no "
        "%(missing)s rater is left, so this is not an ICC of %(set)s; see the sets' own "
        "rows, or alpha (agreement table)"
    ),
    gettext_noop(
        "complete-case: %(items)s of %(all_items)s items × %(raters)s of %(all_raters)s raters"
    ),
    gettext_noop("all ratings"),
    gettext_noop("%(n)s humans"),
    gettext_noop("%(n)s models"),
    gettext_noop("%(n)s rules"),
    gettext_noop("human"),
    gettext_noop("model"),
    # item analysis and abilities (scoring/report/items.py, abilities.py)
    gettext_noop("no spread in right/wrong or in rest scores"),
    gettext_noop("fewer than 2 respondents with other answers in the task"),
    gettext_noop("respondents with fewer than %(n)s keyed answers"),
    gettext_noop("units every respondent got right"),
    gettext_noop("units every respondent got wrong"),
    gettext_noop("units fewer than 2 respondents answered"),
    gettext_noop("%(units)s informative units and %(people)s respondents: need 2 of each"),
    gettext_noop(
        "%(units)s units × %(people)s respondents exceeds %(max)s cells: fit one task at "
        "a time (the report's tasks setting)"
    ),
    # best-worst (scoring/report/bws.py)
    gettext_noop("one rater: no rater bootstrap for the Bradley–Terry interval"),
    gettext_noop(
        "the rater bootstrap would need %(fits)s fits (over %(max)s): read the counting "
        "interval, or lower n_boot"
    ),
    gettext_noop("%(n)s poems seen by both sets: need 3 or more"),
    gettext_noop("no spread in one set's scores"),
    # planning (scoring/report/plan.py)
    gettext_noop(
        "not met with up to %(max)s volunteers on this task's %(n)s items: the items' own "
        "variation bounds the interval (more items are needed)"
    ),
    gettext_noop("the two shares are equal so far: no sample size tells them apart"),
    gettext_noop("power %(power)s not reached with up to %(max)s per group"),
    gettext_noop("fewer than 2 items rated by two or more"),
    gettext_noop("not met in %(share)s of studies within 10,000 items"),
    # published beside computed (scoring/report/published.py)
    gettext_noop("no figure of the study has this task and metric"),
    gettext_noop(
        "%(metric)s on %(task)s: no choice task of the study has this name, and it is not "
        "a benchmark generation task whose rule metric is known "
        "(scoring/report/published.py, TASK_METRICS)"
    ),
    gettext_noop("accuracy of %(set)s on %(what)s on %(form)s items"),
    gettext_noop("accuracy of %(set)s on %(what)s"),
    gettext_noop(
        "%(kind)s of rule:%(rule)s (version %(version)s) over %(notes)s; published "
        "%(name)s is %(metric)s (%(why)s)"
    ),
    gettext_noop("%(kind)s of rule:%(rule)s (version %(version)s) over %(notes)s"),
    gettext_noop("poems by %(model)s"),
    gettext_noop("condition %(condition)s"),
    gettext_noop("task %(task)s"),
    gettext_noop("form %(form)s"),
    gettext_noop("rate"),
    gettext_noop("mean"),
    gettext_noop("CCiV paper, Table 2 (structural / tonal accuracy, standard / variant form)"),
    gettext_noop(
        "FuxiBench evaluate.py: CiG is scored with metric pacc = ci_format_acc "
        "(src/cipai_utils.py; cipai_stats.csv and eval_results_icl.csv publish it as accuracy)"
    ),
    gettext_noop(
        "FuxiBench evaluate.py: CG is scored with metric cacc = couplet_format_acc (same "
        "segments and segment lengths as the reference couplet; eval_results_icl.csv: "
        "accuracy)"
    ),
    gettext_noop("the platform's own metric name"),
)
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
#: Placeholders that hold notes of their own; some are lists of them, split by ``LISTS``.
NESTED = ("why", "kind", "notes", "used", "missing")
#: Lists of notes: placeholder -> (its separator as written, the separator's msgid).
LISTS = {
    "notes": (", ", gettext_noop(", ")),
    "used": (" + ", " + "),
    "missing": (" or ", gettext_noop(" or ")),
}
#: Placeholders that hold a rater set's name (shown as the dashboard names the set).
SETS = ("set",)
Namer = Callable[[str], str]


def _pattern(template: str) -> re.Pattern[str]:
    parts = _PLACEHOLDER.split(template)
    out = []
    for k, part in enumerate(parts):
        out.append(f"(?P<{part}>.+?)" if k % 2 else re.escape(part))
    return re.compile("".join(out))


#: (the English template, its pattern), longest first so a note meets its own template
#: before a shorter one that would match it too.
_COMPILED: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    sorted(((t, _pattern(t)) for t in TEMPLATES), key=lambda tp: -len(tp[0]))
)


def _same(name: str) -> str:
    return name


def translate_reason(text: object, name_set: Namer = _same) -> object:
    """``text`` in the active language when a template matches it (else unchanged);
    ``name_set`` names a rater set a note mentions (``model:x`` as the tables show it)."""
    if not isinstance(text, str) or not text:
        return text
    return _translated(text, get_language() or "", name_set)


@lru_cache(maxsize=8192)
def _translated(text: str, language: str, name_set: Namer) -> str:
    for template, pattern in _COMPILED:
        m = pattern.fullmatch(text)
        if m is not None:
            values = {k: _value(k, v, language, name_set) for k, v in m.groupdict().items()}
            return _(template) % values if values else _(template)
    return _(text)  # a note written as a msgid of its own (the exclusions' reasons)


def _value(key: str, value: str, language: str, name_set: Namer) -> str:
    if key in LISTS:
        written, shown = LISTS[key]
        parts = value.split(written)
        return _(shown).join(_translated(v, language, name_set) for v in parts)
    if key in NESTED:
        return _translated(value, language, name_set)
    if key in SETS:
        return name_set(value)
    return value
