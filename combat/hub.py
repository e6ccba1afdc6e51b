"""One process's share of the live table: its sockets per encounter, and their views.

Every socket of an encounter receives the change's announcement from the channel layer, but
only the first to ask makes this process load the encounter and render its views; the others
wait for that render and get the same messages (``combat.live.View``). Announcements that land
within a few milliseconds of each other are rendered once: a busy table sends one message per
audience for a burst, not one per change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from channels.db import database_sync_to_async

from .live import Audience, State, View, build_views
from .models import Encounter

# How long a render waits for more changes to arrive before it loads the state.
COALESCE_SECONDS = 0.005
# A browser's check for missed changes reads the database's number at most this often.
CHECK_SECONDS = 1.0


class Socket(Protocol):
    audience: Audience


@dataclass
class TableHub:
    """The sockets this process holds for one encounter, and the latest view of each
    audience they belong to."""

    encounter_id: int
    loop: asyncio.AbstractEventLoop | None = None
    sockets: set[Socket] = field(default_factory=set)
    views: dict[Audience, View] = field(default_factory=dict)
    state: State | None = None
    gone: bool = False
    render_task: asyncio.Task[None] | None = None
    checked_at: float = float("-inf")

    async def view(self, audience: Audience, at_least: int = 0) -> View | None:
        """``audience``'s view at sequence number ``at_least`` or later (None: gone)."""
        for _attempt in range(3):
            view = self.views.get(audience)
            if self.gone or (view is not None and view.seq >= at_least):
                break
            await self.refresh()
        return None if self.gone else self.views.get(audience)

    async def refresh(self) -> None:
        """Load the state and build the views again, once for everyone who asks meanwhile."""
        if self.render_task is None or self.render_task.done():
            self.render_task = asyncio.ensure_future(self._render())
        await asyncio.shield(self.render_task)

    async def _render(self) -> None:
        await asyncio.sleep(COALESCE_SECONDS)
        audiences = {socket.audience for socket in self.sockets}
        built = await database_sync_to_async(build_views)(self.encounter_id, audiences, self.views)
        if built is None:
            self.gone = True
            return
        self.state, views = built
        self.views = views

    async def current_seq(self) -> int | None:
        """The encounter's number as the database has it now, read at most once a second
        however many browsers check (None: gone)."""
        loop = asyncio.get_running_loop()
        if loop.time() - self.checked_at >= CHECK_SECONDS:
            self.checked_at = loop.time()
            seq = await database_sync_to_async(_seq_of)(self.encounter_id)
            if seq is None:
                self.gone = True
            elif self.state is None or seq > self.state.seq:
                await self.refresh()
        return None if self.gone or self.state is None else self.state.seq

    async def current_state(self) -> State | None:
        """The state as this process knows it, loaded first if it does not yet."""
        if self.state is None and not self.gone:
            await self.refresh()
        return None if self.gone else self.state

    def join(self, socket: Socket) -> TableHub:
        """Add ``socket``; returns the hub it joined (the registered one, if another connect
        made it first)."""
        hub = HUBS.get(self.encounter_id)
        if hub is None or hub.loop is not self.loop:
            hub = HUBS[self.encounter_id] = self
        hub.sockets.add(socket)
        return hub


def _seq_of(encounter_id: int) -> int | None:
    return Encounter.objects.filter(pk=encounter_id).values_list("seq", flat=True).first()


HUBS: dict[int, TableHub] = {}
# Which encounter a socket's path names, remembered: a connect asks the database nothing once
# its table is known here (a removed encounter is noticed when its state is loaded).
SLUGS: dict[str, int] = {}
SLUGS_KEPT = 10_000


async def table_for(slug: str) -> TableHub | None:
    """The hub of the encounter ``slug`` names (None: no such encounter)."""
    encounter_id = SLUGS.get(slug)
    if encounter_id is None:
        encounter_id = await database_sync_to_async(_id_of)(slug)
        if encounter_id is None:
            return None
        if len(SLUGS) >= SLUGS_KEPT:
            SLUGS.clear()
        SLUGS[slug] = encounter_id
    hub = HUBS.get(encounter_id)
    loop = asyncio.get_running_loop()
    if hub is None or hub.loop is not loop:  # a server (or a test) with a new event loop
        # Registered at once, so sockets connecting together share its first render.
        hub = HUBS[encounter_id] = TableHub(encounter_id, loop=loop)
    return hub


def _id_of(slug: str) -> int | None:
    return Encounter.objects.filter(slug=slug).values_list("pk", flat=True).first()


def leave(hub: TableHub, socket: Socket | None = None) -> None:
    """``socket`` is gone (or never joined: a refused connect); a hub with no socket left is
    forgotten, views and all."""
    if socket is not None:
        hub.sockets.discard(socket)
    if not hub.sockets and HUBS.get(hub.encounter_id) is hub:
        del HUBS[hub.encounter_id]
