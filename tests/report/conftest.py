import pytest

from tests.report.factory import Builder, known_study

# The three worked studies' fixtures, for the dashboard's tests too.
from tests.report.test_worked_cciv import cciv  # noqa: F401
from tests.report.test_worked_fuxi import fuxi  # noqa: F401
from tests.report.test_worked_tang import tang  # noqa: F401


@pytest.fixture
def known(db) -> Builder:
    return known_study()
