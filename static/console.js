// Fray: the referee's console (issue 12), on the referee's page only, after fray.js. One
// combatant at a time is selected, and only its row shows its details and actions (the action
// bar); keys act on it. The selection lives here, in the browser, and is put back after every
// swap: a live update replaces the rows. No inline scripts (CSP), no eval; ES5 like fray.js.
(function () {
  "use strict";
  var body = document.body;
  var hint = document.getElementById("console-keys");
  if (!body.classList.contains("referee") || !hint) { return; }
  var header = document.querySelector(".top");
  var panel = document.getElementById("panel");
  // Kept per encounter (a boosted action's address replaces the page's own in the bar).
  var STORED = "fray-selected:" + (/^\/e\/[^/]+\//.exec(window.location.pathname) || [""])[0];
  var selected = null;
  // A key opened the panel: a field where typing cannot change who acts takes the focus.
  var focusPanel = false;
  try { selected = window.sessionStorage.getItem(STORED); } catch (ignore) { /* private mode */ }

  // The sticky header's height, for the side column and the panel's scroll margin (console.css,
  // and fray.css's scroll padding).
  function measure() {
    if (header) {
      document.documentElement.style.setProperty("--top-height", header.offsetHeight + "px");
    }
  }
  measure();
  window.addEventListener("resize", measure);

  // Each action's key, by the address it opens: the same key in every system's buttons.
  var ACTIONS = [
    ["a", /\/(?:dw\/|becmi\/)?attack\/\?actor=\d+$/],
    ["c", /\/(?:dw\/|becmi\/)?check\/\?actor=\d+$/],
    ["h", /\/hit-points\/\?actor=\d+$/],
    ["r", /\/rest\/\?actor=\d+$/],
    ["n", /\/conditions\/new\/\?combatant=\d+$/],
    ["e", /\/combatants\/\d+\/$/]
  ];

  function rows() {
    return Array.prototype.slice.call(
      document.querySelectorAll("#party li.combatant, #foes li.combatant"));
  }

  function shortcuts(row) {
    var found = {};
    Array.prototype.forEach.call(row.querySelectorAll(".actions a.button"), function (link) {
      var href = link.getAttribute("href") || "";
      ACTIONS.forEach(function (action) {
        if (!found[action[0]] && action[1].test(href)) { found[action[0]] = link; }
      });
    });
    Array.prototype.forEach.call(row.querySelectorAll(".actions .saves a.save"), function (link, i) {
      if (i < 9) { found[String(i + 1)] = link; }
    });
    return found;
  }

  function apply() {
    var list = rows();
    if (selected && !document.getElementById(selected)) { selected = null; } // removed
    list.forEach(function (row) {
      var on = row.id === selected;
      var name = row.querySelector(".line .name");
      if (row.classList.contains("selected") !== on) { row.classList.toggle("selected", on); }
      if (name) {
        if (!name.hasAttribute("tabindex")) {
          name.setAttribute("role", "button");
          name.tabIndex = 0;
        }
        name.setAttribute("aria-expanded", on ? "true" : "false");
      }
      if (!on) {
        var stale = row.querySelector(".console-keys"); // the row was selected before
        if (stale) { row.removeChild(stale); }
        return;
      }
      var keys = shortcuts(row);
      Object.keys(keys).forEach(function (key) { keys[key].setAttribute("aria-keyshortcuts", key); });
      if (row.querySelector(".actions") && !row.querySelector(".console-keys")) {
        var copy = hint.cloneNode(true);
        copy.removeAttribute("id");
        copy.hidden = false;
        row.appendChild(copy);
      }
    });
  }

  function select(row, focus) {
    selected = row ? row.id : null;
    try {
      if (selected) { window.sessionStorage.setItem(STORED, selected); }
      else { window.sessionStorage.removeItem(STORED); }
    } catch (ignore) { /* private mode: the selection is not kept across a reload */ }
    apply();
    var name = row && row.querySelector(".line .name");
    if (focus && name) {
      name.focus();
      name.scrollIntoView({ block: "nearest" });
    }
  }

  function move(step) {
    var list = rows();
    if (!list.length) { return; }
    var at = list.map(function (row) { return row.id; }).indexOf(selected);
    var next = at < 0 ? (step > 0 ? 0 : list.length - 1)
      : Math.max(0, Math.min(list.length - 1, at + step));
    select(list[next], true);
  }

  function closePanel() {
    if (!panel || !panel.firstElementChild) { return false; }
    while (panel.firstChild) { panel.removeChild(panel.firstChild); }
    var row = selected && document.getElementById(selected);
    var name = row && row.querySelector(".line .name");
    if (name) { name.focus(); }
    return true;
  }

  document.addEventListener("click", function (event) {
    var line = event.target.closest && event.target.closest(".combatant > .line");
    if (line && !event.target.closest("a, button, input, select, summary")) {
      select(line.parentNode, false);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    var key = event.key;
    var typing = target.closest && target.closest("input, select, textarea, [contenteditable]");
    // From anywhere, a select too: an open select's list takes its own Esc before the page
    // hears it, so a closed one has nothing left for Esc to do.
    if (key === "Escape") {
      if (closePanel()) { event.preventDefault(); }
      return;
    }
    if (typing) { return; }
    var onName = target.closest && target.closest(".combatant > .line .name");
    if (onName && (key === "Enter" || key === " ")) {
      event.preventDefault();
      select(onName.closest(".combatant"), true);
      return;
    }
    var free = onName || target === body || target === document.documentElement;
    if (key === "j" || key === "ArrowDown" && free) { event.preventDefault(); move(1); return; }
    if (key === "k" || key === "ArrowUp" && free) { event.preventDefault(); move(-1); return; }
    var row = selected && document.getElementById(selected);
    var action = row && shortcuts(row)[key];
    if (action && !event.shiftKey) {
      event.preventDefault();
      focusPanel = true;
      window.htmx.process(action); // a row a live update brought a moment ago: wired up now
      action.click();
    }
  });

  // Never a select: a closed select picks the option a typed letter starts, so the next key
  // would change who acts without a word (issue 31). The first field typed into (a number, a
  // die), else Roll, else the heading, where a letter does nothing at all.
  function focusFirstSafe() {
    var typed = "input:not([type=hidden]):not([type=checkbox]):not([type=radio])" +
      ":not([type=submit]):not([type=button]):not([type=reset]):not([disabled])";
    var target = panel.querySelector("form " + typed + ", form textarea:not([disabled])") ||
      panel.querySelector("form button.primary, form button[type=submit]");
    if (!target) {
      target = panel.querySelector("h2");
      if (target && !target.hasAttribute("tabindex")) { target.tabIndex = -1; }
    }
    if (target) { target.focus(); }
  }

  // The join block folds itself once someone has a seat (issue 31), on the page already open
  // too: drawn open while no one had one (data-folds), it folds when the list of players, sent
  // live, says someone is seated (data-seated). Once folded, or toggled by the referee, it is
  // the referee's to open and close.
  var join = document.querySelector("details.join[data-folds]");
  function foldJoin() {
    if (join && join.hasAttribute("data-folds") && document.querySelector("#seats[data-seated]")) {
      join.removeAttribute("data-folds");
      join.open = false;
    }
  }
  if (join) {
    join.querySelector("summary").addEventListener("click", function () {
      join.removeAttribute("data-folds");
    });
  }

  // After every swap, the selection is put back (a live update's rows are new elements, and
  // htmx settles their classes to the server's); a new panel opens at its top.
  function settled(event) {
    apply();
    foldJoin();
    var into = event.detail && (event.detail.target || event.detail.elt);
    if (panel && into === panel) {
      panel.scrollTop = 0;
      if (focusPanel) {
        focusPanel = false;
        focusFirstSafe();
      }
    }
  }
  ["htmx:afterSettle", "htmx:oobAfterSwap", "htmx:wsAfterMessage"].forEach(function (name) {
    body.addEventListener(name, settled);
  });
  apply();
})();
