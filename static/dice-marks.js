// The server's dice in the log (combat/log/_proof.jinja), loaded by fray.js after the page.
// No inline scripts (CSP), no eval.
(function (folder) {
  "use strict";
  function recall(name, fallback) {
    try { return JSON.parse(window.localStorage.getItem(name) || "null") || fallback; }
    catch (error) { return fallback; }
  }
  function keep(name, value) {
    try { window.localStorage.setItem(name, JSON.stringify(value)); } catch (error) { /* full, or private */ }
  }
  var style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = folder + "dice-marks.css";
  document.head.appendChild(style);

  // The server's dice derive from its sealed seed and a value this browser makes, fresh for
  // every action: the server cannot have chosen them before it saw it (combat/table/dice.py).
  // A retry (fray.js) resends the very value, as it resends the one-time key.
  document.body.addEventListener("htmx:configRequest", function (event) {
    var parameters = event.detail.parameters;
    if (event.detail.verb === "post" && !parameters.dice) { parameters.dice = diceValue(); }
  });
  function diceValue() {
    var bytes = new Uint8Array(4);  // 32 bits: what no server can guess before it arrives
    try { window.crypto.getRandomValues(bytes); } catch (error) { return ""; }
    var hex = "";
    for (var i = 0; i < bytes.length; i++) { hex += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16); }
    var sent = recall("fray-dice-sent", []);
    sent.push(hex);
    keep("fray-dice-sent", sent.slice(-300));  // the dice page marks "your value" by these
    return hex;
  }
  // The server's dice in the log (combat/log/_proof.jinja): each mark shows its dice, in the
  // reader's letters, and their state. This browser remembers the seal it was shown for each
  // period and the dice each roll showed when it first saw them (the dice page compares the
  // server's record with these), and checks each roll itself once its period's seed is
  // revealed (dice-proof.js, loaded then): "verified", or which die is not.
  var proofSeeds = {};
  var words = null;  // "verified", "does not match", in the reader's language (proofs.json)
  var proofScheduled = false;
  function proofsLater() {
    if (proofScheduled) { return; }
    proofScheduled = true;
    window.setTimeout(function () { proofScheduled = false; proofs(); }, 0);
  }
  function keyOf(mark) {
    return mark.dataset.seed ? "s" + mark.dataset.commitment : mark.dataset.p + ":" + mark.dataset.r;
  }
  function dress(mark, letter, seal) {
    if (mark.querySelector(".die-state")) { return; }
    var state = document.createElement("span");
    state.className = "die-state";
    state.textContent = mark.dataset.seed && seal.dataset.secretSealed || seal.dataset.sealed;
    (mark.dataset.d ? mark.dataset.d.split(" ") : []).forEach(function (pair) {
      var parts = pair.split(":");
      var die = document.createElement("span");
      die.className = "die";
      die.textContent = letter + parts[0] + "\u00a0" + parts[1];
      mark.appendChild(die);
      mark.appendChild(document.createTextNode(" "));
    });
    mark.appendChild(state);
  }
  function proofs() {
    var seal = document.getElementById("dice-seal");
    if (!seal) { return; }
    var proofsUrl = seal.querySelector("a").getAttribute("href") + "proofs.json?seeds";
    var slug = proofsUrl.split("/")[2];
    var letter = seal.dataset.letter;  // d, k or к, as the reader's language writes dice
    var seals = recall("fray-seals:" + slug, {});
    if (!seals[seal.dataset.period]) {
      seals[seal.dataset.period] = seal.querySelector("code").textContent;
      keep("fray-seals:" + slug, seals);
    }
    var seen = recall("fray-seen:" + slug, {});
    var marks = Array.prototype.slice.call(document.querySelectorAll(".dice-proof"));
    var added = false;
    marks.forEach(function (mark) {
      dress(mark, letter, seal);
      var key = keyOf(mark);
      if (!(key in seen)) { seen[key] = mark.dataset.d + "|" + mark.dataset.v; added = true; }
    });
    if (added) {
      var keys = Object.keys(seen);
      keys.slice(0, Math.max(0, keys.length - 5000)).forEach(function (key) { delete seen[key]; });
      keep("fray-seen:" + slug, seen);
    }
    var current = Number(seal.dataset.period);
    var due = marks.filter(function (mark) {
      return !mark.dataset.state && (mark.dataset.seed || Number(mark.dataset.p) < current);
    });
    if (!due.length) { return; }
    withChecker(function () {
      var needSeeds = !words || due.some(function (mark) { return !mark.dataset.seed && !proofSeeds[mark.dataset.p]; });
      var ready = needSeeds ? fetch(proofsUrl, { credentials: "same-origin", cache: "no-store" })
        .then(function (response) { return response.json(); })
        .then(function (doc) {
          words = doc.words;
          (doc.periods || []).forEach(function (p) { if (p.seed) { proofSeeds[p.number] = p; } });
        }) : Promise.resolve();
      ready.then(function () {
        due.forEach(function (mark) { checkMark(mark, seals); });
      }).catch(function () { /* checked again with the next update */ });
    });
  }
  function withChecker(then) {
    if (window.FrayDice) { then(); return; }
    var script = document.querySelector("script[data-dice-checker]");
    if (!script) {
      script = document.createElement("script");
      script.src = folder + "dice-proof.js";
      script.dataset.diceChecker = "";
      document.head.appendChild(script);
    }
    script.addEventListener("load", then);
  }
  function checkMark(mark, seals) {
    var period = mark.dataset.seed ? null : proofSeeds[mark.dataset.p];
    if (!mark.dataset.seed && !period) { return; }
    var seed = mark.dataset.seed || period.seed;
    var promised = mark.dataset.seed ? mark.dataset.commitment : (seals[mark.dataset.p] || period.commitment);
    var dice = mark.dataset.d ? mark.dataset.d.split(" ") : [];
    var roll = Number(mark.dataset.r);
    mark.dataset.state = "checking";
    window.FrayDice.commitment(seed).then(function (commitment) {
      var sealed = commitment.indexOf(promised) === 0;  // (a seal shown: its first 16 digits)
      var ok = sealed;
      return Promise.all(dice.map(function (pair, index) {
        var parts = pair.split(":");
        return window.FrayDice.die(seed, roll, index, mark.dataset.v, Number(parts[0]))
          .then(function (expected) { return expected === Number(parts[1]); });
      })).then(function (results) {
        var shown = mark.querySelectorAll(".die");
        results.forEach(function (good, index) {
          if (shown[index]) { shown[index].classList.add(good && sealed ? "verified" : "failed"); }
          ok = ok && good;
        });
        mark.dataset.state = ok ? "verified" : "failed";
        mark.querySelector(".die-state").textContent = (ok ? "✓ " : "✗ ") +
          (ok ? words.verified : words.failed);
      });
    }).catch(function () { delete mark.dataset.state; });
  }
  document.addEventListener("htmx:oobAfterSwap", proofsLater);
  document.addEventListener("htmx:afterSettle", proofsLater);
  proofs();
})(document.currentScript.src.replace(/[^/]*$/, ""));
