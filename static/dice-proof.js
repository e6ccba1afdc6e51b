// Fray's verifiable dice, checked in the browser: the same algorithm and the same report as
// rules/fair.py (read its docstring for the rules; this file follows it step by step).
// No DOM access, no dependencies, no eval (the pages' CSP forbids it).
//
//   FrayDice.die(seedHex, roll, index, player, sides) -> Promise<int>
//   FrayDice.verify(document) -> Promise<report>   (rejects only for a document that is none)
//   FrayDice.sha256Hex(bytes) -> Promise<string>, FrayDice.hmac(key, message) -> Promise<Uint8Array>
//
// Web Crypto (crypto.subtle) exists only in a secure context (https or localhost): a phone
// reaching Fray at http://192.168.1.5:8000 has none, so a small SHA-256 and HMAC of our own do
// the work there. FrayDice.fallback = true uses them everywhere (for tests).
(function (root) {
  "use strict";

  var VERSION = 1;
  var SEED_BYTES = 32;
  var MAX_SIDES = 1000;
  var PLAYER_HEX = 64;
  var RANGE = 4294967296; // 2 ** 32
  var SAFE = 9007199254740991; // 2 ** 53 - 1
  var NOT_A_DOCUMENT = 'a dice proof must be a JSON object with the lists "periods" and "rolls"';
  var BAD_SECRET = 'the "secret" of a dice proof, when present, must be a list';
  var BAD_VERSION = "this dice proof is not of version " + VERSION +
    ", the only one this verifier reads";
  var PROBLEMS = ["malformed", "period", "seed", "order", "die", "shown"];

  // ----- SHA-256 and HMAC-SHA256 in plain JavaScript (FIPS 180-4, RFC 2104) -----

  var K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ]);

  function ror(x, n) {
    return (x >>> n) | (x << (32 - n));
  }

  function sha256Pure(data) {
    var length = data.length;
    var total = Math.ceil((length + 9) / 64) * 64;
    var buffer = new Uint8Array(total);
    buffer.set(data);
    buffer[length] = 0x80;
    var view = new DataView(buffer.buffer);
    view.setUint32(total - 8, Math.floor(length / 0x20000000)); // the bit length, high word
    view.setUint32(total - 4, (length * 8) >>> 0); // and low word
    var H = new Uint32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
    ]);
    var W = new Uint32Array(64);
    for (var offset = 0; offset < total; offset += 64) {
      var t;
      for (t = 0; t < 16; t++) { W[t] = view.getUint32(offset + 4 * t); }
      for (t = 16; t < 64; t++) {
        var w15 = W[t - 15];
        var w2 = W[t - 2];
        var s0 = ror(w15, 7) ^ ror(w15, 18) ^ (w15 >>> 3);
        var s1 = ror(w2, 17) ^ ror(w2, 19) ^ (w2 >>> 10);
        W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
      }
      var a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
      for (t = 0; t < 64; t++) {
        var t1 = (h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
        var t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
    }
    var out = new Uint8Array(32);
    var outView = new DataView(out.buffer);
    for (var i = 0; i < 8; i++) { outView.setUint32(4 * i, H[i]); }
    return out;
  }

  function concat(a, b) {
    var joined = new Uint8Array(a.length + b.length);
    joined.set(a);
    joined.set(b, a.length);
    return joined;
  }

  function hmacPure(key, message) {
    if (key.length > 64) { key = sha256Pure(key); }
    var inner = new Uint8Array(64);
    var outer = new Uint8Array(64);
    for (var i = 0; i < 64; i++) {
      var k = i < key.length ? key[i] : 0;
      inner[i] = k ^ 0x36;
      outer[i] = k ^ 0x5c;
    }
    return sha256Pure(concat(outer, sha256Pure(concat(inner, message))));
  }

  // ----- Web Crypto when there is one -----

  function subtle() {
    if (api.fallback) { return null; }
    var crypto = root.crypto;
    return crypto && crypto.subtle ? crypto.subtle : null;
  }

  function bytesOf(value) {
    if (value instanceof Uint8Array) { return value; }
    if (value instanceof ArrayBuffer) { return new Uint8Array(value); }
    if (ArrayBuffer.isView(value)) {
      return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    }
    if (Array.isArray(value)) { return Uint8Array.from(value); }
    throw new TypeError("bytes must be a Uint8Array, an ArrayBuffer or an array of bytes");
  }

  async function sha256(bytes) {
    var web = subtle();
    if (web) {
      try {
        return new Uint8Array(await web.digest("SHA-256", bytes));
      } catch (error) {
        // A browser whose Web Crypto refuses: ours gives the same answer.
      }
    }
    return sha256Pure(bytes);
  }

  var keys = new Map(); // raw key (hex) -> imported CryptoKey

  async function hmac(key, message) {
    key = bytesOf(key);
    message = bytesOf(message);
    var web = subtle();
    if (web) {
      try {
        var name = hexOf(key);
        var imported = keys.get(name);
        if (!imported) {
          imported = await web.importKey(
            "raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
          keys.set(name, imported);
        }
        return new Uint8Array(await web.sign("HMAC", imported, message));
      } catch (error) {
        // As above: fall back on our own.
      }
    }
    return hmacPure(key, message);
  }

  function hexOf(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i++) { text += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16); }
    return text;
  }

  function bytesOfHex(text) {
    var bytes = new Uint8Array(text.length / 2);
    for (var i = 0; i < bytes.length; i++) { bytes[i] = parseInt(text.substr(2 * i, 2), 16); }
    return bytes;
  }

  function ascii(text) {
    // The message is digits, colons, lowercase hex and "fray-dice-": ASCII, so one byte each.
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
    return bytes;
  }

  async function sha256Hex(bytes) {
    return hexOf(await sha256(bytesOf(bytes)));
  }

  // ----- the dice -----

  function isHex(value, low, high) {
    return typeof value === "string" && value.length >= low && value.length <= high &&
      /^[0-9a-f]*$/.test(value);
  }

  function isSeed(value) {
    return isHex(value, 2 * SEED_BYTES, 2 * SEED_BYTES);
  }

  // A whole number the way rules/fair.py reads one (JSON numbers are doubles here).
  function whole(value) {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) { return null; }
    return value === 0 ? 0 : value; // no -0
  }

  function isList(value) {
    return Array.isArray(value);
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // Whether a roll's "shown" (the dice its log entry's text shows, when the document says)
  // are its dice, in any order; a roll that does not say passes.
  function shows(item) {
    var shown = field(item, "shown");
    if (shown === null) { return true; }
    var dice = field(item, "dice");
    if (!isList(shown) || !isList(dice)) { return false; }
    var values = dice.map(function (pair) {
      return isList(pair) && pair.length === 2 ? whole(pair[1]) : null;
    });
    var told = shown.map(whole);
    if (values.indexOf(null) >= 0 || told.indexOf(null) >= 0) { return false; }
    var byValue = function (a, b) { return a - b; };
    values.sort(byValue);
    told.sort(byValue);
    return values.length === told.length && values.every(function (v, k) { return v === told[k]; });
  }

  function field(item, name) {
    if (!isObject(item) || !Object.prototype.hasOwnProperty.call(item, name)) { return null; }
    var value = item[name];
    return value === undefined ? null : value;
  }

  // The die shown by 32 bits x, or null when x is rejected (rejection sampling).
  function accept(x, sides) {
    var limit = RANGE - (RANGE % sides);
    return x < limit ? (x % sides) + 1 : null;
  }

  async function dieOf(key, roll, index, player, sides) {
    for (var attempt = 0; ; attempt++) {
      var message = "fray-dice-1:" + roll + ":" + index + ":" + attempt + ":" + player;
      var mac = await hmac(key, ascii(message));
      var x = ((mac[0] << 24) >>> 0) + (mac[1] << 16) + (mac[2] << 8) + mac[3];
      var value = accept(x, sides);
      if (value !== null) { return value; }
    }
  }

  async function commitment(seed) {
    if (!isSeed(seed)) { throw new Error("a seed is 64 lowercase hex characters"); }
    return sha256Hex(bytesOfHex(seed));
  }

  async function die(seed, roll, index, player, sides) {
    if (!isSeed(seed)) { throw new Error("a seed is 64 lowercase hex characters"); }
    if (!Number.isSafeInteger(roll) || roll < 1) {
      throw new Error("a roll number is a whole number from 1");
    }
    if (!isHex(player, 0, PLAYER_HEX)) {
      throw new Error("a player value is 0 to " + PLAYER_HEX + " lowercase hex characters");
    }
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new Error("a die index is a whole number from 0");
    }
    if (!Number.isSafeInteger(sides) || sides < 1 || sides > MAX_SIDES) {
      throw new Error("a die has 1 to " + MAX_SIDES + " sides");
    }
    return dieOf(bytesOfHex(seed), roll, index, player, sides);
  }

  // ----- verification: rules/fair.py's verify, line for line -----

  async function periodState(item) {
    if (!isObject(item) || whole(field(item, "number")) === null) { return "failed"; }
    var committed = field(item, "commitment");
    var seed = field(item, "seed");
    if (!isSeed(committed)) { return "failed"; }
    if (seed === null) { return "committed"; }
    if (!isSeed(seed)) { return "failed"; }
    return (await commitment(seed)) === committed ? "verified" : "failed";
  }

  function dieItem(item) {
    if (!isList(item) || item.length !== 2) { return [null, null, false]; }
    var sides = whole(item[0]);
    var value = whole(item[1]);
    var good = sides !== null && value !== null && sides >= 1 && sides <= MAX_SIDES;
    return [sides, value, good && value >= 1 && value <= sides];
  }

  async function diceReport(raw, key, roll, player) {
    var reports = [];
    var wellFormed = true;
    var allOk = true;
    var items = isList(raw) ? raw : [];
    for (var index = 0; index < items.length; index++) {
      var parsed = dieItem(items[index]);
      var sides = parsed[0], value = parsed[1], good = parsed[2];
      var expected = null;
      var ok = null;
      if (!good) {
        wellFormed = false;
        ok = false;
      } else if (key !== null && roll !== null) {
        expected = await dieOf(key, roll, index, player, sides);
        ok = value === expected;
        allOk = allOk && ok;
      }
      reports.push({ index: index, sides: sides, value: value, expected: expected, ok: ok });
    }
    return [reports, wellFormed, allOk];
  }

  function rollReport(entry, period, roll, secret, problems, state, dice) {
    var problem = null;
    for (var i = 0; i < PROBLEMS.length; i++) {
      if (problems.indexOf(PROBLEMS[i]) >= 0) { problem = PROBLEMS[i]; break; }
    }
    return {
      entry: entry,
      period: period,
      roll: roll,
      secret: secret,
      state: problem ? "failed" : state,
      problem: problem,
      dice: dice
    };
  }

  function documentLists(document) {
    if (!isObject(document)) { throw new Error(NOT_A_DOCUMENT); }
    var periods = field(document, "periods");
    var rolls = field(document, "rolls");
    if (!isList(periods) || !isList(rolls)) { throw new Error(NOT_A_DOCUMENT); }
    var secret = field(document, "secret");
    if (secret === null) {
      secret = [];
    } else if (!isList(secret)) {
      throw new Error(BAD_SECRET);
    }
    if (Object.prototype.hasOwnProperty.call(document, "version") &&
        whole(document.version) !== VERSION) {
      throw new Error(BAD_VERSION);
    }
    return [periods, rolls, secret];
  }

  async function verify(document) {
    var lists = documentLists(document);
    var periods = lists[0], rolls = lists[1], secrets = lists[2];
    var i, item, entry, period, roll, player, problems, readable, key, state, checked;

    var periodReports = [];
    var states = new Map(); // number -> [[state, seed], ...]
    for (i = 0; i < periods.length; i++) {
      item = periods[i];
      var number = whole(field(item, "number"));
      var periodStateNow = await periodState(item);
      periodReports.push({ number: number, state: periodStateNow });
      if (number !== null) {
        if (!states.has(number)) { states.set(number, []); }
        states.get(number).push([periodStateNow, field(item, "seed")]);
      }
    }
    periodReports.forEach(function (report) {
      if (report.number !== null && states.get(report.number).length > 1) {
        report.state = "failed";
      }
    });

    // The order: every roll whose place is readable, by period, in entry order.
    var places = new Map();
    for (i = 0; i < rolls.length; i++) {
      item = rolls[i];
      entry = whole(field(item, "entry"));
      period = whole(field(item, "period"));
      roll = whole(field(item, "roll"));
      if (entry !== null && period !== null && roll !== null && roll >= 1) {
        if (!places.has(period)) { places.set(period, []); }
        places.get(period).push([entry, i, roll]);
      }
    }
    var outOfOrder = new Set();
    places.forEach(function (placed) {
      placed.sort(function (p, q) { return p[0] - q[0] || p[1] - q[1]; });
      placed.forEach(function (place, k) {
        if (place[2] !== k + 1) { outOfOrder.add(place[1]); }
      });
    });

    var rollReports = [];
    for (i = 0; i < rolls.length; i++) {
      item = rolls[i];
      entry = whole(field(item, "entry"));
      period = whole(field(item, "period"));
      roll = whole(field(item, "roll"));
      player = field(item, "player");
      problems = [];
      readable = isObject(item) && entry !== null && period !== null && roll !== null &&
        roll >= 1 && isHex(player, 0, PLAYER_HEX) && isList(field(item, "dice"));
      if (!readable) { problems.push("malformed"); }
      key = null;
      state = "committed";
      var named = period !== null ? (states.get(period) || []) : [];
      if (period !== null && named.length !== 1) {
        problems.push("period");
      } else if (named.length) {
        if (named[0][0] === "failed") {
          problems.push("seed");
        } else if (named[0][0] === "verified") {
          key = bytesOfHex(named[0][1]);
          state = "verified";
        }
      }
      if (outOfOrder.has(i)) { problems.push("order"); }
      checked = await diceReport(field(item, "dice"), readable ? key : null, roll, player);
      if (!checked[1]) { problems.push("malformed"); }
      if (!checked[2]) { problems.push("die"); }
      if (!shows(item)) { problems.push("shown"); }
      rollReports.push(rollReport(entry, period, roll, false, problems, state, checked[0]));
    }

    for (i = 0; i < secrets.length; i++) {
      item = secrets[i];
      entry = whole(field(item, "entry"));
      player = field(item, "player");
      var committed = field(item, "commitment");
      var seed = field(item, "seed");
      problems = [];
      readable = isObject(item) && entry !== null && isSeed(committed) &&
        (seed === null || isSeed(seed)) && isHex(player, 0, PLAYER_HEX) &&
        isList(field(item, "dice"));
      key = null;
      state = "committed";
      if (!readable) {
        problems.push("malformed");
      } else if (seed !== null) {
        if ((await commitment(seed)) === committed) {
          key = bytesOfHex(seed);
          state = "verified";
        } else {
          problems.push("seed");
        }
      }
      checked = await diceReport(field(item, "dice"), key, 1, player);
      if (!checked[1]) { problems.push("malformed"); }
      if (!checked[2]) { problems.push("die"); }
      if (!shows(item)) { problems.push("shown"); }
      rollReports.push(rollReport(entry, null, 1, true, problems, state, checked[0]));
    }

    var counts = { verified: 0, committed: 0, failed: 0 };
    rollReports.forEach(function (report) { counts[report.state] += 1; });
    var failed = counts.failed > 0 ||
      periodReports.some(function (report) { return report.state === "failed"; });
    return { ok: !failed, counts: counts, periods: periodReports, rolls: rollReports };
  }

  var api = {
    version: VERSION,
    sha256Hex: sha256Hex,
    hmac: hmac,
    commitment: commitment,
    die: die,
    verify: verify,
    fallback: false
  };
  root.FrayDice = api;
})(typeof window !== "undefined" ? window : globalThis);
