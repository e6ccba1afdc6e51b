// Fray's small amount of glue: keep the live connection alive on phones, resync after any
// gap, submit the language switcher on change, apply the theme switch. No inline scripts
// (CSP), no eval.
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
    status.textContent = online ? status.dataset.online : status.dataset.offline;
  }

  function pageSeq() {
    var marker = document.getElementById("live-seq");
    return marker ? Number(marker.dataset.seq) : -1;
  }

  // Ask for the page to be brought up to date: the server answers with the sequence number
  // alone when it already is, else with a full snapshot.
  function sync() {
    if (socket && open) { socket.send(JSON.stringify({ type: "sync", seq: pageSeq() })); }
  }

  // Every message starts with #live-seq: data-seq is the number it brings the page to, and
  // a delta's data-from the number it applies to. A delta for another number is not applied
  // (a message was lost, or came late): the page asks for a full snapshot instead.
  var MARKER = /id="live-seq" data-seq="(\d+)"(?: data-from="(\d+)")?/;
  document.body.addEventListener("htmx:wsBeforeMessage", function (event) {
    var match = MARKER.exec(event.detail.message);
    if (!match || match[2] === undefined) { return; } // a full snapshot: always applied
    var current = pageSeq();
    if (Number(match[2]) !== current) {
      event.preventDefault();
      if (Number(match[1]) > current) { sync(); }
    }
  });

  var RETRIED = [1006, 1011, 1012, 1013]; // htmx retries these itself
  var latest = null; // the raw socket that opened last; null once htmx starts a newer one
  var pending = false; // a reconnect is already scheduled, by htmx or by us

  document.body.addEventListener("htmx:wsConnecting", function () {
    latest = null;
    pending = false;
  });

  document.body.addEventListener("htmx:wsOpen", function (event) {
    socket = event.detail.socketWrapper;
    latest = event.detail.event.target;
    // The server sends a snapshot on every (re)connect; nothing missed stays missing.
    open = true;
    setStatus(true);
  });

  document.body.addEventListener("htmx:wsClose", function (event) {
    var code = event.detail.event.code;
    var retried = RETRIED.indexOf(code) >= 0;
    if (retried) { pending = true; }
    // A failed attempt, or a socket htmx discarded for a newer one: not our connection.
    if (event.detail.event.target !== latest) { return; }
    latest = null;
    open = false;
    setStatus(false);
    if (FINAL_CODES.indexOf(code) >= 0) {
      // This browser lost its seat, or the encounter is gone: the page itself says so.
      window.setTimeout(function () { window.location.reload(); }, leaving ? 5000 : 0);
      return;
    }
    if (!retried && socket) {
      pending = true;
      window.setTimeout(function () { socket.reconnect(); }, 1000);
    }
  });

  // Phones drop sockets in the background: on return, reconnect or ask for a fresh snapshot.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") { return; }
    if (open) { sync(); } else if (socket && !pending) { socket.reconnect(); }
  });

  // A tap that fails is never silent: no answer (the phone left the Wi-Fi, the laptop is
  // asleep) or a refusal says so at the bottom of the screen, until the next tap succeeds.
  // A form carries a one-time key, so tapping again never rolls twice.
  htmx.config.timeout = 30000;

  function tapError(kind) {
    var box = document.getElementById("tap-error");
    if (!box) { return; }
    if (!kind) { box.hidden = true; return; }
    box.querySelector(".message").textContent = box.dataset[kind];
    box.hidden = false;
  }

  function unreachable() {
    tapError("unreachable");
    // The socket may not have noticed yet: the status must not say "live" meanwhile.
    setStatus(false);
    if (socket && !pending) { pending = true; socket.reconnect(); }
  }

  document.body.addEventListener("htmx:sendError", unreachable);
  document.body.addEventListener("htmx:timeout", unreachable);
  document.body.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    tapError(status === 403 || status === 404 ? "refused" : "failed");
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    // A tap that went through (not the odds a form asks for as it is filled in, which may
    // answer after a failed tap and would hide its message at once).
    var cause = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    var tapped = cause && (cause.type === "click" || cause.type === "submit");
    if (event.detail.successful && tapped) { tapError(null); }
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#tap-error .dismiss")) { tapError(null); }
  });

  // A channel layer may drop a message under load: a periodic check bounds the damage.
  window.setInterval(function () {
    if (document.visibilityState === "visible") { sync(); }
  }, 30000);
})();
