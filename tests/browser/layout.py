"""Measurements of a volunteer page in the browser (the layout promises of
docs/running-a-study.md), each returning what breaks a promise, or nothing."""

from __future__ import annotations

from typing import Any

#: The screens the volunteer pages are tried on (Playwright context options).
PHONE: dict[str, Any] = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PHONES: dict[str, dict[str, Any]] = {
    "360x640": {"viewport": {"width": 360, "height": 640}, **PHONE},
    "390x844": {"viewport": {"width": 390, "height": 844}, **PHONE},
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}

MIN_TARGET = 44  # px, the smallest tap target
MIN_VERSE = 16  # px, the smallest verse type
NEVER_WRAPS = 11  # a verse line of up to this many characters never wraps (at 360 px)

_SAVE = """() => {
  window.scrollTo(0, 0);
  const r = document.querySelector('form.question-form button[type=submit]').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
          height: innerHeight, width: innerWidth};
}"""

# Each unanswered option brought into view as the browser does for a focus or a link
# (its bottom at the screen's foot): it must end above the action bar, not under it.
_UNDER_BAR = """() => {
  const bar = document.querySelector('.action-bar');
  const under = [];
  for (const fs of document.querySelectorAll('form.question-form fieldset')) {
    if (fs.querySelector('input:checked')) continue;
    for (const label of fs.querySelectorAll('label.option')) {
      label.scrollIntoView({block: 'end'});
      const r = label.getBoundingClientRect(), b = bar.getBoundingClientRect();
      if (r.bottom > b.top + 0.5) under.push([fs.dataset.field, label.textContent.trim()]);
    }
  }
  window.scrollTo(0, 0);
  return under;
}"""

_VERSE = """() => [...document.querySelectorAll('.poem .vl')].map(vl => {
  const phrases = [...vl.querySelectorAll('.ph')].map(ph => {
    const rects = ph.getClientRects();
    let n = ph.textContent.length;
    for (const b of ph.querySelectorAll('.blank')) n += parseInt(b.style.getPropertyValue('--len')) || 0;
    return {n, rows: rects.length, top: Math.round(rects[0].top), left: rects[0].left};
  });
  const first = phrases[0];
  const indent = parseFloat(getComputedStyle(vl).fontSize);  // a hanging indent of 1em at least
  return {
    text: vl.textContent,
    n: phrases.reduce((s, p) => s + p.n, 0),
    rows: new Set(phrases.map(p => p.top)).size,
    broken_phrase: phrases.some(p => p.rows > 1),
    indented: phrases.filter(p => p.top !== first.top).every(p => p.left >= first.left + indent - 1),
    font: parseFloat(getComputedStyle(vl).fontSize),
  };
})"""

_TARGETS = """(min) => {
  const small = [];
  const controls = 'a[href], button, summary, select, textarea, input:not([type=hidden]), [role=tab]';
  for (const el of document.querySelectorAll(controls)) {
    const target = (el.type === 'radio' || el.type === 'checkbox') ? (el.closest('label') || el) : el;
    const r = target.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(target).visibility === 'hidden') continue;
    if (r.height < min - 0.5 || r.width < min - 0.5) {
      small.push(`${target.tagName.toLowerCase()} "${target.textContent.trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
  }
  return small;
}"""


def save_problems(page: Any) -> list[str]:
    """The Save button is on the first screen, whole, without scrolling."""
    r = page.evaluate(_SAVE)
    inside = (
        r["top"] >= 0 and r["bottom"] <= r["height"] and r["left"] >= 0 and r["right"] <= r["width"]
    )
    return [] if inside else [f"Save at {r} is not inside the first screen"]


def under_bar(page: Any) -> list[list[str]]:
    return page.evaluate(_UNDER_BAR)


def verse_problems(page: Any) -> list[str]:
    """No phrase breaks; a line of up to NEVER_WRAPS characters never wraps; a line that
    wraps does so under a hanging indent; the type stays readable."""
    out = []
    for line in page.evaluate(_VERSE):
        if line["broken_phrase"]:
            out.append(f"a phrase breaks in {line['text']!r}")
        if line["n"] <= NEVER_WRAPS and line["rows"] > 1:
            out.append(f"{line['text']!r} ({line['n']} characters) wraps")
        if line["rows"] > 1 and not line["indented"]:
            out.append(f"{line['text']!r} wraps without its hanging indent")
        if line["font"] < MIN_VERSE - 0.01:
            out.append(f"{line['text']!r} is set at {line['font']} px")
    return out


def verse_lines(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(_VERSE)


def small_targets(page: Any) -> list[str]:
    return page.evaluate(_TARGETS, MIN_TARGET)


def overflow(page: Any) -> int:
    """How far the page is wider than the screen (a horizontal scroll), in px.

    The screen is the viewport the test set, not ``innerWidth``: a mobile browser zooms out
    to show a page wider than the screen, and ``innerWidth`` widens with it, so comparing
    ``scrollWidth`` with ``innerWidth`` would never find a page too wide on a phone."""
    screen = (page.viewport_size or {}).get("width")
    wide: int = page.evaluate("() => Math.max(document.scrollingElement.scrollWidth, innerWidth)")
    return wide - int(screen) if screen else wide - page.evaluate("() => innerWidth")
