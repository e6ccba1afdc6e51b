"""One process's share of the live table: its sockets per encounter, and their views.

A change is announced once per process, not once per socket: each hub listens on a channel
of its own that is the only member this process adds to the encounter's group. On an
announcement the hub loads the encounter once, renders it once per audience
(``combat.live.state.View``) and hands every socket its message itself, a plain send on the socket
with no channel-layer message and no task per socket. That is the whole cost a bare
``group_send`` has, plus one load and one render per audience.

Bursts coalesce without waiting: while a render is under way, the announcements that land
are only noted, and one more render afterwards covers them all. Other processes' changes are
rendered on one thread of their own; a change made here is rendered and sent by the request
that made it, before it draws its answer (``render_here``), and announced only if something
else could hear of it (``heard_alone``). On PostgreSQL a change comes with the table as it
left it, read in its own last statement (``live.keep_read``): the request renders from that,
and announces it with the change, so a worker whose state it follows renders it with no
load of its own, on the event loop as it lands (``_build_on_loop``). Renders take turns
(``RENDER_LOCK``), the fragment caches being shared; the last one's combatants serve this
process's requests at the same number (``rows_at``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from asgiref.sync import SyncToAsync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.core.exceptions import SynchronousOnlyOperation
from django.db import InterfaceError, OperationalError, connection

from combat import access
from combat.db.prepared import Read, reading
from combat.live.state import Audience, State, View, build_views, decoded, read_follows
from combat.models import Combatant, Encounter, Seat

logger = logging.getLogger(__name__)
Row = TypeVar("Row", Combatant, Seat)
Found = TypeVar("Found")

# A browser's check for missed changes reads the database's number at most this often.
CHECK_SECONDS = 1.0
# How long a hub whose last socket closed stays, state and views kept: a phone that wakes
# up and reconnects within it costs no load and no render.
LINGER_SECONDS = 30.0

# How long the request that made a change waits for it to be sent before drawing its answer.
SEND_WAIT_SECONDS = 0.25
# How long it waits for the change's announcement to other workers to leave, before it
# renders the change (``TableHub.announce``).
ANNOUNCE_WAIT_SECONDS = 0.05

# Renders, and the few reads the hub makes itself, on one thread with one database connection.
RENDER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fray-live")


class Socket(Protocol):
    audience: Audience

    async def deliver(self, hub: TableHub) -> None:
        """Send whatever brings the page to the hub's latest view."""


def group_of(encounter_id: int) -> str:
    return f"encounter-{encounter_id}"


@dataclass(eq=False)
class TableHub:
    """The sockets this process holds for one encounter, and the latest view of each
    audience they belong to."""

    encounter_id: int
    loop: asyncio.AbstractEventLoop | None = None
    sockets: set[Socket] = field(default_factory=set)
    views: dict[Audience, View] = field(default_factory=dict)
    state: State | None = None
    gone: bool = False
    # The newest number announced or asked for: the views are rendered until they reach it.
    wanted: int = -1
    pump: asyncio.Task[None] | None = None
    checked_at: float = float("-inf")
    channel: str | None = None
    started: asyncio.Future[None] | None = None
    listener: asyncio.Task[None] | None = None
    linger: asyncio.TimerHandle | None = None
    stopping: asyncio.Task[None] | None = None
    delivering: asyncio.Task[None] | None = None
    # The newest state rendered for this hub, on whichever thread: requests at its number
    # take the combatants from it (``rows_at``). Written under ``RENDER_LOCK``.
    latest: State | None = None
    claimed: int = -1  # the newest number a request renders for this hub (``claim_render``)
    # Audiences a socket asked for before it joined (its first view, on connect).
    asked: set[Audience] = field(default_factory=set)
    announcing: set[asyncio.Task[None]] = field(default_factory=set)  # see ``announce``
    # The newest change announced with the table as it left it: (number, ``live.encoded``).
    announced: tuple[int, str] | None = None

    # --- the announcements -------------------------------------------------------------

    async def start(self) -> None:
        """Listen for the encounter's announcements (once, however many connects ask)."""
        if self.started is None:
            self.started = asyncio.ensure_future(self._subscribe())
        await asyncio.shield(self.started)

    async def _subscribe(self) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        self.channel = await layer.new_channel()
        await layer.group_add(group_of(self.encounter_id), self.channel)
        self.listener = asyncio.ensure_future(self._listen(layer, self.channel))

    async def _listen(self, layer, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken layer connection: note it, and listen again
                logger.exception("live: the announcements of encounter %s", self.encounter_id)
                await asyncio.sleep(1.0)
                continue
            if message.get("type") == "encounter.changed":
                seq, rows = message.get("seq"), message.get("rows")
                self.changed(seq if isinstance(seq, int) else 0, rows)

    def changed(self, seq: int, rows: Any = None) -> None:
        """Encounter's number ``seq`` was committed: bring every socket to it. A lingering
        hub with no socket only notes it, and renders when a socket comes back; a change the
        request that made it renders here (``claim_render``) is left to that request.
        ``rows``: the table as the change left it, read with it (``live.encoded``)."""
        if isinstance(rows, str) and seq > self.wanted:
            self.announced = (seq, rows)
        self.wanted = max(self.wanted, seq)
        if seq <= self.claimed:
            return
        if self.sockets and (self.state is None or self.state.seq < self.wanted):
            self._kick()

    def announce(self, layer, group: str, message: dict) -> bool:
        """From a request's thread: ``message`` sent to ``group`` on this hub's event loop
        (a failure is logged), waited for until it has left, at most
        ``ANNOUNCE_WAIT_SECONDS``. False if the loop is closed.

        Waited for because the thread goes on to render the change, and the loop and the
        render share one interpreter lock: a render that asks the database nothing (it has
        the table as the change left it, ``live.keep_read``) held the lock for its whole
        length while other workers waited for the announcement. Until it has left, not
        until the channel layer has its answer: the sending's first step, up to its first
        wait, writes it (a publish to Redis waits for nothing before it writes), and the
        answer's trip back made this worker's own sockets the last to hear of the change."""

        def start() -> None:
            task = asyncio.ensure_future(layer.group_send(group, message))
            task.add_done_callback(_log_failure)
            self.announcing.add(task)  # kept until done: the loop holds tasks weakly
            task.add_done_callback(self.announcing.discard)
            task.add_done_callback(lambda _task: sent.set())
            # Scheduled after the task's first step: it runs once that step has waited.
            asyncio.get_running_loop().call_soon(sent.set)

        sent = threading.Event()
        loop = self.loop
        try:
            _to_loop(loop, start)
        except RuntimeError:  # closed meanwhile
            return False
        if loop.is_running() and not _on_loop(loop):
            sent.wait(ANNOUNCE_WAIT_SECONDS)
        return True

    def heard_alone(self, layer, group: str) -> bool:
        """From a request's thread: whether this hub is all that would hear an announcement
        to ``group``. So it is on the in-memory layer (one process, the embedded default)
        when no other channel is in the group: the change this hub renders need not go
        through the layer at all (a task, a copy of the message, a walk over every channel
        the layer holds, and the hub's turn to receive it)."""
        if not isinstance(layer, InMemoryChannelLayer) or self.channel is None:
            return False
        members = layer.groups.get(group)
        return members is not None and members.keys() == {self.channel}

    def unclaim(self, seq: int) -> None:
        """The request that claimed ``seq`` could not render it: the hub does."""
        if self.claimed == seq:
            self.claimed = -1
        self.changed(seq)

    # --- rendering and delivering -----------------------------------------------------

    def _behind(self) -> bool:
        if self.gone:
            return False
        if self.state is None or self.state.seq < self.wanted:
            return True
        return any(a not in self.views for a in self.asked) or any(
            socket.audience not in self.views for socket in self.sockets
        )

    def _kick(self) -> asyncio.Task[None]:
        if self.pump is None or self.pump.done():
            self.pump = asyncio.ensure_future(self._pump())
        return self.pump

    async def _pump(self) -> None:
        """Render and deliver until every socket has the newest view; announcements that
        land meanwhile are covered by the next round, one for all of them."""
        short = 0
        while True:
            await self._render()
            await self._deliver_all()
            if self.state is not None and self.state.seq < self.wanted:
                # Announced, but not yet in what this process reads (another process's
                # commit on its way): asked once more, then left to the next announcement
                # or the browsers' periodic check.
                short += 1
                if short > 1:
                    self.wanted = self.state.seq
            if not self._behind():
                return

    async def _render(self) -> None:
        # With no socket here (a lingering hub asked for its state), the audiences it had:
        # the socket coming back is most likely one of them.
        audiences = {socket.audience for socket in self.sockets} | self.asked or set(self.views)
        self.asked = set()
        # The table as the newest change left it, when it came with the announcement.
        announced, self.announced = self.announced, None
        rows = announced[1] if announced is not None and announced[0] == self.wanted else None
        built = _build_on_loop(self, audiences, self.wanted, rows) if rows else _ELSEWHERE
        if built is _ELSEWHERE:
            built = await render_in_thread(_build)(self, audiences, self.wanted, rows)
        self._install(built)

    def _install(self, built: tuple[State, dict[Audience, View]] | None) -> bool:
        """Keep what a render built, unless the views are newer already (a render that
        started before a change rendered where it was made). Whether they were kept."""
        if built is None:
            self.gone = True
            return True
        state, views = built
        if self.state is not None and state.seq < self.state.seq:
            return False
        self.state, self.views = state, views
        return True

    def adopt(
        self,
        built: tuple[State, dict[Audience, View]] | None,
        sent: threading.Event | None = None,
    ) -> None:
        """Views rendered by the request that made the change (``render_here``): delivered
        at once, before its announcement comes back through the channel layer; ``sent`` is
        set once every socket has been written to (or nothing was to be sent)."""
        if not self._install(built):
            if sent is not None:
                sent.set()
            return
        self.delivering = asyncio.ensure_future(self._deliver_all())
        if sent is not None:
            # The server queues a socket's message and writes it on the loop's next turn:
            # ``sent`` waits for that turn, or the request drawing its answer would compete
            # with the writes for the interpreter lock.
            loop = self.delivering.get_loop()
            self.delivering.add_done_callback(lambda _task: loop.call_soon(sent.set))

    async def _deliver_all(self) -> None:
        for socket in list(self.sockets):
            try:
                await socket.deliver(self)
            except Exception:  # one broken socket never keeps the others waiting
                logger.exception("live: delivering to a socket")

    async def view(self, audience: Audience, at_least: int = 0) -> View | None:
        """``audience``'s view at sequence number ``at_least`` or later (None: gone)."""
        for _attempt in range(3):
            view = self.views.get(audience)
            if self.gone or (view is not None and view.seq >= at_least):
                break
            self.wanted = max(self.wanted, at_least)
            self.asked.add(audience)
            await asyncio.shield(self._kick())
        return None if self.gone else self.views.get(audience)

    async def current_seq(self) -> int | None:
        """The encounter's number as the database has it now, read at most once a second
        however many browsers check (None: gone). A number newer than the views brings
        every socket up to it."""
        loop = asyncio.get_running_loop()
        if loop.time() - self.checked_at >= CHECK_SECONDS:
            self.checked_at = loop.time()
            seq = await render_in_thread(_seq_of)(self.encounter_id)
            if seq is None:
                self.gone = True
            elif self.state is None or seq > self.state.seq:
                self.wanted = max(self.wanted, seq)
                await asyncio.shield(self._kick())
        return None if self.gone or self.state is None else self.state.seq

    async def current_state(self) -> State | None:
        """The state as this process knows it, loaded first if it does not yet (or has heard
        of a newer one while no socket was here)."""
        if not self.gone and (self.state is None or self.state.seq < self.wanted):
            await asyncio.shield(self._kick())
        return None if self.gone else self.state

    # --- sockets coming and going -------------------------------------------------------

    def join(self, socket: Socket) -> TableHub:
        """Add ``socket``; returns the hub it joined (the registered one, if another connect
        made it first)."""
        hub = HUBS.get(self.encounter_id)
        if hub is None or hub.loop is not self.loop:
            hub = HUBS[self.encounter_id] = self
        if hub.linger is not None:
            hub.linger.cancel()
            hub.linger = None
        hub.sockets.add(socket)
        return hub

    def _linger(self) -> None:
        if self.linger is None and not self.sockets and self.loop is not None:
            self.linger = self.loop.call_later(LINGER_SECONDS, self._close_if_idle)

    def _close_if_idle(self) -> None:
        self.linger = None
        if self.sockets:
            return
        if HUBS.get(self.encounter_id) is self:
            del HUBS[self.encounter_id]
        self.stopping = asyncio.ensure_future(self._unsubscribe())

    async def _unsubscribe(self) -> None:
        if self.listener is not None:
            self.listener.cancel()
        layer = get_channel_layer()
        if self.started is not None and layer is not None:
            await asyncio.shield(self.started)
            if self.channel is not None:
                await layer.group_discard(group_of(self.encounter_id), self.channel)


# Rendering fills the fragment caches of ``combat.live.state``: one render at a time, whether on
# the render thread or in the request that made a change. Reentrant: a render that came to
# read the combatants through a viewer (``rows_at``) would otherwise wait for itself.
RENDER_LOCK = threading.RLock()


def _build(
    hub: TableHub,
    audiences: set[Audience],
    at_least: int,
    read: tuple[int | None, Read] | str | None = None,
) -> tuple[State, dict[Audience, View]] | None:
    """Every audience's view at number ``at_least`` or later: the state the hub has, when it
    is that recent (a socket of a new audience connecting), else loaded anew: from ``read``
    (the table as a change left it, read with it; or that read as announced) when it is
    what the load would ask, else from the database."""
    if isinstance(read, str):
        read = decoded(hub.encounter_id, read)
    with RENDER_LOCK:
        state = hub.state
        current = state is not None and state.seq >= at_least
        ahead = read is not None and _makes_views(hub, read, at_least)
        with reading(read[1]) if ahead else contextlib.nullcontext():
            built = build_views(hub.encounter_id, audiences, hub.views, state, current=current)
        if built is not None:
            if hub.latest is None or built[0].seq >= hub.latest.seq:
                hub.latest = built[0]
        return built


def _makes_views(hub: TableHub, read: tuple[int | None, Read], at_least: int) -> bool:
    """Whether ``read`` (the table as a change left it) is what ``hub`` loads to reach number
    ``at_least``: its state is older, and a load after it asks what the read holds."""
    state = hub.state
    if state is not None and state.seq >= at_least:  # current: no load
        return False
    return read_follows(read, state, hub.encounter_id)


_ELSEWHERE: Any = object()  # not built here: on the render thread, then


def _build_on_loop(
    hub: TableHub, audiences: set[Audience], at_least: int, rows: str
) -> tuple[State, dict[Audience, View]] | None:
    """``_build`` on the event loop, where an announcement lands: when the table as the
    change left it (``rows``) follows the hub's state, the render asks the database nothing,
    so it starts at once instead of after a turn of the render thread, and its views need no
    second turn to come back. ``_ELSEWHERE`` when the read does not follow the state, another
    render holds the caches, or the render asked the database after all (a row new since
    the last state: Django refuses a query on the loop)."""
    read = decoded(hub.encounter_id, rows)
    if read is None or not _makes_views(hub, read, at_least):
        return _ELSEWHERE
    if not RENDER_LOCK.acquire(blocking=False):  # never wait on the loop
        return _ELSEWHERE
    try:
        return _build(hub, audiences, at_least, read)
    except SynchronousOnlyOperation:
        return _ELSEWHERE
    finally:
        RENDER_LOCK.release()


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("live: announcing a change", exc_info=task.exception())


def copied(rows: list[Row]) -> list[Row]:
    """Instances of their own of ``rows``, as ``copy.copy`` makes them (each with a state and
    related objects' cache of its own): the rendered ones stay the hub's, reused by its next
    load."""
    copies = []
    for row in rows:
        copy_ = type(row).__new__(type(row))
        copy_.__dict__.update(row.__dict__)
        # What copy.copy does to the state, without its generic protocol (most of the time
        # of copying a table's rows, twice per request on a watched table).
        state = copy_._state = object.__new__(type(row._state))
        state.__dict__.update(row._state.__dict__)
        state.fields_cache = dict(row._state.fields_cache)
        copies.append(copy_)
    return copies


def rows_at(encounter: Encounter) -> list[Combatant] | None:
    """``encounter``'s combatants as this process last rendered them, when that was at the
    number ``encounter`` was read at (None: read them from the database).

    Every write to the table moves the encounter's number on, so the rows rendered at that
    number are the rows stored at it: a request on a watched table (a tap before a roll, the
    form after it) reads none of them again. Copies, so that the hub's stay its own; an
    action reads and locks the rows it changes, unless its change confirms the number
    (``encounter_as_rendered``)."""
    return _from_render(encounter, lambda state: copied(state.combatants))


def seat_at(encounter: Encounter, seat_id: int) -> tuple[Seat | None] | None:
    """Seat ``seat_id`` of ``encounter`` as this process last rendered it, as ``rows_at``
    reads the combatants: ``(seat,)``, ``(None,)`` when there is no such seat, None when it
    is not known here (read it from the database)."""

    def read(state: State) -> tuple[Seat | None]:
        seat = state.seats.get(seat_id)
        return (copied([seat])[0] if seat is not None else None,)

    return _from_render(encounter, read)


def encounter_as_rendered(slug: str) -> Encounter | None:
    """Encounter ``slug`` as this process last rendered it, on a table it shows live (a
    socket on it keeps its hub hearing every change): a copy marked ``as_rendered``, which a
    change made on it confirms (``Encounter.moved_to``); None when it is not known here."""
    for hub in list(HUBS.values()):
        state = hub.latest
        if state is None or state.encounter.slug != slug or not hub.sockets:
            continue
        with RENDER_LOCK:  # as ``_from_render`` reads it: no render half done
            encounter = copied([(hub.latest or state).encounter])[0]  # (it only moves on)
        encounter.as_rendered = True
        return encounter
    return None


def _from_render(encounter: Encounter, read: Callable[[State], Found]) -> Found | None:
    """What ``read`` finds in the state this process last rendered ``encounter`` at, when
    that is the number ``encounter`` was read at (None: not known here)."""
    hub = HUBS.get(encounter.pk)
    if hub is None:
        return None
    with RENDER_LOCK:
        state = hub.latest
        if state is None or state.seq != encounter.seq or state.encounter.slug != encounter.slug:
            return None
        return read(state)


def claim_render(encounter_id: int, seq: int) -> TableHub | None:
    """In the thread that has just committed change ``seq``: whether it renders the change
    for this process's sockets (``render_here``), said to the hub before the announcement
    goes out, so the hub does not render it again when the announcement comes back."""
    hub = HUBS.get(encounter_id)
    loop = hub.loop if hub is not None else None
    if hub is None or loop is None or loop.is_closed() or not hub.sockets:
        return None
    latest = hub.latest
    if latest is not None and latest.seq >= seq:  # of the same commit, rendered with the first
        return None
    hub.claimed = max(hub.claimed, seq)
    return hub


def render_here(hub: TableHub, seq: int, read: tuple[int | None, Read] | None = None) -> None:
    """In the thread that has just committed a change (and claimed it): render it for this
    process's sockets on the encounter, hand the views to its hub to send, and wait until
    they are sent.

    The change then goes out as soon as it is rendered, instead of after the announcement's
    trip through the channel layer and a turn on the render thread. The request draws its
    own answer only then: the event loop writing to the sockets and a thread drawing HTML
    share one interpreter lock, so drawing it meanwhile would only slow the broadcast down.
    Never fails the request: on any error the hub renders the change itself, as it would
    any other process's."""
    loop = hub.loop
    try:
        audiences = {socket.audience for socket in list(hub.sockets)}
        built = _build(hub, audiences, seq, read)
    except Exception:
        logger.exception("live: rendering encounter %s where it changed", hub.encounter_id)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody to tell
            _to_loop(loop, hub.unclaim, seq)
        return
    sent = threading.Event()
    try:
        _to_loop(loop, hub.adopt, built, sent)
    except RuntimeError:  # the loop closed meanwhile: nobody to send to
        return
    if loop.is_running() and not _on_loop(loop):
        sent.wait(SEND_WAIT_SECONDS)


def _to_loop(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    """``callback(*args)`` on ``loop``, from a request's thread, in a context of its own: what
    it starts (sending, rendering) outlives the request, whose thread-sensitive context
    (``combat.site.handler``) refuses thread-sensitive calls once the request has ended."""
    loop.call_soon_threadsafe(callback, *args, context=contextvars.Context())


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def render_in_thread(func):
    """``func`` run on the render thread, on a database connection of the thread's own that
    stays open between renders (one per process; opening one for every render cost more
    than the render's queries on PostgreSQL). A connection found broken (the database
    restarted) is opened again, once; ``func`` only reads, so running it again is safe."""

    def with_connection(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (InterfaceError, OperationalError):
            connection.close()
            return func(*args, **kwargs)

    return SyncToAsync(with_connection, thread_sensitive=False, executor=RENDER_THREAD)


def _seq_of(encounter_id: int) -> int | None:
    return Encounter.objects.filter(pk=encounter_id).values_list("seq", flat=True).first()


HUBS: dict[int, TableHub] = {}
# Which encounter a socket's path names, remembered: a connect asks the database nothing once
# its table is known here (a removed encounter is noticed when its state is loaded).
SLUGS: dict[str, int] = {}
SLUGS_KEPT = 10_000


async def table_for(slug: str) -> TableHub | None:
    """The hub of the encounter ``slug`` names, listening (None: no such encounter)."""
    encounter_id = SLUGS.get(slug)
    if encounter_id is None:
        encounter_id = await render_in_thread(_id_of)(slug)
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
    # Listening before the state is loaded: a change committed in between is not missed.
    await hub.start()
    return hub


def _id_of(slug: str) -> int | None:
    return Encounter.objects.filter(slug=slug).values_list("pk", flat=True).first()


def leave(hub: TableHub, socket: Socket | None = None) -> None:
    """``socket`` is gone (or never joined: a refused connect); a hub with no socket left
    lingers a while, then stops listening and is forgotten, views and all."""
    if socket is not None:
        hub.sockets.discard(socket)
    if not hub.sockets:
        hub._linger()


# The table as this process renders it, lent to the request's reads below (combat.access).
access.RENDERED.rows_at = rows_at
access.RENDERED.seat_at = seat_at
access.RENDERED.encounter_as_rendered = encounter_as_rendered
