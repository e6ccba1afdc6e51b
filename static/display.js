// The table display's own glue (display.html, besides fray.js): no inline scripts (CSP), no eval.
(function () {
  "use strict";
  // The table display (display.html): a side with more combatants than its grid holds
  // (fray.css: --cols × --rows) shows them a page at a time, turning the page by itself and
  // saying which it is. Measured again at every turn, and whenever a live update replaces a
  // side (it comes whole, on its first page's place).
  var display = document.querySelector(".display[data-pager]");
  if (display) {
    var PAGE_MS = 8000;
    var turned = {};
    var paginate = function () {
      display.querySelectorAll(".side").forEach(function (side) {
        var cards = side.querySelectorAll(".combatants > .combatant");
        var style = getComputedStyle(side);
        var held = parseInt(style.getPropertyValue("--cols"), 10) *
          parseInt(style.getPropertyValue("--rows"), 10);
        var pager = side.querySelector(".pager");
        var pages = held > 0 ? Math.ceil(cards.length / held) : 1;
        if (pages < 2 || !isFinite(pages)) {
          cards.forEach(function (card) { card.removeAttribute("data-off-page"); });
          if (pager) { pager.remove(); }
          return;
        }
        var page = (turned[side.id] || 0) % pages;
        cards.forEach(function (card, i) {
          card.toggleAttribute("data-off-page", Math.floor(i / held) !== page);
        });
        if (!pager) {
          pager = document.createElement("span");
          pager.className = "pager";
          var heading = side.querySelector("h2");
          if (heading) { heading.appendChild(pager); }
        }
        pager.textContent = display.dataset.pager
          .replace("{page}", page + 1).replace("{pages}", pages);
      });
      display.querySelectorAll(".side .combatant").forEach(function (card) {
        card.removeAttribute("data-crowded");
        card.toggleAttribute("data-crowded", card.scrollHeight > card.clientHeight + 1);
      });
    };
    window.setInterval(function () {
      display.querySelectorAll(".side").forEach(function (side) {
        turned[side.id] = (turned[side.id] || 0) + 1;
      });
      paginate();
    }, PAGE_MS);
    // Data attributes, not classes: htmx's settling puts back the class each new card came with
    // (base.html's htmx-config) after the swap's own events.
    window.addEventListener("resize", paginate);
    document.addEventListener("htmx:oobAfterSwap", paginate);
    document.addEventListener("htmx:afterSwap", paginate);
    paginate();
  }
})();
