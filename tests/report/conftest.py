import pytest

from tests.report.factory import Builder, known_study


@pytest.fixture
def known(db) -> Builder:  # type: ignore[no-untyped-def]
    return known_study()
