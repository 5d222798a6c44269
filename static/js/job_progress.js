// A job's admin page follows the job while it runs (templates/admin/jobs/job/change_form.html):
// polls the job's state (jobs:job, JSON) every second, moves the progress bar and shows the
// job's status beside it (queued, running: never "queued" under a moving bar), then reloads
// the page once the job has finished. A file, not an inline script: the site's
// Content-Security-Policy runs scripts from its own files only.
(function () {
  "use strict";
  var box = document.querySelector(".field-progress_bar .job-progress[data-url]");
  var data = document.getElementById("job-stages");
  if (!box || !data || !window.fetch) { return; }
  var labels = JSON.parse(data.textContent);
  var bar = box.querySelector("progress");
  var text = box.querySelector(".job-progress-text");
  var status = document.querySelector(".field-status_shown .job-status");
  function show(job) {
    if (status && job.status_label) {
      status.textContent = job.status_label;
      status.setAttribute("data-status", job.status);
    }
    var stage = labels[job.stage] || job.stage || "";
    var count = job.total ? job.done + "/" + job.total : (job.done ? String(job.done) : "");
    if (job.percent === null || job.percent === undefined) {
      bar.removeAttribute("value");
      text.textContent = (stage + " " + count).trim();
    } else {
      bar.max = 100;
      bar.value = job.percent;
      bar.textContent = job.percent + "%";
      text.textContent = (job.percent + "% " + stage + " " + count).trim();
    }
  }
  function tick() {
    fetch(box.dataset.url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (reply) { return reply.ok ? reply.json() : null; })
      .then(function (job) {
        if (!job) { setTimeout(tick, 3000); return; }
        if (job.finished) { window.location.reload(); return; }
        show(job);
        setTimeout(tick, 1000);
      })
      .catch(function () { setTimeout(tick, 3000); });
  }
  setTimeout(tick, 1000);
})();
