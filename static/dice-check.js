// The server dice page (templates/combat/dice.html): every server die this viewer may see,
// worked out again in this browser from the revealed seeds (dice-proof.js: FrayDice), and
// compared with what this browser saw in the log as it happened (fray.js keeps that) and
// with the seals it was shown before the rolls. Nothing is taken on the server's word.
// No inline scripts (CSP), no eval; every word comes from the page (data-*), translated.
(function () {
  "use strict";
  var box = document.getElementById("dice-check");
  if (!box || !window.FrayDice) { return; }
  var L = box.dataset;
  var summary = box.querySelector(".dice-summary");
  var periodsBox = box.querySelector(".dice-periods");

  function say(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? values[name] : whole;
    });
  }
  function remembered(name, fallback) {
    try { return JSON.parse(localStorage.getItem(name) || "null") || fallback; }
    catch (error) { return fallback; }
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function diceData(dice) {
    return (dice || []).map(function (d) { return d[0] + ":" + d[1]; }).join(" ");
  }
  function dieName(sides) { return L.dieLetter + sides; }
  function short(hex) { return String(hex || "").slice(0, 16) + "…"; }

  // What this browser saw, where it differs from what the server lists now: a roll whose
  // dice changed, a seal that changed. ``mine``: the values this browser sent.
  function againstMemory(doc, report, useMemory) {
    var seen = useMemory ? remembered("fray-seen:" + L.slug, {}) : {};
    var seals = useMemory ? remembered("fray-seals:" + L.slug, {}) : {};
    var sent = remembered("fray-dice-sent", []);
    var rolls = (doc.rolls || []).concat(doc.secret || []);
    report.rolls.forEach(function (result, i) {
      var roll = rolls[i] || {};
      result.player = roll.player;
      result.mine = !!roll.player && sent.indexOf(roll.player) >= 0;
      var key = result.secret ? "s" + roll.commitment : roll.period + ":" + roll.roll;
      var was = seen[key];
      if (was !== undefined && was !== diceData(roll.dice) + "|" + (roll.player || "")) {
        result.state = "failed";
        result.seen = was.split("|")[0];
      }
    });
    report.periods.forEach(function (period) {
      var listed = (doc.periods || []).filter(function (p) { return p.number === period.number; })[0];
      var was = seals[period.number];
      if (listed && was && String(listed.commitment).indexOf(was) !== 0) {
        period.state = "failed";
        period.sealSeen = was;
        report.rolls.forEach(function (r) {
          if (!r.secret && r.period === period.number) { r.state = "failed"; r.problem = "seed"; }
        });
      }
    });
  }

  function rollItem(result) {
    var item = el("li", "dice-roll " + result.state);
    var head = el("span", "dice-roll-head", say(result.secret ? L.secretRoll : L.entry,
      { entry: result.entry }) + (result.secret ? "" : " · " + say(L.roll, { roll: result.roll })));
    item.appendChild(head);
    item.appendChild(document.createTextNode(" "));
    (result.dice || []).forEach(function (die) {
      var mark = die.ok === false ? " ✗" : die.ok ? " ✓" : "";
      var node = el("span", "die" + (die.ok === false ? " failed" : die.ok ? " verified" : ""),
        dieName(die.sides) + "\u00a0" + die.value + mark);
      node.dataset.index = die.index;
      item.appendChild(node);
      item.appendChild(document.createTextNode(" "));
    });
    item.appendChild(el("span", "die-state", L["state" + result.state.charAt(0).toUpperCase() +
      result.state.slice(1)]));
    if (result.mine) { item.appendChild(el("span", "mine", L.sent)); }
    var why = [];
    (result.dice || []).forEach(function (die) {
      if (die.ok === false) {
        why.push(say(L.dieFailed, { die: dieName(die.sides) + " #" + (die.index + 1),
          value: die.value, expected: die.expected }));
      }
    });
    if (result.problem === "order") { why.push(say(L.problemOrder, { roll: result.roll })); }
    if (result.problem === "period") { why.push(L.problemPeriod); }
    if (result.problem === "malformed") { why.push(L.problemMalformed); }
    if (result.problem === "shown") { why.push(L.problemShown); }
    if (result.problem === "seed" && result.secret) { why.push(L.problemSeed); }
    if (result.seen !== undefined) {
      why.push(say(L.problemSeen, { dice: result.seen.split(" ").map(function (pair) {
        var parts = pair.split(":");
        return dieName(parts[0]) + "\u00a0" + parts[1];
      }).join(", ") }));
    }
    why.forEach(function (text) { item.appendChild(el("p", "problem", text)); });
    return item;
  }

  function render(doc, report) {
    periodsBox.textContent = "";
    var counts = { verified: 0, committed: 0, failed: 0 };
    report.rolls.forEach(function (r) { counts[r.state] = (counts[r.state] || 0) + 1; });
    var listed = doc.periods || [];
    report.periods.forEach(function (period) {
      var rolls = report.rolls.filter(function (r) { return !r.secret && r.period === period.number; });
      var info = listed.filter(function (p) { return p.number === period.number; })[0] || {};
      if (!rolls.length && info.seed === null) { return; }  // the open period, not used yet
      var section = el("section", "dice-period " + period.state);
      section.dataset.period = period.number;
      section.appendChild(el("h2", "", say(L.period, { number: period.number })));
      var facts = el("p", "dice-facts");
      facts.appendChild(el("span", "", (info.seed ? L.revealed : L.open) + " · " + L.seal + " "));
      var seal = el("code", "", short(info.commitment));
      seal.title = info.commitment || "";
      facts.appendChild(seal);
      if (info.seed) {
        facts.appendChild(el("span", "", " · " + L.seed + " "));
        var seed = el("code", "", short(info.seed));
        seed.title = info.seed;
        facts.appendChild(seed);
      }
      section.appendChild(facts);
      if (period.state === "failed") {
        section.appendChild(el("p", "problem", period.sealSeen ?
          say(L.problemSealSeen, { seal: short(period.sealSeen) }) : L.problemSeed));
      }
      var list = el("ol", "dice-rolls");
      rolls.forEach(function (r) { list.appendChild(rollItem(r)); });
      section.appendChild(list);
      periodsBox.appendChild(section);
    });
    var secret = report.rolls.filter(function (r) { return r.secret; });
    if (secret.length) {
      var section = el("section", "dice-period secret");
      section.appendChild(el("h2", "", L.secretHeading));
      var list = el("ol", "dice-rolls");
      secret.forEach(function (r) { list.appendChild(rollItem(r)); });
      section.appendChild(list);
      periodsBox.appendChild(section);
    }
    summary.dataset.state = counts.failed ? "failed" : counts.committed ? "committed" : "verified";
    if (!report.rolls.length) { summary.textContent = L.none; }
    else if (!counts.failed && !counts.committed) { summary.textContent = L.allVerified; }
    else { summary.textContent = say(L.summary, counts); }
  }

  function check(doc, useMemory) {
    return window.FrayDice.verify(doc).then(function (report) {
      againstMemory(doc, report, useMemory);
      render(doc, report);
    });
  }

  fetch(L.proofs, { credentials: "same-origin", cache: "no-store" })
    .then(function (response) {
      if (!response.ok) { throw new Error(response.status); }
      return response.json();
    })
    .then(function (doc) { return check(doc, true); })
    .catch(function () { summary.textContent = L.unreachable; summary.dataset.state = "failed"; });

  var file = document.getElementById("dice-file");
  if (file) {
    file.addEventListener("change", function () {
      var chosen = file.files && file.files[0];
      if (!chosen) { return; }
      var reader = new FileReader();
      reader.onload = function () {
        var doc;
        try {
          var parsed = JSON.parse(reader.result);
          doc = parsed && parsed.dice ? parsed.dice : parsed;
        } catch (error) { doc = null; }
        if (!doc || !Array.isArray(doc.periods) || !Array.isArray(doc.rolls)) {
          summary.textContent = L.badFile;
          summary.dataset.state = "failed";
          return;
        }
        check(doc, false).catch(function () { summary.textContent = L.badFile; });
      };
      reader.readAsText(chosen);
    });
  }
})();
