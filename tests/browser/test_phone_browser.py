"""The volunteer pages on a 390×844 and a 360×640 phone and on a desktop: Save always on
the first screen and never over an unanswered option, verse lines whole, scale anchors,
44 px targets, no horizontal scroll, axe-core without violations on every page kind
(screenshots of each in test-artifacts/screenshots/); the keyboard alone through a
multi-part, a best/worst and a rating page; a refused answer opening on its first
problem, with and without JavaScript; WeChat's browser; a Prolific link ending on the
platform with the completion code."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from annotation.models import Participant, Response
from studies.models import Item, Study
from tests.browser.conftest import SCREENSHOTS, axe_missing_reason
from tests.browser.driver import Volunteer
from tests.browser.layout import (
    DESKTOP,
    NEVER_WRAPS,
    PHONES,
    overflow,
    save_problems,
    small_targets,
    under_bar,
    verse_lines,
    verse_problems,
)
from tests.present import present
from tests.volunteer.conftest import build_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
SIZES = {"390x844": PHONES["390x844"], "360x640": PHONES["360x640"], "desktop": DESKTOP}
WECHAT = (
    "Mozilla/5.0 (Linux; Android 13; V2148A Build/TP1A.220624.014; wv) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160065 "
    "MMWEBSDK/20231202 MMWEBID/2309 MicroMessenger/8.0.47.2560(0x28002F35) WeChat/arm64 "
    "Weixin NetType/WIFI Language/zh_CN ABI/arm64"
)
# The first problem of a refused page: focused, inside the first invalid part (or the
# alert when no part is at fault), on screen and clear of the action bar.
FOCUS = """() => {
  const a = document.activeElement, first = document.querySelector('fieldset.invalid');
  const r = a.getBoundingClientRect(), bar = document.querySelector('.action-bar');
  return {name: a.name || a.id, in_first: !!first && first.contains(a),
          described: first ? first.getAttribute('aria-describedby') : null,
          on_screen: r.top >= 0 && r.bottom <= (bar ? bar.getBoundingClientRect().top : innerHeight),
          alert: document.querySelector('[role=alert]')?.textContent.trim() || ''};
}"""


def test_axe_core_is_installed() -> None:
    reason = axe_missing_reason()
    if reason and os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    if reason:
        pytest.skip(reason)


class Walk:
    """One volunteer at one screen size: each page kind is photographed (the first screen
    and the whole page), checked by axe-core, and measured (targets, overflow)."""

    def __init__(self, page: Any, base: str, size: str, axe: Any) -> None:
        self.page, self.base, self.size, self.axe = page, base, size, axe
        self.seen: list[str] = []
        page.set_default_timeout(15_000)

    def look(self, name: str) -> None:
        self.seen.append(name)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        stem = SCREENSHOTS / f"{self.size}-{name}"
        self.page.screenshot(path=f"{stem}-screen.png")
        self.page.screenshot(path=f"{stem}.png", full_page=True)
        assert overflow(self.page) <= 0, f"{name}: wider than the screen"
        assert small_targets(self.page) == [], name
        self.axe.check(self.page, f"{name} at {self.size}")

    def submit(self, selector: str = "main form button[type=submit]") -> None:
        with self.page.expect_navigation():
            self.page.click(selector)


def _answer_all(page: Any) -> None:
    for fieldset in page.locator("form.question-form fieldset").all():
        for option in fieldset.locator("label.option").all():
            if option.locator("input").is_enabled():
                option.click()
                break


def _question_checks(w: Walk, kind: str, name: str) -> None:
    page = w.page
    assert save_problems(page) == [], name
    assert under_bar(page) == [], name
    assert verse_problems(page) == [], name
    if kind == "rating":  # anchors at the ends of every scale, in the radios' names
        dims = page.locator("fieldset.scale").count()
        assert dims == 7
        assert page.get_by_role("radio", name="1 很差").count() == dims
        assert page.get_by_role("radio", name="5 很好").count() == dims
    if kind == "best_worst" and w.size == "desktop":  # 1200 px and more: side by side
        assert (
            not page.get_by_role("tab").count() or not page.locator("[role=tablist]").is_visible()
        )
        assert page.locator("#poem-1").is_visible() and page.locator("#poem-2").is_visible()
    elif kind == "best_worst":  # tabs named by first words; one poem shown at a time
        tabs = page.get_by_role("tab")
        assert tabs.count() == 3 and re.fullmatch(
            r"第 2 首\S+", tabs.nth(1).inner_text().replace("\n", "")
        )
        tabs.nth(1).click()
        assert page.locator("#poem-2").is_visible() and not page.locator("#poem-1").is_visible()
        assert tabs.nth(1).get_attribute("aria-selected") == "true"
        tabs.nth(0).click()


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_kind_fits_the_screen(browser, demo, live_server, axe, size) -> None:
    context = browser.new_context(**SIZES[size], locale="zh-CN")
    w = Walk(context.new_page(), live_server.url, size, axe)
    page = w.page
    page.goto(f"{live_server.url}/")
    w.look("home")
    page.goto(f"{live_server.url}/s/song-ci-demo/")
    assert "共 13 道题，约需" in page.inner_text("#estimate")  # as many as progress counts
    w.look("welcome")
    page.click("label.check")  # the whole row ticks the box
    w.submit("form.consent-form button[type=submit]")
    assert page.inner_text("h1") == "您的续答码"
    w.look("resume-code")
    with page.expect_navigation():
        page.click("#continue")
    w.submit()  # nothing chosen: refused, opening on the question
    assert page.evaluate("() => document.activeElement.name") == "q-education"
    w.look("screening-refused")
    page.locator("label.option").nth(1).click()
    w.submit()
    refused = False
    for _ in range(20):
        if "/finish/" in page.url:
            break
        kind = page.get_attribute("form.question-form", "data-kind")
        name = f"question-{kind}" + ("-blank" if page.locator(".poem .blank").count() else "")
        if name not in w.seen:
            _question_checks(w, kind, name)
            w.look(name)
        if kind == "rating" and not refused:  # one part answered, then Save: refused
            page.locator("fieldset[data-field=prosody] label.option").nth(3).click()
            w.submit("form.question-form button[type=submit]")
            focus = page.evaluate(FOCUS)
            assert focus["name"] == "f-theme" and focus["in_first"] and focus["on_screen"]
            assert "err-theme" in focus["described"] and focus["alert"] == "请完成标出的部分。"
            w.look("question-refused")
            refused = True
        _answer_all(page)
        w.submit("form.question-form button[type=submit]")
    assert refused and "/finish/" in page.url
    w.look("finish")
    page.goto(f"{live_server.url}/s/song-ci-demo/resume/")
    w.look("resume")
    kinds = {"question-choice", "question-choice-blank", "question-multi"}
    assert kinds | {"question-best_worst", "question-rating"} <= set(w.seen)
    context.close()


LONG = "我欲乘风归去，又恐琼楼玉宇，高处不胜寒，起舞弄清影，何似在人间。"


def _verse_study() -> Study:
    study = build_study(kinds=("rating",), n_items=1, per_participant=1, slug="verse")
    Item.objects.filter(study=study).update(
        poem_text=f"明月几时有\n把酒问青天\n不知天上宫阙，今夕是何年。\n{LONG}\n转朱阁，低绮户"
    )
    return study


def _to_question(page: Any, base: str, slug: str) -> None:
    page.goto(f"{base}/s/{slug}/")
    page.click("label.check")
    with page.expect_navigation():
        page.click("form.consent-form button[type=submit]")
    with page.expect_navigation():
        page.click("#continue")
    page.locator("label.option").first.click()
    with page.expect_navigation():
        page.click("main form button[type=submit]")  # the first question, instructions unfolded


@pytest.mark.parametrize("size", ["360x640", "390x844"])
def test_verse_lines_fit_and_a_long_one_wraps_only_under_its_indent(
    browser, transactional_db, live_server, size
) -> None:
    _verse_study()
    context = browser.new_context(**SIZES[size], locale="zh-CN")
    page = context.new_page()
    _to_question(page, live_server.url, "verse")
    lines = {line["text"]: line for line in verse_lines(page)}
    assert verse_problems(page) == []
    assert lines["不知天上宫阙，今夕是何年。"]["rows"] == 1  # 13 characters: one line
    assert all(line["rows"] == 1 for line in lines.values() if line["n"] <= NEVER_WRAPS)
    long = lines[LONG]
    assert long["rows"] > 1 and long["indented"] and long["font"] == 16  # at its smallest
    page.screenshot(path=str(SCREENSHOTS / f"{size}-verse-wrapping.png"), full_page=True)
    context.close()


def test_the_overflow_measure_finds_a_page_wider_than_the_phone(
    browser, transactional_db, live_server
) -> None:
    """The control of every ``overflow`` check above: the question page fits 360 px, and
    the same page with one element 600 px wide is found 240 px too wide, although the
    phone's browser zooms out and widens ``innerWidth`` with the page."""
    _verse_study()
    context = browser.new_context(**SIZES["360x640"], locale="zh-CN")
    page = context.new_page()
    _to_question(page, live_server.url, "verse")
    assert overflow(page) <= 0
    page.evaluate(
        "() => { const d = document.createElement('div'); d.style.width = '600px';"
        " d.style.height = '1px'; document.querySelector('main').append(d); }"
    )
    page.wait_for_timeout(100)  # the new layout (and the zoom it may bring) settles
    assert overflow(page) >= 600 - 360
    context.close()


def _stored(participant: Participant) -> dict[str, float | None]:
    return {r.field: r.value for r in Response.objects.filter(rater=participant.rater)}


def test_the_keyboard_alone_answers_a_multi_part_a_best_worst_and_a_rating_page(
    browser, transactional_db, live_server
) -> None:
    build_study(kinds=("multi", "best_worst", "rating"), n_items=1, per_participant=1, slug="keys")
    context = browser.new_context(**SIZES["desktop"], locale="zh-CN")
    page = context.new_page()
    _to_question(page, live_server.url, "keys")
    active = "() => document.activeElement.name"
    keys = page.locator(".keys-hint")
    assert keys.is_visible() and "按 1–9 在当前部分作答并自动跳到下一部分" in keys.inner_text()
    participant = Participant.objects.get()

    # Multi: 2 in the first part moves on to the second; Enter there goes nowhere yet.
    page.keyboard.press("2")
    assert page.evaluate(active) == "f-what"
    url = page.url
    page.keyboard.press("Enter")
    assert page.evaluate(active) == "f-what" and page.url == url and not _stored(participant)
    page.keyboard.press("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _stored(participant) == {"who": 1, "what": 3}

    # Best/worst: 1 for the best moves to the worst, where 1 cannot be chosen; 3 can.
    page.keyboard.press("1")
    assert page.evaluate(active) == "f-worst"
    page.keyboard.press("1")
    assert page.locator("input[name=f-worst]:checked").count() == 0
    page.keyboard.press("3")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert {k: v for k, v in _stored(participant).items() if k in ("best", "worst")} == {
        "best": 0,
        "worst": 2,
    }

    # Rating: Enter with a dimension missing moves to it; then it saves.
    page.keyboard.press("4")
    assert page.evaluate(active) == "f-form"
    page.keyboard.press("Enter")
    assert page.evaluate(active) == "f-form"
    page.keyboard.press("2")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    stored = _stored(participant)
    assert (stored["beauty"], stored["form"]) == (4, 2)
    assert "/finish/" in page.url
    context.close()


def test_without_javascript_every_poem_shows_and_a_refusal_still_opens_on_its_problem(
    browser, transactional_db, live_server
) -> None:
    build_study(kinds=("best_worst", "rating"), n_items=1, per_participant=1, slug="nojs")
    context = browser.new_context(**SIZES["360x640"], locale="zh-CN", java_script_enabled=False)
    page = context.new_page()
    _to_question(page, live_server.url, "nojs")
    assert page.locator(".poem-tabs").is_hidden()
    assert all(page.locator(f"#poem-{n}").is_visible() for n in (1, 2, 3))
    assert save_problems(page) == [] and under_bar(page) == []
    page.locator("fieldset[data-field=best] label.option").first.click()
    page.locator("fieldset[data-field=worst] label.option").nth(1).click()
    with page.expect_navigation():
        page.click("form.question-form button[type=submit]")
    page.locator("fieldset[data-field=beauty] label.option").nth(2).click()
    with page.expect_navigation():
        page.click("form.question-form button[type=submit]")
    focus = page.evaluate(FOCUS)  # the page's own autofocus, no script
    assert focus["name"] == "f-form" and focus["in_first"] and focus["on_screen"]
    page.screenshot(path=str(SCREENSHOTS / "360x640-nojs-refused.png"))
    context.close()


def test_wechats_browser_takes_the_whole_study(browser, demo, live_server, shoot, axe) -> None:
    context = browser.new_context(**SIZES["360x640"], locale="zh-CN", user_agent=WECHAT)
    page = context.new_page()
    errors: list[str] = []
    failed: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    v = Volunteer(page, live_server.url, shoot, "wechat")
    v.consent()  # the resume-code page said how to come back from WeChat
    v.screen(option=0)
    while v.answer_one():
        # Nothing WeChat's in-app browser lacks: no new windows, no downloads.
        assert page.locator("a[target], [download], form[target]").count() == 0
    assert page.locator("#completion-code").is_visible()
    # A poem face still being built is a 503 the browser does not keep (the page shows the
    # fallback font: annotation.views.poem_font), as on a busy first visit; any other
    # failed request or script error fails the test.
    font_busy = [f for f in failed if f.startswith("503 ") and "/poem-font-" in f]
    assert [f for f in failed if f not in font_busy] == []
    loads = [e for e in errors if e.startswith("Failed to load resource")]
    assert len(loads) <= len(font_busy) and [e for e in errors if e not in loads] == []
    p = v.participant()
    assert p.status == "finished" and len(v.given) == 13
    context.close()


def test_the_wechat_note_on_the_resume_code_page(browser, demo, live_server, axe) -> None:
    context = browser.new_context(**SIZES["360x640"], locale="zh-CN", user_agent=WECHAT)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/song-ci-demo/")
    page.click("label.check")
    with page.expect_navigation():
        page.click("form.consent-form button[type=submit]")
    assert page.locator("#wechat-note").is_visible()
    axe.check(page, "the resume-code page in WeChat")
    page.screenshot(path=str(SCREENSHOTS / "360x640-wechat-resume-code.png"))
    context.close()


PROLIFIC = "?PROLIFIC_PID=60a1b2c3d4e5f6&STUDY_ID=6123abc&SESSION_ID=sess-42"


def test_a_prolific_link_ends_on_prolific_with_the_completion_code(
    browser, demo, live_server, shoot
) -> None:
    Study.objects.filter(pk=demo.pk).update(
        completion_url="https://app.prolific.com/submissions/complete?cc={code}"
    )
    context = browser.new_context(**SIZES["390x844"], locale="zh-CN")
    # Prolific itself is not contacted: the browser's request to it is answered here.
    context.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(content_type="text/html", body="<title>Prolific</title>ok"),
    )
    page = context.new_page()
    v = Volunteer(page, live_server.url, shoot, "prolific")
    page.goto(v.url(PROLIFIC))
    page.click("label.check")
    with page.expect_navigation():
        page.click("form.consent-form button[type=submit]")
    v.resume_code = page.inner_text("#resume-code").strip()
    with page.expect_navigation():
        page.click("#continue")
    v.screen(option=1)
    code = v.finish()
    page.wait_for_url("https://app.prolific.com/**", timeout=15_000)  # after 5 seconds
    assert page.url == f"https://app.prolific.com/submissions/complete?cc={code}"
    p = v.participant()
    assert p.completion_code == code
    assert p.recruitment == {
        "PROLIFIC_PID": "60a1b2c3d4e5f6",
        "STUDY_ID": "6123abc",
        "SESSION_ID": "sess-42",
    }
    context.close()


# The QR code as the browser draws it: the inline SVG rendered on a canvas, as grey levels.
PIXELS = """async (selector) => {
  const svg = document.querySelector(selector).cloneNode(true);
  svg.setAttribute('width', 400); svg.setAttribute('height', 400);
  const img = new Image();
  img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(new XMLSerializer().serializeToString(svg));
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 400;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, 400, 400); ctx.drawImage(img, 0, 0, 400, 400);
  const rgba = ctx.getImageData(0, 0, 400, 400).data, grey = [];
  for (let i = 0; i < rgba.length; i += 4) grey.push(rgba[i]);
  return grey;
}"""


def _decode(grey: list[int], url: str) -> str:
    """The text of the QR code in ``grey`` (400×400): read by zxing-cpp, a maintained
    decoder; without it, the modules are compared with segno's own matrix for ``url``."""
    import numpy as np

    image = np.array(grey, dtype=np.uint8).reshape(400, 400)
    try:
        import zxingcpp
    except ImportError:
        import segno

        matrix = segno.make(url, error="m").matrix
        n = len(matrix) + 8  # a border of 4 modules each side
        drawn = [
            [image[int((y + 4.5) * 400 / n), int((x + 4.5) * 400 / n)] < 128 for x in range(n - 8)]
            for y in range(n - 8)
        ]
        return url if drawn == [[bool(v) for v in row] for row in matrix] else "(no match)"
    return "".join(r.text for r in zxingcpp.read_barcodes(image))


def test_each_links_qr_code_reads_as_the_link(browser, demo, live_server) -> None:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("recruiter", password="qr-pass", is_staff=True)
    demo.researchers.add(user)
    context = browser.new_context(**SIZES["desktop"], locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}/research/studies/{demo.pk}/")
    page.fill("#id_username", "recruiter")
    page.fill("#id_password", "qr-pass")
    with page.expect_navigation():
        page.click("input[type=submit], button[type=submit]")
    public = f"{live_server.url}/s/song-ci-demo/"
    assert page.input_value("#recruit-public .link-text") == public
    assert _decode(page.evaluate(PIXELS, "#recruit-public svg"), public) == public
    page.locator("#recruit").screenshot(path=str(SCREENSHOTS / "research-recruit.png"))
    group = demo.groups.get(slug="C")
    invite = f"{live_server.url}/s/song-ci-demo/i/{group.invite_token}/"
    with page.expect_navigation():
        page.click("#recruit-group-C a.print")
    assert page.inner_text("#url") == invite
    assert _decode(page.evaluate(PIXELS, "#qr svg"), invite) == invite
    page.screenshot(path=str(SCREENSHOTS / "research-recruit-print.png"), full_page=True)
    page.emulate_media(media="print")
    assert page.locator("header.site").is_hidden()  # the poster prints without the site bar
    context.close()


# The research poem page: rows of character cells per line, each cell's top.
CELL_ROWS = """() => [...document.querySelectorAll('.pline')].map(line => {
  const cells = [...line.children].map(c => c.getBoundingClientRect());
  const first = cells[0];
  return {n: cells.length, rows: new Set(cells.map(c => Math.round(c.top))).size,
          indented: cells.filter(c => Math.round(c.top) !== Math.round(first.top))
                         .every(c => c.left >= first.left + 16)};
})"""


def test_the_poem_page_fits_its_lines_too(browser, demo, live_server) -> None:
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("poet", password="poem-pass")
    item = present(Item.objects.filter(study=demo, task__slug="rate").order_by("pk").first())
    item.poem_text = "一二三四五六七八九十百\n千万亿兆京垓秭穰沟涧正载极恒河沙阿僧祇那由他"
    item.save()
    context = browser.new_context(**SIZES["360x640"], locale="zh-CN")
    page = context.new_page()
    page.goto(f"{live_server.url}/research/poems/{item.pk}/")
    page.fill("#id_username", "poet")
    page.fill("#id_password", "poem-pass")
    with page.expect_navigation():
        page.click("input[type=submit], button[type=submit]")
    lines = page.evaluate(CELL_ROWS)
    assert [line["n"] for line in lines] == [11, 22]
    assert lines[0]["rows"] == 1  # 11 characters: one row at 360 px
    assert lines[1]["rows"] == 2 and lines[1]["indented"]  # the rest under an indent
    page.screenshot(path=str(SCREENSHOTS / "360x640-research-poem.png"), full_page=True)
    context.close()
