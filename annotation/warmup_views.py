"""The volunteer's practice and qualification pages (``annotation.services.warmup``):
one item at a time; after a practice answer the right answer and its explanation; after
the qualification, the questions in the group the score routes to, or a polite end."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.forms import read_answer
from annotation.models import Participant
from annotation.services import warmup
from annotation.views import _closed, _current
from annotation.warmup_present import feedback, fields_shown
from studies.kinds import kind_of
from studies.models import Item, Study


def page(request: HttpRequest, study: Study, p: Participant) -> HttpResponse:
    """The practice or qualification page for a participant waiting for it."""
    if warmup.warmup_failed(p):
        return redirect("volunteer:ended", slug=study.slug)
    if not warmup.warmup_pending(p):
        return redirect("volunteer:question", slug=study.slug)
    after = request.GET.get("after", "")
    answered = p.warmup.get(warmup.PRACTICE, {})
    if request.method == "GET" and after in answered:
        item = Item.objects.select_related("task").filter(study=study, external_id=after).first()
        if item is not None:
            context = {
                "study": study,
                "item": item,
                "feedback": feedback(item, answered[after]["values"]),
                "correct": answered[after]["correct"],
            }
            return render(request, "annotation/practice_feedback.html", context)
    step = warmup.warmup_next(p)
    if step is None:  # nothing to answer (the tasks have no items): place them now
        warmup.warmup_finish(participant=p)
        return redirect("volunteer:question", slug=study.slug)
    errors: dict[str, list[str]] = {}
    selected: dict[str, str] = {}
    if request.method == "POST":
        kind = kind_of(step.item.task)
        given = read_answer(kind, kind.fields(step.item, step.item.task), request.POST)
        selected = given.selected
        if request.POST.get("item") != step.item.external_id:
            return redirect("volunteer:practice", slug=study.slug)
        try:
            warmup.warmup_answer(participant=p, item=step.item, answer=given.answer)
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {"": exc.messages}
        else:
            if step.stage == warmup.PRACTICE:
                url = f"{request.path}?after={step.item.external_id}"
                return redirect(url)
            return redirect("volunteer:practice", slug=study.slug)
    fields = fields_shown(step.item)
    for f in fields:
        f["errors"] = errors.get(f["key"], [])
        for o in f["options"]:
            o["checked"] = selected.get(f["key"]) == str(o["position"])
    context = {
        "study": study,
        "step": step,
        "practice": step.stage == warmup.PRACTICE,
        "item": step.item,
        "fields": fields,
        "errors": [
            m for k, ms in errors.items() if k not in {f["key"] for f in fields} for m in ms
        ],
        "field_errors": bool(errors),
    }
    return render(request, "annotation/practice.html", context, status=400 if errors else 200)


@require_http_methods(["GET", "POST"])
def practice(request: HttpRequest, slug: str) -> HttpResponse:
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    if not study.is_open and not p.is_test:
        return _closed(request, study)
    return page(request, study, p)


def ended(request: HttpRequest, slug: str) -> HttpResponse:
    """The polite end of a volunteer the qualification did not route anywhere."""
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    if not warmup.warmup_failed(p):
        return redirect("volunteer:question", slug=slug)
    return render(request, "annotation/ended.html", {"study": study, "participant": p})
