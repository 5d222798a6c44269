"""Playwright in Debian's Chromium against pytest-django's live server.

Without /usr/bin/chromium the browser tests are skipped with a reason, unless
REQUIRE_BROWSER=1, when they fail instead. Screenshots go to test-artifacts/screenshots/.
axe-core (the accessibility checker, from the npm registry: ``npm ci`` in tests/browser)
is loaded into the page from tests/browser/node_modules; without it the accessibility
checks are skipped with a reason, unless REQUIRE_BROWSER=1. The researchers' pages share
``research_demo`` (the demo study answered by simulated volunteers) and ``paper_studies``
(the worked Tang and CCiV studies), each with a researcher whose password is PASSWORD.
"""

from __future__ import annotations

import io
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from studies.models import Study

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the
# test body are still synchronous and safe.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PASSWORD = "browser-test-password"  # the researchers' (research_demo, paper_studies)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _require() -> None:
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return
    reason = f"no Chromium at {CHROMIUM} (install it with: apt-get install -y chromium)"
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


class _HarnessBrowser:
    """The browser, whose pages let the tests' own scripts in: the harness injects axe-core
    and measures layout with scripts of its own, which the site's Content-Security-Policy
    (script-src 'self', no eval) rightly refuses. The policy itself is checked where it
    is made: tests/app/test_csp.py (every page's header, no inline script in any page)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        options.setdefault("bypass_csp", True)
        return self._browser.new_context(**options)

    def new_page(self, **options: Any) -> Any:
        options.setdefault("bypass_csp", True)
        return self._browser.new_page(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _require()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield _HarnessBrowser(chromium)
        chromium.close()


@pytest.fixture
def demo(transactional_db: Any, live_server: Any) -> Any:
    """The demo study, loaded into the live server's database."""
    from studies.models import Study

    call_command("demo", "--no-users", stdout=io.StringIO())
    return Study.objects.get(slug="song-ci-demo")


def _answer(item: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    fields = item["fields"]
    kind = item["task"]["kind"]
    if kind == "choice":
        options = fields[0]["options"]
        # An attentive volunteer: an attention check names its answer in the stem.
        named = [o["position"] for o in options if f"“{o['text']}”" in item["item"]["stem"]]
        return {"answer": named[0] if named else rng.randrange(len(options))}
    if kind == "best_worst":
        best, worst = rng.sample(range(len(fields[0]["options"])), 2)
        return {"answer": {"best": best, "worst": worst}}
    if kind == "multi":
        return {"answer": {f["key"]: rng.randrange(len(f["options"])) for f in fields}}
    return {"ratings": {f["key"]: rng.choice(f["scale"]) for f in fields}}


def _volunteers(study: Study, n: int, seed: int = 7) -> None:
    """n participants spread over the screening's options, each answering everything."""
    rng = random.Random(seed)
    question = study.screening.get()
    for k in range(n):
        client = APIClient()
        me = client.post(
            f"/api/v1/volunteer/studies/{study.slug}/enrol/",
            {"consent": True, "screening": {question.key: k % len(question.options)}},
            format="json",
        )
        assert me.status_code == 201, me.content
        client.credentials(HTTP_AUTHORIZATION=f"Participant {me.json()['token']}")
        body = client.get("/api/v1/volunteer/next/").json()
        while not body["done"]:
            item = body["item"]
            reply = client.post(
                "/api/v1/volunteer/answers/?next=1",
                {"assignment": item["assignment"], **_answer(item, rng)},
                format="json",
            )
            assert reply.status_code == 201, reply.content
            body = reply.json()["next"]


@pytest.fixture
def research_demo(
    transactional_db: Any, live_server: Any, monkeypatch: Any, settings: Any
) -> Study:
    """The demo study with its researcher (password PASSWORD) and six simulated
    volunteers' answers (synthetic, seeded), in the live server's database."""
    settings.RATE_LIMITS = {}  # the simulated volunteers answer faster than people
    monkeypatch.setenv("DEMO_PASSWORD", PASSWORD)
    call_command("demo", stdout=io.StringIO())
    study = Study.objects.get(slug="song-ci-demo")
    _volunteers(study, n=6)
    return study


@pytest.fixture
def paper_studies(transactional_db: Any, live_server: Any) -> tuple[Study, Study]:
    """The synthetic Tang and CCiV worked studies (tests/report), shared with a researcher."""
    from django.contrib.auth import get_user_model

    from tests.report.test_worked_cciv import build_cciv
    from tests.report.test_worked_tang import build_tang

    tang, cciv = build_tang()[0].study, build_cciv()[0].study
    user = get_user_model().objects.create_user("paper-reader", password=PASSWORD, is_staff=True)
    tang.researchers.add(user)
    cciv.researchers.add(user)
    return tang, cciv


@pytest.fixture
def shoot() -> Any:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page: Any, name: str) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return save


class Axe:
    """Runs axe-core in a page: every rule axe runs by default (WCAG 2.0-2.2 A and AA,
    and its best practices); ``check`` fails on any violation, naming rule and nodes."""

    available = AXE.exists()

    def violations(self, page: Any) -> list[dict[str, Any]]:
        if not page.evaluate("() => typeof window.axe === 'object'"):
            page.add_script_tag(path=str(AXE))
        return page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                .map(v => ({id: v.id, impact: v.impact, help: v.help,
                            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}))"""
        )

    def check(self, page: Any, where: str) -> None:
        if not self.available:
            return  # test_axe_core_is_installed says why
        found = self.violations(page)
        assert found == [], f"axe-core on {where}: {found}"


def axe_missing_reason() -> str | None:
    if AXE.exists():
        return None
    return f"axe-core is not installed ({AXE} missing): run `npm ci` in tests/browser"


@pytest.fixture
def axe() -> Axe:
    return Axe()
