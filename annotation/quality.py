"""Quality checks of a study's volunteers, each flag with its evidence (docs/running-a-
study.md, "Quality checks"): a researcher reads them, then keeps or excludes each flagged
participant with a reason (``QualityDecision``), which the report's exclusions apply.

The rules (documented with their sources in running-a-study.md):

- **speeder**: on at least half of their timed items (and at least ``MIN_ITEMS``), the
  answer took less than ``SPEED_RATIO`` (one third) of the item's median time among the
  study's volunteers (Greszki, Meyer & Schoen 2015: under 30–40 % of the median);
- **straight-lining**: on at least ``MIN_PAGES`` rating pages with two or more scales,
  ``STRAIGHT_SHARE`` (80 %) or more of them have one and the same point on every scale;
- **attention**: more failed attention checks than the study allows
  (``attention_max_failures``: the existing ``flagged``);
- **duplicate**: another participant of the study consented from the same browser
  (a digest of its first-party cookie, never the cookie and never shown);
- **incomplete**: consented, not finished, and no answer for ``STALE_HOURS`` hours.

Test participants (staff's preview) are neither checked nor counted in the medians.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import Participant, QualityDecision, Response
from studies.models import Study, Task

SPEED_RATIO = 1 / 3
SPEED_SHARE = 0.5
MIN_ITEMS = 3
STRAIGHT_SHARE = 0.8
MIN_PAGES = 3
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


def _speeder(mine: dict[int, int], medians: dict[int, float]) -> Flag | None:
    timed = [(ms, medians[item]) for item, ms in mine.items() if medians.get(item)]
    fast = [ms / med for ms, med in timed if ms < SPEED_RATIO * med]
    if len(timed) < MIN_ITEMS or len(fast) < SPEED_SHARE * len(timed):
        return None
    return Flag(
        QualityDecision.Reason.SPEEDER,
        _(
            "%(fast)d of %(n)d timed items under a third of the item's median time "
            "(typically %(ratio)d%% of it)"
        )
        % {"fast": len(fast), "n": len(timed), "ratio": round(100 * statistics.median(fast))},
    )


def _straight(mine: dict[int, list[float]]) -> Flag | None:
    scaled = [values for values in mine.values() if len(values) >= 2]
    flat = [values for values in scaled if len(set(values)) == 1]
    if len(scaled) < MIN_PAGES or len(flat) < STRAIGHT_SHARE * len(scaled):
        return None
    points = sorted({int(v[0]) for v in flat})
    return Flag(
        QualityDecision.Reason.STRAIGHT_LINING,
        _("%(flat)d of %(n)d rating pages with one point on every scale (points: %(points)s)")
        % {"flat": len(flat), "n": len(scaled), "points": "、".join(map(str, points))},
    )


def quality_checks(study: Study, *, now: datetime | None = None) -> list[Checked]:
    """Every volunteer of the study (test participants aside) with their flags, flagged
    ones first; each with their decision if one was recorded."""
    now = now or timezone.now()
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
        for flag in (_speeder(mine, medians), _straight(pages.get(p.rater_id, {}))):
            if flag is not None:
                checked.flags.append(flag)
        if p.flagged:
            checked.flags.append(
                Flag(
                    QualityDecision.Reason.ATTENTION,
                    _("failed %(n)d attention check(s); the study allows %(max)d")
                    % {"n": p.attention_failures, "max": study.attention_max_failures},
                )
            )
        others = [o for o in devices.get(p.device, []) if o != p.public_id] if p.device else []
        if others:
            checked.flags.append(
                Flag(
                    QualityDecision.Reason.DUPLICATE,
                    _("consented from the same browser as %(others)s")
                    % {"others": "、".join(others)},
                )
            )
        seen = last.get(p.rater_id) or p.consented_at or p.created_at
        stale = now - seen > timedelta(hours=STALE_HOURS)
        if p.status != Participant.Status.FINISHED and stale:
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
