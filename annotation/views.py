"""The volunteer pages: thin views over ``annotation.services`` and ``annotation.selectors``.

Flow: welcome + consent (public link or group invitation) -> start (resume code) ->
screening -> for each task: instructions, then its questions -> finish (completion code).
Every POST redirects (POST/redirect/GET); a participant is identified by a signed cookie
per study, or by typing their resume code on another device.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation import selectors, services
from annotation.context import PREVIEW_COOKIE
from annotation.forms import ConsentForm, ResumeForm, read_answer
from annotation.models import Assignment, Participant
from annotation.ratelimit import (
    address_digest,
    answer_wait,
    device_digest,
    remember_browser,
    wait_seconds,
)
from annotation.results import Results, finish_results
from annotation.services import warmup
from annotation.share_image import share_png
from studies.access import visible_studies
from studies.kinds import kind_of
from studies.models import Study
from studies.recruitment import completion_link, completion_problem

log = logging.getLogger(__name__)
# The language switch (base.html) names each language in itself: "English" stays
# "English" on the Chinese pages (Django's own catalogue would say 英语).
LANGUAGE_NAMES = (gettext_noop("English"),)
COOKIE_SALT = "shiping.volunteer"
COOKIE_AGE = 60 * 60 * 24 * 90
REDIRECT_SECONDS = 5  # the finish page shows the code this long, then goes to the platform


COOKIE_PREFIX = "shiping-p"


def _cookie(study: Study) -> str:
    return f"{COOKIE_PREFIX}{study.pk}"


def _participant(request: HttpRequest, study: Study) -> Participant | None:
    public_id = request.get_signed_cookie(_cookie(study), default=None, salt=COOKIE_SALT)
    return selectors.participant_by_public_id(study, public_id) if public_id else None


def _remember(response: HttpResponse, request: HttpRequest, study: Study, p: Participant) -> None:
    response.set_signed_cookie(
        _cookie(study), p.public_id, salt=COOKIE_SALT, max_age=COOKIE_AGE, httponly=True,
        samesite="Lax", secure=request.is_secure(), path=f"/s/{study.slug}/",
    )  # fmt: skip


def _closed(request: HttpRequest, study: Study) -> HttpResponse:
    return render(request, "annotation/closed.html", {"study": study})


def _too_many(request: HttpRequest, study: Study, wait: int) -> HttpResponse:
    response = render(
        request, "annotation/too_many.html", {"study": study, "wait": wait}, status=429
    )
    response["Retry-After"] = str(wait)
    return response


def _enter(
    request: HttpRequest, slug: str, token: str | None, *, study: Study | None = None
) -> HttpResponse:
    """The welcome page and its consent; ``study`` given: staff's preview of it, any
    status (the participant is then a test participant, :func:`preview`)."""
    test = study is not None
    study = study or selectors.study_for_volunteers(slug)
    group = selectors.group_by_invite(study, token) if token else None
    if not study.is_open and not test:
        return _closed(request, study)
    me = _participant(request, study)
    if me is not None and (me.is_test or not test):
        return redirect("volunteer:question", slug=slug)
    form = ConsentForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not test and (wait := wait_seconds(request, "enrol", study)):
        return _too_many(request, study, wait)
    if request.method == "POST" and form.is_valid():
        try:
            p = services.participant_enrol(
                study=study,
                consent=True,
                invite_token=token,
                language=get_language() or "",
                # The form posts to its own address: the entry link's query string.
                recruitment=request.GET,
                test=test,
                device=device_digest(request),
                address=address_digest(request),
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            response = redirect("volunteer:start", slug=slug)
            _remember(response, request, study, p)
            _mark_preview(response, study, on=test)
            return response
    context = {
        "preview": test,
        "study": study,
        "outline": selectors.study_outline(study),
        "form": form,
        "group": group,
        "wechat": _in_wechat(request),
    }
    return render(request, "annotation/welcome.html", context, status=400 if form.errors else 200)


def _in_wechat(request: HttpRequest) -> bool:
    """Opened in WeChat's in-app browser (a study's link shared in a chat, or its QR code
    scanned there): the pages say how to come back, since the in-app browser has no
    bookmarks and may forget its cookies."""
    return "MicroMessenger" in request.headers.get("User-Agent", "")


@require_http_methods(["GET", "POST"])
def welcome(request: HttpRequest, slug: str) -> HttpResponse:
    response = _enter(request, slug, None)
    remember_browser(request, response)  # tells classmates behind one address apart
    return response


@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, slug: str) -> HttpResponse:
    """Staff open any study they may see (a draft too) as a volunteer would, in test
    mode: the consent, the screening and the questions, as a test participant whose
    answers never count (docs/running-a-study.md, "Preview and test mode")."""
    study = Study.objects.filter(slug=slug).first()
    user = request.user
    if study is None or not visible_studies(user).filter(pk=study.pk).exists():
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise Http404("No such study")
    return _enter(request, slug, None, study=study)


def _mark_preview(response: HttpResponse, study: Study, *, on: bool) -> None:
    """The preview banner's cookie (base.html, ``annotation.context.preview``): set for a
    test participant, removed for a volunteer, on the study's pages only."""
    where = f"/s/{study.slug}/"
    if on:
        response.set_cookie(
            PREVIEW_COOKIE, "1", max_age=COOKIE_AGE, path=where, samesite="Lax", httponly=True
        )
    else:
        response.delete_cookie(PREVIEW_COOKIE, path=where)


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    response = _enter(request, slug, token)
    remember_browser(request, response)
    return response


def _cookie_keys(request: HttpRequest) -> Iterator[tuple[int, str]]:
    """(study id, public id) of each valid participant cookie the request carries. The
    cookie is scoped to the study's path and named after its id."""
    for name in request.COOKIES:
        prefix, _sep, study_id = name.partition(COOKIE_PREFIX)
        if prefix or not study_id.isdigit():
            continue
        public_id = request.get_signed_cookie(name, default=None, salt=COOKIE_SALT)
        if public_id:
            yield int(study_id), public_id


def _current(request: HttpRequest, slug: str) -> tuple[Study, Participant | None]:
    """The study and the participant the request's cookie names."""
    return selectors.participant_for_page(slug, list(_cookie_keys(request)))


def start(request: HttpRequest, slug: str) -> HttpResponse:
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    context = {"study": study, "participant": p, "wechat": _in_wechat(request)}
    return render(request, "annotation/start.html", context)


@require_http_methods(["GET", "POST"])
def screening(request: HttpRequest, slug: str) -> HttpResponse:
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    if warmup.warmup_failed(p):
        return redirect("volunteer:ended", slug=slug)
    if warmup.warmup_pending(p):  # screened: practice and qualification first
        return redirect("volunteer:practice", slug=slug)
    if p.group_id is not None:
        return redirect("volunteer:question", slug=slug)
    if not study.is_open and not p.is_test:
        return _closed(request, study)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        answers = {k[2:]: v for k, v in request.POST.items() if k.startswith("q-")}
        # Raw form values: participant_screen reads and checks each option index.
        try:
            services.participant_screen(participant=p, answers=answers)
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {"": exc.messages}
        else:
            if warmup.warmup_pending(p):
                return redirect("volunteer:practice", slug=slug)
            return redirect("volunteer:question", slug=slug)
    questions = [
        {"q": q, "selected": request.POST.get(f"q-{q.key}", ""), "errors": errors.get(q.key, [])}
        for q in study.screening.order_by("position")
    ]
    first = next((entry for entry in questions if entry["errors"]), None)
    if first is not None:
        first["first_problem"] = True  # the page opens on it (autofocus)
    context = {"study": study, "questions": questions, "errors": errors.get("", [])}
    return render(request, "annotation/screening.html", context, status=400 if errors else 200)


@require_http_methods(["GET", "POST"])
def question(request: HttpRequest, slug: str) -> HttpResponse:
    """The question page: its state from one function whatever the entry path
    (``services.question_state``), then the page for it."""
    posted = request.method == "POST"
    state = services.question_state(
        slug=slug,
        cookies=list(_cookie_keys(request)),
        posted=posted,
        assignment_id=_posted_assignment(request) if posted else None,
        begin=request.GET.get("begin", ""),
    )
    study, p = state.study, state.participant
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    if state.page == services.Page.FINISH:
        return redirect("volunteer:finish", slug=study.slug)
    if state.page == services.Page.CLOSED:
        return _closed(request, study)
    if state.page == services.Page.SCREENING:
        return redirect("volunteer:screening", slug=study.slug)
    if state.page == services.Page.ANSWER:
        return _submit(request, study, p, (state.assignment,) if state.answer_read else None)
    if state.page == services.Page.DONE:
        services.participant_finish(participant=p)
        return redirect("volunteer:finish", slug=study.slug)
    a = state.assignment
    assert a is not None  # INSTRUCTIONS, QUESTION: the current item
    if state.page == services.Page.INSTRUCTIONS:
        context = {"study": study, "task": a.task, "progress": state.progress}
        return render(request, "annotation/instructions.html", context)
    services.assignment_serve(assignment=a)
    return _render_question(request, study, p, a, progress=state.progress)


def _render_question(
    request: HttpRequest,
    study: Study,
    p: Participant,
    a: Assignment,
    *,
    selected: dict[str, str] | None = None,
    errors: dict[str, list[str]] | None = None,
    failure: str = "",
    status: int = 200,
    progress: selectors.Progress | None = None,
) -> HttpResponse:
    q = selectors.item_presentation(a, study=study)
    kind = kind_of(a.task)
    errors = errors or {}
    for f in q["fields"]:
        f["legend"] = kind.legend(f["key"], f["prompt"])
        f["selected"] = (selected or {}).get(f["key"], "")
        f["errors"] = errors.get(f["key"], [])
        # Every key the template asks for is present: a missing one costs the template
        # engine a failed lookup (three exceptions and a dir()) at each use.
        f.setdefault("description", "")
        f.setdefault("labelled", False)
        f["first_problem"] = False
        if "scale" in f:  # each point with its label (anchor), if it has one
            f["points"] = [
                {
                    "value": v,
                    "label": f["labels"].get(str(v), ""),
                    "checked": f["selected"] == str(v),
                }
                for v in f["scale"]
            ]
            f["labelled"] = all(point["label"] for point in f["points"])
        # Which option is ticked, decided here once rather than by a filter and a
        # comparison per option in the template (the page is rendered at every answer).
        for o in f.get("options", ()):
            o["checked"] = f["selected"] == str(o["position"])
    keys = {f["key"] for f in q["fields"]}
    # After a refused answer the page opens on the first problem (autofocus, no script).
    first = next((f for f in q["fields"] if f["errors"]), None)
    if first is not None:
        first["first_problem"] = True
    context: dict[str, Any] = {
        "study": study,
        "participant": p,
        "q": q,
        "display": kind.display,
        "distinct": " ".join(kind.distinct),
        "progress": progress or selectors.participant_progress(p),
        "errors": errors,
        "field_errors": any(k in keys for k in errors),
        # Problems not about one field (e.g. the study closed meanwhile), said above.
        "general_errors": [m for k, messages in errors.items() if k not in keys for m in messages],
        "failure": failure,
    }
    return render(request, "annotation/question.html", context, status=status)


def _posted_assignment(request: HttpRequest) -> int | None:
    """The assignment id an answer's form names; None if it is not an id at all."""
    raw = request.POST.get("assignment", "")
    if raw.isascii() and raw.isdigit() and services.is_db_id(int(raw)):
        return int(raw)
    return None


def _submit(
    request: HttpRequest, study: Study, p: Participant, read: tuple[Assignment | None] | None
) -> HttpResponse:
    if wait := answer_wait(p.pk):
        return _too_many(request, study, wait)
    # One read of the assignment with what answering needs (made with the participant's,
    # or here); the service takes it as read.
    if read is not None:
        a = read[0]
    elif (assignment_id := _posted_assignment(request)) is not None:
        a = services.assignment_for_answer(participant=p, assignment_id=assignment_id)
    else:
        a = None
    if a is None:
        messages.error(request, _("That question is not one of yours."))
        return redirect("volunteer:question", slug=study.slug)
    kind = kind_of(a.task)
    given = read_answer(kind, kind.fields(a.item, a.task), request.POST)
    try:
        services.response_submit(
            participant=p,
            assignment_id=a.pk,
            answer=given.answer,
            ratings=given.ratings,
            assignment=a,
        )
    except services.AlreadyAnswered:
        messages.info(request, _("That question was already answered; your first answer is kept."))
    except ValidationError as exc:
        # The answer rule's own messages, per field, in the volunteer's language.
        errors = exc.message_dict if hasattr(exc, "error_dict") else {"": exc.messages}
        selected: dict[str, str] | None = given.selected
        if getattr(exc, "code", None) == "changed":  # shown afresh: nothing chosen yet
            selected = None
        a = _shown(a.pk)
        return _render_question(request, study, p, a, selected=selected, errors=errors, status=400)
    except DatabaseError:
        log.exception("saving an answer failed (assignment %s)", a.pk)
        failure = _("Your answer could not be saved. Nothing is lost: please try again.")
        return _render_question(
            request, study, p, _shown(a.pk), selected=given.selected, failure=failure, status=503
        )
    return redirect("volunteer:question", slug=study.slug)


def _shown(assignment_id: int) -> Assignment:
    """The whole assignment, item and task, to show the question again (a refusal)."""
    return Assignment.objects.select_related("item", "task").get(pk=assignment_id)


def finish(request: HttpRequest, slug: str) -> HttpResponse:
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    if p.status != Participant.Status.FINISHED:
        return redirect("volunteer:question", slug=slug)
    context: dict[str, Any] = {"study": study, "participant": p}
    # back to the recruitment platform, with the code; a study stored before its host
    # was refused (COMPLETION_HOSTS) shows the code and redirects nowhere
    if study.completion_url and completion_problem(study.completion_url) is None:
        context["completion_link"] = completion_link(
            study.completion_url, code=p.completion_code, params=p.recruitment
        )
        context["redirect_seconds"] = REDIRECT_SECONDS
    if study.finish_results:  # off by default: a study that must not reveal answers
        context["results"] = finish_results(p)
        context["place"] = _place_line(context["results"])
    return render(request, "annotation/finish.html", context)


def _score_line(results: Results) -> str:
    return _("Score %(right)d / %(n)d") % {"right": results.right, "n": results.keyed}


def _place_line(results: Results) -> str:
    if results.percentile is None:
        return ""
    return _("Ahead of %(p)d%% of the %(n)d volunteers of your group who finished") % {
        "p": results.percentile,
        "n": results.group_size,
    }


def finish_share(request: HttpRequest, slug: str) -> HttpResponse:
    """The finish page's share image (PNG): the study's title, the volunteer's score and
    the QR code of the study's public link. A 404 unless the study shows results and the
    volunteer has finished."""
    study, p = _current(request, slug)
    if not study.finish_results or p is None or p.status != Participant.Status.FINISHED:
        raise Http404("No share image")
    results = finish_results(p, with_answers=False)
    png = share_png(
        title=study.title,
        score_line=_score_line(results),
        place_line=_place_line(results),
        invite=_("Scan to take part"),
        url=request.build_absolute_uri(reverse("volunteer:welcome", args=[study.slug])),
    )
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, no-store"
    return response


@require_http_methods(["GET", "POST"])
def resume(request: HttpRequest, slug: str) -> HttpResponse:
    study = selectors.study_for_volunteers(slug)
    form = ResumeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and (wait := wait_seconds(request, "resume", study)):
        return _too_many(request, study, wait)
    if request.method == "POST" and form.is_valid():
        p = selectors.participant_by_resume_code(study, form.cleaned_data["code"])
        if p is not None:
            response = redirect("volunteer:question", slug=slug)
            _remember(response, request, study, p)
            return response
        form.add_error("code", _("No participation matches this code. Please check it."))
    status = 400 if form.errors else 200
    page = render(request, "annotation/resume.html", {"study": study, "form": form}, status=status)
    remember_browser(request, page)
    return page
