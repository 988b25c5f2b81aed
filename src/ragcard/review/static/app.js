// The review app's only script: autosave, keyboard shortcuts, progress. Served by the app
// itself (no CDN); without it, the form's button saves and moves on.
(function () {
  "use strict";
  var form = document.getElementById("rating-form");
  if (!form) { return; }
  var status = document.getElementById("status");
  var progress = document.getElementById("progress");
  var timer = null;

  function show(text, failed) {
    status.textContent = text;
    status.className = failed ? "status error" : "status";
  }

  function save() {
    var body = new URLSearchParams(new FormData(form));
    show("saving…", false);
    return fetch(form.action, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-Autosave": "1" }
    }).then(function (response) {
      // read as text first: a reply that is not JSON (a proxy's page, a size limit) is shown
      // as what it says, never as "Unexpected token … is not valid JSON"
      return response.text().then(function (text) {
        var data;
        try { data = JSON.parse(text); } catch (ignored) {
          throw new Error((response.status + " " + (text || response.statusText)).slice(0, 300));
        }
        if (!response.ok || !data.saved) { throw new Error(data.error || "not saved"); }
        show("saved", false);
        progress.textContent = data.rated + " of " + data.total + " done";
        form.dataset.saved = String(Date.now());
      });
    }).catch(function (error) { show("not saved: " + error.message, true); });
  }

  form.addEventListener("change", function () { save(); });
  form.addEventListener("input", function (event) {
    if (event.target.tagName !== "TEXTAREA") { return; }
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target.tagName === "TEXTAREA" ||
      (target.tagName === "INPUT" && (target.type === "search" || target.type === "text"));
    if (typing || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    if ((key === "j" || key === "ArrowRight") && form.dataset.next) {
      event.preventDefault();
      save().then(function () { window.location.href = form.dataset.next; });
      return;
    }
    if ((key === "k" || key === "ArrowLeft") && form.dataset.previous) {
      event.preventDefault();
      save().then(function () { window.location.href = form.dataset.previous; });
      return;
    }
    var input = form.querySelector('input[data-key="' + key + '"]');
    if (input) {
      event.preventDefault();
      input.checked = true;
      save();
    }
  });
}());
