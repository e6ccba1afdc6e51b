// Fray's glue: the live connection, every tap's answer, the language and theme switches.
// No inline scripts (CSP), no eval.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches && target.matches("select[data-autosubmit]")) {
      target.form.submit();
    }
    if (target.matches && target.matches("select[data-theme-switch]")) { chooseTheme(target.value); }
  });

  // The theme switch: applied now, and in the cookie every page's <html> is rendered from.
  function chooseTheme(value) {
    var fixed = value === "light" || value === "dark";
    if (fixed) { document.documentElement.dataset.theme = value; }
    else { delete document.documentElement.dataset.theme; }
    document.cookie = "fray_theme=" + (fixed ? value + "; max-age=31536000" : "; max-age=0") +
      "; path=/; samesite=lax";
  }

  if (!window.htmx) { return; }

  // A LAN reconnects fast: cap the backoff at a few seconds instead of htmx's 64 s.
  htmx.config.wsReconnectDelay = function (retryCount) {
    var ceiling = Math.min(500 * Math.pow(2, retryCount), 4000);
    return ceiling / 2 + Math.random() * ceiling / 2;
  };

  var socket = null;
  var open = false;
  var FINAL_CODES = [4403, 4404]; // the server said: no access here any more
  // A form or link is taking this page elsewhere (new links: the referee's own socket is
  // closed by the change it asked for): a reload now would cancel that answer and its cookie,
  // so it waits; if the page stays (a download), it reloads a little later.
  var leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });

  function setStatus(online) {
    var status = document.getElementById("live-status");
    if (!status) { return; }
    status.dataset.state = online ? "online" : "offline";
    var text = online ? status.dataset.online
      : navigator.onLine === false && status.dataset.noNetwork || status.dataset.offline;
    if (status.textContent !== text) { status.textContent = text; } // said once, politely
  }

  function pageSeq() {
    var marker = document.getElementById("live-seq");
    return marker ? Number(marker.dataset.seq) : -1;
  }

  // Bring the page up to date: the answer is its number alone, or a snapshot.
  function sync() {
    if (socket && open) { socket.send(JSON.stringify({ type: "sync", seq: pageSeq() })); }
  }

  // Messages start with #live-seq: data-seq the number they bring the page to, a delta's
  // data-from the one it applies to; a delta for another is dropped for a snapshot.
  var MARKER = /id="live-seq" data-seq="(\d+)"(?: data-from="(\d+)")?/;
  document.body.addEventListener("htmx:wsBeforeMessage", function (event) {
    heard = Date.now(); // for the heartbeat, whose pong goes no further
    if (event.detail.message === PONG) { event.preventDefault(); return; }
    var match = MARKER.exec(event.detail.message);
    if (!match || match[2] === undefined) { return; } // a full snapshot: always applied
    var current = pageSeq();
    if (Number(match[2]) !== current) {
      event.preventDefault();
      if (Number(match[1]) > current) { sync(); }
    }
  });

  // One socket at a time. Each attempt (htmx's retries, or ours) ends the one before it, and
  // that one's opening or closing says nothing more (so every wsOpen and wsClose below is
  // the newest socket's): left to htmx, a socket replaced while the server is away closes
  // abnormally and starts a second chain of retries, which later replaces a working socket
  // with one that may never open, under a status still saying "live".
  var RETRIED = [1006, 1011, 1012, 1013]; // htmx retries these itself
  var newest = null; // the raw socket of the newest attempt, opening or open
  var tried = 0; // when the newest attempt began or was scheduled; 0 once it is open
  var createWebSocket = htmx.createWebSocket;
  htmx.createWebSocket = function (url) {
    if (newest) {
      newest.onopen = newest.onclose = null;
      if (newest.readyState < 2) { newest.close(); }
    }
    newest = createWebSocket(url);
    return newest;
  };

  document.body.addEventListener("htmx:wsConnecting", function () {
    tried = Date.now();
    if (open) { setStatus(false); } // a live socket replaced: not live until the new one opens
    open = false;
  });

  document.body.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    tried = 0;
    open = true;
    heard = pinged = Date.now();
    setStatus(true);
  });

  document.body.addEventListener("htmx:wsClose", function (event) {
    var code = event.detail.event.code;
    open = false;
    setStatus(false);
    tried = Date.now(); // htmx retries, or we do below
    if (FINAL_CODES.indexOf(code) >= 0) {
      // No seat, or no encounter, any more: the page says so.
      window.setTimeout(function () { window.location.reload(); }, leaving ? 5000 : 0);
    } else if (RETRIED.indexOf(code) < 0 && socket) {
      window.setTimeout(function () { socket.reconnect(); }, 1000);
    }
  });

  // Not trusted any more: say so, and open a new socket (which resyncs), unless one is on its
  // way; one that has hung for seconds (a server that never answers) is given up.
  function lost() {
    setStatus(false);
    var now = Date.now();
    if (socket && now - tried > 3000) {
      tried = now;
      socket.reconnect();
    }
  }

  // Heartbeat: a socket looks open long after its server went. A ping every 1.5 s; 3 s of
  // silence means gone (told within 3.25 s, 5 s promised). A sync every 30 s bounds what a
  // lost message costs.
  var PONG = '{"type":"pong"}';
  var heard = 0;
  var pinged = 0;
  var checked = 0;
  window.setInterval(function () {
    if (document.hidden) { return; }
    var now = Date.now();
    if (!open) { if (tried && now - tried > 5000) { lost(); } return; }
    if (now - heard > 3000) { lost(); } else if (now - checked >= 30000) {
      checked = pinged = now;
      sync();
    } else if (now - pinged >= 1500) {
      pinged = now;
      socket.send('{"type":"ping"}');
    }
  }, 250);

  // Back from the background: resync or reconnect.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { return; }
    heard = Date.now();
    if (open) { sync(); } else { lost(); }
  });
  window.addEventListener("offline", lost);
  window.addEventListener("online", function () { if (!open) { lost(); } });

  // Every tap answers: its control is busy until the request ends; a failure says so, with
  // Retry (same data, same one-time key: nothing is done twice) unless refused.
  htmx.config.timeout = 4000; // file uploads wait longer: hx-request on their forms
  var failed = null;
  var retrying = false;

  function tapOf(detail) {
    var cause = detail.requestConfig && detail.requestConfig.triggeringEvent;
    return cause && (cause.type === "click" || cause.type === "submit") ? cause : null;
  }

  function setBusy(control, on) {
    control.classList.toggle("busy", on);
    control.setAttribute("aria-busy", on);
    if (control.matches("button")) { control.disabled = on; }
    else { control.setAttribute("aria-disabled", on); }
  }

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var cause = tapOf(event.detail);
    var busy = event.detail.xhr.busy = [];
    if (cause) { busy.push(cause.submitter || event.detail.elt); }
    if (retrying) { busy.push(document.querySelector("#tap-error .retry")); }
    busy.forEach(function (control) { setBusy(control, true); });
  });
  document.body.addEventListener("htmx:configRequest", function (event) {
    if (!retrying) { return; }
    var parameters = event.detail.parameters;  // the very values, the dice's value among them
    Object.keys(parameters).forEach(function (name) { delete parameters[name]; });
    Object.assign(parameters, failed.values);
  });


  function tapError(kind, detail) {
    var box = document.getElementById("tap-error");
    if (!box) { return; }
    var shown = !box.hidden;
    box.hidden = !kind;
    failed = null;
    if (detail) {
      var values = {};
      detail.requestConfig.formData.forEach(function (value, name) {
        values[name] = name in values ? [].concat(values[name], value) : value;
      });
      failed = { verb: detail.requestConfig.verb, path: detail.requestConfig.path,
        elt: detail.elt, target: detail.target, cause: tapOf(detail), values: values,
        boosted: detail.boosted };
    }
    box.querySelector(".retry").hidden = !failed;
    box.querySelector(".message").textContent = kind ? box.dataset[kind] : "";
    makeRoom(box, shown);
  }

  // The alert lies over the foot of the screen: the page keeps that much room at its end
  // (fray.css, --tap-error-room), and what was in view there when it came up (the button just
  // tapped, a phone's last buttons) moves up above it, so it covers nothing one needs.
  function makeRoom(box, shown) {
    var root = document.documentElement;
    if (box.hidden) { root.style.removeProperty("--tap-error-room"); return; }
    var room = Math.ceil(window.innerHeight - box.getBoundingClientRect().top);
    root.style.setProperty("--tap-error-room", room + "px");
    if (!shown) { window.scrollBy(0, room); }
  }

  // A tap's failure waits for its Retry: a form's odds, fetched as one types, failing after
  // it must not take its place, or Retry would fetch the odds and never send the attack.
  function tapPending(detail) {
    return !tapOf(detail) && failed !== null && failed.cause !== null;
  }

  // A failure landing while a button is pressed waits for its release: said at once, the
  // alert can come up over the button under the pointer and take its click, so the tap is
  // never sent, and Retry would only repeat what failed (a form's odds, fetched as the press
  // took the focus from a field). Shown after the click, it is shown for the tap, if that fails.
  var pressed = false;
  var held = [];
  function release() {
    pressed = false;
    window.setTimeout(function () { held.splice(0).forEach(function (say) { say(); }); }, 0);
  }
  window.addEventListener("pointerdown", function () { pressed = true; }, true);
  window.addEventListener("pointerup", release, true);
  window.addEventListener("pointercancel", release, true);
  function whenReleased(say) {
    if (!pressed) { say(); return; }
    held.push(say);
    window.setTimeout(release, 1000); // a press whose release went to another window
  }

  function unreachable(event) {
    whenReleased(function () {
      if (!tapPending(event.detail)) {
        tapError(event.type === "htmx:timeout" ? "timeout" : "unreachable", event.detail);
      }
    });
    lost(); // the socket may not have noticed yet
  }

  document.body.addEventListener("htmx:sendError", unreachable);
  document.body.addEventListener("htmx:timeout", unreachable);
  document.body.addEventListener("htmx:responseError", function (event) {
    whenReleased(function () {
      if (tapPending(event.detail)) { return; }
      var status = event.detail.xhr.status;
      if (status === 403 || status === 404) { tapError("refused"); }
      else { tapError("failed", status >= 500 && event.detail); } // only a server error retried
    });
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    var busy = event.detail.xhr.busy || [];
    busy.forEach(function (control) { setBusy(control, false); });
    // A tap, or what failed went through; not a form's odds after a failed tap.
    var done = tapOf(event.detail) || failed && failed.elt === event.detail.elt;
    if (event.detail.successful && done) { tapError(null); }
  });
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : document.body;
    if (target.closest(".busy")) { // links cannot be disabled
      event.preventDefault();
      event.stopImmediatePropagation();
    } else if (target.closest("#tap-error .dismiss")) { tapError(null); }
    else if (target.closest("#tap-error .retry") && failed) { retry(failed); }
  }, true);

  // The action panel after a swap (a form opened or answered): its top, where a result or a
  // refusal is said, brought into view below the sticky header (fray.css), and a refused
  // form's first wrong field in view too, focused, its error beside it.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    var panel = event.detail.target;
    if (!panel || panel.id !== "panel" || !panel.firstElementChild) { return; }
    var header = document.querySelector(".top");
    var below = header ? header.getBoundingClientRect().bottom : 0;
    var top = panel.getBoundingClientRect().top;
    if (top < below || top > window.innerHeight - 48) { panel.scrollIntoView({ block: "start" }); }
    var field = panel.querySelector(".field.invalid");
    var control = field && field.querySelector("input:not([type=hidden]), select, textarea");
    if (!control) { return; }
    field.scrollIntoView({ block: "nearest" });
    control.focus({ preventScroll: true });
  });

  function retry(request) {
    var body = document.body;
    var control = request.cause && (request.cause.submitter || request.elt);
    // A boosted link or form is tapped again as it was (its form unchanged, its key too).
    if (request.boosted && body.contains(control)) { control.click(); return; }
    var source = body.contains(request.elt) ? request.elt : request.target;
    if (!body.contains(source)) { tapError(null); return; }
    retrying = true;
    try {
      htmx.ajax(request.verb, request.path,
        { source: source, target: request.target, event: request.cause });
    } finally { retrying = false; }
  }
})();

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

// The server's dice (dice-marks.js: each action's value, the log's dice remembered and checked)
// come after the page, so that a phone's first load does not wait for them.
window.addEventListener("load", function (folder) {
  if (document.getElementById("dice-seal")) {
    document.head.appendChild(document.createElement("script")).src = folder + "dice-marks.js";
  }
}.bind(null, document.currentScript.src.replace(/[^/]*$/, "")));
