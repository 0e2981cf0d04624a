/* The filter control's popover: open/close, keyboard, and the search box that doubles as the custom-value input.
   Everything else (sections, options, picks) is htmx; see explorer/filter_control.py. */
(function () {
  "use strict";

  function menuOf(id) { return document.getElementById(id + "-menu"); }
  function toggleOf(menu) { return document.querySelector('[data-fc-toggle="' + menu.id.replace(/-menu$/, "") + '"]'); }

  // The menu is a manual popover (the top layer): no dialog, overflow or transform around the control can clip
  // it. It is placed under its Filter button in viewport coordinates and follows it on scroll and resize.
  function usesPopover(menu) { return typeof menu.showPopover === "function"; }

  function place(menu) {
    var toggle = toggleOf(menu);
    if (!toggle) return;
    var t = toggle.getBoundingClientRect();
    var width = menu.offsetWidth;
    var left = t.left + width > window.innerWidth - 8 ? t.right - width : t.left;
    var top = t.bottom + 6;
    menu.style.position = "fixed";
    menu.style.left = Math.max(8, left) + "px";
    menu.style.top = top + "px";
    menu.style.right = "auto";
    menu.style.maxHeight = Math.max(220, Math.min(560, window.innerHeight - top - 12)) + "px";
    if (!usesPopover(menu)) {
      // Without the popover API, undo the offset of a transformed ancestor (a centred dialog).
      var r = menu.getBoundingClientRect();
      menu.style.left = (2 * Math.max(8, left) - r.left) + "px";
      menu.style.top = (2 * top - r.top) + "px";
    }
  }

  function focusFirst(menu) {
    var target = menu.querySelector("[data-fc-focus]") || menu.querySelector("[data-fc-item]");
    if (target) target.focus();
  }

  function isOpen(menu) { return !menu.hidden; }

  function open(menu) {
    document.querySelectorAll(".fc-menu").forEach(function (m) { if (m !== menu && isOpen(m)) close(m, false); });
    menu.hidden = false;
    if (usesPopover(menu)) {
      if (!menu.hasAttribute("popover")) menu.setAttribute("popover", "manual");
      if (!menu.matches(":popover-open")) menu.showPopover();
    }
    var toggle = toggleOf(menu);
    if (toggle) toggle.setAttribute("aria-expanded", "true");
    place(menu);
    focusFirst(menu);
    markMore(menu);
  }

  function close(menu, refocus) {
    if (usesPopover(menu) && menu.matches(":popover-open")) menu.hidePopover();
    menu.hidden = true;
    delete menu.dataset.fcLoading;  // keys typed after closing belong to the page, not to a section
    var toggle = toggleOf(menu);
    if (toggle) {
      toggle.setAttribute("aria-expanded", "false");
      if (refocus) toggle.focus();
    }
  }

  function items(menu) {
    return Array.prototype.filter.call(
      menu.querySelectorAll("[data-fc-focus], [data-fc-item]"),
      function (el) { return el.offsetParent !== null && !el.hidden; }
    );
  }

  function move(menu, delta) {
    var list = items(menu);
    if (!list.length) return;
    var i = list.indexOf(document.activeElement);
    var next = list[(i + delta + list.length) % list.length];
    next.focus();
  }

  function filterEntries(input) {
    var text = input.value.trim().toLowerCase();
    var body = input.closest(".fc-menu-body");
    body.querySelectorAll("[data-fc-entry]").forEach(function (el) {
      el.hidden = text !== "" && el.dataset.fcLabel.toLowerCase().indexOf(text) === -1;
    });
    body.querySelectorAll(".fc-heading").forEach(function (h) {
      var el = h.nextElementSibling, any = false;
      while (el && !el.classList.contains("fc-heading")) { if (!el.hidden) any = true; el = el.nextElementSibling; }
      h.hidden = !any;
    });
  }

  function firstChoice(menu) {
    var choice = menu.querySelector("[data-fc-choice]");
    if (choice) choice.click();
  }

  document.addEventListener("click", function (event) {
    // A pill opens the menu at its own section (htmx fetches the section; the keys typed meanwhile are kept).
    var edit = event.target.closest("[data-fc-open]");
    if (edit) {
      var pillMenu = menuOf(edit.dataset.fcOpen);
      if (pillMenu && !isOpen(pillMenu)) open(pillMenu);
      return;
    }
    var toggle = event.target.closest("[data-fc-toggle]");
    if (toggle) {
      var menu = menuOf(toggle.dataset.fcToggle);
      if (menu) { if (isOpen(menu)) close(menu, false); else open(menu); }
      return;
    }
    document.querySelectorAll(".fc-menu:not([hidden])").forEach(function (menu) {
      if (!menu.contains(event.target) && document.body.contains(event.target)) close(menu, false);
    });
  });

  document.addEventListener("input", function (event) {
    if (event.target.matches("[data-fc-filter]")) filterEntries(event.target);
  });

  document.addEventListener("keydown", function (event) {
    var menu = event.target.closest && event.target.closest(".fc-menu");
    if (!menu) return;
    if (event.key === "Escape") {
      event.preventDefault();
      var back = menu.querySelector("[data-fc-back]");
      if (back) back.click(); else close(menu, true);
    } else if (event.key === "ArrowDown") {
      event.preventDefault(); move(menu, 1);
    } else if (event.key === "ArrowUp") {
      event.preventDefault(); move(menu, -1);
    } else if (event.key === "Enter" && event.target.matches("[data-fc-filter]")) {
      event.preventDefault();
      var entry = items(menu).filter(function (el) { return el.matches("[data-fc-entry]"); })[0];
      if (entry) entry.click();
    } else if (event.key === "Enter" && event.target.matches("[data-fc-typed]")) {
      // Apply the first offer; if the offers for what was just typed are still on their way, apply it on arrival.
      // An empty box offers the presets, and Enter there must not pick one for the person.
      event.preventDefault();
      var input = event.target;
      if (!input.value.trim()) return;
      if (offersFor(menu) === input.value) firstChoice(menu);
      else { menu.dataset.fcApplyOnArrival = "1"; htmx.trigger(input, "search"); }
    } else if (event.key === "Enter" && event.target.matches("[data-fc-entry], [data-fc-back]")) {
      event.preventDefault(); event.target.click();
    }
  });

  function offersFor(menu) {
    var options = menu.querySelector(".fc-options");
    return options ? options.dataset.fcFor : null;
  }

  // Keys typed while a section is on its way (opened from the list or from a pill) are kept, in order, and given
  // to the section's box when it arrives: without this they would be lost, or land in the list's search box
  // and pick another section or the wrong direction. Enter among them applies the first offer on arrival.
  function opensSection(elt) { return elt && elt.matches && elt.matches("[data-fc-entry], [data-fc-open]"); }

  function buffering() { return document.querySelector(".fc-menu[data-fc-loading]:not([hidden])"); }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!opensSection(event.detail.elt)) return;
    var menu = menuOf(event.detail.elt.dataset.fcOpen || "") || event.detail.elt.closest(".fc-menu");
    if (!menu) return;
    menu.dataset.fcLoading = "1";
    menu.dataset.fcBuffer = "";
    // A section already open is not the one on its way: its box must not take the keys.
    menu.querySelectorAll("[data-fc-typed]").forEach(function (el) { el.dataset.fcStale = "1"; });
    delete menu.dataset.fcBufferEnter;
  });

  document.addEventListener("keydown", function (event) {
    var menu = buffering();
    if (!menu || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
    var buffer = menu.dataset.fcBuffer || "";
    if (event.key.length === 1) buffer += event.key;
    else if (event.key === "Backspace") buffer = buffer.slice(0, -1);
    else if (event.key === "Enter") menu.dataset.fcBufferEnter = "1";
    else return;
    menu.dataset.fcBuffer = buffer;
    event.preventDefault();
    event.stopPropagation();
  }, true);

  function endBuffering(menu) {
    delete menu.dataset.fcLoading;
    delete menu.dataset.fcBuffer;
    delete menu.dataset.fcBufferEnter;
  }

  // The section has arrived: what was typed goes into its box; returns true when it took the keys.
  function flushBuffer(menu, typed) {
    if (!menu.dataset.fcLoading || typed.dataset.fcStale) return false;
    var buffer = menu.dataset.fcBuffer || "", enter = menu.dataset.fcBufferEnter === "1";
    endBuffering(menu);
    if (!typed) return false;
    typed.focus();
    if (!buffer) return true;
    typed.value = buffer;
    if (enter && buffer.trim()) menu.dataset.fcApplyOnArrival = "1";
    htmx.trigger(typed, "search");
    return true;
  }

  function abandonBuffer(event) {
    if (!opensSection(event.detail.elt)) return;
    document.querySelectorAll(".fc-menu[data-fc-loading]").forEach(endBuffering);
  }
  document.addEventListener("htmx:responseError", abandonBuffer);
  document.addEventListener("htmx:sendError", abandonBuffer);

  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll(".fc-menu:not([hidden])").forEach(function (menu) {
      // A pick may have re-rendered the Filter button (and moved it): keep the menu under it.
      var toggle = toggleOf(menu);
      if (toggle) toggle.setAttribute("aria-expanded", "true");
      place(menu);
      var typed = menu.querySelector("[data-fc-typed]");
      if (typed && flushBuffer(menu, typed)) return;
      if (menu.dataset.fcApplyOnArrival === "1" && typed && offersFor(menu) === typed.value) {
        delete menu.dataset.fcApplyOnArrival;
        firstChoice(menu);
        return;
      }
      if (!menu.contains(document.activeElement)) focusFirst(menu);
    });
  });

  // Escape with a menu open but focus outside it (a click on a non-focusable part of the menu leaves focus on the
  // page) still closes the menu, and only the menu: what else listens for Escape sees it handled.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
    if (event.target.closest && event.target.closest(".fc-menu")) return;
    var open = document.querySelectorAll(".fc-menu:not([hidden])");
    if (!open.length) return;
    event.preventDefault();
    open.forEach(function (m) { close(m, true); });
  });

  // A page restored from history never comes back with a menu open.
  document.addEventListener("htmx:historyRestore", function () {
    document.querySelectorAll(".fc-menu:not([hidden])").forEach(function (m) { close(m, false); });
  });

  // A pick and the offers for what was typed can be in flight together. If the offers landed first they would
  // replace the very link that was picked, and htmx resolves the pick's out-of-band swaps from that (now
  // detached) link: the menu and the toolbar would miss the new state. So while a pick is on its way the menu
  // takes no offers. (The flag lives on the popover, which no swap replaces; a detached link's own events never
  // reach the document, so the pick's end is seen through the swap it causes or its error.)
  // Only the pick's own answer ends it (matched by its request): the Explorer's counts, which load after every
  // swap, can settle while a newer pick is still on its way.
  var pickRequest = null;
  function isPick(elt) { return elt && elt.matches && elt.matches("[data-fc-choice], .fc-mode, .fc-clear"); }
  function clearPicking(event) {
    if (!pickRequest || (event && event.detail && event.detail.xhr !== pickRequest)) return;
    pickRequest = null;
    document.querySelectorAll(".fc-menu[data-fc-picking]").forEach(function (m) { delete m.dataset.fcPicking; });
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var menu = isPick(event.detail.elt) && event.detail.elt.closest(".fc-menu");
    if (!menu) return;
    menu.dataset.fcPicking = "1";
    pickRequest = event.detail.xhr;
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.classList || !target.classList.contains("fc-options")) return;
    var menu = target.closest(".fc-menu");
    if (menu && menu.dataset.fcPicking) event.detail.shouldSwap = false;
  });
  document.addEventListener("htmx:afterSettle", clearPicking);
  document.addEventListener("htmx:responseError", clearPicking);
  document.addEventListener("htmx:sendError", clearPicking);
  document.addEventListener("htmx:sendAbort", clearPicking);

  // After a pill is removed focus goes to the pill that took its place, or to the Filter button when it was the
  // last: never to the page, where a keyboard user would have to start again from the top.
  var removedPill = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var remove = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest(".pill-remove");
    if (!remove) return;
    var row = remove.closest(".pill-row");
    var pills = Array.prototype.slice.call(row.querySelectorAll(".pill"));
    var edit = remove.closest(".pill").querySelector("[data-fc-open]");
    removedPill = { id: edit ? edit.dataset.fcOpen : "fc", index: pills.indexOf(remove.closest(".pill")) };
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!removedPill) return;
    var where = removedPill;
    removedPill = null;
    var pills = document.querySelectorAll('.pill [data-fc-open="' + where.id + '"]');
    var next = pills[where.index] || document.querySelector('[data-fc-toggle="' + where.id + '"]');
    if (next) next.focus();
  });

  // "More below" while part of the menu is out of sight under its fold.
  function markMore(menu) {
    var more = menu.querySelector("[data-fc-more]");
    if (more) more.hidden = menu.scrollTop + menu.clientHeight >= menu.scrollHeight - 4;
  }
  function markOpen() { document.querySelectorAll(".fc-menu:not([hidden])").forEach(markMore); }
  document.addEventListener("htmx:afterSettle", markOpen);
  document.addEventListener("input", markOpen);
  document.addEventListener("scroll", function (event) {
    if (event.target.classList && event.target.classList.contains("fc-menu")) markMore(event.target);
  }, true);

  function placeOpen() { document.querySelectorAll(".fc-menu:not([hidden])").forEach(place); }
  window.addEventListener("resize", function () { placeOpen(); markOpen(); });
  document.addEventListener("scroll", placeOpen, true);
})();
