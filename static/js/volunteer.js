/* Progressive enhancement for the volunteer pages; everything works without it.

   Keyboard: a digit 1-9 chooses that option in the current part (the one holding the
   focus, else the first unanswered) and moves the focus on to the next unanswered part;
   Enter saves once every part is answered, otherwise it moves to the first part still
   missing. Fields that must differ (best and worst) cannot name the same option.
   Best/worst: below 1200 px the poems become tabs (each named by its first words; arrow
   keys, or a swipe on a phone, move between them); wider, they stand side by side.
   An unsaved choice is kept in the tab's sessionStorage (per participant and item:
   the form's data-draft) and put back after a refresh; saving clears it. A page the
   browser restores from its back/forward cache is loaded afresh (the server sends the
   pages with no-store, so Back shows the current question, never a stale copy). On a
   page without a question, Enter follows its "Continue" link (a#continue: the resume
   code's page). After a refused answer the first problem gets
   the focus (the page's autofocus does it without script). The save button is disabled
   after the first click (the server is idempotent anyway).
   Plain ES5, nothing an in-app browser (WeChat) may lack. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var slice = Array.prototype.slice;

  // Back (or Forward) to a page kept whole in the browser's memory: ask for it again.
  window.addEventListener("pageshow", function (e) {
    if (e.persisted) window.location.reload();
  });

  poemTabs(document.querySelector(".poem-switch"));

  var form = document.querySelector("form.question-form");
  if (!form) {
    enterFollows(document.querySelector("a#continue"));
    return;
  }
  var hint = form.querySelector(".keys-hint");
  if (hint) hint.hidden = false;
  var fieldsets = slice.call(form.querySelectorAll("fieldset"));

  function radios(fs) { return slice.call(fs.querySelectorAll("input[type=radio]")); }
  function answered(fs) { return !!fs.querySelector("input:checked"); }
  function firstMissing() {
    for (var i = 0; i < fieldsets.length; i++) {
      if (!answered(fieldsets[i])) return fieldsets[i];
    }
    return null;
  }
  function current() {
    var active = document.activeElement;
    for (var i = 0; i < fieldsets.length; i++) {
      if (fieldsets[i].contains(active)) return fieldsets[i];
    }
    return firstMissing() || fieldsets[fieldsets.length - 1];
  }
  // The next unanswered part after ``fs`` (then from the top), or null.
  function nextMissing(fs) {
    var start = fieldsets.indexOf(fs);
    for (var k = 1; k <= fieldsets.length; k++) {
      var candidate = fieldsets[(start + k) % fieldsets.length];
      if (!answered(candidate)) return candidate;
    }
    return null;
  }
  function focusPart(fs, center) {
    var target = fs.querySelector("input:checked");
    if (!target) {
      target = radios(fs).filter(function (r) { return !r.disabled; })[0];
    }
    if (!target) return;
    target.focus();
    if (target.scrollIntoView) target.scrollIntoView({ block: center ? "center" : "nearest" });
  }

  // Fields that must name different options (data-distinct, e.g. "best worst"): an
  // option chosen in one is disabled in the others.
  var distinct = (form.getAttribute("data-distinct") || "").split(" ").filter(Boolean);
  function syncDistinct() {
    if (distinct.length < 2) return;
    var chosen = {};
    distinct.forEach(function (key) {
      var input = form.querySelector("input[name='f-" + key + "']:checked");
      chosen[key] = input ? input.value : null;
    });
    radios(form).forEach(function (r) {
      var key = r.name.slice(2);
      if (distinct.indexOf(key) < 0) return;
      r.disabled = distinct.some(function (other) {
        return other !== key && chosen[other] === r.value;
      });
    });
  }
  form.addEventListener("change", syncDistinct);
  restoreDraft();
  form.addEventListener("change", saveDraft);
  syncDistinct();

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !fieldsets.length) return;
    var t = e.target;
    if (t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
              (t.tagName === "INPUT" && t.type === "text"))) return;
    if (/^[1-9]$/.test(e.key)) {
      var fs = current();
      var choice = radios(fs)[parseInt(e.key, 10) - 1];
      if (!choice || choice.disabled) return;
      e.preventDefault();
      choice.checked = true;
      choice.dispatchEvent(new Event("change", { bubbles: true }));
      var next = nextMissing(fs);
      if (next) focusPart(next, false); else choice.focus();
    } else if (e.key === "Enter" && t && t.tagName !== "BUTTON" && t.tagName !== "A" &&
               t.tagName !== "SUMMARY") {
      e.preventDefault();
      var missing = firstMissing();
      if (missing) {
        focusPart(missing, true);
      } else if (form.requestSubmit) {
        form.requestSubmit();
      } else {
        form.submit();
      }
    }
  });

  // A refused answer: the first problem takes the focus, in view (its error is read out
  // with it: aria-describedby), or the page's alert when no part is at fault.
  var invalid = form.querySelector("fieldset.invalid");
  var problem = document.getElementById("problem");
  if (invalid) focusPart(invalid, true);
  else if (problem) problem.focus();

  form.addEventListener("submit", function (e) {
    if (form.getAttribute("data-sent")) { e.preventDefault(); return; }
    form.setAttribute("data-sent", "1");
    dropDraft();
    var button = form.querySelector("button[type=submit]");
    if (button) window.setTimeout(function () { button.disabled = true; }, 0);
  });
  // Coming back with the browser's Back button shows the page from cache: allow a resend.
  window.addEventListener("pageshow", function () {
    form.removeAttribute("data-sent");
    var button = form.querySelector("button[type=submit]");
    if (button) button.disabled = false;
  });

  // The unsaved choices of this question (sessionStorage: this tab only, gone when it
  // closes), keyed by participant and item. A storage that refuses (private mode, full)
  // just keeps nothing.
  function draftKey() { return form.getAttribute("data-draft"); }
  function storage() {
    try { return window.sessionStorage || null; } catch (err) { return null; }
  }
  function saveDraft() {
    var store = storage(), key = draftKey();
    if (!store || !key) return;
    var chosen = {};
    radios(form).forEach(function (r) { if (r.checked) chosen[r.name] = r.value; });
    try { store.setItem(key, JSON.stringify(chosen)); } catch (err) { /* nothing kept */ }
  }
  function dropDraft() {
    var store = storage(), key = draftKey();
    if (!store || !key) return;
    try { store.removeItem(key); } catch (err) { /* nothing to drop */ }
  }
  // Put back what was chosen before a refresh, unless the page already shows choices
  // (a refused answer is shown with what was sent).
  function restoreDraft() {
    var store = storage(), key = draftKey();
    if (!store || !key || form.querySelector("input[type=radio]:checked")) return;
    var chosen;
    try { chosen = JSON.parse(store.getItem(key) || "null"); } catch (err) { chosen = null; }
    if (!chosen || typeof chosen !== "object") return;
    radios(form).forEach(function (r) {
      if (chosen[r.name] === r.value) r.checked = true;
    });
  }

  // Enter on a page that only leads on (no question): follow its marked link.
  function enterFollows(link) {
    if (!link) return;
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Enter" || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
      var t = e.target;
      if (t && t !== document.body && t !== document.documentElement && t !== link) return;
      e.preventDefault();
      window.location.href = link.href;
    });
  }

  function poemTabs(box) {
    if (!box) return;
    var list = box.querySelector("[role=tablist]");
    var tabs = list ? slice.call(list.querySelectorAll("[role=tab]")) : [];
    var panels = slice.call(box.querySelectorAll(".poem-panel"));
    if (tabs.length < 2 || tabs.length !== panels.length) return;
    var wide = window.matchMedia ? window.matchMedia("(min-width: 75rem)") : null;
    var on = false;
    var shown = 0;
    function select(i, focus) {
      shown = (i + tabs.length) % tabs.length;
      tabs.forEach(function (tab, j) {
        var on = j === shown;
        tab.setAttribute("aria-selected", on ? "true" : "false");
        tab.tabIndex = on ? 0 : -1;
        if (on) panels[j].className = panels[j].className.replace(/ ?inactive/g, "");
        else if (!/inactive/.test(panels[j].className)) panels[j].className += " inactive";
      });
      if (focus) tabs[shown].focus();
    }
    // Tabs on, or off (the poems side by side): by the screen's width, and again when
    // it changes (a phone turned, a window resized).
    function arrange() {
      var tabbed = !(wide && wide.matches);
      if (tabbed === on) return;
      on = tabbed;
      panels.forEach(function (panel, j) {
        if (on) {
          panel.setAttribute("role", "tabpanel");
          panel.setAttribute("aria-labelledby", tabs[j].id);
          panel.tabIndex = 0;
        } else {
          panel.removeAttribute("role");
          panel.removeAttribute("aria-labelledby");
          panel.removeAttribute("tabindex");
          panel.className = panel.className.replace(/ ?inactive/g, "");
        }
      });
      list.hidden = !on;
      if (on) {
        if (!/(^| )tabbed( |$)/.test(box.className)) box.className += " tabbed";
        select(shown, false);
      } else {
        box.className = box.className.replace(/ ?tabbed/g, "");
      }
    }
    tabs.forEach(function (tab, j) {
      tab.addEventListener("click", function () { select(j, false); });
    });
    list.addEventListener("keydown", function (e) {
      var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
      if (e.key in moves) select(shown + moves[e.key], true);
      else if (e.key === "Home") select(0, true);
      else if (e.key === "End") select(tabs.length - 1, true);
      else return;
      e.preventDefault();
    });
    // A horizontal swipe on the poem shows the next (or previous) one.
    var start = null;
    box.addEventListener("touchstart", function (e) {
      start = e.touches.length === 1 ? [e.touches[0].clientX, e.touches[0].clientY] : null;
    }, { passive: true });
    box.addEventListener("touchend", function (e) {
      if (!start || !e.changedTouches.length) return;
      var dx = e.changedTouches[0].clientX - start[0];
      var dy = e.changedTouches[0].clientY - start[1];
      start = null;
      if (!on) return;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) select(shown + (dx < 0 ? 1 : -1), false);
    }, { passive: true });
    arrange();
    if (wide && wide.addEventListener) wide.addEventListener("change", arrange);
    else if (wide && wide.addListener) wide.addListener(arrange);
  }
})();
