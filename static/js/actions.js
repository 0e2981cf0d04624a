/* Behaviour declared in the markup with data attributes, so that no template needs an inline script or an on*=
   handler (the Content-Security-Policy allows scripts from this site only):
   - data-copy="#selector" on a button copies that element's text;
   - data-confirm="question" on a form asks before it is sent;
   - data-heat="0–100" on a matrix cell sets its --heat (a style attribute would need 'unsafe-inline');
   - data-change-event="name" on a form fires `name` on it when a field changes, unless that field matches
     data-change-ignore or its value is data-change-ignore-value (htmx's hx-trigger filters `change[…]` are evaluated JavaScript, which the policy refuses);
   - a successful htmx request into #fc-state fires `fc-state-loaded` on the body (for `… from:body` triggers). */
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy]");
    if (!button || !navigator.clipboard) return;
    var source = document.querySelector(button.dataset.copy);
    if (!source) return;
    navigator.clipboard.writeText(source.textContent).then(function () { button.textContent = "Copied"; });
  });

  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
  }, true);

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form[data-change-event]");
    if (!form || !window.htmx) return;
    var ignore = form.dataset.changeIgnore;
    if (ignore && event.target.matches(ignore)) return;
    if (form.dataset.changeIgnoreValue && event.target.value === form.dataset.changeIgnoreValue) return;
    window.htmx.trigger(form, form.dataset.changeEvent);
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail;
    if (detail.successful && detail.target && detail.target.id === "fc-state" && window.htmx) {
      window.htmx.trigger(document.body, "fc-state-loaded");
    }
  });

  function paintHeat(root) {
    (root || document).querySelectorAll("[data-heat]").forEach(function (cell) {
      cell.style.setProperty("--heat", (parseInt(cell.dataset.heat, 10) || 0) + "%");
    });
  }
  document.addEventListener("DOMContentLoaded", function () { paintHeat(document); });
  document.addEventListener("htmx:afterSettle", function () { paintHeat(document); });
})();
