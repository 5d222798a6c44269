"""Hand work to background jobs without depending on the app that runs them.

``studies`` and ``annotation`` sit below ``scoring`` (where jobs live), so their
management commands cannot import it; ``scoring`` registers its submitter here when it
starts, and ``--background`` options call :func:`submit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Submitter = Callable[..., dict[str, Any]]
_submitter: Submitter | None = None


def register(submitter: Submitter) -> None:
    global _submitter
    _submitter = submitter


def submit(*, kind: str, study: Any, params: dict[str, Any], content: bytes | None = None,
           name: str = "", user: Any = None) -> dict[str, Any]:  # fmt: skip
    """Submit a job; returns its ``id``, ``status`` and ``message`` (a line to show).

    Without a broker the job has already run when this returns (status done or failed).
    """
    if _submitter is None:
        raise RuntimeError("background jobs are not available (the scoring app is not installed)")
    return _submitter(kind=kind, study=study, params=params, content=content, name=name, user=user)
