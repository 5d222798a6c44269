"""The volunteer pages: thin views over ``annotation.services`` and ``annotation.selectors``.

Flow: welcome + consent (public link or group invitation) -> start (resume code) ->
screening -> for each task, its questions (the first with the task's instructions) ->
finish (completion code).
Every POST redirects (POST/redirect/GET); a participant is identified by a signed cookie
per study, or by typing their resume code on another device.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from annotation import poemfont, selectors, services
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
from studies.values import EXCERPT

log = logging.getLogger(__name__)
# The language switch (base.html) names each language in itself: "English" stays
# "English" on the Chinese pages (Django's own catalogue would say 英语).
LANGUAGE_NAMES = (gettext_noop("English"),)
COOKIE_SALT = "shiping.volunteer"
COOKIE_AGE = 60 * 60 * 24 * 90
REDIRECT_SECONDS = 5  # the finish page shows the code this long, then goes to the platform


COOKIE_PREFIX = "shiping-p"
FONT_CSS_SECONDS = 300  # the font's CSS names the current subset: asked for again soon
FONT_SECONDS = 365 * 24 * 3600  # a subset's URL names its content: it never changes


def no_store(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The page is never kept by the browser (``Cache-Control: no-store``): Back shows
    the participant's state now (the current question, its count), never an old copy
    with a stale error or a ticked option. volunteer.js reloads a page that a browser
    restores from its back/forward cache all the same."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapped


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


@no_store
@require_http_methods(["GET", "POST"])
def welcome(request: HttpRequest, slug: str) -> HttpResponse:
    response = _enter(request, slug, None)
    remember_browser(request, response)  # tells classmates behind one address apart
    return response


@no_store
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


@no_store
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


@no_store
def start(request: HttpRequest, slug: str) -> HttpResponse:
    study, p = _current(request, slug)
    if p is None:
        return redirect("volunteer:welcome", slug=slug)
    context = {"study": study, "participant": p, "wechat": _in_wechat(request)}
    return render(request, "annotation/start.html", context)


@no_store
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


@no_store
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
    assert a is not None  # QUESTION: the current item, served by the claim's own statement
    # A task's first question opens with its instructions unfolded above it (no page of
    # their own); later ones keep them folded.
    return _render_question(request, study, p, a, progress=state.progress, intro=state.intro)


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
    intro: bool = False,
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
        "intro": intro,
        "rating": any("scale" in f for f in q["fields"]),
        # an unsaved choice is kept in the tab's sessionStorage under this key (volunteer.js)
        "draft_key": _draft_key(p, a),
        "font_page": f"item{a.item_id}",  # the page's own font faces (annotation.poemfont)
    }
    return render(request, "annotation/question.html", context, status=status)


def _draft_key(p: Participant, a: Assignment) -> str:
    """Where volunteer.js keeps an unsaved choice (the tab's sessionStorage): per
    participant (a digest: the page never shows the cookie's id) and item."""
    who = hashlib.sha256(f"{COOKIE_SALT}:{p.public_id}".encode()).hexdigest()[:16]
    return f"shiping-draft:{who}:{a.item_id}"


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


@no_store
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


@no_store
@require_http_methods(["GET", "POST"])
def resume(request: HttpRequest, slug: str) -> HttpResponse:
    study = selectors.study_for_volunteers(slug)
    data = request.POST.copy() if request.method == "POST" else None
    if data is not None:  # a refused code is shown again: a short one, never 2 MB of it
        data["code"] = data.get("code", "")[:EXCERPT]
    form = ResumeForm(data)
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


def _font_study(request: HttpRequest, slug: str) -> Study:
    """The study whose font is asked for: one volunteers may see, or (a draft) one the
    member of staff previewing it may see."""
    study = Study.objects.filter(slug=slug).first()
    if study is None:
        raise Http404("No such study")
    if study.status == Study.Status.DRAFT and not (
        request.user.is_authenticated and visible_studies(request.user).filter(pk=study.pk).exists()
    ):
        raise Http404("No such study")
    return study


@require_GET
def poem_font_css(request: HttpRequest, slug: str) -> HttpResponse:
    """The @font-face of the study's poem font (linked from its pages: a file, not an
    inline style), naming the current subset by its hash."""
    study = _font_study(request, slug)
    page = request.GET.get("for", "")
    fonts = poemfont.page_fonts(study, page) if page else [poemfont.study_font(study)]
    if fonts is None:
        raise Http404("No such page")
    rules = []
    for font in fonts:
        if font.scope:
            args = [study.slug, font.scope, font.digest, font.flavor]
            url = reverse("volunteer:poem-font-page", args=args)
        else:
            url = reverse("volunteer:poem-font", args=[study.slug, font.digest, font.flavor])
        poemfont.font_file_soon(font, 0)  # a first visitor's: its build starts now
        rules.append(poemfont.font_face_css(url, font.flavor, font.unicode_range))
    response = HttpResponse("".join(rules), content_type="text/css")
    patch_cache_control(response, public=True, max_age=FONT_CSS_SECONDS)
    return response


@require_GET
def poem_font(
    request: HttpRequest, slug: str, digest: str, flavor: str, scope: str = ""
) -> HttpResponse | FileResponse:
    """The study's subset of the poems' serif (``annotation.poemfont``), or one page
    face's (``scope``), built on first use and kept on disk; an old hash (the study's
    items changed since) is a 404. While it is still being built (seconds), a 503 the
    browser does not keep: the page uses its fallback font, a later page gets this one."""
    study = _font_study(request, slug)
    font = poemfont.font_for(study, scope) if scope else poemfont.study_font(study)
    if font is None or digest != font.digest or flavor != font.flavor:
        raise Http404("No such font")
    path = poemfont.font_file_soon(font, poemfont.WAIT_SECONDS)
    if path is None:
        busy = HttpResponse("The font is being prepared.", status=503, content_type="text/plain")
        busy["Retry-After"] = "5"
        add_never_cache_headers(busy)
        return busy
    response = FileResponse(path.open("rb"), content_type=font.content_type)
    patch_cache_control(response, public=True, max_age=FONT_SECONDS, immutable=True)
    return response
