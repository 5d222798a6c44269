"""Playwright in Debian's Chromium against pytest-django's live server.

Without /usr/bin/chromium the browser tests are skipped with a reason, unless
REQUIRE_BROWSER=1, when they fail instead. Screenshots go to test-artifacts/screenshots/.
axe-core (the accessibility checker, from the npm registry: ``npm ci`` in tests/browser)
is loaded into the page from tests/browser/node_modules; without it the accessibility
checks are skipped with a reason, unless REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the
# test body are still synchronous and safe.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _require()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def demo(transactional_db: Any, live_server: Any) -> Any:
    """The demo study, loaded into the live server's database."""
    from studies.models import Study

    call_command("demo", "--no-users", stdout=io.StringIO())
    return Study.objects.get(slug="song-ci-demo")


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
