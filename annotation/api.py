"""The volunteer flow as a REST API (custom front-ends, the load test), over the same
services as the pages.

Identity: ``enrol`` (or ``resume`` with a resume code) returns a signed participant
token; send it on every later call as ``Authorization: Participant <token>``. The token
names one participant of one study and carries no staff rights; requests with it need no
CSRF token (it is not an ambient credential). It expires ``PARTICIPANT_TOKEN_DAYS`` after
it was signed, renewed on use: a reply to a token older than
``PARTICIPANT_TOKEN_RENEW_HOURS`` carries a fresh one in the ``X-Participant-Token``
header, to be sent from then on (a volunteer away longer resumes with their code).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import authentication, exceptions, permissions, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors, services
from annotation.models import Participant
from annotation.ratelimit import AnswerThrottle, address_digest, wait_seconds
from annotation.services import warmup
from studies.models import Study
from studies.values import EXCERPT

KEYWORD = "Participant"
RENEWED_HEADER = "X-Participant-Token"
NEXT_PARAM = OpenApiParameter(
    "next",
    bool,
    required=False,
    description='1: reply with the next item too (under "next"), saving a GET /next/.',
)


class ParticipantTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Participant] | None:
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0] != KEYWORD:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(_("Malformed participant token."))
        participant = selectors.participant_ref_by_token(header[1])
        if participant is None:
            raise exceptions.AuthenticationFailed(_("Unknown participant token."))
        if (
            selectors.participant_token_age(header[1])
            > settings.PARTICIPANT_TOKEN_RENEW_HOURS * 3600
        ):
            request.renewed_token = selectors.participant_token(participant)  # type: ignore[attr-defined]
        return AnonymousUser(), participant

    def authenticate_header(self, request: Request) -> str:
        return KEYWORD


def participant_ref(request: Request) -> Participant:
    """The participant a request's token names (a reference: ids only, see
    ``selectors.participant_ref_by_token``); set by the authentication above."""
    participant = request.auth
    if not isinstance(participant, Participant):
        raise exceptions.NotAuthenticated()
    return participant


def participant_id(request: Request) -> int:
    return participant_ref(request).pk


class ParticipantTokenScheme(OpenApiAuthenticationExtension):
    target_class = "annotation.api.ParticipantTokenAuthentication"
    name = "participantToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Participant <token>`, the token returned by enrol or resume.",
        }


class IsParticipant(permissions.BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, Participant)


class ShortKeysDictField(serializers.DictField):
    """A ``DictField`` whose refusals name each key by a short excerpt: DRF names the
    key whole, so a 2 MB key sent in came back as a 2 MB reply."""

    def run_child_validation(self, data: dict[Any, Any]) -> dict[str, Any]:
        try:
            return super().run_child_validation(data)
        except serializers.ValidationError as exc:
            detail = exc.detail
            if isinstance(detail, dict):
                detail = {_short_key(k): v for k, v in detail.items()}
            raise serializers.ValidationError(detail) from exc


def _short_key(key: Any) -> str:
    text = str(key)
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


class EnrolIn(serializers.Serializer):
    consent = serializers.BooleanField(help_text="Must be true: the study's consent accepted.")
    invite = serializers.CharField(required=False, help_text="A group invitation token.")
    screening = ShortKeysDictField(
        child=serializers.IntegerField(), required=False, help_text="question key -> option index"
    )
    language = serializers.CharField(required=False, max_length=10)
    recruitment = ShortKeysDictField(
        child=serializers.CharField(max_length=200, allow_blank=True),
        required=False,
        help_text="A recruitment platform's parameters from the entry link (PROLIFIC_PID, "
        "STUDY_ID, SESSION_ID, pid); others are ignored. Kept for the researchers only.",
    )


class ResumeIn(serializers.Serializer):
    code = serializers.CharField(max_length=20)


class ParticipantOut(serializers.Serializer):
    participant = serializers.CharField(source="public_id")
    token = serializers.SerializerMethodField()
    resume_code = serializers.CharField()
    status = serializers.CharField()
    group = serializers.SerializerMethodField()
    warmup = serializers.SerializerMethodField(
        help_text="pending: answer the practice and qualification first (GET /warmup/); "
        "done, ended, or screening (not placed yet)"
    )

    def get_token(self, obj: Participant) -> str:
        return selectors.participant_token(obj)

    def get_warmup(self, obj: Participant) -> str:
        return warmup.warmup_state(obj)

    def get_group(self, obj: Participant) -> str | None:
        return obj.group.slug if obj.group else None


class ProgressOut(serializers.Serializer):
    answered = serializers.IntegerField()
    total = serializers.IntegerField()
    finished = serializers.BooleanField()


class NextOut(serializers.Serializer):
    done = serializers.BooleanField()
    item = serializers.JSONField(
        allow_null=True,
        help_text="assignment id, task (title, kind, instructions, guide), item (stem, poem) "
        "and fields (key, prompt, options as shown positions, or a rating scale).",
    )
    completion_code = serializers.CharField(allow_null=True)
    progress = ProgressOut()


#: A database id is a signed 64-bit integer: a larger one names no assignment.
MAX_ID = 2**63 - 1


class SubmitIn(serializers.Serializer):
    assignment = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    answer = serializers.JSONField(
        required=False,
        help_text='choice: shown position; multi: {part: position}; best_worst: {"best": i, "worst": j}',
    )
    # Read as given: the answer rule (studies.kinds) checks both, with translated messages.
    ratings = serializers.JSONField(required=False, help_text="rating: {dimension: value}")


class SubmitOut(serializers.Serializer):
    # No progress here: the next item (GET /next/, or ?next=1) carries it.
    assignment = serializers.IntegerField()
    duplicate = serializers.BooleanField(help_text="True when this answer was already stored.")
    next = NextOut(
        required=False,
        allow_null=True,
        help_text="Only with ?next=1: what GET /next/ would now return (null if it cannot "
        "be given, e.g. the study has closed: GET /next/ then says why).",
    )


def _progress(p: Participant) -> dict[str, Any]:
    progress = selectors.participant_progress(p)
    return {
        "answered": progress.answered,
        "total": progress.total,
        "finished": p.status == Participant.Status.FINISHED,
    }


class ParticipantView(APIView):
    authentication_classes = [ParticipantTokenAuthentication]
    permission_classes = [IsParticipant]
    # JSON in (the project's parser, settings.REST_FRAMEWORK), JSON out: a machine API
    # (the schema and /api/docs/ document it).
    renderer_classes = [JSONRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        renewed = getattr(request, "renewed_token", None)
        if renewed:  # the token, renewed on use (see the module's docstring)
            response[RENEWED_HEADER] = renewed
        return response

    def participant(self, request: Request) -> Participant:
        """The authenticated participant's row (the token itself holds only ids)."""
        p = selectors.participant_by_pk(participant_id(request))
        if p is None:
            raise exceptions.AuthenticationFailed(_("Unknown participant token."))
        return p


def _limit(request: Request, scope: str, study: Study) -> None:
    """The pages' enrolment and resume limits (``annotation.ratelimit``): 429 past them."""
    if wait := wait_seconds(request, scope, study):
        raise exceptions.Throttled(wait=wait)


class EnrolView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=EnrolIn, responses={201: ParticipantOut}, tags=["volunteer"])
    def post(self, request: Request, slug: str) -> Response:
        """Take part: accept the consent, then be placed by invitation or screening."""
        study = selectors.study_for_volunteers(slug)
        _limit(request, "enrol", study)
        data = EnrolIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            p = services.participant_enrol(
                study=study,
                consent=data.validated_data["consent"],
                invite_token=data.validated_data.get("invite"),
                entry=Participant.Entry.API,
                language=data.validated_data.get("language", ""),
                recruitment=data.validated_data.get("recruitment"),
                address=address_digest(request),
            )
            if p.group_id is None:
                answers = data.validated_data.get("screening", {})
                p = services.participant_screen(participant=p, answers=answers)
        return Response(ParticipantOut(p).data, status=status.HTTP_201_CREATED)


class ResumeView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=ResumeIn, responses={200: ParticipantOut}, tags=["volunteer"])
    def post(self, request: Request, slug: str) -> Response:
        """Exchange a resume code for a participant token."""
        study = selectors.study_for_volunteers(slug)
        _limit(request, "resume", study)
        data = ResumeIn(data=request.data)
        data.is_valid(raise_exception=True)
        p = selectors.participant_by_resume_code(study, data.validated_data["code"])
        if p is None:
            raise exceptions.NotFound(_("No participation matches this code."))
        return Response(ParticipantOut(p).data)


def _warmup_refusal(participant_id: int) -> None:
    """Refuse GET next for a participant whom the warm-up has not placed (or has ended)."""
    p = selectors.participant_by_pk(participant_id)
    if p is not None and warmup.warmup_pending(p):
        raise ValidationError(
            _("Answer the practice and qualification questions first (GET /warmup/)."), "warmup"
        )
    if p is not None and warmup.warmup_failed(p):
        raise ValidationError(
            _("The qualification did not place you in this study: nothing more is asked."),
            "ended",
        )


def _next_body(participant_id: int) -> dict[str, Any]:
    """The reply of GET next: the current item (claimed and served now), or done."""
    try:
        nxt = services.next_item(participant_id=participant_id, serve=True, only_if_open=True)
    except Participant.DoesNotExist:
        raise exceptions.AuthenticationFailed(_("Unknown participant token.")) from None
    except ValidationError as exc:
        if exc.code == "screening":  # not placed: perhaps waiting for the warm-up
            _warmup_refusal(participant_id)
        raise
    if nxt.closed:
        raise ValidationError(_("This study is closed."), "closed")
    p, a = nxt.participant, nxt.assignment
    if a is None or nxt.progress is None:
        p = services.participant_finish(participant=p)
        return {
            "done": True,
            "item": None,
            "completion_code": p.completion_code,
            "progress": _progress(p),
        }
    progress = {"answered": nxt.progress.answered, "total": nxt.progress.total, "finished": False}
    item = selectors.item_presentation(a, study=p.study)
    return {"done": False, "item": item, "completion_code": None, "progress": progress}


class NextView(ParticipantView):
    @extend_schema(responses={200: NextOut}, tags=["volunteer"])
    def get(self, request: Request) -> Response:
        """The current item (claimed for you until answered), or done + completion code."""
        return Response(_next_body(participant_id(request)))


class AnswerView(ParticipantView):
    throttle_classes = [AnswerThrottle]

    @extend_schema(
        request=SubmitIn,
        responses={
            201: SubmitOut,
            200: SubmitOut,
            409: inline_serializer("AlreadyAnswered", {"detail": serializers.CharField()}),
        },
        parameters=[NEXT_PARAM],
        tags=["volunteer"],
    )
    def post(self, request: Request) -> Response:
        """Answer one of your assignments (option indices as shown). Re-sending the same
        answer is harmless (200, duplicate); a different one for an answered item is 409.
        With ?next=1 the reply also carries the next item (as GET /next/) under "next"."""
        p = participant_ref(request)
        data = SubmitIn(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            result = services.response_submit(
                participant=p,
                assignment_id=data.validated_data["assignment"],
                answer=data.validated_data.get("answer"),
                ratings=data.validated_data.get("ratings"),
            )
        except services.AlreadyAnswered as exc:
            return Response({"detail": exc.messages[0]}, status=status.HTTP_409_CONFLICT)
        body: dict[str, Any] = {"assignment": result.assignment.pk, "duplicate": result.duplicate}
        if request.query_params.get("next") in ("1", "true"):
            try:
                body["next"] = _next_body(p.pk)
            except ValidationError:  # e.g. closed meanwhile: the answer stands, GET says why
                body["next"] = None
        code = status.HTTP_200_OK if result.duplicate else status.HTTP_201_CREATED
        return Response(body, status=code)


class ProgressView(ParticipantView):
    @extend_schema(responses={200: ProgressOut}, tags=["volunteer"])
    def get(self, request: Request) -> Response:
        """How many of your items you have answered, out of how many."""
        return Response(_progress(self.participant(request)))
