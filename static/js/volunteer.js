/* Progressive enhancement for the volunteer pages; everything works without it.
   Digits 1-9 choose an option in the current question part (the one holding the focus,
   else the first unanswered); Enter saves. Fields that must differ (best and worst)
   cannot name the same option.
   The save button is disabled after the first click (the server is idempotent anyway). */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var form = document.querySelector("form.question-form");
  if (!form) return;
  var hint = form.querySelector(".keys-hint");
  if (hint) hint.hidden = false;
  var fieldsets = Array.prototype.slice.call(form.querySelectorAll("fieldset"));

  function radios(fs) { return Array.prototype.slice.call(fs.querySelectorAll("input[type=radio]")); }
  function current() {
    var active = document.activeElement;
    for (var i = 0; i < fieldsets.length; i++) {
      if (fieldsets[i].contains(active)) return fieldsets[i];
    }
    for (var j = 0; j < fieldsets.length; j++) {
      if (!fieldsets[j].querySelector("input:checked")) return fieldsets[j];
    }
    return fieldsets[fieldsets.length - 1];
  }

  // Fields that must name different options (data-distinct, e.g. "best worst"): an
  // option chosen in one is disabled in the others.
  var distinct = (form.dataset.distinct || "").split(" ").filter(Boolean);
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
  syncDistinct();

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type === "text"))) return;
    if (/^[1-9]$/.test(e.key)) {
      var fs = current();
      var choice = radios(fs)[parseInt(e.key, 10) - 1];
      if (choice && !choice.disabled) {
        choice.checked = true;
        choice.focus();
        choice.dispatchEvent(new Event("change", { bubbles: true }));
        e.preventDefault();
      }
    } else if (e.key === "Enter" && t && t.tagName !== "BUTTON" && t.tagName !== "A") {
      e.preventDefault();
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    }
  });

  form.addEventListener("submit", function (e) {
    if (form.dataset.sent) { e.preventDefault(); return; }
    form.dataset.sent = "1";
    var button = form.querySelector("button[type=submit]");
    if (button) window.setTimeout(function () { button.disabled = true; }, 0);
  });
  // Coming back with the browser's Back button shows the page from cache: allow a resend.
  window.addEventListener("pageshow", function () {
    delete form.dataset.sent;
    var button = form.querySelector("button[type=submit]");
    if (button) button.disabled = false;
  });
})();
