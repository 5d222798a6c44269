"""Quality checks of a study's volunteers, each signal (``Flag``) with its evidence
(docs/running-a-study.md, "Quality checks"): a researcher reads them, then keeps or
excludes each participant with a quality signal, with a reason (``QualityDecision``),
which the report's exclusions apply. A quality signal alone excludes no one; "flagged"
(``Participant.flagged``, the dashboard's column) is the attention signal's state, and
what the report excludes is ``scoring.report.data.rater_exclusions``.

The rules (documented with their sources in running-a-study.md):

- **speeder**: on at least ``speed_share`` (half) of their timed items (and at least
  ``speed_min_items``, 3), the answer took less than ``speed_ratio`` (one third) of the
  item's median time among the study's volunteers (Greszki, Meyer & Schoen 2015: under
  30–40 % of the median);
- **straight-lining**: on at least ``straight_min_pages`` (3) rating pages with two or
  more scales, ``straight_share`` (80 %) or more of them have one and the same point on
  every scale;
- **attention**: more failed attention checks than the study allows
  (``attention_max_failures``: the existing ``flagged``);
- **duplicate**: another participant of the study consented from the same browser
  (a digest of its first-party cookie, never the cookie and never shown); or
  ``address_min_enrolments`` (3) or more participants consented from one address within
  ``address_window_minutes`` (30; a keyed digest of the address, never the address);

The thresholds are the study's (``Study.quality_rules`` over the defaults above:
``studies.quality_rules``).
- **incomplete**: consented, not finished, and no answer for ``STALE_HOURS`` hours.

Test participants (staff's preview) are neither checked nor counted in the medians.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import Participant, QualityDecision, Response
from studies.models import Study, Task
from studies.quality_rules import QualityRules, rules_of

STALE_HOURS = 24


@dataclass(frozen=True)
class Flag:
    check: str  # a QualityDecision.Reason value
    evidence: str  # for people, in the active language


@dataclass
class Checked:
    participant: Participant
    flags: list[Flag] = field(default_factory=list)
    answered: int = 0
    median_ms: float | None = None  # their own median time per item
    decision: QualityDecision | None = None


def _times(study: Study) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, list[float]]]]:
    """Per rater: item -> time (ms); per rater: rating item -> its values (a page)."""
    rating = set(Task.objects.filter(study=study, kind="rating").values_list("pk", flat=True))
    times: dict[int, dict[int, int]] = defaultdict(dict)
    pages: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    rows = (
        Response.objects.filter(study=study, rater__kind="human", sample=0)
        .exclude(rater__participant__is_test=True)
        .values_list("rater_id", "item_id", "task_id", "value", "time_ms")
    )
    for rater, item, task, value, time_ms in rows.iterator(chunk_size=5000):
        if time_ms is not None:
            times[rater][item] = max(times[rater].get(item, 0), time_ms)
        if task in rating and value is not None:
            pages[rater][item].append(value)
    return times, pages


def _speeder(mine: dict[int, int], medians: dict[int, float], rules: QualityRules) -> Flag | None:
    timed = [(ms, medians[item]) for item, ms in mine.items() if medians.get(item)]
    fast = [ms / med for ms, med in timed if ms < rules.speed_ratio * med]
    if len(timed) < rules.speed_min_items or len(fast) < rules.speed_share * len(timed):
        return None
    return Flag(
        QualityDecision.Reason.SPEEDER,
        _(
            "%(fast)d of %(n)d timed items under %(limit)d%% of the item's median time "
            "(typically %(ratio)d%% of it)"
        )
        % {
            "fast": len(fast),
            "n": len(timed),
            "limit": round(100 * rules.speed_ratio),
            "ratio": round(100 * statistics.median(fast)),
        },
    )


def _straight(mine: dict[int, list[float]], rules: QualityRules) -> Flag | None:
    scaled = [values for values in mine.values() if len(values) >= 2]
    flat = [values for values in scaled if len(set(values)) == 1]
    if len(scaled) < rules.straight_min_pages or len(flat) < rules.straight_share * len(scaled):
        return None
    points = sorted({int(v[0]) for v in flat})
    return Flag(
        QualityDecision.Reason.STRAIGHT_LINING,
        _("%(flat)d of %(n)d rating pages with one point on every scale (points: %(points)s)")
        % {"flat": len(flat), "n": len(scaled), "points": "、".join(map(str, points))},
    )


def _same_address(people: list[Participant], rules: QualityRules) -> dict[int, list[Participant]]:
    """Participant pk -> the others who consented from the same address within the
    study's window of them, for those in a run of ``address_min_enrolments`` or more."""
    window = timedelta(minutes=rules.address_window_minutes)
    out: dict[int, list[Participant]] = {}
    if not rules.address_window_minutes:
        return out
    by_address: dict[str, list[Participant]] = defaultdict(list)
    for p in people:
        if p.address:
            by_address[p.address].append(p)
    for same in by_address.values():
        for p in same:
            at = p.consented_at or p.created_at
            near = [o for o in same if abs((o.consented_at or o.created_at) - at) <= window]
            if len(near) >= rules.address_min_enrolments:
                out[p.pk] = [o for o in near if o.pk != p.pk]
    return out


def _address_flag(others: list[Participant], rules: QualityRules) -> Flag:
    return Flag(
        QualityDecision.Reason.DUPLICATE,
        _(
            "consented from the same address as %(others)s, within %(minutes)d minutes "
            "(%(n)d enrolments; the check signals at %(min)d or more)"
        )
        % {
            "others": "、".join(o.public_id for o in others),
            "minutes": rules.address_window_minutes,
            "n": len(others) + 1,
            "min": rules.address_min_enrolments,
        },
    )


def quality_checks(study: Study, *, now: datetime | None = None) -> list[Checked]:
    """Every volunteer of the study (test participants aside) with their flags, flagged
    ones first; each with their decision if one was recorded."""
    now = now or timezone.now()
    rules = rules_of(study.quality_rules)
    times, pages = _times(study)
    per_item: dict[int, list[int]] = defaultdict(list)
    for mine in times.values():
        for item, ms in mine.items():
            per_item[item].append(ms)
    medians = {item: float(statistics.median(ms)) for item, ms in per_item.items()}
    people = list(
        Participant.objects.filter(study=study, is_test=False)
        .exclude(entry=Participant.Entry.IMPORT)
        .select_related("quality_decision", "group")
        .order_by("created_at")
    )
    devices: dict[str, list[str]] = defaultdict(list)
    for p in people:
        if p.device:
            devices[p.device].append(p.public_id)
    addresses = _same_address(people, rules)
    last = dict(
        Response.objects.filter(study=study, rater__kind="human")
        .values_list("rater_id")
        .annotate(at=Max("created_at"))
        .values_list("rater_id", "at")
    )
    out = []
    for p in people:
        mine = times.get(p.rater_id, {})
        checked = Checked(p, answered=len(mine))
        checked.median_ms = float(statistics.median(mine.values())) if mine else None
        checked.decision = getattr(p, "quality_decision", None)
        speeder = _speeder(mine, medians, rules)
        for flag in (speeder, _straight(pages.get(p.rater_id, {}), rules)):
            if flag is not None:
                checked.flags.append(flag)
        if p.flagged:
            counts = {"n": p.attention_failures, "max": study.attention_max_failures}
            evidence = (
                _("failed %(n)d attention check(s); the study allows %(max)d") % counts
                if p.attention_failures > study.attention_max_failures
                else _(
                    "flagged by hand (failed %(n)d attention check(s); the study allows %(max)d)"
                )
                % counts
            )
            checked.flags.append(Flag(QualityDecision.Reason.ATTENTION, evidence))
        others = [o for o in devices.get(p.device, []) if o != p.public_id] if p.device else []
        if others:
            checked.flags.append(
                Flag(
                    QualityDecision.Reason.DUPLICATE,
                    _("consented from the same browser as %(others)s")
                    % {"others": "、".join(others)},
                )
            )
        if p.pk in addresses:
            checked.flags.append(_address_flag(addresses[p.pk], rules))
        seen = last.get(p.rater_id) or p.consented_at or p.created_at
        stale = now - seen > timedelta(hours=STALE_HOURS)
        ended = bool(p.warmup.get("failed"))  # the qualification ended them: not incomplete
        if p.status != Participant.Status.FINISHED and stale and not ended:
            checked.flags.append(
                Flag(
                    QualityDecision.Reason.INCOMPLETE,
                    _("not finished; %(n)d item(s) answered, the last %(when)s")
                    % {"n": len(mine), "when": timezone.localtime(seen).strftime("%Y-%m-%d %H:%M")},
                )
            )
        out.append(checked)
    out.sort(key=lambda c: not c.flags)
    return out


def excluded_by_decision(study: Study) -> dict[str, list[int]]:
    """Reason -> the raters a researcher excluded for it (the report's exclusions)."""
    rows = QualityDecision.objects.filter(
        participant__study=study,
        participant__is_test=False,
        decision=QualityDecision.Decision.EXCLUDE,
    ).values_list("reason", "participant__rater_id")
    out: dict[str, list[int]] = defaultdict(list)
    for reason, rater in rows.order_by("participant__rater_id"):
        out[reason].append(rater)
    return dict(out)


#: The flags a frozen analysis plan may name as exclusion rules (its ``exclude_flags``):
#: a flagged participant without a decision then leaves the report. ``incomplete`` is not
#: one of them: it depends on the hour the report is built.
PLAN_RULES = (
    QualityDecision.Reason.SPEEDER.value,
    QualityDecision.Reason.STRAIGHT_LINING.value,
    QualityDecision.Reason.ATTENTION.value,
    QualityDecision.Reason.DUPLICATE.value,
)


@dataclass(frozen=True)
class RuleOutcome:
    """What a plan's exclusion rules do: reason -> the raters they exclude (no researcher
    decided on them), and reason -> the raters a researcher kept though a rule names them.
    A participant with several flags counts once, under the first rule of ``PLAN_RULES``
    order; one a researcher excluded is in the decision's row, not here."""

    excluded: dict[str, list[int]]
    kept: dict[str, list[int]]


def by_plan_rules(study: Study, rules: Sequence[str]) -> RuleOutcome:
    """Apply the exclusion rules ``rules`` (names of ``PLAN_RULES``) to the study's
    quality checks (a read)."""
    ordered = [r for r in PLAN_RULES if r in set(rules)]
    excluded: dict[str, list[int]] = {r: [] for r in ordered}
    kept: dict[str, list[int]] = defaultdict(list)
    if not ordered:
        return RuleOutcome({}, {})
    for checked in quality_checks(study):
        mine = {f.check for f in checked.flags}
        hit = next((r for r in ordered if r in mine), None)
        if hit is None:
            continue
        rater = checked.participant.rater_id
        if checked.decision is None:
            excluded[hit].append(rater)
        elif checked.decision.decision == QualityDecision.Decision.KEEP:
            kept[hit].append(rater)
    return RuleOutcome(
        {r: sorted(ids) for r, ids in excluded.items()},
        {r: sorted(ids) for r, ids in kept.items()},
    )


def kept_by_decision(study: Study) -> list[int]:
    """The raters a researcher decided to keep (the flag rule then leaves them in)."""
    rows = QualityDecision.objects.filter(
        participant__study=study, decision=QualityDecision.Decision.KEEP
    )
    return list(rows.values_list("participant__rater_id", flat=True))


# The report's exclusions row for each reason (English in the report, as its other rows;
# the dashboard translates them).
EXCLUSION_REASONS = {
    "speeder": gettext_noop("excluded by a researcher: speeder"),
    "straight_lining": gettext_noop("excluded by a researcher: straight_lining"),
    "attention": gettext_noop("excluded by a researcher: attention"),
    "duplicate": gettext_noop("excluded by a researcher: duplicate"),
    "incomplete": gettext_noop("excluded by a researcher: incomplete"),
    "other": gettext_noop("excluded by a researcher: other"),
}
# The rows of a frozen plan's exclusion rules, and of the participants a researcher kept
# though a rule names them.
PLAN_REASONS = {
    "speeder": gettext_noop("excluded by the plan: speeder"),
    "straight_lining": gettext_noop("excluded by the plan: straight_lining"),
    "attention": gettext_noop("excluded by the plan: attention"),
    "duplicate": gettext_noop("excluded by the plan: duplicate"),
}
KEPT_REASONS = {
    "speeder": gettext_noop("kept by a researcher despite the plan: speeder"),
    "straight_lining": gettext_noop("kept by a researcher despite the plan: straight_lining"),
    "attention": gettext_noop("kept by a researcher despite the plan: attention"),
    "duplicate": gettext_noop("kept by a researcher despite the plan: duplicate"),
}
