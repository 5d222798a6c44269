"""Small studies written out by hand for the report tests (ORM rows, no loaders)."""

from __future__ import annotations

from typing import Any

from annotation.models import AggregateResult, Participant, Rater, Response
from studies.models import Group, Item, Study, Task
from studies.provenance import item_provenance

DIMENSIONS = [
    {"key": "prosody", "label": "韵律格律", "min": 1, "max": 5},
    {"key": "aesthetic", "label": "审美", "min": 1, "max": 5},
]


class Builder:
    def __init__(self, slug: str = "known", **study: Any) -> None:
        study.setdefault("status", Study.Status.OPEN)  # as if a researcher had opened it
        self.study = Study.objects.create(slug=slug, title="已知结果的研究", **study)
        self.groups: dict[str, Group] = {}
        self.tasks: dict[str, Task] = {}
        self.items: dict[str, Item] = {}
        self.raters: dict[str, Rater] = {}

    def group(self, slug: str, position: int = 0) -> Group:
        self.groups[slug] = Group.objects.create(
            study=self.study, slug=slug, name=f"组{slug}", position=position
        )
        return self.groups[slug]

    def task(self, slug: str, kind: str, **kw: Any) -> Task:
        self.tasks[slug] = Task.objects.create(
            study=self.study,
            slug=slug,
            title=slug.upper(),
            kind=kind,
            position=len(self.tasks),
            **kw,
        )
        return self.tasks[slug]

    def item(self, ext: str, task: str, answer: dict[str, int] | None = None, **kw: Any) -> Item:
        # Provenance as the loaders derive it (studies.provenance), unless given.
        derived = item_provenance(kw.get("poem_source", ""), kw.get("meta"))
        kw = {**derived, **kw}
        self.items[ext] = Item.objects.create(
            study=self.study,
            task=self.tasks[task],
            external_id=ext,
            answer=answer,
            position=len(self.items),
            **kw,
        )
        return self.items[ext]

    def human(
        self, name: str, group: str, *, flagged: bool = False, status: str = "finished"
    ) -> Rater:
        g = self.groups[group]
        rater = Rater.objects.create(study=self.study, kind="human", name=name)
        Participant.objects.create(
            study=self.study,
            rater=rater,
            group=g,
            public_id=f"{self.study.slug}-{name}",
            flagged=flagged,
            status=status,
        )
        self.raters[name] = rater
        return rater

    def model(self, name: str, run: str = "") -> Rater:
        key = f"{name}@{run}" if run else name
        self.raters[key] = Rater.objects.create(study=self.study, kind="model", name=name, run=run)
        return self.raters[key]

    def rule(self, name: str) -> Rater:
        self.raters[name] = Rater.objects.create(study=self.study, kind="rule", name=name, run="1")
        return self.raters[name]

    def answer(self, rater: str, item: str, field: str, value: float | None) -> Response:
        it = self.items[item]
        return Response.objects.create(
            study=self.study,
            task=it.task,
            item=it,
            rater=self.raters[rater],
            field=field,
            value=value,
            correct=it.grade(field, value),
        )

    def answers(self, rater: str, field: str, values: dict[str, float | None]) -> None:
        for item, value in values.items():
            if value is not None:
                self.answer(rater, item, field, value)

    def aggregate(self, model: str, task: str, value: float) -> AggregateResult:
        return AggregateResult.objects.create(
            study=self.study, model=model, task=task, value=value, n=100, source="published"
        )


def known_study() -> Builder:
    """The study of tests/report/test_known_table.py (every number there comes from here)."""
    b = Builder()
    for i, slug in enumerate("ABC"):
        b.group(slug, i)
    b.task("ck", "choice")
    b.task("au", "multi")
    b.task("oq", "best_worst")
    b.task("quality", "rating", dimensions=DIMENSIONS)
    for ext, key in (("ck-1", 0), ("ck-2", 1), ("ck-3", 2), ("ck-4", 0)):
        b.item(ext, "ck", {"answer": key})
    b.item("ck-check", "ck", {"answer": 1}, is_attention_check=True)
    b.item("au-1", "au", {"person": 0, "source": 1})
    b.item("au-2", "au", {"person": 2, "source": 0})
    b.item("oq-1", "oq", {"best": 0, "worst": 2})
    b.item("oq-2", "oq", {"best": 1, "worst": 0})
    forms = ("ci:浣溪沙", "ci:浣溪沙", "ci:如梦令", "ci:如梦令")
    sources = ("human", "model:qwen", "human", "model:qwen")
    for n in range(4):
        b.item(
            f"poem-{n + 1}", "quality", poem_text="春风", poem_form=forms[n], poem_source=sources[n]
        )
    for name, group in (
        ("a1", "A"),
        ("a2", "A"),
        ("b1", "B"),
        ("b2", "B"),
        ("c1", "C"),
        ("c2", "C"),
    ):
        b.human(name, group)
    b.human("f1", "C", flagged=True)
    b.model("gpt-4o")
    b.model("kimi-k2", "direct")
    b.rule("prosody:modern")

    ck = ("ck-1", "ck-2", "ck-3", "ck-4")
    for rater, values in {
        "a1": [0, 1, 0, 0],
        "a2": [1, 1, 2, 1],
        "b1": [0, 1, 2, 1],
        "b2": [0, 0, 2, 0],
        "c1": [0, 1, 2, 0],
        "c2": [0, 1, 2, 2],
        "f1": [1, 0, 0, 1],
        "gpt-4o": [0, 1, 2, 1],
        "kimi-k2@direct": [0, 0, 0, 0],
    }.items():
        b.answers(rater, "answer", dict(zip(ck, values, strict=True)))
    for rater in ("a1", "a2", "b1", "b2", "c1", "c2", "f1"):
        b.answer(rater, "ck-check", "answer", 0)  # everyone fails the attention check

    multi: dict[
        str, dict[str, tuple[int, int | None]]
    ] = {  # rater -> item -> (person, source); None = part not answered
        "a1": {"au-1": (0, 1), "au-2": (2, 1)},
        "a2": {"au-1": (1, 1), "au-2": (2, 0)},
        "b1": {"au-1": (0, None)},
        "b2": {"au-1": (0, 1), "au-2": (0, 0)},
        "c1": {"au-1": (0, 1), "au-2": (2, 0)},
        "f1": {"au-1": (2, 2)},
        "gpt-4o": {"au-1": (0, 1), "au-2": (2, 1)},
    }
    for rater, items in multi.items():
        for item, (person, source) in items.items():
            b.answers(rater, "person", {item: person})
            b.answers(rater, "source", {item: source})
    best_worst = {
        "a1": {"oq-1": (0, 2), "oq-2": (1, 2)},
        "c1": {"oq-1": (2, 0)},
    }
    for rater, pairs in best_worst.items():
        for item, (best, worst) in pairs.items():
            b.answers(rater, "best", {item: best})
            b.answers(rater, "worst", {item: worst})

    poems = ("poem-1", "poem-2", "poem-3", "poem-4")
    ratings = {  # rater -> (prosody, aesthetic) per poem
        "a1": ([5, 4, 2, 1], [4, 3, 3, 2]),
        "a2": ([4, 4, 3, 2], [3, 3, 4, 2]),
        "b1": ([5, 5, 2, 2], [5, 4, 3, 3]),
        "c1": ([4, 5, 1, 1], [4, 4, 2, 2]),
        "f1": ([1, 1, 5, 5], [1, 1, 1, 1]),
        "kimi-k2@direct": ([4, 4, 5, 5], [4, 4, 4, 4]),
    }
    for rater, (prosody, aesthetic) in ratings.items():
        b.answers(rater, "prosody", dict(zip(poems, prosody, strict=True)))
        b.answers(rater, "aesthetic", dict(zip(poems, aesthetic, strict=True)))
    b.answers("prosody:modern", "structural", dict(zip(poems, [1, 1, 0, 0], strict=True)))
    b.answers("prosody:modern", "tonal", dict(zip(poems, [0.9, 0.85, 0.5, 0.3], strict=True)))
    b.aggregate("gpt-4o", "ck", 0.7545)
    return b
