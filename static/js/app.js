/* Behaviour that htmx does not cover: the Explorer's detail sheet, custom date range and select-all; the Settings
   policy dialog's focus and keyboard. */
(function () {
  "use strict";

  function sheet() { return document.getElementById("sheet"); }

  function closeSheet() {
    var el = sheet();
    if (!el || !el.innerHTML.trim()) return;
    if (el.hasAttribute("data-sheet-standalone")) {  // the sheet is the page: closing it goes back to the Explorer
      var back = document.querySelector(".back-link a");
      if (back) window.location.assign(back.href);
      return;
    }
    var id = el.querySelector("[data-sheet]") && el.querySelector("[data-sheet]").dataset.lessonId;
    el.innerHTML = "";
    el.classList.remove("is-open");
    var row = id && document.querySelector('.lesson-row[data-lesson-id="' + id + '"] .lesson-key');
    if (row) row.focus();
  }

  // On a phone a Settings table becomes stacked rows (settings.css); each cell is labelled with its column's
  // heading, taken from the table's own head so the words are written once.
  function labelCells(root) {
    (root || document).querySelectorAll("table.s-table").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (cell, i) {
          if (heads[i] && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", heads[i]);
        });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { labelCells(document); });
  document.addEventListener("htmx:afterSettle", function () { labelCells(document); });

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
    if (event.key !== "Escape" || event.defaultPrevented) return;
    if (event.target.closest && event.target.closest(".fc-menu")) return;
    var el = sheet();
    if (el && el.innerHTML.trim() && !el.hasAttribute("data-sheet-standalone")) { event.preventDefault(); closeSheet(); }
  });

  // "Custom range…" reveals the date inputs instead of navigating; a date change then applies it.
  document.addEventListener("change", function (event) {
    if (!event.target.matches("[data-range-picker]")) return;
    var custom = document.querySelector("[data-custom-range]");
    if (!custom) return;
    custom.hidden = event.target.value !== "custom";
    if (!custom.hidden) { var first = custom.querySelector("input"); if (first) first.focus(); }
  });

  // Counts load after a swap (explorer.page.page_context). A newer swap abandons the older request; one that
  // fails says so and offers to try again, instead of showing "…" for ever.
  function pendingStats(root) { return (root || document).querySelectorAll("[data-stats-pending]"); }

  document.addEventListener("htmx:beforeSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "explorer-body") return;
    pendingStats(event.detail.target).forEach(function (el) {
      el.dataset.abandoned = "1";
      htmx.trigger(el, "htmx:abort");
    });
  });

  function statsState(el, failed) {
    el.setAttribute("aria-busy", failed ? "false" : "true");
    el.classList.toggle("stats-failed", failed);
    el.querySelectorAll(".pending").forEach(function (p) { if (!p.matches("[data-stats-hint]")) p.textContent = failed ? "—" : "…"; });
    var hint = el.querySelector("[data-stats-hint]");
    if (hint) {
      hint.textContent = failed ? "The counts could not be loaded. " : "Counting…";
      if (failed) {
        var retry = document.createElement("button");
        retry.type = "button";
        retry.className = "btn";
        retry.textContent = "Try again";
        retry.setAttribute("data-stats-retry", "");
        hint.appendChild(retry);
      }
    }
    var count = document.querySelector("#list-count-" + el.dataset.statsKey + " [data-count-text]");
    if (count) count.textContent = failed ? "Count unavailable" : "Counting…";
  }

  function statsFailed(event) {
    var el = event.detail.elt;
    if (!el || !el.matches || !el.matches("[data-stats-pending]") || el.dataset.abandoned) return;
    statsState(el, true);
  }
  document.addEventListener("htmx:responseError", statsFailed);
  document.addEventListener("htmx:sendError", statsFailed);

  document.addEventListener("click", function (event) {
    var retry = event.target.closest && event.target.closest("[data-stats-retry]");
    if (!retry) return;
    var el = retry.closest("[data-stats-pending]");
    if (!el) return;
    statsState(el, false);
    htmx.trigger(el, "lore-retry");
  });

  // The policy dialog (Settings) is modal: focus starts in it, Tab and Shift+Tab stay in it, and Escape closes it
  // the way its × does. The filter menu inside it handles its own keys first (Escape there closes the menu only).
  function policyDialog() { return document.getElementById("policy-dialog"); }

  var FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), ' +
    'select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

  function focusables(root) {
    return Array.prototype.filter.call(root.querySelectorAll(FOCUSABLE), function (el) {
      return el.getClientRects().length > 0 && !el.closest("[hidden]");
    });
  }

  function focusDialog() {
    var dialog = policyDialog();
    if (!dialog || dialog.contains(document.activeElement)) return;
    var first = dialog.querySelector('[aria-invalid="true"]') || dialog.querySelector("#id_name") || focusables(dialog)[0];
    if (first) first.focus();
  }

  // Opened in place (htmx into #dialog-slot), × and Escape close it in place and give focus back to what opened
  // it; opened as a page of its own (/settings/policies/new/, a hand-off from the Explorer), × is a link back.
  var dialogOpener = null;

  focusDialog();
  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail.target;
    if (target && target.id === "dialog-slot" && !policyDialog()) dialogOpener = event.detail.elt;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.target || event.detail.target.id !== "dialog-slot") return;
    if (policyDialog()) event.detail.target.dataset.inPlace = "1";
    focusDialog();
  });

  document.addEventListener("click", function (event) {
    var close = event.target.closest && event.target.closest("#policy-dialog .modal-head .close");
    var slot = document.getElementById("dialog-slot");
    if (!close || !slot || !slot.dataset.inPlace || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    slot.innerHTML = "";
    delete slot.dataset.inPlace;
    if (dialogOpener && document.body.contains(dialogOpener)) dialogOpener.focus();
    dialogOpener = null;
  });

  document.addEventListener("keydown", function (event) {
    var dialog = policyDialog();
    if (!dialog || event.defaultPrevented || event.isComposing) return;
    if (event.target.closest && event.target.closest(".fc-menu")) return;
    if (event.key === "Escape") {
      var close = dialog.querySelector(".modal-head .close");
      if (close) { event.preventDefault(); close.click(); }
      return;
    }
    if (event.key !== "Tab") return;
    var list = focusables(dialog);
    if (!list.length) return;
    var first = list[0], last = list[list.length - 1];
    if (!dialog.contains(document.activeElement)) { event.preventDefault(); first.focus(); }
    else if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  });

  // A swap that replaces the element with focus would drop focus to the page, and a keyboard user would start
  // again from the top. Focus goes to its counterpart in the new content (same id or data-focus-key), to the
  // first row "Load more" brought, or else to the Filter button the view is steered with.
  var lostFocus = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target, active = document.activeElement;
    if (!target || !active || active === document.body || !target.contains(active)) return;
    lostFocus = {
      id: active.id,
      key: active.dataset ? active.dataset.focusKey : "",
      rows: active.matches("[data-load-more]") ? document.querySelectorAll(".lesson-row").length : -1,
    };
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!lostFocus) return;
    var was = lostFocus, active = document.activeElement;
    lostFocus = null;
    if (active && active !== document.body && document.body.contains(active)) return;
    var next = (was.id && document.getElementById(was.id)) ||
      (was.key && document.querySelector('[data-focus-key="' + was.key + '"]'));
    if (!next && was.rows >= 0) {
      var row = document.querySelectorAll(".lesson-row")[was.rows];
      next = row && row.querySelector(".lesson-key");
    }
    next = next || document.querySelector("[data-fc-toggle]");
    if (next) next.focus();
  });

  // A page restored from history never comes back with the sheet open.
  document.addEventListener("htmx:historyRestore", function () { var el = sheet(); if (el) { el.innerHTML = ""; el.classList.remove("is-open"); } });
})();
