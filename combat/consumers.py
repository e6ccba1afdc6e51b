"""The encounter's websocket: joins its group and sends each viewer their own snapshot."""

from __future__ import annotations

import asyncio
import json
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header

from .access import Viewer, viewer_of
from .live import render_snapshot

# The one message a browser sends is {"type": "sync"}; anything longer is not from our page,
# and is dropped before parsing (deeply nested JSON would exhaust the parser's recursion).
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

    async def connect(self) -> None:
        self.group = None
        self.sync_window_start = float("-inf")
        self.syncs_in_window = 0
        self.deferred_sync: asyncio.Future[None] | None = None
        viewer = await self._viewer()
        if viewer is None:
            # Accept, then close with a code the page can read: a refused handshake looks
            # like a dropped connection (1006), which the browser would retry for ever.
            await self.accept()
            await self.close(code=4403)
            return
        self.group = viewer.encounter.group_name
        self.language = language_of(self.scope)
        self.sent_seq = -1
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._send_snapshot()

    async def disconnect(self, code: int) -> None:
        if self.deferred_sync is not None:
            self.deferred_sync.cancel()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The only thing a browser may ask over the socket is a fresh snapshot (after it
        woke up or saw a gap); actions go through the views, which check CSRF. Anything
        else is ignored, without a word in the log."""
        if not text_data or len(text_data) > MAX_FRAME_CHARS:
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            return
        if isinstance(message, dict) and message.get("type") == "sync":
            await self._sync_requested()

    async def _sync_requested(self) -> None:
        """A snapshot now for the first few requests in a window; later ones in the same
        window are coalesced into one snapshot at its end. A browser that asks too often still
        ends up current, and a script that asks thousands of times costs a render or two."""
        now = self._now()
        if now - self.sync_window_start >= self.SYNC_WINDOW:
            self.sync_window_start, self.syncs_in_window = now, 0
        self.syncs_in_window += 1
        if self.syncs_in_window <= self.SYNC_BURST:
            await self._send_snapshot()
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
        await self._send_snapshot()

    # Injectable for tests: the clock and the wait that ends a window.
    @staticmethod
    def _now() -> float:
        return time.monotonic()

    @staticmethod
    async def _wait(delay: float) -> None:
        await asyncio.sleep(delay)

    async def encounter_changed(self, event: dict) -> None:
        # Changes in a burst: a snapshot already sent shows this one too, so skip the render.
        if event.get("seq", 0) > self.sent_seq:
            await self._send_snapshot()

    async def _send_snapshot(self) -> None:
        snapshot = await self._render()
        if snapshot is None:  # the encounter is gone, or this browser lost its seat
            await self.close(code=4404)
            return
        self.sent_seq, html = snapshot
        await self.send(text_data=html)

    @database_sync_to_async
    def _viewer(self) -> Viewer | None:
        return _load_viewer(self.scope)

    @database_sync_to_async
    def _render(self) -> tuple[int, str] | None:
        # The role is judged again on every message: a removed seat stops receiving.
        viewer = _load_viewer(self.scope)
        if viewer is None:
            return None
        return render_snapshot(viewer, self.language)


def _load_viewer(scope: dict) -> Viewer | None:
    return viewer_of(scope["session"], scope["url_route"]["kwargs"]["slug"])


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any websocket path Fray does not serve: accepted only to be closed with 4404, which a
    browser can read (a refused handshake looks like a dropped connection)."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=4404)
