"""REST framework glue shared by every API view: the exception handler, a JSON parser
that refuses deeply nested documents and repeated keys, and the one pagination with a bounded page size."""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from studies.loading.plain import DuplicateKey, unique_keys

#: Nothing the API takes is nested deeper than a few levels (an answer is at most
#: ``{"answer": {"part": 1}}``); deeper documents are refused before anything reads them.
MAX_JSON_DEPTH = 16
#: The largest value a database id or offset can have (a signed 64-bit integer).
MAX_DB_INT = 2**63 - 1


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Turn a service's Django ``ValidationError`` into a 400 with its messages."""
    # Imported here: rest_framework.views reads DEFAULT_PARSER_CLASSES, which names this
    # module's parser, when it is first imported.
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            detail: Any = {k: [str(m) for m in v] for k, v in exc.message_dict.items()}
        else:
            detail = {"detail": exc.messages}
        return Response(detail, status=400)
    return drf_exception_handler(exc, context)


def json_depth_exceeds(data: Any, limit: int) -> bool:
    """Whether ``data`` (parsed JSON) nests lists and objects deeper than ``limit``;
    iterative, so no document can exhaust the stack here."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in children)
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with a 400 (not a 500) for documents nested too deeply and a
    400 naming the key for an object that names a key twice."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        too_deep = _("The JSON document is nested too deeply (at most %(n)s levels).") % {
            "n": MAX_JSON_DEPTH
        }
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read()
            data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=unique_keys)
        except RecursionError:
            raise ParseError(too_deep) from None
        except DuplicateKey as exc:  # the loaders' own check (studies.loading.plain)
            message = _("The key %(key)s appears twice in one JSON object: send it once.")
            raise ParseError(message % {"key": json.dumps(exc.key, ensure_ascii=False)}) from None
        except ValueError as exc:  # not JSON, not UTF-8, NaN or Infinity
            raise ParseError(_("JSON parse error - %(reason)s") % {"reason": exc}) from None
        if json_depth_exceeds(data, MAX_JSON_DEPTH):
            raise ParseError(too_deep)
        return data


class Pagination(LimitOffsetPagination):
    """Limit/offset pages of at most ``API_MAX_PAGE_SIZE`` rows (a larger limit gets that
    many, as REST framework does). A limit or offset that is not a whole number, or is
    past what a database integer holds, is a 400 saying so, never a database overflow."""

    @property
    def max_limit(self) -> int:  # type: ignore[override]
        return int(settings.API_MAX_PAGE_SIZE)

    def _number(self, request: Any, name: str) -> int | None:
        raw = request.query_params.get(name)
        if raw is None or raw == "":
            return None
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 19 or int(raw) > MAX_DB_INT:
            message = _("%(name)s must be a whole number from 0 to %(high)s.") % {
                "name": name,
                "high": MAX_DB_INT,
            }
            raise ParseError({name: [message]})
        return int(raw)

    def get_limit(self, request: Any) -> int | None:
        limit = self._number(request, self.limit_query_param) or self.default_limit or 100
        return min(limit, self.max_limit)

    def get_offset(self, request: Any) -> int:
        return self._number(request, self.offset_query_param) or 0
