"""Problems found in an input file, and the error that carries them."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings
from django.utils import translation

from studies.values import Text, in_english


def renderings(message: Text) -> dict[str, str]:
    """A translatable message in each of the site's languages but English (which is
    ``Problem.message``), rendered now: a job stores them, and its page, read later in
    any language, shows the reader's."""
    if isinstance(message, str):
        return {}
    out = {}
    for code, _name in settings.LANGUAGES:
        if code != "en":
            with translation.override(code):
                out[code] = str(message)
    return out


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    field: str | None
    message: str  # in English: the command line's, the API's and the tests' text
    translations: dict[str, str] = dataclasses.field(
        default_factory=dict, compare=False, hash=False
    )

    def shown(self) -> str:
        """The message in the active language (the admin's pages)."""
        return problem_shown(asdict(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.field:
            where += f", field {self.field!r}"
        return f"{where}: {self.message}"


def problem_shown(problem: dict[str, Any]) -> str:
    """A stored problem's message (``asdict(Problem)``, as a job keeps it) in the active
    language, English when it has no rendering in that language."""
    language = translation.get_language() or ""
    return str((problem.get("translations") or {}).get(language) or problem.get("message", ""))


class LoadError(Exception):
    """The file was rejected; nothing was written."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__(self.describe())

    def describe(self, limit: int = 200) -> str:
        lines = [str(p) for p in self.problems[:limit]]
        if len(self.problems) > limit:
            lines.append(f"... and {len(self.problems) - limit} more problems")
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} found; nothing was loaded."
        return "\n".join([head, *lines])


@dataclass
class Collector:
    """Collects problems for one file; ``at(line)`` gives a per-record reporter."""

    file: str
    problems: list[Problem] = field(default_factory=list)

    def add(self, line: int | None, field_name: str | None, message: Text) -> None:
        # A file's problems are listed in English on the command line and in the API;
        # the admin's pages show them in the reader's language (Problem.shown).
        self.problems.append(
            Problem(self.file, line, field_name, in_english(message), renderings(message))
        )

    def at(self, line: int | None, prefix: str = "") -> Reporter:
        return Reporter(self, line, prefix)

    def raise_if_any(self) -> None:
        if self.problems:
            raise LoadError(self.problems)


@dataclass
class Reporter:
    collector: Collector
    line: int | None
    prefix: str = ""
    count: int = 0

    def error(self, field_name: str | None, message: Text) -> None:
        self.count += 1
        name = field_name
        if self.prefix:
            name = f"{self.prefix}.{field_name}" if field_name else self.prefix
        self.collector.add(self.line, name, message)

    def child(self, prefix: str) -> Reporter:
        full = f"{self.prefix}.{prefix}" if self.prefix else prefix
        return Reporter(self.collector, self.line, full)


@dataclass(frozen=True)
class Note:
    """A remark a load's summary carries beside its counts (e.g. work left for later)."""

    code: str  # stable, for programs: e.g. "rule_scores_deferred"
    message: str  # for people

    def __str__(self) -> str:
        return self.message


@dataclass
class ItemChanges:
    """Items a load created or changed, for the work that follows the load in the same
    transaction (``jobs.loads``: regrading responses, scoring poems)."""

    changed: list[int] = field(default_factory=list)  # created or updated
    rekeyed: list[int] = field(default_factory=list)  # updated with another answer key
    reshaped: list[int] = field(default_factory=list)  # its options changed
    # item pk -> option list -> new position of each old option (--remap, checked)
    remapped: dict[int, dict[str, list[int | None]]] = field(default_factory=dict)

    def extend(self, other: ItemChanges) -> None:
        self.changed.extend(other.changed)
        self.rekeyed.extend(other.rekeyed)
        self.reshaped.extend(other.reshaped)
        self.remapped.update(other.remapped)


@dataclass
class Summary:
    """What a load did (or, in a dry run, would do)."""

    kind: str
    file: str
    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    dry_run: bool = False
    details: dict[str, int] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    items: ItemChanges = field(default_factory=ItemChanges)

    def count(self, outcome: str, n: int = 1, what: str | None = None) -> None:
        setattr(self, outcome, getattr(self, outcome) + n)
        if what and n:
            key = f"{what} {outcome}"
            self.details[key] = self.details.get(key, 0) + n

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def describe(self) -> str:
        verb = "would be" if self.dry_run else ""
        parts = [
            f"{self.created} created",
            f"{self.updated} updated",
            f"{self.unchanged} unchanged",
        ]
        if verb:
            parts = [p.replace(" ", f" {verb} ", 1) for p in parts]
        text = f"{self.file}: {self.rows} rows; " + ", ".join(parts)
        if self.details:
            text += " (" + ", ".join(f"{k}: {v}" for k, v in sorted(self.details.items())) + ")"
        if self.dry_run:
            text += ". Dry run: nothing was written."
        return "\n".join([text, *map(str, self.notes)])

    def as_dict(self) -> dict[str, Any]:
        """The summary as stored on a job: counts and notes (not the item ids)."""
        data = asdict(self)
        del data["items"]
        return data
