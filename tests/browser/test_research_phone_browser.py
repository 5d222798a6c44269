"""The researcher's pages on a 360×740 phone: the study list, the dashboard with every
section and every folded table opened, a poem's page, each documentation page and a
recruiting poster, for the demo study with volunteers' answers and for the worked Tang
and CCiV studies. None may be wider than the screen (no sideways scroll of the page);
a wide table scrolls inside its own labelled, focusable region instead; axe-core finds
no violation at that width."""

from __future__ import annotations

from typing import Any

import pytest

from research.docs import available
from studies.models import Item, Study
from tests.browser.conftest import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
WIDTH = 360
PHONE = {
    "viewport": {"width": WIDTH, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}

# Every folded part opened, then the page's width against the screen's. A mobile browser
# zooms out to show a page wider than the screen, which widens innerWidth with it: the
# screen is WIDTH, innerWidth must still be WIDTH, and nothing may be wider. `wide`: the
# outermost elements sticking out (not inside a box that scrolls); `charts`: each chart
# wider than its figure (a chart scales down to the screen, it does not scroll).
_WIDTH = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const screen = document.documentElement.clientWidth + 0.5, wide = [];
  const clipped = el => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect(), parent = el.parentElement;
    if (!r.width || r.right <= screen || parent.getBoundingClientRect().right > screen) continue;
    let inside = false;  // within a box that scrolls (or clips) it: not the page's width
    for (let p = parent; p && !inside; p = p.parentElement) inside = clipped(p);
    if (!inside) {
      wide.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} ${Math.round(r.width)} px`
                + ` in #${el.closest('[id]')?.id || 'main'}`);
    }
  }
  const charts = [...document.querySelectorAll('figure.chart-box svg')]
    .filter(s => s.getBoundingClientRect().width > s.parentElement.clientWidth + 0.5)
    .map(s => s.getAttribute('aria-label'));
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth, wide: wide.slice(0, 5),
          charts: charts.slice(0, 5)};
}"""

# The wide tables of the page: each table whose own width is more than its wrapper's.
_REGIONS = """() => [...document.querySelectorAll('main table')]
  .filter(t => t.parentElement.clientWidth < t.offsetWidth)
  .map(t => {
    const box = t.parentElement, labelled = box.getAttribute('aria-labelledby');
    return {
      scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
      client: box.clientWidth, scroll: box.scrollWidth, tabindex: box.getAttribute('tabindex'),
      role: box.getAttribute('role'),
      name: box.getAttribute('aria-label')
            || (labelled ? document.getElementById(labelled)?.textContent.trim() : '') || '',
      table: t.closest('[id]')?.id || '',
    };
  })"""


class Phone:
    """One researcher on the phone: each page is opened, measured, checked by axe-core."""

    def __init__(self, browser: Any, base: str, axe: Any, shoot: Any) -> None:
        self.context = browser.new_context(**PHONE, locale="zh-CN")
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.base, self.axe, self.shoot = base, axe, shoot
        self.too_wide: dict[str, Any] = {}
        self.regions: dict[str, list[dict[str, Any]]] = {}
        self.violations: dict[str, Any] = {}

    def login(self, username: str) -> None:
        self.page.goto(f"{self.base}/research/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORD)
        with self.page.expect_navigation():
            self.page.click("input[type=submit], button[type=submit]")

    def look(self, name: str, path: str, *, shot: bool = True) -> None:
        response = self.page.goto(f"{self.base}{path}")
        assert response is not None and response.status == 200, path
        if shot:  # as first opened, every folded part closed
            self.shoot(self.page, f"research-{WIDTH}-{name}")
        found = self.page.evaluate(_WIDTH)
        if found["scroll"] > WIDTH or found["inner"] != WIDTH or found["charts"]:
            self.too_wide[name] = found
        self.regions[name] = self.page.evaluate(_REGIONS)
        violations = self.axe.violations(self.page) if self.axe.available else []
        if violations:  # without axe-core, test_axe_core_is_installed says why
            self.violations[name] = violations

    def fits(self) -> None:
        wide = "\n".join(f"{name}: {found}" for name, found in self.too_wide.items())
        assert not self.too_wide, f"wider than a {WIDTH} px screen:\n{wide}"

    def close(self) -> None:
        self.context.close()
        assert self.violations == {}, f"axe-core at {WIDTH} px: {self.violations}"


def _scrolls_by_keyboard(page: Any, region: Any) -> bool:
    """The region takes the focus (tabindex 0: in the Tab order) and an arrow key scrolls it."""
    region.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("el => el.scrollLeft > 0", arg=region.element_handle(), timeout=5_000)
    return bool(region.evaluate("el => document.activeElement === el && el.scrollLeft > 0"))


def test_every_research_page_fits_a_phone(browser, research_demo, live_server, axe, shoot) -> None:
    study: Study = research_demo
    phone = Phone(browser, live_server.url, axe, shoot)
    phone.login("researcher")
    phone.look("study-list", "/research/")
    phone.look("dashboard", f"/research/studies/{study.pk}/")
    recruit = phone.page.locator("#recruit a.print").first.get_attribute("href")
    poem = Item.objects.filter(study=study, task__kind="rating").order_by("pk").first()
    assert poem is not None
    phone.look("poem", f"/research/poems/{poem.pk}/")
    for name in available():
        phone.look(f"doc-{name}", f"/research/docs/{name}/", shot=name == "report")
    phone.look("recruit", recruit)
    phone.fits()

    # The dashboard's wide tables scroll inside their own region, named and focusable.
    regions = phone.regions["dashboard"]
    assert regions, "the demo dashboard has a table wider than a phone"
    for region in regions:
        assert region["scrolls"] and region["scroll"] > region["client"], region
        assert region["tabindex"] == "0" and region["role"] == "region" and region["name"], region
    assert all(r["scrolls"] and r["tabindex"] == "0" for rs in phone.regions.values() for r in rs)
    phone.page.goto(f"{live_server.url}/research/studies/{study.pk}/")
    assert _scrolls_by_keyboard(phone.page, phone.page.locator("#plan .table-scroll").first)
    phone.close()


def test_the_worked_studies_dashboards_fit_a_phone(
    browser, paper_studies, live_server, axe, shoot
) -> None:
    tang, cciv = paper_studies
    phone = Phone(browser, live_server.url, axe, shoot)
    phone.login("paper-reader")
    phone.look("dashboard-tang", f"/research/studies/{tang.pk}/?n_boot=50")
    phone.look("dashboard-cciv", f"/research/studies/{cciv.pk}/?n_boot=50")
    phone.fits()
    regions = [r for rs in phone.regions.values() for r in rs]
    assert regions and all(
        r["scrolls"] and r["tabindex"] == "0" and r["role"] == "region" and r["name"]
        for r in regions
    ), regions
    phone.close()
