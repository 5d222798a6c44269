"""The researcher's quality page: every volunteer's quality checks with their evidence,
answers and times, and the keep/exclude decision a researcher records for each
(``annotation.quality``; the report's exclusions apply the decisions)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation.models import Participant, QualityDecision, Response
from annotation.quality import quality_checks
from annotation.services import participant_decide
from research.access import study_for


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
    rows = [c for c in checked if c.flags or c.decision or show_all]
    answers: dict[int, list[tuple[str, str, float | None, int | None]]] = {}
    raters = [c.participant.rater_id for c in rows]
    query = (
        Response.objects.filter(rater_id__in=raters, sample=0)
        .order_by("rater_id", "answered_at", "pk")
        .values_list("rater_id", "item__external_id", "field", "value", "time_ms")
    )
    for rater, item, fld, value, time_ms in query.iterator(chunk_size=2000):
        answers.setdefault(rater, []).append((item, fld, value, time_ms))
    context = {
        "study": study,
        "rows": [(c, answers.get(c.participant.rater_id, [])) for c in rows],
        "n_flagged": sum(1 for c in checked if c.flags),
        "n_all": len(checked),
        "show_all": show_all,
        "decisions": QualityDecision.Decision.choices,
        "reasons": QualityDecision.Reason.choices,
        "error": error,
    }
    return render(request, "research/quality.html", context, status=400 if error else 200)
