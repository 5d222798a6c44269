"""A volunteer driving the HTML pages through Django's test client (no JavaScript)."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from tests.present import present


class Volunteer:
    def __init__(self, slug: str, client: Client | None = None) -> None:
        self.slug = slug
        self.client = client or Client()
        self.resume_code = ""

    def url(self, page: str = "") -> str:
        return f"/s/{self.slug}/{page}"

    def consent(self, entry: str = "") -> Any:
        response = self.client.post(entry or self.url(), {"consent": "on"})
        assert response.status_code == 302, response.status_code
        start = self.client.get(response["Location"])
        self.resume_code = present(
            re.search(r'id="resume-code"[^>]*>(\w+)<', start.content.decode())
        ).group(1)
        return start

    def screen(self, option: int = 0) -> Any:
        return self.client.post(self.url("screening/"), {"q-bg": str(option)})

    def question_page(self) -> Any:
        """The current question (passing an instructions page when one comes first)."""
        response = self.client.get(self.url("q/"))
        html = response.content.decode()
        begin = re.search(r'id="begin" href="\?begin=([^"]+)"', html)
        if begin:
            response = self.client.get(self.url("q/"), {"begin": begin.group(1)})
        return response

    @staticmethod
    def form_of(response: Any) -> tuple[str, str, list[str]]:
        html = response.content.decode()
        kind = present(re.search(r'data-kind="(\w+)"', html)).group(1)
        assignment = present(re.search(r'name="assignment" value="(\d+)"', html)).group(1)
        names = list(dict.fromkeys(re.findall(r'name="(f-[^"]+)"', html)))
        return kind, assignment, names

    @staticmethod
    def answer_data(kind: str, assignment: str, names: list[str]) -> dict[str, str]:
        data = {"assignment": assignment}
        for name in names:
            data[name] = "3" if kind == "rating" else "0"
        if kind == "best_worst":
            data["f-worst"] = "1"
        return data

    def answer_current(self) -> Any:
        page = self.question_page()
        if page.status_code == 302:
            return page
        kind, assignment, names = self.form_of(page)
        return self.client.post(self.url("q/"), self.answer_data(kind, assignment, names))

    def complete(self, limit: int = 200) -> Any:
        for _ in range(limit):
            response = self.answer_current()
            if response.status_code == 302 and response.url.endswith("/finish/"):
                return self.client.get(response.url)
            assert response.status_code == 302, response.content.decode()[:2000]
        raise AssertionError("did not finish")
