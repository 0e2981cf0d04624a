/* The filter menu's histograms (templates/charts/histogram.html, drawn on the server by lore/charts/histogram.py).
   The marker follows the value typed in the section's box, or the option under focus, and the
   sentence under the chart says how many lessons it keeps, computed here from the bins the chart carries (its
   data-hist attribute): no request per keystroke. The grammar of the box and the wording come with the data, read off the
   registry, so this file holds only the arithmetic (the same as lore.bins.Distribution.kept_range). */
(function () {
  "use strict";

  function dataOf(figure) {
    if (!figure.histData) {
      try { figure.histData = JSON.parse(figure.dataset.hist || "null"); } catch (e) { figure.histData = null; }
    }
    return figure.histData;
  }

  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, key) { return values[key]; });
  }
  function sum(list, from, to) {
    var total = 0;
    for (var i = from; i < Math.min(to, list.length); i++) total += list[i];
    return total;
  }
  function edgesBelow(d, split) { return d.edges.filter(function (e) { return e < split; }).length; }

  // What the box offers first for `text` (lore.conditions.parse_typed), or null.
  function parse(d, text) {
    var match = new RegExp(d.pattern).exec(text);
    if (!match) return null;
    var op = d.aliases[match[1] || ""] || match[1] || "";
    var offer = d.grammar[op];
    if (!offer) return null;
    var param = d.params[offer[0]], value = parseInt(match[2], 10) + offer[1];
    if (!param || value < param.low || value > param.high) return null;
    return { param: offer[0], value: value };
  }

  function splitAt(param, value) { return param.comparison === "at_least" ? value - 1 : value; }
  function keepsBelow(param) { return param.comparison === "at_most" || param.comparison === "within"; }

  // [fewest, most] lessons kept: equal when the split is an edge (or at or above every value there is).
  function keptRange(d, param, value) {
    var split = splitAt(param, value), inside = edgesBelow(d, split), below, binInside = null;
    if (d.edges.indexOf(split) >= 0) below = inside + 1;
    else if (d.ceiling !== null && split >= d.ceiling) below = d.counts.length;
    else { below = inside; binInside = inside; }
    if (keepsBelow(param)) {
      var kept = d.counts.map(function (c, k) { return param.comparison === "within" ? c - d.never[k] : c; });
      var fewest = sum(kept, 0, below);
      return [fewest, fewest + (binInside === null ? 0 : kept[binInside])];
    }
    if (binInside === null) { var all = sum(d.counts, below, d.counts.length); return [all, all]; }
    var above = sum(d.counts, binInside + 1, d.counts.length);
    return [above, above + d.counts[binInside]];
  }

  function fraction(d, value, low, high) {
    if (high <= low) return 0;
    var f = d.linear ? (value - low) / (high - low)
      : (Math.log1p(Math.max(value, 0)) - Math.log1p(Math.max(low, 0))) /
        (Math.log1p(Math.max(high, 0)) - Math.log1p(Math.max(low, 0)));
    return Math.min(1, Math.max(0, f || 0));
  }

  // The marker's x (lore.charts.histogram.marker_position) and the drawn bin it falls inside (null: on an edge).
  function place(d, split) {
    var shown = d.spans.length, at = d.edges.indexOf(split);
    if (at >= 0 && at + 1 <= shown - 1) return { x: d.x0 + (at + 1) * d.width, inside: null, boundary: at + 1 };
    if (d.ceiling !== null && split >= d.ceiling) return { x: d.x0 + shown * d.width, inside: null, boundary: shown };
    var k = Math.min(edgesBelow(d, split), shown - 1), span = d.spans[k];
    return { x: d.x0 + (k + fraction(d, split, span[0], span[1])) * d.width, inside: k, boundary: null };
  }

  function phrase(param, value) {
    return param.special[String(value)] || param.template.replace("{n}", fmt(value));
  }

  function show(figure, choice) {
    var d = dataOf(figure);
    if (!d) return;
    var marker = figure.querySelector("[data-hist-marker]");
    var sentence = figure.querySelector("[data-hist-sentence]");
    var bars = figure.querySelectorAll("[data-bin]");
    var total = sum(d.counts, 0, d.counts.length);
    if (!choice) {
      marker.setAttribute("visibility", "hidden");
      bars.forEach(function (bar) { bar.classList.remove("is-kept", "is-split"); });
      sentence.textContent = fill(d.sentences.none, { total: fmt(total) });
      figure.dataset.histShown = "";
      return;
    }
    var param = d.params[choice.param], split = splitAt(param, choice.value), at = place(d, split);
    var range = keptRange(d, param, choice.value);
    var x = Math.round(at.x * 100) / 100;
    marker.setAttribute("transform", "translate(" + x + " 0)");
    marker.removeAttribute("visibility");
    var label = marker.querySelector("[data-hist-marker-text]");
    label.textContent = String(choice.value);
    label.setAttribute("x", String(Math.min(Math.max(x, d.plot[0] + d.label_margin), d.plot[1] - d.label_margin) - x));
    bars.forEach(function (bar) {
      var k = Number(bar.dataset.bin), cut = at.boundary !== null ? at.boundary : at.inside;
      var kept = keepsBelow(param) ? k < cut : k >= (at.boundary !== null ? cut : cut + 1);
      bar.classList.toggle("is-split", k === at.inside);
      bar.classList.toggle("is-kept", k !== at.inside && kept);
    });
    if (range[0] === range[1]) {
      sentence.textContent = fill(d.sentences.exact, {
        phrase: phrase(param, choice.value), kept: fmt(range[0]), total: fmt(total), rest: fmt(total - range[0])
      });
    } else {
      sentence.textContent = fill(d.sentences.inside, {
        phrase: phrase(param, choice.value), fewest: fmt(range[0]), most: fmt(range[1]), total: fmt(total),
        value: choice.value, bin: d.labels[at.inside]
      });
    }
    figure.dataset.histShown = choice.param + ":" + choice.value;
  }

  function figureNear(el) {
    var body = el.closest && el.closest(".fc-menu-body");
    return body ? body.querySelector("[data-histogram]") : null;
  }

  // The box's value when it reads as a value, else the applied one (the server's marker).
  function fromBox(figure) {
    var d = dataOf(figure), box = figure.closest(".fc-menu-body").querySelector("[data-fc-typed]");
    var typed = box && box.value.trim() ? parse(d, box.value) : null;
    if (typed) return typed;
    return d.marker ? { param: d.marker[0], value: d.marker[1] } : null;
  }

  function fromChoice(el) {
    var choice = el.closest && el.closest("[data-fc-param]");
    return choice ? { param: choice.dataset.fcParam, value: Number(choice.dataset.fcValue) } : null;
  }

  function follow(event) {
    var figure = figureNear(event.target);
    if (!figure) return;
    var choice = fromChoice(event.target);
    show(figure, choice || fromBox(figure));
  }

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("[data-fc-typed]")) follow(event);
  });
  document.addEventListener("search", follow, true);
  document.addEventListener("focusin", follow);

  // Keys typed while the section was on its way land in its box without an input event: follow them too.
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll(".fc-menu:not([hidden]) [data-histogram]").forEach(function (figure) {
      var focused = document.activeElement && fromChoice(document.activeElement);
      show(figure, focused || fromBox(figure));
    });
  });
})();
