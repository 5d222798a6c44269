"""Rate limits as a study file and the settings write them: ``"<count>/<period>"``.

``period`` is ``second``, ``minute``, ``hour`` or ``day`` (or ``s``, ``sec``, ``m``,
``min``, ``h``, ``d``); ``"off"`` turns a limit off. The scopes a study may set are
:data:`STUDY_SCOPES`; what each counts, and how, is ``annotation.ratelimit``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Scopes a study file's ``rate_limits`` may set (the answer limit is site-wide only).
STUDY_SCOPES = ("enrol", "enrol_address", "resume", "resume_address")
OFF = "off"
_PERIODS = {
    "s": 1, "sec": 1, "second": 1,
    "m": 60, "min": 60, "minute": 60,
    "h": 3600, "hour": 3600,
    "d": 86400, "day": 86400,
}  # fmt: skip
_RATE = re.compile(r"^\s*(\d{1,9})\s*/\s*([a-z]+)\s*$")


@dataclass(frozen=True)
class Rate:
    count: int  # requests allowed per window
    seconds: int  # the window

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds}s"


def parse_rate(text: object) -> Rate | None:
    """A rate from ``"30/min"``; None for ``"off"`` (or None, or empty). Raises
    ``ValueError`` saying what is wrong for anything else."""
    if text is None or (isinstance(text, str) and text.strip().lower() in ("", OFF, "none")):
        return None
    match = _RATE.match(text.lower()) if isinstance(text, str) else None
    if match is None or match.group(2) not in _PERIODS or int(match.group(1)) < 1:
        raise ValueError(
            f"{text!r} is not a rate: write <count>/<period>, e.g. 30/min or 500/hour "
            "(count ≥ 1; period second, minute, hour or day), or off"
        )
    return Rate(int(match.group(1)), _PERIODS[match.group(2)])
