"""Issue 25, item 8, in Chromium: a rating page at 360×640 and 390×844 keeps its poem in
view while the seven scales scroll (no control ever under the action bar or the poem),
Back after an answer shows the current question, a refresh keeps an unsaved choice,
best/worst stands side by side at 1280 px, the welcome page's button is on the first
screen, Enter continues from the resume code's page, and the poems (and the option
digits) are set in the study's own subset of the CJK serif, loaded under the site's
Content-Security-Policy."""

from __future__ import annotations

from typing import Any

import pytest

from annotation import poemfont
from demo.build import RATING_DIMENSIONS
from studies.models import Item, Study, Task
from tests.browser.conftest import SCREENSHOTS
from tests.browser.layout import DESKTOP, PHONES, save_problems, small_targets, under_bar
from tests.volunteer.conftest import build_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
# 水调歌头, 19 lines: longer than the sticky box, which then scrolls inside.
POEM = (
    "明月几时有\n把酒问青天\n不知天上宫阙\n今夕是何年\n我欲乘风归去\n又恐琼楼玉宇\n"
    "高处不胜寒\n起舞弄清影\n何似在人间\n转朱阁\n低绮户\n照无眠\n不应有恨\n何事长向别时圆\n"
    "人有悲欢离合\n月有阴晴圆缺\n此事古难全\n但愿人长久\n千里共婵娟"
)
CONSENT = "\n\n".join(
    f"第{n}条：您的回答仅用于研究，匿名保存，可随时退出；如有疑问请联系研究者。"
    for n in range(1, 13)
)

# Each option of each scale brought to the top (under the sticky poem: the browser's
# scroll-padding) and to the foot (above the bar) of the screen, as a focus or a tap
# scrolls it: the point at its middle must be the option itself, never the poem or the bar.
COVERED = """() => {
  const out = [];
  for (const label of document.querySelectorAll('form.question-form label.option')) {
    for (const block of ['start', 'end', 'nearest']) {
      label.scrollIntoView({block});
      const r = label.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !label.contains(hit)) {
        out.push(`${label.closest('fieldset').dataset.field} ${label.textContent.trim()} (${block}):`
                 + ` ${hit ? hit.className || hit.tagName : 'nothing'}`);
      }
    }
  }
  window.scrollTo(0, 0);
  return out;
}"""

# At the first screen: the first scale whole above the bar; at the last scale (scrolled
# to the foot of the page): the poem's box on screen, its first line readable.
REACH = """() => {
  window.scrollTo(0, 0);
  const bar = document.querySelector('.action-bar').getBoundingClientRect();
  const first = document.querySelector('form.question-form fieldset').getBoundingClientRect();
  const first_above_bar = first.top >= 0 && first.bottom <= bar.top + 0.5;
  window.scrollTo(0, document.scrollingElement.scrollHeight);
  const box = document.querySelector('.q-text').getBoundingClientRect();
  const line = document.querySelector('.poem .vl').getBoundingClientRect();
  const last = [...document.querySelectorAll('form.question-form fieldset')].pop().getBoundingClientRect();
  const bar2 = document.querySelector('.action-bar').getBoundingClientRect();
  const hit = document.elementFromPoint(line.left + 4, line.top + line.height / 2);
  const out = {
    first_above_bar,
    poem_on_screen: box.top >= 0 && box.bottom <= bar2.top && box.height > 60,
    poem_line_visible: line.top >= box.top - 0.5 && line.bottom <= box.bottom + 0.5,
    poem_hit: !!hit && !!hit.closest('.poem'),
    last_on_screen: last.top >= box.bottom - 0.5 && last.bottom <= bar2.top + 0.5,
    screens: document.scrollingElement.scrollHeight / innerHeight,
  };
  window.scrollTo(0, 0);
  return out;
}"""


def _rating_study(slug: str = "rate") -> Study:
    study = build_study(kinds=("rating",), n_items=3, per_participant=3, slug=slug)
    Task.objects.filter(study=study).update(dimensions=RATING_DIMENSIONS)
    Item.objects.filter(study=study).update(poem_text=POEM, poem_title="水调歌头", stem="")
    return _with_font(study)


def _with_font(study: Study) -> Study:
    """The study's page faces built beforehand (seconds on a busy machine), as a first
    visitor's request would have: the pages then load without waiting for them."""
    for font in poemfont.shared_page_fonts(study):
        poemfont.font_file(font)
    for pk in Item.objects.filter(study=study).values_list("pk", flat=True):
        for font in poemfont.page_fonts(study, f"item{pk}") or []:
            poemfont.font_file(font)
    return study


def _enter(page: Any, base: str, slug: str) -> None:
    """Consent, resume code (Enter continues), screening: up to the first question."""
    page.set_default_timeout(30_000)
    page.goto(f"{base}/s/{slug}/")
    page.click("label.check")
    with page.expect_navigation():
        page.click("form.consent-form button[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the resume code's page: Enter continues
    assert "/screening/" in page.url
    page.locator("label.option").first.click()
    with page.expect_navigation():
        page.click("main form button[type=submit]")


def _answer_all(page: Any) -> None:
    for fieldset in page.locator("form.question-form fieldset").all():
        fieldset.locator("label.option").nth(2).click()


def _save(page: Any) -> None:
    with page.expect_navigation():
        page.click("form.question-form button[type=submit]")


def _assignment(page: Any) -> str:
    return page.get_attribute("input[name=assignment]", "value") or ""


@pytest.mark.parametrize("size", list(PHONES))
def test_a_rating_page_keeps_its_poem_in_reach_with_no_control_under_the_bar(
    browser, transactional_db, live_server, size
) -> None:
    _rating_study()
    context = browser.new_context(**PHONES[size], locale="zh-CN")
    page = context.new_page()
    _enter(page, live_server.url, "rate")
    # The task's first question opens with its instructions (no page of their own).
    assert page.locator("details.instructions-recall.intro[open]").count() == 1
    assert page.locator("fieldset.scale").count() == 7
    assert save_problems(page) == [] and under_bar(page) == []
    assert page.evaluate(COVERED) == []
    _answer_all(page)
    _save(page)
    assert page.locator("details.instructions-recall[open]").count() == 0
    page.screenshot(path=str(SCREENSHOTS / f"{size}-phone25-rating.png"))
    reach = page.evaluate(REACH)
    assert reach["first_above_bar"], reach
    assert reach["poem_on_screen"] and reach["poem_line_visible"] and reach["poem_hit"], reach
    assert reach["last_on_screen"], reach
    assert save_problems(page) == [] and under_bar(page) == [] and small_targets(page) == []
    assert page.evaluate(COVERED) == []
    # Folded, the poem leaves one line at the top; unfolded again, it is back.
    page.click(".poem-hold > summary")
    assert not page.locator(".poem .vl").first.is_visible()
    assert page.evaluate(COVERED) == []
    page.click(".poem-hold > summary")
    assert page.locator(".poem .vl").first.is_visible()
    context.close()


def test_back_after_an_answer_shows_the_current_question(
    browser, transactional_db, live_server
) -> None:
    _rating_study()
    context = browser.new_context(**PHONES["390x844"], locale="zh-CN")
    page = context.new_page()
    _enter(page, live_server.url, "rate")
    first = _assignment(page)
    _answer_all(page)
    _save(page)
    second = _assignment(page)
    assert second != first and "已答 1 / 3" in page.inner_text(".action-bar")
    with page.expect_navigation():
        page.go_back()
    page.wait_for_selector("form.question-form")
    # Not the answered page from the cache: the question that is current now, unticked.
    assert _assignment(page) == second
    assert "已答 1 / 3" in page.inner_text(".action-bar")
    assert page.locator("form.question-form input:checked").count() == 0
    context.close()


def test_a_refresh_keeps_an_unsaved_choice_and_saving_clears_it(
    browser, transactional_db, live_server
) -> None:
    _rating_study()
    context = browser.new_context(**PHONES["360x640"], locale="zh-CN")
    page = context.new_page()
    _enter(page, live_server.url, "rate")
    page.locator("fieldset[data-field=prosody] label.option").nth(3).click()
    page.locator("fieldset[data-field=theme] label.option").nth(1).click()
    key = page.get_attribute("form.question-form", "data-draft")
    page.reload()
    page.wait_for_selector("form.question-form")
    checked = page.eval_on_selector_all(
        "form.question-form input:checked", "els => els.map(e => [e.name, e.value])"
    )
    assert sorted(checked) == [["f-prosody", "4"], ["f-theme", "2"]]
    _answer_all(page)
    _save(page)
    assert page.evaluate("k => sessionStorage.getItem(k)", key) is None
    # The next question starts empty (its own key).
    assert page.locator("form.question-form input:checked").count() == 0
    context.close()


def test_best_worst_stands_side_by_side_on_a_desktop_and_in_tabs_on_a_phone(
    browser, transactional_db, live_server
) -> None:
    study = build_study(kinds=("best_worst",), n_items=2, per_participant=2, slug="bw")
    Item.objects.filter(study=study).update(
        options=[
            {"text": "床前明月光\n疑是地上霜\n举头望明月\n低头思故乡"},
            {"text": "白日依山尽\n黄河入海流\n欲穷千里目\n更上一层楼"},
            {"text": "春眠不觉晓\n处处闻啼鸟\n夜来风雨声\n花落知多少"},
        ]
    )
    _with_font(study)
    context = browser.new_context(**DESKTOP, locale="zh-CN")
    page = context.new_page()
    _enter(page, live_server.url, "bw")
    panels = page.eval_on_selector_all(
        ".poem-panel",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, left: r.left, right: r.right, visible: r.width > 0"
        " && getComputedStyle(e).visibility === 'visible'}; })",
    )
    assert len(panels) == 3 and all(p["visible"] for p in panels), panels
    assert max(p["top"] for p in panels) - min(p["top"] for p in panels) < 2, panels
    assert panels[0]["right"] <= panels[1]["left"] and panels[1]["right"] <= panels[2]["left"]
    assert not page.locator("[role=tablist]").is_visible()
    assert page.locator("[role=tabpanel]").count() == 0
    page.screenshot(path=str(SCREENSHOTS / "desktop-phone25-best-worst.png"))
    # Narrowed to a phone's width, the same page makes tabs (one poem shown at a time).
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_selector("[role=tablist]")
    assert page.get_by_role("tab").count() == 3
    assert page.locator("#poem-1").is_visible() and not page.locator("#poem-2").is_visible()
    context.close()


@pytest.mark.parametrize("size", list(PHONES))
def test_the_welcome_pages_agree_button_is_on_the_first_screen(
    browser, transactional_db, live_server, size
) -> None:
    study = build_study(kinds=("choice",), slug="long")
    Study.objects.filter(pk=study.pk).update(
        consent=CONSENT,
        description="本研究请您阅读若干首宋词并回答问题，约需十分钟。您的回答将帮助我们了解读者如何欣赏古典诗词。",
    )
    study.refresh_from_db()
    _with_font(study)
    context = browser.new_context(**PHONES[size], locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/s/long/")
    box = page.evaluate(
        """() => { const b = document.querySelector('form.consent-form button[type=submit]')
                       .getBoundingClientRect();
                   const c = document.querySelector('.consent');
                   return {bottom: b.bottom, height: innerHeight,
                           scrolls: c.scrollHeight > c.clientHeight}; }"""
    )
    assert box["bottom"] <= box["height"] and box["scrolls"], box
    assert small_targets(page) == []
    page.screenshot(path=str(SCREENSHOTS / f"{size}-phone25-welcome.png"))
    context.close()


FONT = """async () => {
  await document.fonts.ready;
  const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '') === 'Shiping Serif');
  await Promise.all(faces.map(f => f.load().catch(() => null)));
  const family = el => getComputedStyle(el).fontFamily.split(',')[0].replace(/"/g, '').trim();
  return {
    faces: faces.map(f => f.status),
    check: document.fonts.check('20px "Shiping Serif"', '明月几时有'),
    verse: family(document.querySelector('.poem .vl')),
    digit: family(document.querySelector('fieldset.scale .opt-text')),
  };
}"""


def test_the_poems_and_digits_are_set_in_the_studys_own_serif_under_the_csp(
    browser, transactional_db, live_server
) -> None:
    _rating_study()
    # bypass_csp off: the font and its CSS load under the site's own policy.
    context = browser.new_context(**PHONES["390x844"], locale="zh-CN", bypass_csp=False)
    page = context.new_page()
    fonts: list[tuple[str, int]] = []
    page.on(
        "response", lambda r: fonts.append((r.url, r.status)) if "/poem-font-" in r.url else None
    )
    _enter(page, live_server.url, "rate")
    used = page.evaluate(FONT)
    # the question page's two faces (its task's and its item's: annotation.poemfont)
    assert used["faces"] == ["loaded", "loaded"] and used["check"], used
    assert used["verse"] == "Shiping Serif" and used["digit"] == "Shiping Serif", used
    assert fonts and {status for _url, status in fonts} == {200}, fonts
    reply = page.request.get(fonts[-1][0])
    assert reply.headers["content-type"].startswith("font/woff")
    assert 1_000 < len(reply.body()) < 100_000
    context.close()
