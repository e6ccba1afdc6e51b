"""The live connection's bookkeeping in fray.js, with the page's sockets played by the test.

A real server cannot be made to close an old socket at a chosen moment, and htmx's retries
wait on timers: here each socket is a stand-in the test opens and closes, and the page's
clock is moved on by hand, so a sequence that a busy night shows only now and then is played
the same way every time.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import LAPTOP
from .test_table import start_encounter, wait_until_live

pytestmark = pytest.mark.e2e

# Sockets that connect only when the test says so, answer the heartbeat's pings, and never
# finish closing by themselves (a server that went quiet): the test closes them.
STAND_IN_SOCKETS = """
(() => {
  const made = window.madeSockets = [];
  const STATES = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 };
  class StandInSocket extends EventTarget {
    constructor(url) {
      super();
      this.url = url;
      this.readyState = 0;
      this.binaryType = "blob";
      made.push(this);
      document.documentElement.dataset.sockets = made.length; // for the test to wait on
    }
    send(data) {
      if (this.readyState !== 1) { throw new Error("not open"); }
      if (data === '{"type":"ping"}') {
        setTimeout(() => this.fire("message", { data: '{"type":"pong"}' }), 0);
      }
    }
    close() { if (this.readyState < 2) { this.readyState = 2; } }
    fire(type, init) {
      if (type === "open") { this.readyState = 1; }
      if (type === "close") { this.readyState = 3; }
      const event = type === "close" ? new CloseEvent(type, init)
        : type === "message" ? new MessageEvent(type, init) : new Event(type);
      this.dispatchEvent(event);
      const handler = this["on" + type];
      if (handler) { handler.call(this, event); }
    }
  }
  Object.assign(StandInSocket, STATES);
  Object.assign(StandInSocket.prototype, STATES);
  window.WebSocket = StandInSocket;
})();
"""


def live_with_stand_in_sockets(new_context) -> Page:
    """The referee's page of a new encounter with its first socket open: live, and its clock
    stopped, in the test's hands."""
    referee = new_context(**LAPTOP).new_page()
    referee.add_init_script(STAND_IN_SOCKETS)
    referee.clock.install()
    referee.goto("/")
    start_encounter(referee, "The quiet cave")
    made(referee, 1)
    referee.evaluate("madeSockets[0].fire('open')")
    wait_until_live(referee)
    # From here on, the page's time moves only when the test moves it.
    referee.clock.pause_at(referee.evaluate("Date.now()") + 1_000)
    return referee


def made(page: Page, count: int) -> None:
    """Wait until the page has made ``count`` sockets. (Not ``wait_for_function``: on a page
    whose policy forbids eval, as Fray's does, Playwright's polling of it can fail.)"""
    expect(page.locator("html")).to_have_attribute("data-sockets", str(count))


def sockets_not_closed(page: Page) -> list[tuple[int, int]]:
    """Each socket still opening or open, as (its number in order made, its readyState)."""
    return [
        tuple(pair)
        for pair in page.evaluate(
            "madeSockets.map((s, n) => [n, s.readyState]).filter(([n, state]) => state < 2)"
        )
    ]


def test_a_socket_replaced_while_the_server_is_quiet_never_replaces_the_next_one(new_context):
    """The page doubts its socket (the network blinked) and opens a new one; the old one's
    close comes only later, abnormal, as from a server that went quiet. Its closing must
    start no retries of its own: left to htmx, they replaced the working socket with one that
    never opened, under a status still saying live, and the heartbeat stopped."""
    referee = live_with_stand_in_sockets(new_context)

    referee.evaluate("window.dispatchEvent(new Event('offline'))")  # a new socket, at once
    status = referee.locator("#live-status")
    expect(status).to_have_attribute("data-state", "offline")
    made(referee, 2)
    referee.evaluate("madeSockets[1].fire('open')")
    wait_until_live(referee)
    referee.evaluate("madeSockets[0].fire('close', { code: 1006 })")  # the old one, at last
    referee.clock.run_for(10_000)  # every retry htmx could have set off, and heartbeats

    assert sockets_not_closed(referee) == [(1, 1)]  # the working socket, still the only one
    expect(status).to_have_attribute("data-state", "online")


def test_a_socket_that_never_opens_is_given_up_and_the_status_says_so(new_context):
    """A server that takes the connection and never answers it: the page says it is
    reconnecting, and tries a new socket every few seconds rather than wait on that one."""
    referee = live_with_stand_in_sockets(new_context)

    referee.evaluate("window.dispatchEvent(new Event('offline'))")
    made(referee, 2)  # and it never opens
    referee.clock.run_for(6_000)
    assert [n for n, _ in sockets_not_closed(referee)] == [2]  # the hung one given up
    expect(referee.locator("#live-status")).to_have_attribute("data-state", "offline")
    referee.evaluate("madeSockets[2].fire('open')")
    wait_until_live(referee)
