"""The report's settings, one reader for every interface (the ``report`` command, the
researchers' API, report jobs), echoed in the report's JSON and part of its cache key.

``settings_from(values)`` reads text or JSON values (a query string, a job's params, the
command's options) and raises :class:`SettingsError` naming the setting at fault.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from scoring.agreement.gaps import MIN_SIDE

N_BOOT = 200
SEED = 20261122
PASS_THRESHOLD = 0.8
#: The most bootstrap resamples any interface computes (the dashboard, the downloads, the
#: API, report jobs and the command): one report request must never hold a worker for long.
MAX_BOOT = 2000
#: Seeds numpy's generators take (and a tool reproducing a report may pass to theirs).
MAX_SEED = 2**32 - 1
MAX_MIN_SIDE = 1_000_000
#: Item provenance the tables can be split by (docs/report.md §1).
BY_KEYS = ("source", "condition", "sample", "form", "category")
#: How the ``ratings`` table's interval is computed (``crossed``: clustered as ``cluster`` says).
RATINGS_CI = ("crossed", "t", "bootstrap", "normal")
#: What answers are clustered in, for every accuracy, rate and mean (docs/statistics.md
#: §22): people and items crossed (the default), one of them, the generation prompt,
#: or nothing (answers independent: Wilson's interval, the old default).
CLUSTERS = ("person+item", "person+prompt", "person", "item", "prompt", "none")
CLUSTER = "person+item"


class SettingsError(ValueError):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


@dataclass(frozen=True)
class ReportSettings:
    n_boot: int = N_BOOT  # bootstrap resamples of every bootstrap interval
    seed: int = SEED
    confidence: float = 0.95
    pass_threshold: float = PASS_THRESHOLD  # a graded rule metric passes at or above it
    min_side: int = MIN_SIDE  # fewer poems on a pass/fail (own/other) side: no interval
    by: tuple[str, ...] = ()  # split every table by these item provenance keys
    tasks: tuple[str, ...] = ()  # only these task slugs (empty: every task)
    ratings_ci: str = "crossed"  # the ratings table's interval: crossed | t | bootstrap | normal
    cluster: str = CLUSTER  # what answers are clustered in (``CLUSTERS``)

    def __post_init__(self) -> None:
        check(self)

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["by"], out["tasks"] = list(self.by), list(self.tasks)
        return out

    def cache_key(self) -> str:
        return repr(tuple(getattr(self, f.name) for f in fields(self)))

    def digest(self) -> str:
        """A short hash of every setting (background reports are kept per digest)."""
        return hashlib.sha256(self.cache_key().encode()).hexdigest()[:16]


def check(s: ReportSettings) -> None:
    if not 0 <= s.n_boot <= MAX_BOOT:
        raise SettingsError("n_boot", f"a whole number from 0 to {MAX_BOOT}")
    if not 0 <= s.seed <= MAX_SEED:
        raise SettingsError("seed", f"a whole number from 0 to {MAX_SEED}")
    if not 0 < s.confidence < 1:
        raise SettingsError("confidence", "a number between 0 and 1, e.g. 0.95")
    if not (math.isfinite(s.pass_threshold) and 0 <= s.pass_threshold <= 1):
        raise SettingsError("pass_threshold", "a number from 0 to 1")
    if not 1 <= s.min_side <= MAX_MIN_SIDE:
        raise SettingsError("min_side", f"a whole number from 1 to {MAX_MIN_SIDE}")
    unknown = [k for k in s.by if k not in BY_KEYS]
    if unknown or len(set(s.by)) != len(s.by):
        raise SettingsError("by", f"distinct keys among {', '.join(BY_KEYS)}")
    if s.ratings_ci not in RATINGS_CI:
        raise SettingsError("ratings_ci", f"one of {', '.join(RATINGS_CI)}")
    if s.cluster not in CLUSTERS:
        raise SettingsError("cluster", f"one of {', '.join(CLUSTERS)}")


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list | tuple):
        parts = [p for v in value for p in str(v).split(",")]
    else:
        raise TypeError
    # each name once, in its first place: a repeat means nothing (and a query of 30 KB of
    # one repeated task is not carried into every link of the dashboard)
    return tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))


def _convert(name: str, value: Any, kind: type) -> Any:
    try:
        if kind is tuple:
            return _names(value)
        if kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(str(value).strip()) if isinstance(value, str) else int(value)
        if kind is float:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        return str(value).strip()
    except (TypeError, ValueError):
        raise SettingsError(name, f"{value!r} is not a valid {kind.__name__}") from None


_KINDS: dict[str, type] = {
    "n_boot": int,
    "seed": int,
    "confidence": float,
    "pass_threshold": float,
    "min_side": int,
    "by": tuple,
    "tasks": tuple,
    "ratings_ci": str,
    "cluster": str,
}


def settings_from(values: Mapping[str, Any], base: ReportSettings | None = None) -> ReportSettings:
    """Settings from ``values`` (missing or empty values keep ``base``'s, the defaults)."""
    given = {}
    for name, kind in _KINDS.items():
        value = values.get(name)
        if value is None or (isinstance(value, str) and not value.strip() and kind is not tuple):
            continue
        given[name] = _convert(name, value, kind)
    current = asdict(base) if base is not None else {}
    return ReportSettings(**{**current, **given})


SETTING_NAMES = tuple(_KINDS)
