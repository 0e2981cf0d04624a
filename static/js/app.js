/* Explorer page behaviour that htmx does not cover: the detail sheet, the custom date range, select-all. */
(function () {
  "use strict";

  function sheet() { return document.getElementById("sheet"); }

  function closeSheet() {
    var el = sheet();
    if (!el || !el.innerHTML.trim()) return;
    var id = el.querySelector("[data-sheet]") && el.querySelector("[data-sheet]").dataset.lessonId;
    el.innerHTML = "";
    el.classList.remove("is-open");
    var row = id && document.querySelector('.lesson-row[data-lesson-id="' + id + '"] .lesson-key');
    if (row) row.focus();
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var el = sheet();
    if (el && event.detail.target === el) {
      el.classList.add("is-open");
      var close = el.querySelector("[data-sheet-close]");
      if (close && !el.contains(document.activeElement)) close.focus();
    }
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-sheet-close]")) { closeSheet(); return; }
    var all = event.target.closest("[data-select-all]");
    if (all) {
      document.querySelectorAll('#restore-form input[name="ids"]').forEach(function (box) { box.checked = all.checked; });
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    if (event.target.closest && event.target.closest(".fc-menu")) return;
    var el = sheet();
    if (el && el.innerHTML.trim()) { event.preventDefault(); closeSheet(); }
  });

  // "Custom range…" reveals the date inputs instead of navigating; a date change then applies it.
  document.addEventListener("change", function (event) {
    if (!event.target.matches("[data-range-picker]")) return;
    var custom = document.querySelector("[data-custom-range]");
    if (!custom) return;
    custom.hidden = event.target.value !== "custom";
    if (!custom.hidden) { var first = custom.querySelector("input"); if (first) first.focus(); }
  });

  // A page restored from history never comes back with the sheet open.
  document.addEventListener("htmx:historyRestore", function () { var el = sheet(); if (el) { el.innerHTML = ""; el.classList.remove("is-open"); } });
})();
