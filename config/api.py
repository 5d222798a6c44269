"""REST framework glue shared by every API view."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Turn a service's Django ``ValidationError`` into a 400 with its messages."""
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            detail: Any = {k: [str(m) for m in v] for k, v in exc.message_dict.items()}
        else:
            detail = {"detail": exc.messages}
        return Response(detail, status=400)
    return drf_exception_handler(exc, context)
