"""A volunteer in a real browser: clicks through the demo study, recording what it chose."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from annotation import assignment as strategy
from annotation.exports import export_rows
from annotation.models import Assignment, Participant
from studies.models import Study

SLUG = "song-ci-demo"


@dataclass
class Volunteer:
    page: Any
    base: str
    shoot: Any
    tag: str
    keyboard: bool = False
    resume_code: str = ""
    given: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    shots: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.page.set_default_timeout(10_000)

    def url(self, path: str = "") -> str:
        return f"{self.base}/s/{SLUG}/{path}"

    def shot(self, name: str) -> None:
        if name not in self.shots:
            self.shots.add(name)
            self.shoot(self.page, f"{self.tag}-{name}")

    def submit(self, selector: str = "main form button[type=submit]") -> None:
        with self.page.expect_navigation():
            self.page.click(selector)

    def consent(self, *, english: bool = False) -> None:
        self.page.goto(self.url())
        if english:
            with self.page.expect_navigation():
                self.page.click("form.lang button[value=en]")
        self.shot("1-welcome")
        self.page.check("#id_consent")
        self.submit("form.consent-form button[type=submit]")
        self.resume_code = self.page.inner_text("#resume-code").strip()
        assert re.fullmatch(r"[A-Z0-9]{10}", self.resume_code)
        self.shot("2-resume-code")
        with self.page.expect_navigation():
            self.page.click("a.button.primary")

    def screen(self, option: int) -> None:
        assert "/screening/" in self.page.url
        self.shot("3-screening")
        self.page.locator("fieldset label.option").nth(option).click()
        self.submit()

    def answer_one(self) -> bool:
        """Answer the current question; False once the finish page is reached."""
        if "/finish/" in self.page.url:
            return False
        form = self.page.locator("form.question-form")
        kind = form.get_attribute("data-kind")
        assignment = int(self.page.get_attribute("input[name=assignment]", "value"))
        self.shot(f"5-question-{kind}")
        if kind == "choice" and self.keyboard:
            self.page.keyboard.press("2")
        elif kind == "choice":
            form.locator("label.option").nth(1).click()
        elif kind == "best_worst":
            form.locator("fieldset[data-field=best] label.option").nth(0).click()
            worst_same = form.locator("fieldset[data-field=worst] input").nth(0)
            assert worst_same.is_disabled()  # best ≠ worst, enforced in the page too
            form.locator("fieldset[data-field=worst] label.option").nth(2).click()
        else:  # multi, rating: one choice in every part
            for n, fieldset in enumerate(form.locator("fieldset").all()):
                fieldset.locator("label.option").nth(n % 3).click()
        chosen = dict(
            self.page.eval_on_selector_all(
                "form.question-form input:checked",
                "els => els.map(e => [e.name.slice(2), e.value])",
            )
        )
        self.given.append((assignment, chosen))
        if kind == "choice" and self.keyboard:
            with self.page.expect_navigation():
                self.page.keyboard.press("Enter")
        else:
            self.submit("form.question-form button[type=submit]")
        return True

    def finish(self) -> str:
        while self.answer_one():
            pass
        self.shot("6-finish")
        return self.page.inner_text("#completion-code").strip()

    def participant(self) -> Participant:
        return Participant.objects.get(resume_code=self.resume_code)


def expected_rows(given: list[tuple[int, dict[str, str]]]) -> set[tuple[str, str, float]]:
    """(item, field, canonical value) for every answer the browser gave."""
    rows = set()
    for assignment_id, chosen in given:
        a = Assignment.objects.select_related("item", "task").get(pk=assignment_id)
        kind = a.task.kind
        if kind == "rating":
            values = {k: int(v) for k, v in chosen.items()}
        elif kind == "choice":
            values = {"answer": strategy.to_canonical(kind, a.option_order, chosen["answer"])}
        else:
            values = strategy.to_canonical(kind, a.option_order, chosen)
        rows |= {(a.item.external_id, f, float(v)) for f, v in values.items()}
    return rows


def exported_rows(study: Study, participant: Participant) -> list[tuple[str, str, float]]:
    # COLUMNS: study, task, item, rater_kind, rater, run, group, field, value, ...
    return [
        (r[2], r[7], float(r[8]))
        for r in export_rows(study)
        if r[3] == "human" and r[4] == participant.public_id
    ]
