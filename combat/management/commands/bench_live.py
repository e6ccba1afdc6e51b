"""``manage.py bench_live``: how fast a change reaches every browser at the table, and its cost.

Not a test: it prints figures, so the live part's targets are shown, never asserted by timing
in the test suite. The target: every change appears on every connected browser within a
second, for a referee and up to about eight players (run it with ``--players 29`` too, thirty
sockets, to show the headroom).

By default it measures in this process, through the real ASGI application
(``combat.asgi.application``): the referee and the players get their sessions from Django's
test Client, their websockets are opened on the application like a browser's, and each change
is a POST an htmx page would send (a referee's damage, a player's attack with an entered die).
The latency of a change runs from the POST's start until every socket has received the
snapshot that carries the change's sequence number.

``--real-server`` starts ``manage.py host`` on a free local port and does the same over real
TCP: HTTP through ``urllib`` (CSRF token and session cookies as a browser keeps them) and a
minimal websocket client on ``asyncio`` streams, so no dependency is added.

It never touches your database: it re-runs itself with a temporary ``FRAY_DATA_DIR`` (a fresh
SQLite file) or, when ``DATABASE_URL`` names PostgreSQL, a scratch database it creates and
drops. ``--use-current-db`` runs against the configured database instead, and deletes the
encounter it made when done.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import http.cookiejar
import math
import os
import platform
import re
import secrets
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.http.request import validate_host
from django.urls import reverse

TARGET_MS = 1000.0
LANGUAGES = ("en", "cs", "ru", "uk")  # players cycle through them; the referee reads English
MONSTER_HP = 500  # enough that a long run never kills them all
RECEIVE_TIMEOUT = 10.0  # a socket that gets nothing this long is counted as missing the change
_LIVE_SEQ = re.compile(r"<[^>]*\bid=\"live-seq\"[^>]*>")
_DATA_SEQ = re.compile(r"\bdata-seq=\"(\d+)\"")
_JOIN_LINK = re.compile(r"/join/([A-Za-z0-9_-]+)/")
_SERVER_READY = re.compile(r"On this machine: http://localhost:(\d+)/")
_WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def snapshot_seq(message: str) -> int | None:
    """The sequence number in a snapshot: the ``data-seq`` of its ``#live-seq`` fragment."""
    tag = _LIVE_SEQ.search(message)
    if tag is None:
        return None
    value = _DATA_SEQ.search(tag.group(0))
    return int(value.group(1)) if value else None


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 50 values is the 48th smallest)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def peak_rss_bytes(pid: int | None = None) -> int | None:
    """Peak resident memory of this process (``getrusage``) or of ``pid`` (Linux ``/proc``)."""
    if pid is not None:
        try:
            status = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
        except OSError:
            return None
        match = re.search(r"^VmHWM:\s+(\d+)\s+kB", status, re.MULTILINE)
        return int(match.group(1)) * 1024 if match else None
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _mb(size: int | None) -> str:
    return "n/a" if size is None else f"{size / 2**20:.1f} MB"


def _kb(size: float) -> str:
    return f"{size / 1000:.1f} kB"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# --------------------------------------------------------------------------- browsers


class Socket(Protocol):
    async def receive(self, timeout: float) -> str: ...
    async def close(self) -> None: ...


class Browser(Protocol):
    """One person at the table: pages and POSTs (sync) and a websocket (async)."""

    label: str
    language: str

    def get(self, path: str) -> tuple[int, str]: ...
    def post(self, path: str, data: dict[str, Any]) -> tuple[int, str]: ...
    async def apost(self, path: str, data: dict[str, Any]) -> tuple[int, str]: ...
    async def open_socket(self, path: str, timeout: float) -> tuple[Socket, str]: ...


def _client_host() -> str:
    """A host name the running settings accept, for test-Client requests and the Origin."""
    allowed = list(settings.ALLOWED_HOSTS)
    for candidate in ("localhost", "127.0.0.1", "testserver", *allowed):
        if candidate and candidate != "*" and not candidate.startswith("."):
            if validate_host(candidate, allowed):
                return candidate
    raise CommandError("ALLOWED_HOSTS accepts no plain host name to benchmark with")


class CommunicatorSocket:
    def __init__(self, communicator: Any) -> None:
        self.communicator = communicator

    async def receive(self, timeout: float) -> str:
        return await self.communicator.receive_from(timeout=timeout)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.communicator.disconnect()


class ClientBrowser:
    """A browser inside this process: Django's test Client and a websocket communicator on
    the ASGI application. POSTs from the event loop run on the one thread the consumers' DB
    work uses too, as sync views and consumers share one thread under Daphne."""

    def __init__(self, label: str, language: str, host: str) -> None:
        from django.test import Client

        self.label, self.language, self.host = label, language, host
        self.client = Client(HTTP_HOST=host, HTTP_ACCEPT_LANGUAGE=language)
        self.client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        self._apost = sync_to_async(self.post)

    def get(self, path: str) -> tuple[int, str]:
        response = self.client.get(path)
        return response.status_code, response.content.decode()

    def post(self, path: str, data: dict[str, Any]) -> tuple[int, str]:
        response = self.client.post(path, data, headers={"HX-Request": "true"})
        return response.status_code, response.content.decode()

    async def apost(self, path: str, data: dict[str, Any]) -> tuple[int, str]:
        return await self._apost(path, data)

    async def open_socket(self, path: str, timeout: float) -> tuple[Socket, str]:
        from channels.testing import WebsocketCommunicator

        from combat.asgi import application

        cookies = "; ".join(
            f"{name}={morsel.value}" for name, morsel in self.client.cookies.items()
        )
        headers = [
            (b"origin", f"http://{self.host}".encode()),
            (b"host", self.host.encode()),
            (b"cookie", cookies.encode()),
            (b"accept-language", self.language.encode()),
        ]
        communicator = WebsocketCommunicator(application, path, headers=headers)
        connected, code = await communicator.connect(timeout=timeout)
        if not connected:
            raise CommandError(f"{self.label}: the websocket was refused ({code})")
        socket_ = CommunicatorSocket(communicator)
        return socket_, await socket_.receive(timeout)


class RawWebSocket:
    """Just enough of RFC 6455 for a client: the handshake, text frames (fragmented or not),
    ping, and close. Frames to the server are masked, as the RFC requires of clients."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(
        cls, host: str, port: int, path: str, headers: dict[str, str], timeout: float
    ) -> RawWebSocket:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Version: 13",
            f"Sec-WebSocket-Key: {key}",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)).decode("latin-1")
        status, *header_lines = head.split("\r\n")
        if " 101 " not in f"{status} ":
            writer.close()
            raise CommandError(f"websocket handshake refused: {status}")
        received = {
            name.strip().lower(): value.strip()
            for name, _sep, value in (line.partition(":") for line in header_lines if line)
        }
        expected = base64.b64encode(hashlib.sha1(key.encode() + _WS_GUID).digest()).decode()
        if received.get("sec-websocket-accept") != expected:
            writer.close()
            raise CommandError("websocket handshake: wrong Sec-WebSocket-Accept")
        return cls(reader, writer)

    async def receive(self, timeout: float) -> str:
        return await asyncio.wait_for(self._message(), timeout)

    async def _message(self) -> str:
        parts: list[bytes] = []
        while True:
            first, second = await self.reader.readexactly(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            mask = await self.reader.readexactly(4) if second & 0x80 else b""
            payload = await self.reader.readexactly(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("the server closed the websocket")
            if opcode == 0x9:
                await self._send(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            parts.append(payload)
            if first & 0x80:
                return b"".join(parts).decode("utf-8")

    async def _send(self, opcode: int, payload: bytes) -> None:
        mask = secrets.token_bytes(4)
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 2**16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(header + mask + masked)
        await self.writer.drain()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._send(0x8, struct.pack("!H", 1000))
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2)


class HttpBrowser:
    """A browser talking to a real server: a cookie jar, CSRF tokens as a page carries them,
    and htmx's ``HX-Request`` header on POSTs."""

    def __init__(self, label: str, language: str, host: str, port: int) -> None:
        self.label, self.language, self.host, self.port = label, language, host, port
        self.base = f"http://{host}:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def _open(self, request: urllib.request.Request) -> tuple[int, str]:
        request.add_header("Accept-Language", self.language)
        try:
            with self.opener.open(request, timeout=RECEIVE_TIMEOUT) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def get(self, path: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, data: dict[str, Any], htmx: bool = True) -> tuple[int, str]:
        token = self.cookie(settings.CSRF_COOKIE_NAME)
        if token is None:
            raise CommandError(f"{self.label}: no CSRF cookie yet (GET a form first)")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(self.base + path, data=body, method="POST")
        if htmx:
            request.add_header("HX-Request", "true")
        return self._open(request)

    async def apost(self, path: str, data: dict[str, Any]) -> tuple[int, str]:
        return await asyncio.to_thread(self.post, path, data)

    async def open_socket(self, path: str, timeout: float) -> tuple[Socket, str]:
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        headers = {
            "Origin": self.base,
            "Cookie": cookies,
            "Accept-Language": self.language,
        }
        socket_ = await RawWebSocket.open(self.host, self.port, path, headers, timeout)
        return socket_, await socket_.receive(timeout)


# --------------------------------------------------------------------------- the table


@dataclass
class Table:
    """The encounter, who sits at it, and what the changes act on."""

    encounter: Any
    referee: Browser
    players: list[Browser]
    characters: list[int]  # the combatant each player controls, in the players' order
    targets: list[int]  # the visible monsters attacks and damage go to
    monsters: int
    hidden: int

    @property
    def browsers(self) -> list[Browser]:
        return [self.referee, *self.players]

    def url(self, name: str) -> str:
        return reverse(name, args=[self.encounter.slug])

    def change(self, index: int) -> tuple[str, Browser, str, dict[str, Any]]:
        """The ``index``-th change: a referee's damage, then a player's attack, in turn."""
        turn = index // 2
        target = self.targets[turn % len(self.targets)]
        if index % 2 == 0:
            data = {"actor": target, "action": "damage", "amount": 1}
            return "damage", self.referee, self.url("hit_points"), data
        player = turn % len(self.players)
        data = {
            "actor": self.characters[player],
            "target": target,
            "mode": "melee",
            "natural": 15,
            "damage": "1d6",
            "damage_dice": "3",
        }
        return "attack", self.players[player], self.url("attack"), data


def _character_values(name: str) -> dict[str, Any]:
    from combat.models import Kind, Side

    return dict(
        name=name,
        side=Side.PARTY,
        kind=Kind.CHARACTER,
        ac=4,
        hp_max=20,
        hp=20,
        thac0=17,
        save_death=10,
        save_wands=11,
        save_paralysis=12,
        save_breath=13,
        save_spells=14,
        str_score=13,
        dex_score=9,
    )


def _monster_values(name: str, hidden: bool) -> dict[str, Any]:
    from combat.models import Kind, Side

    return dict(
        name=name,
        side=Side.FOES,
        kind=Kind.MONSTER,
        ac=6,
        hp_max=MONSTER_HP,
        hp=MONSTER_HP,
        hit_dice="1-1",
        thac0=19,
        save_death=12,
        save_wands=13,
        save_paralysis=14,
        save_breath=15,
        save_spells=16,
        hidden=hidden,
    )


def _add_combatants(encounter: Any, seats: Sequence[Any], monsters: int) -> tuple[list, list, int]:
    """A character for every seat and ``monsters`` foes, the last one hidden when there are
    several (so the player snapshots really are filtered)."""
    from combat.models import Combatant

    characters = [
        Combatant.objects.create(encounter=encounter, seat=seat, **_character_values(f"Hero {n}"))
        for n, seat in enumerate(seats, start=1)
    ]
    hidden = 1 if monsters > 1 else 0
    foes = [
        Combatant.objects.create(
            encounter=encounter, **_monster_values(f"Goblin {n}", n > monsters - hidden)
        )
        for n in range(1, monsters + 1)
    ]
    targets = [foe.pk for foe in foes if not foe.hidden]
    return [c.pk for c in characters], targets, hidden


def build_table_in_process(players: int, monsters: int) -> Table:
    """The encounter written with the ORM; the referee and players get their sessions the way
    browsers do, through the referee link and the join form."""
    from combat.models import Encounter, Seat

    host = _client_host()
    encounter = Encounter.objects.create(name="bench_live table")
    referee = ClientBrowser("referee", "en", host)
    status, _ = referee.get(reverse("referee_link", args=[encounter.referee_key]))
    if status != 302:
        raise CommandError(f"the referee link answered {status}")
    browsers, seats = [], []
    for n in range(1, players + 1):
        browser = ClientBrowser(f"player {n}", LANGUAGES[(n - 1) % len(LANGUAGES)], host)
        response = browser.client.post(
            reverse("join", args=[encounter.join_token]), {"name": f"Player {n}"}
        )
        if response.status_code != 302:
            raise CommandError(f"joining answered {response.status_code}")
        browsers.append(browser)
        seats.append(Seat.objects.get(encounter=encounter, name=f"Player {n}"))
    characters, targets, hidden = _add_combatants(encounter, seats, monsters)
    return Table(encounter, referee, browsers, characters, targets, monsters, hidden)


def build_table_over_http(host: str, port: int, players: int, monsters: int) -> Table:
    """The encounter created and joined over HTTP like a browser would; the combatants are
    written straight to the database the server shares (filling in forms adds nothing)."""
    from combat.models import Encounter, Seat

    referee = HttpBrowser("referee", "en", host, port)
    referee.get("/")  # the form sets the CSRF cookie
    status, page = referee.post(
        "/", {"name": "bench_live table", "system": "ose", "attack_method": "matrix"}, htmx=False
    )
    if status != 200 or not (match := _JOIN_LINK.search(page)):
        raise CommandError(f"creating the encounter over HTTP failed ({status})")
    token = match.group(1)
    encounter = Encounter.objects.get(join_token=token)
    browsers, seats = [], []
    for n in range(1, players + 1):
        browser = HttpBrowser(f"player {n}", LANGUAGES[(n - 1) % len(LANGUAGES)], host, port)
        browser.get(f"/join/{token}/")
        status, _ = browser.post(f"/join/{token}/", {"name": f"Player {n}"}, htmx=False)
        if status != 200:
            raise CommandError(f"joining over HTTP answered {status}")
        browsers.append(browser)
        seats.append(Seat.objects.get(encounter=encounter, name=f"Player {n}"))
    characters, targets, hidden = _add_combatants(encounter, seats, monsters)
    return Table(encounter, referee, browsers, characters, targets, monsters, hidden)


# --------------------------------------------------------------------------- measuring


@dataclass
class Result:
    sockets: int = 0
    changes: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, one per change
    first_arrivals: list[float] = field(default_factory=list)  # the first socket to hear
    posts_in_run: list[float] = field(default_factory=list)
    posts_alone: dict[str, list[float]] = field(default_factory=dict)
    pages: dict[str, tuple[list[float], int]] = field(default_factory=dict)
    renders: dict[str, tuple[list[float], int]] = field(default_factory=dict)
    message_bytes: dict[str, list[int]] = field(default_factory=dict)
    connect_times: list[float] = field(default_factory=list)
    log_entries: int = 0  # in the encounter's log at the end (the live page shows the newest)
    run_wall: float = 0.0  # the timed changes: wall-clock seconds,
    run_cpu: float = 0.0  # CPU seconds of this process,
    server_cpu: float | None = None  # and of the server process (real-server mode)
    delivered: int = 0  # snapshots that carried exactly the change's sequence number
    missing: list[str] = field(default_factory=list)

    @property
    def expected(self) -> int:
        return self.sockets * self.changes

    @property
    def complete(self) -> bool:
        return self.delivered == self.expected and not self.missing


def _role(browser: Browser) -> str:
    return "referee" if browser.label == "referee" else "player"


def _checked(label: str, status: int, body: str) -> None:
    if status >= 400:
        raise CommandError(f"{label} answered {status}: {body[:300]}")


async def _time_pages(table: Table, samples: int, result: Result) -> None:
    path = table.url("encounter")
    for browser in (table.referee, table.players[0]):
        times, size = [], 0
        for attempt in range(samples + 1):  # the first one warms the template cache, untimed
            start = time.perf_counter()
            status, body = await _run_sync(browser, browser.get, path)
            elapsed = time.perf_counter() - start
            _checked(f"{browser.label}'s encounter page", status, body)
            if attempt:
                times.append(elapsed)
            size = len(body.encode())
        result.pages[_role(browser)] = (times, size)


async def _run_sync(browser: Browser, func: Callable, *args: Any) -> Any:
    """Run blocking work the way its transport would: the in-process client on the shared
    sync thread (as the server runs views), an HTTP client in a thread of its own."""
    if isinstance(browser, ClientBrowser):
        return await sync_to_async(func)(*args)
    return await asyncio.to_thread(func, *args)


async def _time_posts_alone(table: Table, samples: int, result: Result) -> int:
    """POSTs with no socket open: what a change costs before anyone is told. Returns the
    number of changes made (they count as the log's history)."""
    made = 0
    for index in range(2 * samples):
        kind, browser, path, data = table.change(index)
        start = time.perf_counter()
        status, body = await browser.apost(path, data)
        result.posts_alone.setdefault(kind, []).append(time.perf_counter() - start)
        _checked(f"{browser.label}'s {kind}", status, body)
        made += 1
    return made


async def _await_seq(
    socket_: Socket, role: str, expected: int, timeout: float, result: Result
) -> tuple[float | None, str]:
    """When ``socket_`` received the snapshot carrying ``expected`` (None if it did not),
    and what went wrong otherwise."""
    deadline = time.perf_counter() + timeout
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None, f"nothing within {timeout:.0f} s"
        try:
            message = await socket_.receive(remaining)
        except (TimeoutError, ConnectionError, AssertionError) as error:
            return None, f"socket failed: {type(error).__name__}"
        arrived = time.perf_counter()
        seq = snapshot_seq(message)
        if seq is None or seq < expected:
            continue  # not a snapshot, or an older one still on its way
        result.message_bytes.setdefault(role, []).append(len(message.encode()))
        if seq == expected:
            result.delivered += 1
            return arrived, ""
        # A later snapshot shows this change too, but this change's own message was lost.
        return arrived, f"got seq {seq} instead of {expected}"


async def _dead(label: str) -> tuple[None, str]:
    return None, f"{label}'s socket had already failed"


async def _current_seq(table: Table) -> int:
    from channels.db import database_sync_to_async

    from combat.models import Encounter

    get = database_sync_to_async(
        lambda: Encounter.objects.values_list("seq", flat=True).get(pk=table.encounter.pk)
    )
    return await get()


async def _run_changes(
    table: Table, changes: int, first_index: int, timeout: float, result: Result
) -> None:
    sockets: list[tuple[Browser, Socket]] = []
    dead: set[Browser] = set()
    path = f"/ws/e/{table.encounter.slug}/"
    try:
        for browser in table.browsers:
            start = time.perf_counter()
            socket_, first = await browser.open_socket(path, timeout)
            result.connect_times.append(time.perf_counter() - start)
            sockets.append((browser, socket_))
            if snapshot_seq(first) is None:
                raise CommandError(f"{browser.label}: the first message was not a snapshot")
        result.sockets = len(sockets)
        seq = await _current_seq(table)
        for index in range(first_index, first_index + changes):
            kind, browser, url, data = table.change(index)
            expected = seq + 1
            waits = [
                _dead(b.label) if b in dead else _await_seq(s, _role(b), expected, timeout, result)
                for b, s in sockets
            ]
            start = time.perf_counter()

            async def post(browser: Browser = browser, url: str = url, data: dict = data):
                response = await browser.apost(url, data)
                return response, time.perf_counter()

            ((status, body), posted), *arrivals = await asyncio.gather(post(), *waits)
            _checked(f"{browser.label}'s {kind}", status, body)
            result.posts_in_run.append(posted - start)
            result.changes += 1
            for (who, _socket), (arrived, problem) in zip(sockets, arrivals, strict=True):
                if problem:
                    result.missing.append(
                        f"change {result.changes} ({kind}), {who.label}: {problem}"
                    )
                if arrived is None:
                    dead.add(who)  # a failed communicator cannot receive again
            got = [arrived for arrived, _problem in arrivals if arrived is not None]
            if got:
                result.latencies.append(max(got) - start)
                result.first_arrivals.append(min(got) - start)
            seq = await _current_seq(table)
            if seq != expected:
                raise CommandError(f"the {kind} moved the sequence to {seq}, not {expected}")
    finally:
        for _browser, socket_ in sockets:
            await socket_.close()


def _time_renders(table: Table, samples: int, result: Result) -> None:
    """The consumer's work for one message, per viewer: load the encounter, filter, render."""
    from combat.access import Viewer
    from combat.live import render_snapshot
    from combat.models import Encounter, Seat

    encounter = Encounter.objects.get(pk=table.encounter.pk)
    result.log_entries = encounter.log.count()
    seat = Seat.objects.filter(encounter=encounter).order_by("created", "pk").first()
    viewers = {
        "referee": (Viewer(encounter, is_referee=True, seat=None), table.referee.language),
        "player": (Viewer(encounter, is_referee=False, seat=seat), table.players[0].language),
    }
    for role, (viewer, language) in viewers.items():
        render_snapshot(viewer, language)  # warm
        times, size = [], 0
        for _ in range(samples):
            start = time.perf_counter()
            _seq, html = render_snapshot(viewer, language)
            times.append(time.perf_counter() - start)
            size = len(html.encode())
        result.renders[role] = (times, size)


def process_cpu_seconds(pid: int | None = None) -> float | None:
    """CPU time (user + system) of this process, or of ``pid`` (Linux ``/proc``)."""
    if pid is None:
        return time.process_time()
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure(
    table: Table, changes: int, samples: int, timeout: float, server_pid: int | None = None
) -> Result:
    from django.db import connections

    result = Result()
    try:
        await _time_pages(table, samples, result)
        made = await _time_posts_alone(table, samples, result)
        wall, cpu = time.perf_counter(), process_cpu_seconds()
        server_cpu = process_cpu_seconds(server_pid) if server_pid else None
        await _run_changes(table, changes, made, timeout, result)
        result.run_wall = time.perf_counter() - wall
        result.run_cpu = time.process_time() - cpu
        if server_cpu is not None and (after := process_cpu_seconds(server_pid)) is not None:
            result.server_cpu = after - server_cpu
        await sync_to_async(_time_renders)(table, samples, result)
    finally:
        # Leave no connection open on the shared sync thread (a test database must drop).
        await sync_to_async(connections.close_all)()
    return result


# --------------------------------------------------------------------------- reporting


def _database_line() -> str:
    vendor = connection.vendor
    name = settings.DATABASES["default"]["NAME"]
    if vendor == "sqlite":
        import sqlite3

        return f"database: sqlite {sqlite3.sqlite_version} ({name})"
    if vendor == "postgresql":
        connection.ensure_connection()
        version = connection.pg_version
        return f"database: postgresql {version // 10000}.{version % 10000} ({name})"
    return f"database: {vendor} ({name})"


def _channel_layer_line() -> str:
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "none")
    return f"channel layer: {backend}"


def _stats(values: Sequence[float]) -> str:
    if not values:
        return "no samples"
    return (
        f"p50 {_ms(statistics.median(values))}, p95 {_ms(percentile(values, 0.95))}, "
        f"max {_ms(max(values))}"
    )


def write_report(
    write: Callable[[str], None],
    *,
    mode: str,
    table: Table,
    result: Result,
    server_rss: int | None = None,
) -> None:
    players = len(table.players)
    write(
        f"table: 1 referee + {players} players = {players + 1} sockets; {players} characters, "
        f"{table.monsters} monsters ({table.hidden} hidden); {result.changes} changes timed"
    )
    for role, (times, size) in result.pages.items():
        write(f"encounter page, {role}: {_stats(times)}; {_kb(size)}")
    alone = ", ".join(
        f"{kind} p50 {_ms(statistics.median(times))}" for kind, times in result.posts_alone.items()
    )
    write(f"one POST alone (no socket open): {alone}")
    shown = min(result.log_entries, settings.FRAY_LOG_PAGE)
    write(
        f"roll log: {result.log_entries} entries, the newest {shown} in every snapshot "
        f"(FRAY_LOG_PAGE {settings.FRAY_LOG_PAGE})"
    )
    for role, (times, size) in result.renders.items():
        write(f"snapshot render, {role}: {_stats(times)}; {_kb(size)}")
    for role, sizes in result.message_bytes.items():
        write(
            f"bytes per snapshot, {role}: mean {_kb(statistics.mean(sizes))}, max {_kb(max(sizes))}"
        )
    if mode == "real server":
        write("  (snapshot renders timed in the benchmark process: the same code, same database)")
    write(f"socket open + first snapshot: {_stats(result.connect_times)}")
    write(f"POST during the run: {_stats(result.posts_in_run)}")
    write(f"change on the first socket: {_stats(result.first_arrivals)}")
    write(f"change on every socket: {_stats(result.latencies)}")
    if result.changes:
        cpu = f"CPU during the timed changes: this process {result.run_cpu:.2f} s"
        if result.server_cpu is not None:
            cpu += f", server {result.server_cpu:.2f} s"
        per_change = (result.run_cpu + (result.server_cpu or 0.0)) / result.changes
        write(
            f"{cpu}, in {result.run_wall:.2f} s wall; {_ms(per_change)} CPU per change "
            "(CPU well below wall time means other work shared the machine)"
        )
    write(
        f"delivered: {result.delivered}/{result.expected} snapshots with the change's sequence "
        f"number, {len(result.missing)} missing"
    )
    for missing in result.missing[:10]:
        write(f"  missing: {missing}")
    worst = max(result.latencies, default=math.inf) * 1000
    met = result.complete and worst <= TARGET_MS
    write(
        f"target (every change on every socket within {TARGET_MS:.0f} ms): "
        f"{'met' if met else 'NOT met'} (worst {worst:.1f} ms)"
    )
    write(f"peak RSS, benchmark process ({mode}): {_mb(peak_rss_bytes())}")
    if server_rss is not None or mode == "real server":
        write(f"peak RSS, server process: {_mb(server_rss)}")


def _header(write: Callable[[str], None], mode: str) -> None:
    write(f"Fray live benchmark: {mode}")
    try:
        load = f", load average {os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # not on every platform
        load = ""
    write(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs{load}, "
        f"Python {platform.python_version()}, Django {django.get_version()}"
    )
    write(_database_line())
    write(_channel_layer_line())


def _delete(table: Table | None) -> None:
    if table is not None:
        from combat.models import Encounter

        Encounter.objects.filter(pk=table.encounter.pk).delete()


def run_in_process(
    *,
    players: int,
    monsters: int,
    changes: int,
    samples: int,
    write: Callable[[str], None],
    timeout: float = RECEIVE_TIMEOUT,
) -> Result:
    """The benchmark through the ASGI application in this process, on the configured
    database; the encounter it makes is deleted at the end."""
    mode = "in-process (combat.asgi.application; POSTs by Django's test Client)"
    _header(write, mode)
    table = None
    try:
        table = build_table_in_process(players, monsters)
        result = asyncio.run(_measure(table, changes, samples, timeout))
        write_report(write, mode="in-process", table=table, result=result)
        return result
    finally:
        _delete(table)


# --------------------------------------------------------------------------- real server


class Server:
    """``manage.py host`` on a free local port, in its own process."""

    def __init__(self, startup_timeout: float = 60.0) -> None:
        self.log = tempfile.TemporaryFile()
        command = [
            sys.executable,
            str(Path(settings.BASE_DIR) / "manage.py"),
            "host",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
        ]
        env = os.environ | {"PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env
        )
        self.port = self._wait_ready(startup_timeout)
        # Keep reading, so a chatty server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_ready(self, timeout: float) -> int:
        found: list[int] = []

        def read() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                if match := _SERVER_READY.search(line):
                    found.append(int(match.group(1)))
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if not found:
            self.stop()
            self.log.seek(0)
            tail = self.log.read()[-2000:].decode(errors="replace")
            raise CommandError(f"manage.py host did not start:\n{tail}")
        return found[0]

    def _drain(self) -> None:
        with contextlib.suppress(Exception):
            assert self.process.stdout is not None
            for _line in self.process.stdout:
                pass

    def peak_rss(self) -> int | None:
        return peak_rss_bytes(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def run_real_server(
    *,
    players: int,
    monsters: int,
    changes: int,
    samples: int,
    write: Callable[[str], None],
    timeout: float = RECEIVE_TIMEOUT,
) -> Result:
    """The benchmark against ``manage.py host`` over TCP, on the configured database."""
    mode = "real server (manage.py host, Daphne; urllib and raw websockets over TCP)"
    _header(write, mode)
    server = Server()
    table = None
    try:
        write(f"server: http://127.0.0.1:{server.port}/ (pid {server.process.pid})")
        table = build_table_over_http("127.0.0.1", server.port, players, monsters)
        result = asyncio.run(_measure(table, changes, samples, timeout, server.process.pid))
        rss = server.peak_rss()
        write_report(write, mode="real server", table=table, result=result, server_rss=rss)
        return result
    finally:
        _delete(table)
        server.stop()


# --------------------------------------------------------------------------- throwaway data


@contextlib.contextmanager
def scratch_postgres() -> Any:
    """A scratch PostgreSQL database next to the configured one; yields its URL, then drops
    it. Only the database created here is ever dropped."""
    import psycopg
    from psycopg import sql

    db = settings.DATABASES["default"]
    params = {
        "dbname": db["NAME"],
        "user": db["USER"] or None,
        "password": db["PASSWORD"] or None,
        "host": db["HOST"] or None,
        "port": db["PORT"] or None,
        "autocommit": True,
    }
    params = {key: value for key, value in params.items() if value is not None}
    name = f"fray_bench_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(**params) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        parts = urllib.parse.urlsplit(settings.DATABASE_URL)
        yield parts._replace(path="/" + urllib.parse.quote(name)).geturl()
    finally:
        with psycopg.connect(**params) as admin:
            force = " WITH (FORCE)" if admin.info.server_version >= 130000 else ""
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {}" + force).format(sql.Identifier(name))
            )


class Command(BaseCommand):
    help = (
        "Measure how fast a change reaches every connected browser (p50/p95/max), what a POST, "
        "a snapshot and a page cost, and peak memory. Uses a throwaway database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=8, help="seated players (default 8)")
        parser.add_argument("--monsters", type=int, default=6, help="foes (default 6)")
        parser.add_argument("--changes", type=int, default=50, help="changes timed (default 50)")
        parser.add_argument(
            "--samples",
            type=int,
            default=10,
            help="repeats for page, POST-alone and render timings (default 10)",
        )
        parser.add_argument(
            "--real-server",
            action="store_true",
            help="start `manage.py host` and measure over real HTTP and websockets",
        )
        parser.add_argument(
            "--use-current-db",
            action="store_true",
            help="run on the configured database (the encounter made is deleted afterwards)",
        )
        # Internal: the re-run on a throwaway database migrates it first.
        parser.add_argument("--fresh-db", action="store_true", help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("players", "monsters", "changes", "samples"):
            if not 1 <= options[name] <= 500:
                raise CommandError(f"--{name} must be between 1 and 500")
        if not options["use_current_db"]:
            self._rerun_on_throwaway_data(options)
            return
        if options["fresh_db"]:
            call_command("migrate", interactive=False, verbosity=0)
        run = run_real_server if options["real_server"] else run_in_process
        result = run(
            players=options["players"],
            monsters=options["monsters"],
            changes=options["changes"],
            samples=options["samples"],
            write=self.stdout.write,
        )
        self.stdout.flush()
        if not result.complete:
            raise CommandError("some socket missed a change (see 'missing' above)")

    def _rerun_on_throwaway_data(self, options: dict[str, Any]) -> None:
        arguments = [
            sys.executable,
            str(Path(settings.BASE_DIR) / "manage.py"),
            "bench_live",
            "--use-current-db",
            "--fresh-db",
            *(f"--{name}={options[name]}" for name in ("players", "monsters", "changes")),
            f"--samples={options['samples']}",
            *(["--real-server"] if options["real_server"] else []),
        ]
        with tempfile.TemporaryDirectory(prefix="fray-bench-") as data_dir:
            env = dict(os.environ)
            # A *_FILE variant would win over the value set here; the re-run must not see it.
            for name in ("FRAY_DATA_DIR_FILE", "DATABASE_URL_FILE"):
                env.pop(name, None)
            env["FRAY_DATA_DIR"] = data_dir
            env["PYTHONUNBUFFERED"] = "1"
            with contextlib.ExitStack() as stack:
                if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
                    env["DATABASE_URL"] = stack.enter_context(scratch_postgres())
                else:
                    env.pop("DATABASE_URL", None)
                self.stdout.flush()
                completed = subprocess.run(arguments, env=env, check=False)
        if completed.returncode != 0:
            raise CommandError(f"the benchmark run failed (exit status {completed.returncode})")


__all__ = [
    "Command",
    "RawWebSocket",
    "Result",
    "percentile",
    "run_in_process",
    "run_real_server",
    "snapshot_seq",
]
