// A form control marked data-autosubmit submits its form when it changes (the poem page's
// tone system and "lenient" switches): a file, not an onchange attribute, for the site's
// Content-Security-Policy. Without JavaScript the form's own button does it.
(function () {
  "use strict";
  document.querySelectorAll("[data-autosubmit]").forEach(function (control) {
    control.addEventListener("change", function () { control.form.submit(); });
  });
})();
