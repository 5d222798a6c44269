"""Schemathesis against the OpenAPI schema: generated requests for every operation, as a
researcher (token) and as a volunteer (participant token), never get a server error."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.core.result import Ok

from config.wsgi import application


def _schema() -> dict:
    """The OpenAPI document from drf-spectacular's generator: no request, so no database
    connection is opened before the test database exists."""
    from drf_spectacular.generators import SchemaGenerator

    return json.loads(
        json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str)
    )


# Transactional: the WSGI app may close the connection between requests, as in production.
pytestmark = pytest.mark.django_db(transaction=True)
schema = schemathesis.openapi.from_dict(_schema())
schema.app = application  # calls go straight to the WSGI app, in this process


HYPOTHESIS = settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


def _check(case, headers: dict[str, str]) -> None:
    response = case.call(headers=headers)
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:500]}"
    )


@pytest.mark.slow
@schema.parametrize()
@HYPOTHESIS
def test_no_operation_answers_a_researcher_with_a_server_error(case, world) -> None:
    _check(case, {"Authorization": f"Token {world.researcher_token}"})


@pytest.mark.slow
@schema.parametrize()
@HYPOTHESIS
def test_no_operation_answers_a_volunteer_with_a_server_error(case, world) -> None:
    _check(case, {"Authorization": world.clients["volunteer"]._credentials["HTTP_AUTHORIZATION"]})


HOSTILE_INT = 2**63  # one past the largest database id
NESTED = "[" * 50_000 + "]" * 50_000


def _operations() -> list:
    return [cast(Ok[Any], result).ok() for result in schema.get_all_operations()]


@pytest.mark.slow
@pytest.mark.parametrize("operation", _operations(), ids=lambda op: op.label)
def test_no_operation_fails_on_huge_integers_or_deep_nesting(operation, world) -> None:
    """Beyond what the generator tries: every integer parameter one past a 64-bit id,
    every limit and offset likewise, and (for operations with a body) a JSON document
    nested far deeper than any parser's stack."""
    path = {p.name: HOSTILE_INT for p in operation.path_parameters}
    query = {p.name: HOSTILE_INT for p in operation.query}
    query.update({"limit": HOSTILE_INT, "offset": HOSTILE_INT})
    tokens = [
        {"Authorization": f"Token {world.researcher_token}"},
        {"Authorization": world.clients["volunteer"]._credentials["HTTP_AUTHORIZATION"]},
    ]
    for headers in tokens:
        slugged = {k: (world.own.study.slug if k == "slug" else v) for k, v in path.items()}
        for params in (path, slugged):
            _check(operation.Case(path_parameters=params, query=query), headers)
        if operation.body:
            case = operation.Case(path_parameters=slugged, media_type="application/json")
            response = case.call(
                headers={**headers, "Content-Type": "application/json"}, data=NESTED
            )
            # Refused as malformed, or first as not this caller's operation: never a 5xx.
            assert response.status_code in (400, 401, 403), (operation.label, response.text[:300])
