"""The API's roles (tests/api/conftest.py) for the API fuzzers here."""

from tests.api.conftest import world  # noqa: F401
