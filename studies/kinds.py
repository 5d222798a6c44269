"""The task kinds, each declared once: which fields an item asks, how a pool line's
options and key are read, how an answer is read and checked, which option lists are
shuffled, how the question page shows it, and how the report scores it.

A kind is a stateless object, one per ``Task.Kind`` value, found with :func:`kind_of`
(a task) or ``KINDS[slug]``. Nothing else branches on a task's kind: the pool loader
calls :meth:`Kind.parse_content`; every way an answer arrives (the volunteer pages, the
API, stored LLM outputs, imported responses) goes through :func:`parse_answer`; the
shuffle (``annotation.assignment``) asks :meth:`Kind.option_lists` and
:meth:`Kind.options_key`; the question page reads :attr:`Kind.display` and
:meth:`Kind.legend`; the report reads :attr:`Kind.scale`, :attr:`Kind.all_parts` and
:attr:`Kind.headline`.

Adding a kind: a subclass here in ``KINDS``, its value in ``Task.Kind`` (a migration of
the field's choices), and a template in ``templates/annotation/fields/`` if its fields
render otherwise than as options or a scale.

Answer values are canonical option indices (never shuffled display positions) or
ratings. The answer rule's messages are translated when shown (``studies.values``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import gettext_lazy as _

from studies.values import (
    Report,
    Text,
    excerpt,
    is_blank,
    is_digits,
    is_int,
    parse_index,
    parse_options,
    parse_text,
    with_params,
)

if TYPE_CHECKING:
    from studies.models import Item, Task

ANSWER = "answer"  # the field of a single choice, and the option list best/worst share
ALL_PARTS = "*"  # the report's field: every keyed part of an item answered right


@dataclass
class Parsed:
    """What the answer rule made of an answer: values per field, or problems per field."""

    values: dict[str, float] = field(default_factory=dict)
    errors: list[tuple[str, Text]] = field(default_factory=list)

    def error(self, field_name: str | None, message: Text) -> None:
        self.errors.append((field_name or "", message))


@dataclass(frozen=True)
class FieldSpec:
    """One field an item asks: chosen among ``options`` (canonical order; the shuffle's
    list ``options_key``) or rated on ``scale``."""

    key: str
    prompt: str = ""
    options: Sequence[Mapping[str, Any]] = ()
    options_key: str = ""
    scale: Sequence[int] | None = None
    description: str = ""
    labels: Mapping[int, str] = field(default_factory=dict)  # a scale's point labels


@dataclass(frozen=True)
class Content:
    """A pool line's kind-specific part: options, parts and answer key (``Item`` fields)."""

    options: list[dict[str, str]] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, int] | None = None


@dataclass(frozen=True)
class Display:
    """How the question page shows a kind's fields.

    ``template`` renders one field's inputs; ``poems``: the options are whole poems,
    shown once above the fields (a switcher between them on phones) and named "Poem n"
    with their first words in them; ``css``: an extra class of each field's fieldset;
    ``hide_author``: the poem's author is withheld unless the study says otherwise
    (``Study.hide_authors``), since a famous name biases a judgment of quality."""

    template: str = "annotation/fields/options.html"
    poems: bool = False
    css: str = ""
    hide_author: bool = False


@dataclass(frozen=True)
class Kind:
    """A task kind: stateless, its choices declared as class attributes, its rules as
    methods that each kind's subclass fills in."""

    slug: ClassVar[str]
    payload: ClassVar[str] = "answer"  # the argument an answer arrives in ("answer" | "ratings")
    wrong_payload: ClassVar[Text]  # the message for an answer given in the other argument
    bare_field: ClassVar[str | None] = None  # the field an answer not given as an object fills
    distinct: ClassVar[tuple[str, ...]] = ()  # fields that must name different options
    scale: ClassVar[bool] = False  # rated on the task's dimensions (ordinal, correlated)
    all_parts: ClassVar[bool] = False  # the report adds field "*": every keyed part right
    headline: ClassVar[str | None] = None  # the accuracy field the dashboard charts
    display: ClassVar[Display] = Display()
    seconds: ClassVar[int] = 20  # a volunteer's usual time on one item (the time estimate)

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        raise NotImplementedError

    def fields(self, item: Item, task: Task) -> list[str]:
        """The fields an answer to ``item`` fills (``Response.field``)."""
        return [spec.key for spec in self.field_specs(item, task)]

    def legend(self, key: str, prompt: str) -> Text:
        """The question page's heading of one field."""
        return prompt

    def seconds_per_item(self, task: Task) -> int:
        """About how long a volunteer spends on one item of ``task`` (the welcome page's
        time estimate, when the study does not set one)."""
        return self.seconds

    def option_lists(self, *, n_options: int, parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """The option lists a shuffle permutes: list key -> number of options."""
        return {}

    def options_key(self, field_name: str) -> str | None:
        """The option list a field chooses from (None: not chosen among options)."""
        return None

    def option_contents(
        self, *, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]
    ) -> dict[str, list[Any]]:
        """The option lists themselves (list key -> options, as stored): what an answer's
        positions mean, so what a reload may not silently change."""
        return {}

    def parse_content(self, data: Mapping[str, Any], report: Report, *, has_text: bool) -> Content:
        """Read a pool line's options, parts and answer key; ``has_text``: it has a stem
        or a poem."""
        raise NotImplementedError

    def answer_from_fields(self, values: Mapping[str, Any]) -> Any:
        """An answer given field by field (a page's inputs, an export's rows), in the
        shape :func:`parse_answer` takes."""
        return values.get(self.bare_field) if self.bare_field else dict(values)

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        """Read ``given`` (canonical positions) into ``out.values``, or report problems."""
        raise NotImplementedError


def kind_of(task: Task) -> Kind:
    return KINDS[task.kind]


def parse_answer(item: Item, task: Task, *, answer: Any = None, ratings: Any = None) -> Parsed:
    """The answer rule: ``answer`` (choice, multi, best/worst) or ``ratings`` (rating) for
    ``item``, with option indices canonical. Used by every way an answer arrives."""
    kind = kind_of(task)
    out = Parsed()
    given = {"answer": answer, "ratings": ratings}
    wrong = "ratings" if kind.payload == "answer" else "answer"
    if given[wrong] is not None:
        out.error(wrong, kind.wrong_payload)
        return out
    kind.check(item, task, given[kind.payload], out)
    return out


class _Question(Kind):
    """Kinds answered by choosing options (values: option indices)."""

    wrong_payload = _("this item is a question: give 'answer', not 'ratings'")

    def _parse_key(self, raw: Any, n_options: int, report: Report) -> dict[str, int] | None:
        raise NotImplementedError

    def parse_content(self, data: Mapping[str, Any], report: Report, *, has_text: bool) -> Content:
        options = parse_options(data.get("options"), report, "options")
        answer = None
        if options and data.get("answer") not in (None, ""):
            answer = self._parse_key(data["answer"], len(options), report)
        if not has_text:
            report.error("stem", _("a question needs a stem or a poem"))
        return Content(options=options or [], answer=answer)

    def option_lists(self, *, n_options: int, parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        return {ANSWER: n_options}

    def options_key(self, field_name: str) -> str | None:
        return ANSWER

    def option_contents(
        self, *, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]
    ) -> dict[str, list[Any]]:
        return {ANSWER: list(options)}


@dataclass(frozen=True)
class Choice(_Question):
    slug = "choice"
    bare_field = ANSWER
    headline = ANSWER

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        return [FieldSpec(ANSWER, options=item.options, options_key=ANSWER)]

    def legend(self, key: str, prompt: str) -> Text:
        return _("Your answer")

    def _parse_key(self, raw: Any, n_options: int, report: Report) -> dict[str, int] | None:
        index = parse_index(raw, n_options, report, ANSWER)
        return None if index is None else {ANSWER: index}

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        if isinstance(given, dict) and set(given) == {ANSWER}:
            given = given[ANSWER]
        index = parse_index(given, len(item.options), out, ANSWER)
        if index is not None:
            out.values[ANSWER] = index


SAME_OPTION = _("best and worst must be different options")


@dataclass(frozen=True)
class BestWorst(_Question):
    """The options are whole poems; the answer names the best and the worst."""

    slug = "best_worst"
    distinct = ("best", "worst")
    all_parts = True
    headline = ALL_PARTS
    display = Display(poems=True, hide_author=True)
    seconds = 90  # three poems read and compared

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        return [FieldSpec(key, options=item.options, options_key=ANSWER) for key in self.distinct]

    def legend(self, key: str, prompt: str) -> Text:
        return _("Which poem is the best?") if key == "best" else _("Which poem is the worst?")

    def _parse_key(self, raw: Any, n_options: int, report: Report) -> dict[str, int] | None:
        if not isinstance(raw, dict) or set(raw) != set(self.distinct):
            report.error(ANSWER, _('must be {"best": i, "worst": j} for a best/worst question'))
            return None
        best = parse_index(raw["best"], n_options, report, "answer.best")
        worst = parse_index(raw["worst"], n_options, report, "answer.worst")
        if best is None or worst is None:
            return None
        if best == worst:
            report.error(ANSWER, SAME_OPTION)
            return None
        return {"best": best, "worst": worst}

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        if not isinstance(given, dict) or set(given) != set(self.distinct):
            out.error(ANSWER, _('must be {"best": i, "worst": j}'))
            return
        best = parse_index(given["best"], len(item.options), out, "best")
        worst = parse_index(given["worst"], len(item.options), out, "worst")
        if best is not None and worst is not None:
            if best == worst:
                out.error("worst", SAME_OPTION)
            else:
                out.values.update(best=best, worst=worst)


@dataclass(frozen=True)
class Multi(_Question):
    """Several parts, each with its own options and key, answered on one page."""

    slug = "multi"
    all_parts = True
    headline = ALL_PARTS
    seconds = 40

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        return [
            FieldSpec(p["key"], prompt=p["prompt"], options=p["options"], options_key=p["key"])
            for p in item.parts
        ]

    def option_lists(self, *, n_options: int, parts: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        return {p["key"]: len(p["options"]) for p in parts}

    def options_key(self, field_name: str) -> str | None:
        return field_name

    def option_contents(
        self, *, options: Sequence[Any], parts: Sequence[Mapping[str, Any]]
    ) -> dict[str, list[Any]]:
        return {p["key"]: list(p["options"]) for p in parts}

    def parse_content(self, data: Mapping[str, Any], report: Report, *, has_text: bool) -> Content:
        parts, answer = _parse_parts(data.get("parts"), report)
        if not has_text:
            report.error("stem", _("a question needs a stem or a poem"))
        return Content(parts=parts, answer=answer)

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        parts = {p["key"]: p for p in item.parts}
        names = ", ".join(parts)
        if not isinstance(given, dict):
            message = _("must be an object with a choice for each part: %(parts)s")
            out.error(ANSWER, with_params(message, parts=names))
            return
        for key in given:
            if key not in parts:
                message = _("%(key)s is not a part of this question (%(parts)s)")
                out.error(str(key)[:64], with_params(message, key=excerpt(key), parts=names))
        for key, part in parts.items():
            index = parse_index(given.get(key), len(part["options"]), out, key)
            if index is not None:
                out.values[key] = index


def _parse_parts(raw: Any, report: Report) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
    if not isinstance(raw, list) or not raw:
        report.error("parts", _("a multi-part question needs a list of parts"))
        return [], None
    parts: list[dict[str, Any]] = []
    key: dict[str, int] = {}
    for i, p in enumerate(raw):
        sub = report.child(f"parts[{i}]")
        if not isinstance(p, dict):
            sub.error(None, _("must be an object with key, prompt, options"))
            continue
        name = p.get("key")
        if not isinstance(name, str) or not name.strip():
            sub.error("key", _("is required"))
            continue
        if len(name) > 64:  # a part's key names the answer's field (Response.field)
            sub.error("key", _("is longer than 64 characters"))
            continue
        if name in {q["key"] for q in parts}:
            sub.error("key", with_params(_("part %(name)r appears twice"), name=name))
        options = parse_options(p.get("options"), sub, "options") or []
        prompt = parse_text(p.get("prompt"), sub, "prompt", required=False) or name
        parts.append({"key": name, "prompt": prompt, "options": options})
        if p.get("answer") not in (None, "") and options:
            index = parse_index(p["answer"], len(options), sub, "answer")
            if index is not None:
                key[name] = index
    if key and len(key) != len(parts):
        report.error("parts", _("either every part has an answer or none has"))
    return parts, (key or None)


@dataclass(frozen=True)
class Rating(Kind):
    """A poem (or stem) rated on each of the task's dimensions; never keyed."""

    slug = "rating"
    payload = "ratings"
    wrong_payload = _("this is a rating item: give 'ratings', not 'answer'")
    scale = True
    display = Display(template="annotation/fields/scale.html", css="scale", hide_author=True)

    def field_specs(self, item: Item, task: Task) -> list[FieldSpec]:
        return [
            FieldSpec(
                d["key"],
                prompt=d.get("label", d["key"]),
                description=d.get("description", ""),
                scale=range(int(d["min"]), int(d["max"]) + 1),
                labels=_scale_labels(d),
            )
            for d in task.dimensions
        ]

    def seconds_per_item(self, task: Task) -> int:
        return 20 + 8 * len(task.dimensions)  # reading the poem, then each dimension

    def parse_content(self, data: Mapping[str, Any], report: Report, *, has_text: bool) -> Content:
        if data.get("options") or data.get("parts"):
            report.error(
                "options",
                _("rating items have no options (they are rated on the task's dimensions)"),
            )
        if not has_text:
            report.error("poem", _("a rating item needs a poem (or a stem to rate)"))
        return Content()

    def check(self, item: Item, task: Task, given: Any, out: Parsed) -> None:
        dims = {d["key"]: d for d in task.dimensions}
        names = ", ".join(dims)
        if not isinstance(given, dict):
            message = _("must be an object rating each dimension: %(dimensions)s")
            out.error("ratings", with_params(message, dimensions=names))
            return
        for key in given:
            if key not in dims:
                message = _("%(key)s is not a dimension of this task (%(dimensions)s)")
                out.error(str(key)[:64], with_params(message, key=excerpt(key), dimensions=names))
        for key, dim in dims.items():
            raw: Any = given.get(key)
            if is_blank(raw):
                out.error(key, _("is missing: choose a rating"))
                continue
            if isinstance(raw, str) and is_digits(raw.strip().removeprefix("-")):
                raw = int(raw.strip())
            if not is_int(raw):
                out.error(
                    key, with_params(_("%(value)s is not a whole number"), value=excerpt(raw))
                )
                continue
            if not dim["min"] <= int(raw) <= dim["max"]:
                message = _("%(value)s is outside the scale %(min)s–%(max)s")
                out.error(key, with_params(message, value=raw, min=dim["min"], max=dim["max"]))
                continue
            out.values[key] = int(raw)


def _scale_labels(dimension: Mapping[str, Any]) -> dict[int, str]:
    """A dimension's point labels as loaded ({"1": "很差", …}; see
    ``studies.loading.study_parts.parse_scale_labels``), by point."""
    raw = dimension.get("labels")
    if isinstance(raw, list):  # one per point, as a file may give them
        return {int(dimension["min"]) + i: str(v) for i, v in enumerate(raw) if v}
    out: dict[int, str] = {}
    for point, label in raw.items() if isinstance(raw, dict) else ():
        with suppress(TypeError, ValueError):
            out[int(point)] = str(label)
    return out


KINDS: dict[str, Kind] = {k.slug: k for k in (Choice(), Multi(), BestWorst(), Rating())}
