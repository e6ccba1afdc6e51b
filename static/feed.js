// A player's personal feed (templates/combat/_feed.html, combat.live.feed): the phone buzzes
// when the player's side acts or a save is owed (where it can, unless they turned it off),
// the screen stays awake while a fight runs (Screen Wake Lock, where the browser has it), and
// the page scrolls nothing in under the feed (--feed-height). No inline scripts, no eval.
(function () {
  "use strict";
  var STORE = "fray-feed-vibrate"; // "off": this phone's player turned buzzing off
  var known = {}; // the items asking something that this page has shown already
  var first = true;
  var wanted = false; // a fight runs: the screen should stay awake
  var lock = null; // the wake lock held, if any
  var asking = false;

  function vibrates() {
    try { return window.localStorage.getItem(STORE) !== "off"; } catch (error) { return true; }
  }

  function said(state) { document.documentElement.dataset.wake = state; } // for tests and styles

  function release() {
    var held = lock;
    lock = null;
    if (held) { held.release().catch(function () {}); }
    said(wanted ? "wanted" : "off");
  }

  function wake() {
    said(lock ? "held" : wanted ? "wanted" : "off");
    if (!wanted) { release(); return; }
    if (lock || asking || document.hidden || !("wakeLock" in navigator)) { return; }
    asking = true;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      asking = false;
      lock = sentinel;
      sentinel.addEventListener("release", function () {
        if (lock === sentinel) { lock = null; said(wanted ? "wanted" : "off"); }
      });
      if (!wanted || document.hidden) { release(); } else { said("held"); }
    }, function () { asking = false; }); // refused (battery saver, no permission): the screen sleeps
  }

  // How much of the screen the feed holds on top: what scrolls into view stops below it.
  function measure() {
    var feed = document.getElementById("feed");
    var height = feed && !feed.hidden ? feed.getBoundingClientRect().height : 0;
    document.documentElement.style.setProperty("--feed-height", height + "px");
  }

  function update() {
    var feed = document.getElementById("feed");
    if (!feed) { return; }
    var fresh = false;
    feed.querySelectorAll("[data-buzz]").forEach(function (item) {
      if (!known[item.dataset.key]) { known[item.dataset.key] = true; fresh = true; }
    });
    var toggle = feed.querySelector(".feed-vibrate");
    if (toggle) {
      toggle.hidden = typeof navigator.vibrate !== "function";
      toggle.setAttribute("aria-pressed", vibrates() ? "true" : "false");
    }
    if (fresh && !first && vibrates() && typeof navigator.vibrate === "function") {
      navigator.vibrate([200, 100, 200]);
    }
    first = false;
    measure();
    wanted = feed.dataset.fight === "on";
    wake();
  }

  // An answer in the panel lands below the feed, not under it: fray.js brought the panel below
  // the header; where the feed, held on top, covers its top, it goes below the feed.
  document.addEventListener("htmx:afterSettle", function (event) {
    var panel = event.detail.target;
    var feed = document.getElementById("feed");
    if (!panel || panel.id !== "panel" || !panel.firstElementChild || !feed || feed.hidden) { return; }
    if (panel.getBoundingClientRect().top < feed.getBoundingClientRect().bottom) {
      panel.scrollIntoView({ block: "start" }); // below it: scroll-padding-top counts the feed
    }
  });
  window.addEventListener("resize", measure);

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest("#feed .feed-vibrate");
    if (!toggle) { return; }
    try { window.localStorage.setItem(STORE, vibrates() ? "off" : "on"); } catch (error) { /* kept for this page only */ }
    toggle.setAttribute("aria-pressed", vibrates() ? "true" : "false");
  });
  // The feed comes with the page, with each live change that changed it, and as "Seen"'s answer.
  document.addEventListener("htmx:oobAfterSwap", update);
  document.addEventListener("htmx:afterSettle", update);
  // A hidden page loses its lock (the browser releases it): asked again when it is back.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { release(); } else { wake(); }
  });
  update();
})();
