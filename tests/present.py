"""`present(x)`: x, failing the test when it is None (and narrowing an Optional for mypy)."""

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """The value, asserting it is there: a query's `.first()`, a regex match, a next item."""
    assert value is not None
    return value
