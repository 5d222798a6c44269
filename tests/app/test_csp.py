"""Every response carries a Content-Security-Policy whose scripts come from the site's own
files only, and every kind of page complies: no inline script (a JSON data block is
data), no event-handler attribute, no ``javascript:`` link — the volunteer's pages, the
researcher's dashboard and poem page, the admin (a running job's page included), the
login page and the API docs."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from jobs.models import Job
from studies.models import Item
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db


class Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.inline = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.problems += [f"<{tag} {k}=…>" for k in named if k.lower().startswith("on")]
        for key in ("href", "src", "action"):
            if (named.get(key) or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {key}=javascript:…>")
        if tag == "script":
            src = named.get("src")
            if src and "//" in src.split("?")[0][:8]:
                self.problems.append(f"<script src={src}> from another site")
            self.inline = not src and named.get("type") != "application/json"

    def handle_data(self, data: str) -> None:
        if self.inline and data.strip():
            self.problems.append(f"inline <script>: {data.strip()[:60]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.inline = False


def _check(response) -> list[str]:
    policy = response.get("Content-Security-Policy", "")
    problems = [] if "script-src 'self';" in policy else [f"policy: {policy!r}"]
    if "html" in response.get("Content-Type", ""):
        parser = Scripts()
        parser.feed(response.content.decode())
        problems += parser.problems
    return problems


def test_every_kind_of_page_runs_only_the_sites_own_script_files() -> None:
    study = build_study(n_items=1, per_participant=1)
    volunteer = Volunteer("s")
    pages = {
        "welcome": volunteer.client.get(volunteer.url()),
        "consent": volunteer.consent(),
        "screening": volunteer.screen(),
        "question": volunteer.question_page(),
        "finish": volunteer.complete(),
    }
    boss = get_user_model().objects.create_superuser("boss", "b@example.org", "pw")
    admin = Client()
    pages["login"] = admin.get("/admin/login/")
    admin.force_login(boss)
    job = Job.objects.create(kind="pool", study=study, status="running", total=10, done=3)
    item = Item.objects.first()
    assert item is not None
    item.poem_text, item.poem_form = (
        "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        "shi:jueju5",
    )
    item.save(update_fields=["poem_text", "poem_form"])
    for name, path in {
        "admin": "/admin/",
        "admin study": f"/admin/studies/study/{study.pk}/change/",
        "admin user": f"/admin/auth/user/{boss.pk}/change/",
        "admin upload": "/admin/upload/",
        "running job": f"/admin/jobs/job/{job.pk}/change/",
        "studies": "/research/",
        "dashboard": f"/research/studies/{study.pk}/?n_boot=0",
        "poem": f"/research/poems/{item.pk}/",
        "api docs": "/api/docs/",
        "api redoc": "/api/redoc/",
    }.items():
        pages[name] = admin.get(path)
    assert "job_progress.js" in pages["running job"].content.decode()
    problems = {name: _check(reply) for name, reply in pages.items()}
    assert {k: v for k, v in problems.items() if v} == {}
    assert {k: r.status_code for k, r in pages.items() if r.status_code not in (200, 302)} == {}
