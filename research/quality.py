"""The researcher's quality page: every volunteer's quality checks with their evidence,
answers and times, and the keep/exclude decision a researcher records for each
(``annotation.quality``; the report's exclusions apply the decisions).

Three counts, three names, kept apart (docs/running-a-study.md, "Quality checks"):

- **quality signals** (质量提示): any check of ``annotation.quality`` fired; a signal
  alone excludes no one;
- **flagged** (已标记): ``Participant.flagged``, more failed attention checks than the
  study allows or flagged by hand (``annotation.selectors.flagged_participants``): the
  dashboard's progress table counts these;
- **excluded** (被排除): whom the report leaves out, by the study's rule on the flagged,
  a researcher's decision or the frozen plan's rules
  (``scoring.report.data.rater_exclusions``: the report's ``exclusions`` table).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation.models import Participant, QualityDecision
from annotation.quality import quality_checks
from annotation.selectors import answers_shown, flagged_participants
from annotation.services import participant_decide
from research.access import study_for
from scoring.report.data import rater_exclusions


@login_required
@require_http_methods(["GET", "POST"])
def quality(request: HttpRequest, study_id: int) -> HttpResponse:
    study = study_for(request.user, study_id)
    error = ""
    if request.method == "POST":
        p = Participant.objects.filter(
            study=study, public_id=request.POST.get("participant", ""), is_test=False
        ).first()
        decision = request.POST.get("decision", "")
        reason = request.POST.get("reason", QualityDecision.Reason.OTHER)
        if (
            p is None
            or decision not in QualityDecision.Decision.values
            or reason not in QualityDecision.Reason.values
        ):
            error = _("Choose a participant, a decision and a reason.")
        else:
            participant_decide(
                participant=p,
                decision=decision,
                reason=reason,
                note=request.POST.get("note", ""),
                user=request.user,
            )
            return redirect(f"{request.path}#p-{p.public_id}")
    checked = quality_checks(study)
    show_all = request.GET.get("all") == "1"
    rows = [c for c in checked if c.flags or c.decision or c.participant.flagged or show_all]
    answers = answers_shown(study, [c.participant.rater_id for c in rows])
    excluded = rater_exclusions(study).basis()  # rater -> flagged / decision / plan
    context = {
        "study": study,
        "rows": [
            (c, answers.get(c.participant.rater_id, []), excluded.get(c.participant.rater_id))
            for c in rows
        ],
        "n_signals": sum(1 for c in checked if c.flags),
        "n_flagged": flagged_participants(study).count(),
        "n_excluded": len(excluded),
        "exclude_flagged": study.exclude_flagged,
        "n_all": len(checked),
        "show_all": show_all,
        "decisions": QualityDecision.Decision.choices,
        "reasons": QualityDecision.Reason.choices,
        "error": error,
    }
    return render(request, "research/quality.html", context, status=400 if error else 200)
