"""The encounter's websocket: joins its table's hub, and brings its page up to date on every change.

What it sends comes from this process's hub for the encounter (``combat.live.hub``): the change
loaded once and rendered once per audience, a delta when the page is at the view before, a
full snapshot when it is not. The hub hears of changes and hands each socket its message
(``deliver``); a socket itself only answers its page's checks. Who may look is judged again
on every change, from the state the hub loaded: no database query per socket.
"""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header

from combat.access import DISPLAYS_KEY, REFEREE_KEY, SEATS_KEY, display_mark
from combat.live import hub
from combat.live.state import Audience, State

# A browser sends {"type": "sync"} and its heartbeat {"type": "ping"}; anything longer is not
# from our page, and is dropped before parsing (deeply nested JSON would exhaust the parser's
# recursion).
MAX_FRAME_CHARS = 256


def language_of(scope: dict) -> str:
    """The language the browser's pages use: its cookie, else its Accept-Language."""
    cookie = scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME)
    candidates = [cookie] if cookie else []
    headers = dict(scope.get("headers", []))
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _q in parse_accept_lang_header(accept)]
    for code in candidates:
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


class EncounterConsumer(AsyncWebsocketConsumer):
    # Sync requests: this many answered at once in each window of this many seconds.
    SYNC_BURST = 3
    SYNC_WINDOW = 1.5
    # Heartbeats: a page pings every 1.5 s; more than this many in a window go unanswered.
    PING_BURST = 3
    PING_WINDOW = 2.0
    PONG = '{"type":"pong"}'

    async def connect(self) -> None:
        self.hub: hub.TableHub | None = None
        self.sync_window_start = float("-inf")
        self.syncs_in_window = 0
        self.ping_window_start = float("-inf")
        self.pings_in_window = 0
        self.deferred_sync: asyncio.Future[None] | None = None
        table = await hub.table_for(self.scope["url_route"]["kwargs"]["slug"])
        state = await table.current_state() if table is not None else None
        self.audience, self.mark = (None, None) if state is None else self._who(state)
        if self.audience is None:
            if table is not None:
                hub.leave(table)
            # Accept, then close with a code the page can read: a refused handshake looks
            # like a dropped connection (1006), which the browser would retry for ever.
            await self.accept()
            await self.close(code=4403)
            return
        # The number the page was rendered at: nothing to send if it is still the latest.
        self.sent_seq = _page_seq(self.scope)
        self.asked_seq = self.sent_seq
        await self.accept()
        self.hub = table.join(self)
        # A page newer than what this process has heard (its change's announcement still on
        # its way) is brought to at least its own number, never back.
        await self._catch_up(max(state.seq, self.sent_seq))

    def _who(self, state: State) -> tuple[Audience | None, str | None]:
        """Who this socket's browser is at the table, from its session's marks and the state
        the hub loaded (no query per socket), and its referee mark, kept to judge it again."""
        session = self.scope["session"]
        key = str(state.encounter.pk)
        language = language_of(self.scope)
        mark = session.get(REFEREE_KEY, {}).get(key)
        referee = Audience(referee=True, seat=None, language=language)
        if state.allows(referee, mark):
            return referee, mark
        seat = session.get(SEATS_KEY, {}).get(key)
        player = Audience(referee=False, seat=seat, language=language)
        return (
            (player, None) if isinstance(seat, int) and state.allows(player, None) else (None, None)
        )

    def _allows(self, state: State) -> bool:
        return state.allows(self.audience, self.mark)

    async def dispatch(self, message: dict) -> None:
        """Handle ``message`` without Channels' usual hop to a thread to close stale database
        connections first: a thread hop per socket per change, where every database call here
        goes through ``database_sync_to_async``, which closes them itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        if self.deferred_sync is not None:
            self.deferred_sync.cancel()
        if self.hub is not None:
            hub.leave(self.hub, self)
            self.hub = None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A browser may ask over the socket for a fresh snapshot (after it woke up or saw a
        gap) and ping it (its heartbeat); actions go through the views, which check CSRF.
        Anything else is ignored, without a word in the log."""
        if not text_data or len(text_data) > MAX_FRAME_CHARS:
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            return
        if isinstance(message, dict) and message.get("type") == "sync":
            seq = message.get("seq")
            # The number the page shows; a page that does not say gets a full snapshot.
            self.asked_seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else -1
            await self._sync_requested()
        elif isinstance(message, dict) and message.get("type") == "ping":
            await self._pong()

    async def _pong(self) -> None:
        """The heartbeat's answer, which tells the page its server is still there: no query,
        no render, and at most a few in a window, so a flood of pings costs next to nothing.
        An unanswered ping beyond that only makes a page that pings too often less sure."""
        now = self._now()
        if now - self.ping_window_start >= self.PING_WINDOW:
            self.ping_window_start, self.pings_in_window = now, 0
        self.pings_in_window += 1
        if self.pings_in_window <= self.PING_BURST:
            await self.send(text_data=self.PONG)

    async def _sync_requested(self) -> None:
        """An answer now for the first few requests in a window; later ones in the same
        window are coalesced into one snapshot at its end. A browser that asks too often still
        ends up current, and a script that asks thousands of times costs a render or two."""
        now = self._now()
        if now - self.sync_window_start >= self.SYNC_WINDOW:
            self.sync_window_start, self.syncs_in_window = now, 0
        self.syncs_in_window += 1
        if self.syncs_in_window <= self.SYNC_BURST:
            await self._answer_check()
        elif self.deferred_sync is None:
            delay = self.sync_window_start + self.SYNC_WINDOW - now
            self.deferred_sync = asyncio.ensure_future(self._sync_later(delay))

    async def _sync_later(self, delay: float) -> None:
        await self._wait(delay)
        # Through the consumer's own queue, so the render runs in turn with the others and a
        # snapshot never overtakes a newer one.
        await self.channel_layer.send(self.channel_name, {"type": "sync.deferred"})

    async def sync_deferred(self, event: dict) -> None:
        self.deferred_sync = None
        await self._answer_check()

    # Injectable for tests: the clock and the wait that ends a window.
    @staticmethod
    def _now() -> float:
        return time.monotonic()

    @staticmethod
    async def _wait(delay: float) -> None:
        await asyncio.sleep(delay)

    async def deliver(self, table: hub.TableHub) -> None:
        """The hub has new views: send this page what brings it to its own (called by the
        hub for every socket after each render; nothing if the page has it already)."""
        if table is not self.hub:
            return
        if table.gone:
            self.hub = None
            await self.close(code=4404)
            return
        view = table.views.get(self.audience)
        if view is None or view.seq <= self.sent_seq or not await self._still_allowed():
            return
        message = view.message(self.sent_seq)
        self.sent_seq = view.seq
        await self.send(text_data=message)

    async def _answer_check(self) -> None:
        """A page's check: the number alone when it shows the latest, else what it lacks
        (from the number it says it shows)."""
        if self.hub is None:
            return
        current = await self.hub.current_seq()
        if current is None:
            await self.close(code=4404)
            return
        self.sent_seq = self.asked_seq
        if self.asked_seq == current:
            view = await self.hub.view(self.audience, current)
            if view is not None and await self._still_allowed():
                await self.send(text_data=view.marker())
            return
        await self._catch_up(current)

    async def _catch_up(self, at_least: int) -> None:
        view = await self.hub.view(self.audience, at_least)
        if view is None:  # the encounter is gone
            await self.close(code=4404)
            return
        if not await self._still_allowed():
            return
        if view.seq == self.sent_seq:  # the page shows this already
            return
        message = view.message(self.sent_seq)
        self.sent_seq = view.seq
        await self.send(text_data=message)

    async def _still_allowed(self) -> bool:
        """Judged on every message from the state the hub loaded: a removed seat, or a
        referee link replaced since this browser opened it, ends the socket."""
        state = self.hub.state if self.hub is not None else None
        if state is None or self._allows(state):
            return True
        await self.close(code=4403 if self.audience.referee else 4404)
        return False


class DisplayConsumer(EncounterConsumer):
    """A table display's websocket: it sees what a player without a seat sees (the players'
    common view in its language: no render of its own), as long as its browser holds the
    current display link's mark. Only that mark counts here: a referee's browser showing
    the display on a projector shows it as the players see it."""

    def _who(self, state: State) -> tuple[Audience | None, str | None]:
        mark = self.scope["session"].get(DISPLAYS_KEY, {}).get(str(state.encounter.pk))
        if mark != display_mark(state.encounter):
            return None, None
        return Audience(referee=False, seat=None, language=language_of(self.scope)), mark

    def _allows(self, state: State) -> bool:
        # New links shut out displays opened with the old one.
        return self.mark == display_mark(state.encounter)


def _page_seq(scope: dict) -> int:
    """The sequence number the page was rendered at (``?seq=``), or -1 if it does not say."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("seq", [])
    return int(values[0]) if values and values[0].isdigit() and len(values[0]) < 20 else -1


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any websocket path Fray does not serve: accepted only to be closed with 4404, which a
    browser can read (a refused handshake looks like a dropped connection)."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=4404)
