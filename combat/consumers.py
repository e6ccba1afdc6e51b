"""The encounter's websocket: joins its group and sends each viewer their own snapshot."""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header

from .access import Viewer, viewer_of
from .live import render_snapshot


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
    async def connect(self) -> None:
        self.group = None
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
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The only thing a browser may ask over the socket is a fresh snapshot (after it
        woke up or saw a gap); actions go through the views, which check CSRF."""
        try:
            message = json.loads(text_data or "")
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "sync":
            await self._send_snapshot()

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
