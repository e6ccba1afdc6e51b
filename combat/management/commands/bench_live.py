"""``manage.py bench_live``: how fast a change reaches every browser, next to a bare broadcast.

Run by hand; the tests only check the shape of its output, with tiny numbers::

    uv run manage.py bench_live --real-server --players 10,50,200
    uv run manage.py bench_live --real-server --tables 20 --players 6
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        uv run manage.py bench_live --real-server --players 10,50,200 --scale-out

Everything is measured against real servers (``manage.py serve``: Daphne, one process each)
over real TCP, from this process: HTTP/1.1 with keep-alive and raw websockets on ``asyncio``
streams, cookies and CSRF tokens as a browser keeps them.

- Fan-out, for each N in ``--players``: N sockets on one encounter, a referee and N-1 seated
  players (at most ``--max-seats`` seats; beyond that a player has several tabs open). A Fray
  change is a POST (a referee's damage, a player's attack, in turn); its latency runs from the
  POST's start until every socket has a message with its sequence number or a later one. Each
  Fray round alternates with a bare round: a Channels ``group_send`` in the same server
  (``combat/live/bench_socket.py``) of a message of Fray's average size to N other sockets, from a
  frame on one of them until every one has it. CPU per change is the servers' CPU time over
  each round. A third kind of round in the same turn, request+bare, is the bare broadcast
  started the way Fray's changes are: the referee's browser POSTs (its cookies, CSRF token,
  kept connection and htmx header) to a bench-only view that goes through every middleware
  and only ``group_send``s the same message, from the POST until every socket has it. Fray
  over bare is the issue's ratio; Fray over request+bare leaves out what any web request costs.
  Noise on a shared machine hits every kind of round alike.
- Connects: the N sockets opened at once by pages that are behind (``?seq=0``), so each needs
  a full snapshot; the time until the last has it, and the errors.
- First load: a player's and the referee's encounter page with everything it references, as
  the server sends it to a browser that accepts gzip and br.
- ``--tables T``: T encounters with a referee and ``--players`` players each, changes on all
  at once at rising total rates; the highest rate at which every change still reached every
  socket of its table within 100 ms p99.
- ``--scale-out``: after the embedded layer (SQLite, in-memory channel layer, one process),
  the same on PostgreSQL + Redis with two workers (sockets split between them, POSTs to the
  first), in the same run so that the two compare under the same conditions.

It never touches your data: the servers run on a temporary ``FRAY_DATA_DIR`` (a fresh SQLite
file) or on a scratch PostgreSQL database created next to ``DATABASE_URL``'s and dropped after.
``--profile`` runs the servers under cProfile and adds, per N, where their CPU went in each kind
of round (the rounds then run in two blocks, and every figure carries the profiler's cost).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import contextlib
import ctypes
import dataclasses
import gzip
import hashlib
import itertools
import json
import math
import os
import platform
import random
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
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from combat.models import Combatant, Encounter, Kind, Side

LANGUAGES = ("en", "cs", "ru", "uk")  # players cycle through them; the referee reads English
MONSTER_HP = 500  # enough that a long run never kills them all
TIMEOUT = 10.0  # a socket that gets nothing this long after a change has missed it
GAP = 0.02  # idle time after each round, inside its CPU reading: trailing work counts too
TABLE_TARGET = 0.100  # --tables: every socket served within this, p99
_LIVE_SEQ = re.compile(r"<[^>]*\bid=\"live-seq\"[^>]*>")
_DATA_SEQ = re.compile(r"\bdata-seq=\"(\d+)\"")
_WORKER_READY = re.compile(r"listening on http://127\.0\.0\.1:(\d+)/")
_ASSET = re.compile(r"<(?:link|script|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)")
_WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def snapshot_seq(message: str) -> int | None:
    """The sequence number a message brings a page to: ``data-seq`` of its ``#live-seq``."""
    tag = _LIVE_SEQ.search(message)
    if tag is None:
        return None
    value = _DATA_SEQ.search(tag.group(0))
    return int(value.group(1)) if value else None


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p99 of 100 values is the 99th smallest)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _kb(size: float) -> str:
    return f"{size / 1000:.1f} KB"


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "no samples"
    return (
        f"p50 {_ms(statistics.median(values))} p99 {_ms(percentile(values, 0.99))} "
        f"max {_ms(max(values))}"
    )


# --------------------------------------------------------------------------- CPU time


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of ``pid`` and all its threads, in clock ticks (``/proc``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_clock(pid: int) -> Callable[[], float]:
    """A function reading ``pid``'s CPU time: its kernel CPU clock (nanoseconds, every thread,
    living or ended) when the C library offers it, else ``/proc`` in 10 ms ticks."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        clock = ctypes.c_int()
        if ctypes.CDLL(None).clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
            clock_id = clock.value
            time.clock_gettime(clock_id)
            return lambda: time.clock_gettime(clock_id)
    return lambda: process_cpu_seconds(pid) or 0.0


# --------------------------------------------------------------------------- HTTP


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]  # names in lower case, in the order sent
    body: bytes
    wire: int  # bytes received for it: status line, headers and body as sent

    def header(self, name: str) -> str | None:
        return next((value for key, value in reversed(self.headers) if key == name), None)

    def text(self) -> str:
        body, encoding = self.body, self.header("content-encoding") or "identity"
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "br":  # a server that sends br has the package: it is in this venv
            import brotli  # type: ignore[import-not-found]

            body = brotli.decompress(body)
        return body.decode(errors="replace")


class HttpConnection:
    """One HTTP/1.1 keep-alive connection, as a browser holds one per server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> Response:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines += [f"Content-Length: {len(body)}"] if method == "POST" else []
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, *header_lines = head.decode("latin-1").split("\r\n")
        received = [
            (name.strip().lower(), value.strip())
            for name, _sep, value in (line.partition(":") for line in header_lines if line)
        ]
        # Daphne sends every answer Fray makes with its length; none is chunked.
        length = dict(received).get("content-length")
        content = await (self.reader.readexactly(int(length)) if length else self.reader.read())
        if not length or dict(received).get("connection", "").lower() == "close":
            self.close()
        return Response(int(status.split()[1]), received, content, len(head) + len(content))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Browser:
    """One person's browser: cookies, a kept connection per server, CSRF tokens as a page
    carries them, htmx's header on actions."""

    def __init__(self, label: str, language: str) -> None:
        self.label, self.language = label, language
        self.cookies: dict[str, str] = {}
        self.connections: dict[int, HttpConnection] = {}

    def headers(self, port: int) -> dict[str, str]:
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        return {
            "Accept-Language": self.language,
            "Accept-Encoding": "gzip, br",
            **({"Cookie": cookie} if cookie else {}),
        }

    async def request(
        self,
        port: int,
        method: str,
        path: str,
        data: dict[str, Any] | None = None,
        htmx: bool = False,
        connection: HttpConnection | None = None,
    ) -> Response:
        headers = self.headers(port)
        body = b""
        if data is not None:
            token = self.cookies.get(settings.CSRF_COOKIE_NAME)
            if token is None:
                raise CommandError(f"{self.label}: no CSRF cookie yet (GET a form first)")
            body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://127.0.0.1:{port}"
        if htmx:
            headers["HX-Request"] = "true"
        if connection is None:
            connection = self.connections.setdefault(port, HttpConnection(port))
        response = await connection.request(method, path, headers, body)
        for name, value in response.headers:
            if name == "set-cookie":
                cookie, _sep, attributes = value.partition(";")
                key, _sep, content = cookie.strip().partition("=")
                if "max-age=0" in attributes.lower().replace(" ", ""):
                    self.cookies.pop(key, None)
                else:
                    self.cookies[key] = content
        return response

    async def post(self, port: int, path: str, data: dict[str, Any]) -> Response:
        """An htmx action, with the one-time key every action form carries."""
        response = await self.request(
            port, "POST", path, {**data, "once": secrets.token_urlsafe(16)}, htmx=True
        )
        if response.status >= 400:
            raise CommandError(f"{self.label}: POST {path} answered {response.status}")
        return response

    def socket_headers(self, port: int) -> dict[str, str]:
        return {**self.headers(port), "Origin": f"http://127.0.0.1:{port}"}

    def close(self) -> None:
        for kept in self.connections.values():
            kept.close()


# --------------------------------------------------------------------------- websockets


class RawWebSocket:
    """Just enough of RFC 6455 for a client: the handshake, text frames (fragmented or not),
    ping, and close. Frames to the server are masked, as the RFC requires of clients."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, path: str, headers: dict[str, str]) -> RawWebSocket:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Version: 13",
            f"Sec-WebSocket-Key: {key}",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status, *header_lines = head.split("\r\n")
        received = {
            name.strip().lower(): value.strip()
            for name, _sep, value in (line.partition(":") for line in header_lines if line)
        }
        expected = base64.b64encode(hashlib.sha1(key.encode() + _WS_GUID).digest()).decode()
        if " 101 " not in f"{status} " or received.get("sec-websocket-accept") != expected:
            writer.close()
            raise ConnectionError(f"websocket handshake refused: {status}")
        return cls(reader, writer)

    async def receive(self, timeout: float) -> str:
        return (await asyncio.wait_for(self.next_message(), timeout)).decode()

    async def next_message(self) -> bytes:
        parts: list[bytes] = []
        while True:
            first, second = await self.reader.readexactly(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(length)  # a server never masks
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                raise ConnectionError(f"closed by the server ({code})")
            if opcode == 0x9:
                await self._send(0xA, payload)
            elif opcode != 0xA:
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts)

    async def send_text(self, text: str) -> None:
        await self._send(0x1, text.encode())

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


class Listener:
    """Reads one socket for as long as it is open, noting when each message arrived."""

    def __init__(
        self, socket_: RawWebSocket, crowd: Crowd, role: str, first: bytes | None = None
    ) -> None:
        self.socket, self.crowd, self.role = socket_, crowd, role
        self.latest = -1
        self.times: list[float] = []  # arrivals of messages that raised the number,
        self.seqs: list[int] = []  # and the number each brought
        self.sizes: list[tuple[int, int]] = []  # every message: its number, its bytes
        self.error: str | None = None
        crowd.listeners.append(self)
        if first is not None:
            self._heard(first, time.perf_counter())
        self.task = asyncio.ensure_future(self._listen())

    async def _listen(self) -> None:
        try:
            while True:
                message = await self.socket.next_message()
                self._heard(message, time.perf_counter())
        except (ConnectionError, OSError, asyncio.IncompleteReadError) as error:
            self.error = str(error) or type(error).__name__
            self.crowd.lost(self)

    def _heard(self, message: bytes, when: float) -> None:
        # Fray's messages start with the marker; the bare ones were made to start alike.
        seq = snapshot_seq(message[:200].decode(errors="replace"))
        if seq is None:
            seq = snapshot_seq(message.decode(errors="replace"))
        if seq is None:
            return
        self.sizes.append((seq, len(message)))
        if seq > self.latest:
            previous, self.latest = self.latest, seq
            self.times.append(when)
            self.seqs.append(seq)
            self.crowd.heard(previous, seq)

    def arrival(self, seq: int) -> float | None:
        """When this socket first had ``seq`` or a later number (None: not yet)."""
        index = bisect.bisect_left(self.seqs, seq)
        return self.times[index] if index < len(self.times) else None

    async def close(self) -> None:
        self.task.cancel()
        await self.socket.close()


class Crowd:
    """The sockets that should all hear the same changes: one table's, or a bare group's."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []
        self.target = 0
        self.waiting = 0
        self.done = asyncio.Event()

    def expect(self, seq: int) -> None:
        self.target = seq
        self.waiting = sum(1 for s in self.listeners if s.latest < seq and s.error is None)
        self.done = asyncio.Event()
        if not self.waiting:
            self.done.set()

    def heard(self, previous: int, seq: int) -> None:
        if previous < self.target <= seq:
            self._one_less()

    def lost(self, listener: Listener) -> None:
        if listener.latest < self.target:
            self._one_less()

    def _one_less(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.done.set()

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.done.wait(), timeout)

    def latency(self, seq: int, start: float) -> tuple[float | None, float | None, int]:
        """Since ``start``: until the first socket and until every socket had ``seq``, and
        how many sockets did not."""
        arrivals = [s.arrival(seq) for s in self.listeners]
        got = [when for when in arrivals if when is not None]
        missing = len(arrivals) - len(got)
        if not got:
            return None, None, missing
        return min(got) - start, max(got) - start, missing

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.listeners))


@dataclass
class Connects:
    sockets: int = 0
    last: float = 0.0  # from the first attempt until the last socket had its first state
    times: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# Where a socket goes: its server's port, its path, its headers, and whose it is.
SocketSpec = tuple[int, str, dict[str, str], str]


async def open_crowd(crowd: Crowd, sockets: Sequence[SocketSpec], first_state: bool) -> Connects:
    """Opens every socket at once; with ``first_state``, each counts as open once its first
    message came (what a page that is behind waits for)."""
    figures = Connects(sockets=len(sockets))
    start = time.perf_counter()

    async def one(port: int, path: str, headers: dict[str, str], role: str) -> None:
        try:
            socket_ = await asyncio.wait_for(RawWebSocket.open(port, path, headers), TIMEOUT)
            first = await asyncio.wait_for(socket_.next_message(), TIMEOUT) if first_state else None
        except (OSError, ConnectionError, TimeoutError, asyncio.IncompleteReadError) as error:
            figures.errors.append(str(error) or type(error).__name__)
            return
        figures.times.append(time.perf_counter() - start)
        Listener(socket_, crowd, role, first)

    await asyncio.gather(*(one(*socket_) for socket_ in sockets))
    figures.last = max(figures.times, default=0.0)
    return figures


# --------------------------------------------------------------------------- servers


class Worker:
    """``manage.py serve`` on a free local port: one Daphne process with the bench socket."""

    def __init__(self, profile: bool) -> None:
        env = os.environ | {"PYTHONUNBUFFERED": "1", "FRAY_BENCH": "1"}
        if profile:
            env["FRAY_BENCH_PROFILE"] = "1"
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        command = [sys.executable, manage, "serve", "--port", "0", "--bind", "127.0.0.1"]
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env
        )
        self.port = 0
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self.cpu = cpu_clock(self.process.pid)

    def _read(self) -> None:
        assert self.process.stdout is not None
        with contextlib.suppress(Exception):
            for line in self.process.stdout:  # read on, so a full pipe never blocks the server
                if not self.port and (match := _WORKER_READY.search(line)):
                    self.port = int(match.group(1))
                    self.ready.set()
        self.ready.set()

    def wait_ready(self, timeout: float = 60.0) -> None:
        if not self.ready.wait(timeout) or not self.port:
            self.stop()
            self.log.seek(0)
            tail = self.log.read()[-2000:].decode(errors="replace")
            raise CommandError(f"manage.py serve did not start:\n{tail}")

    def errors(self) -> str:
        """The server's log from its first traceback on, if it wrote one."""
        self.log.seek(0)
        text = self.log.read().decode(errors="replace")
        return text[text.find("Exception inside") :] if "Traceback" in text else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def servers_cpu(workers: Sequence[Worker]) -> float:
    return sum(worker.cpu() for worker in workers)


# --------------------------------------------------------------------------- tables


@dataclass
class Table:
    """An encounter, who sits at it, and what changes act on."""

    slug: str
    seq: int
    referee: Browser
    players: list[Browser]
    characters: list[int]  # the combatant each player controls, in the players' order
    targets: list[int]  # the visible monsters attacks and damage go to

    def change(self, index: int) -> tuple[Browser, str, dict[str, Any]]:
        """The ``index``-th change: a referee's damage, then a player's attack, in turn."""
        turn = index // 2
        target = self.targets[turn % len(self.targets)]
        if index % 2 == 0 or not self.players:
            data = {"actor": target, "action": "damage", "amount": 1}
            return self.referee, f"/e/{self.slug}/hit-points/", data
        player = turn % len(self.players)
        data = {
            "actor": self.characters[player],
            "target": target,
            "mode": "melee",
            "natural": 15,
            "damage": "1d6",
            "damage_dice": "3",
        }
        return self.players[player], f"/e/{self.slug}/attack/", data

    def sockets(self, count: int, ports: Sequence[int]) -> list[SocketSpec]:
        """``count`` sockets of pages that are behind: the referee's, then the players' in
        turn (a player with several tabs past the seats), spread over the servers."""
        chosen = [self.referee] + [self.players[i % len(self.players)] for i in range(count - 1)]
        path = f"/ws/e/{self.slug}/?seq=0"
        return [
            (port, path, b.socket_headers(port), "referee" if b is self.referee else "players")
            for b, port in zip(chosen, itertools.cycle(ports), strict=False)
        ]

    def close(self) -> None:
        for browser in (self.referee, *self.players):
            browser.close()


SAVES = dict(save_death=10, save_wands=11, save_paralysis=12, save_breath=13, save_spells=14)
HERO = dict(side=Side.PARTY, kind=Kind.CHARACTER, ac=4, hp_max=20, hp=20, thac0=17, **SAVES)
GOBLIN = dict(side=Side.FOES, kind=Kind.MONSTER, ac=6, hp_max=MONSTER_HP, hp=MONSTER_HP, **SAVES)
GOBLIN |= dict(hit_dice="1-1", thac0=19)


def _add_combatants(encounter_id: int, monsters: int) -> tuple[list[int], list[int], int]:
    """A character for every seat and ``monsters`` foes, the last one hidden when there are
    several (so that the players' views really are filtered)."""
    encounter = Encounter.objects.get(pk=encounter_id)
    make = Combatant.objects.create
    seats = encounter.seats.order_by("pk")
    heroes = [make(encounter=encounter, seat=s, name=f"Hero {s.pk}", **HERO).pk for s in seats]
    foes = [
        make(encounter=encounter, name=f"Goblin {n}", hidden=1 < n == monsters, **GOBLIN)
        for n in range(1, monsters + 1)
    ]
    encounter.bump()  # one more number, so that a page at ?seq=0 is surely behind
    return heroes, [foe.pk for foe in foes if not foe.hidden], encounter.seq


async def build_table(port: int, players: int, monsters: int, name: str) -> Table:
    """An encounter written with the ORM; the referee and the players get their sessions as
    browsers do, through the referee link and the join form, over HTTP."""
    encounter = await sync_to_async(Encounter.objects.create)(name=name)
    referee = Browser("referee", "en")
    await referee.request(port, "GET", f"/r/{encounter.referee_key}/")
    if (await referee.request(port, "GET", f"/e/{encounter.slug}/")).status != 200:
        raise CommandError("the referee link gave no encounter page")

    async def join(n: int) -> Browser:
        browser = Browser(f"player {n}", LANGUAGES[(n - 1) % len(LANGUAGES)])
        await browser.request(port, "GET", f"/join/{encounter.join_token}/")
        data = {"name": f"Player {n}", "once": secrets.token_urlsafe(16)}
        answer = await browser.request(port, "POST", f"/join/{encounter.join_token}/", data)
        if answer.status != 302:
            raise CommandError(f"joining answered {answer.status}")
        return browser

    # Joined in turn, so that the seats' order (by pk) is the players' order.
    browsers = [await join(n) for n in range(1, players + 1)]
    characters, targets, seq = await sync_to_async(_add_combatants)(encounter.pk, monsters)
    return Table(encounter.slug, seq, referee, browsers, characters, targets)


async def _read_seq(table: Table) -> int:
    get = sync_to_async(
        lambda: Encounter.objects.values_list("seq", flat=True).get(slug=table.slug)
    )
    return await get()


async def fray_change(table: Table, crowd: Crowd, index: int, port: int) -> tuple[float, float]:
    """One change, POSTed; once every socket has it (or the wait gave up), returns when it
    started and when the POST was answered."""
    browser, path, data = table.change(index)
    table.seq += 1
    crowd.expect(table.seq)
    start = time.perf_counter()
    await browser.post(port, path, data)
    answered = time.perf_counter()
    await crowd.wait(TIMEOUT)
    return start, answered


# --------------------------------------------------------------------------- fan-out


@dataclass
class Fanout:
    """One N: Fray's latencies and the bare broadcast's, side by side (seconds)."""

    n: int
    seats: int
    sockets: int = 0  # Fray's that opened; the bare broadcast gets as many
    fray: list[float] = field(default_factory=list)  # from the POST until every socket had it
    bare: list[float] = field(default_factory=list)  # from the frame until every socket had it
    fray_spread: list[float] = field(default_factory=list)  # from the first socket to the last
    bare_spread: list[float] = field(default_factory=list)
    # request+bare: from a plain POST that group_sends the bare message until every socket had it
    request: list[float] = field(default_factory=list)
    request_spread: list[float] = field(default_factory=list)
    request_posts: list[float] = field(default_factory=list)  # until that POST's answer
    posts: list[float] = field(default_factory=list)  # until the POST's answer
    alone: list[float] = field(default_factory=list)  # the same, no socket open
    fray_cpu: float = 0.0  # server CPU over all Fray rounds
    bare_cpu: float = 0.0
    request_cpu: float = 0.0
    alone_cpu: float = 0.0
    client_cpu: float = 0.0  # this process, every kind of round
    size: int = 0  # bytes of each bare message: Fray's mean in the warm-up
    fray_sizes: dict[str, float] = field(default_factory=dict)  # mean bytes per message
    missing_fray: int = 0
    missing_bare: int = 0
    missing_request: int = 0
    connects: Connects = field(default_factory=Connects)

    @property
    def fray_cpu_per_change(self) -> float:
        return self.fray_cpu / max(1, len(self.posts))

    @property
    def bare_cpu_per_change(self) -> float:  # as many bare rounds as Fray ones
        return self.bare_cpu / max(1, len(self.posts))

    @property
    def request_cpu_per_round(self) -> float:
        return self.request_cpu / max(1, len(self.request_posts))


def _mean_sizes(crowd: Crowd, after: int) -> dict[str, float]:
    """Mean bytes per message with a number above ``after``: in all, and per role."""
    sizes: dict[str, list[int]] = {"all": []}
    for listener in crowd.listeners:
        got = [size for seq, size in listener.sizes if seq > after]
        sizes["all"] += got
        sizes.setdefault(listener.role, []).extend(got)
    return {role: statistics.mean(got) for role, got in sizes.items() if got}


async def measure_fanout(
    ports: Sequence[int], workers: Sequence[Worker], n: int, options: dict[str, Any], write: Any
) -> tuple[Fanout, Table]:
    seats = min(n - 1, options["max_seats"])
    table = await build_table(ports[0], seats, options["monsters"], f"bench fan-out N={n}")
    result = Fanout(n=n, seats=seats)
    crowd = Crowd()
    result.connects = await open_crowd(crowd, table.sockets(n, ports), first_state=True)
    if not crowd.listeners:
        raise CommandError(f"N={n}: no socket opened: {result.connects.errors[:3]}")
    # Warm-up: caches, templates and connections; and the size the bare messages will have.
    before, index = table.seq, 0
    for index in range(options["warmup"]):
        await fray_change(table, crowd, index, ports[0])
    if table.seq != await _read_seq(table):
        raise CommandError("a change did not move the encounter's number by exactly one")
    result.size = max(1, round(_mean_sizes(crowd, before).get("all", 0)))
    # As many bare sockets as Fray's that are open, spread alike over the servers.
    bare = Crowd()
    name = secrets.token_hex(8)
    group, send = f"/ws/bench/{name}/", f"/bench/send/{name}/"
    sockets = [
        (port, group, {"Origin": f"http://127.0.0.1:{port}"}, "bare")
        for port, _ in zip(itertools.cycle(ports), crowd.listeners, strict=False)
    ]
    await open_crowd(bare, sockets, first_state=False)
    result.sockets = len(crowd.listeners)
    trigger = bare.listeners[0].socket
    profiler = await Profiler.open(ports) if options["profile"] else None

    async def bare_round(seq: int) -> float:
        bare.expect(seq)
        start = time.perf_counter()
        await trigger.send_text(json.dumps({"seq": seq, "bytes": result.size}))
        await bare.wait(TIMEOUT)
        return start

    async def request_round(seq: int) -> tuple[float, float]:
        """The bare message again, asked for by the referee's browser as it asks for a change
        (``Browser.post``: cookies, CSRF token, kept connection, htmx header); when the POST
        started and when it was answered."""
        bare.expect(seq)
        start = time.perf_counter()
        await table.referee.post(ports[0], send, {"seq": seq, "bytes": result.size})
        answered = time.perf_counter()
        await bare.wait(TIMEOUT)
        return start, answered

    async def timed(round_: Awaitable[Any]) -> tuple[Any, float]:
        """The round's result, and the servers' CPU it cost, with the work trailing it."""
        cpu = servers_cpu(workers)
        outcome = await round_
        await asyncio.sleep(GAP)
        return outcome, servers_cpu(workers) - cpu

    for seq in (-2, -1):  # warm-up
        await bare_round(seq)
    await request_round(0)
    timed_from, client, seq = table.seq, time.process_time(), 0
    # Fray, bare and request+bare in turn, so that the machine's noise hits all alike; under
    # the profiler, each in a block (switching it costs more than a round). The two baselines
    # share the sockets and one count of numbers.
    kinds = ["fray", "bare", "request"] * options["rounds"]
    for kind in sorted(kinds) if profiler else kinds:
        if profiler and profiler.current != kind:
            await profiler.bucket(kind)
        if kind == "fray":
            index += 1
            (start, answered), cpu = await timed(fray_change(table, crowd, index, ports[0]))
            result.fray_cpu += cpu
            result.posts.append(answered - start)
            first, every, missing = crowd.latency(table.seq, start)
            result.missing_fray += missing
            if every is not None and first is not None:
                result.fray.append(every)
                result.fray_spread.append(every - first)
        elif kind == "bare":
            seq += 1
            start, cpu = await timed(bare_round(seq))
            result.bare_cpu += cpu
            first, every, missing = bare.latency(seq, start)
            result.missing_bare += missing
            if every is not None and first is not None:
                result.bare.append(every)
                result.bare_spread.append(every - first)
        else:
            seq += 1
            (start, answered), cpu = await timed(request_round(seq))
            result.request_cpu += cpu
            result.request_posts.append(answered - start)
            first, every, missing = bare.latency(seq, start)
            result.missing_request += missing
            if every is not None and first is not None:
                result.request.append(every)
                result.request_spread.append(every - first)
    result.client_cpu = time.process_time() - client
    result.fray_sizes = _mean_sizes(crowd, timed_from)
    if profiler:
        await profiler.bucket("off")
        write_profile(write, await profiler.report(), options["rounds"])
        await profiler.close()
        profiler = None
    await crowd.close()
    await bare.close()
    # The same changes with no socket open: what the POST alone costs.
    await asyncio.sleep(0.5)
    for _ in range(min(20, options["rounds"])):
        index += 1
        browser, path, data = table.change(index)
        start = time.perf_counter()
        _response, cpu = await timed(browser.post(ports[0], path, data))
        result.alone.append(time.perf_counter() - start - GAP)
        result.alone_cpu += cpu
    return result, table


def write_fanout(write: Callable[[str], None], f: Fanout, workers: int) -> None:
    tabs = " (players with several tabs)" if f.n - 1 > f.seats else ""
    plural = "s" if workers > 1 else ""
    write(
        f"N={f.n}: 1 referee + {f.n - 1} player sockets on {f.seats} seats{tabs}, "
        f"{workers} worker{plural}"
    )
    c = f.connects
    errors = "; ".join(f"{count} x {why}" for why, count in Counter(c.errors).most_common(2))
    write(
        f"  {c.sockets} sockets opened at once, each behind (?seq=0): the last had its first "
        f"state after {c.last:.2f} s (p50 {statistics.median(c.times or [0]):.2f} s); "
        f"{len(c.errors)} errors{': ' + errors if errors else ''}"
    )
    sizes = ", ".join(f"{who} {_kb(size)}" for who, size in f.fray_sizes.items() if who != "all")
    write(
        f"  fray, from the POST until every socket had the change: {_spread(f.fray)}; first to "
        f"last socket p50 {_ms(_median(f.fray_spread))}; the POST answered p50 "
        f"{_ms(_median(f.posts))}; {len(f.posts)} changes, {f.missing_fray} messages missing; "
        f"mean message {sizes}"
    )
    write(
        f"  bare, group_send of {f.size} bytes to as many sockets ({f.sockets}) until every "
        f"one had it: {_spread(f.bare)}; "
        f"first to last socket p50 {_ms(_median(f.bare_spread))}; {f.missing_bare} missing"
    )
    write(
        "  request+bare, a plain POST that group_sends the same bytes, until every socket had "
        f"it: {_spread(f.request)}; first to last socket p50 {_ms(_median(f.request_spread))}; "
        f"the POST answered p50 {_ms(_median(f.request_posts))}; server CPU "
        f"{_ms(f.request_cpu_per_round)} per round; {f.missing_request} missing"
    )
    alone = f.alone_cpu / max(1, len(f.alone))
    write(
        f"  server CPU per change: fray {_ms(f.fray_cpu_per_change)}, bare "
        f"{_ms(f.bare_cpu_per_change)}; the same POST with no socket open {_ms(alone)} "
        f"(answered p50 {_ms(_median(f.alone))}), so the live part "
        f"{_ms(f.fray_cpu_per_change - alone)}; this process "
        f"{_ms(f.client_cpu / max(1, len(f.posts)))} per fray round and its two baselines"
    )


# --------------------------------------------------------------------------- --tables


@dataclass
class Step:
    offered: float  # actions per second, all tables together
    achieved: float
    latencies: list[float] = field(default_factory=list)  # until every socket of the table
    posts: list[float] = field(default_factory=list)
    missing: int = 0
    cpu: float = 0.0  # server CPU seconds over the step
    seconds: float = 0.0

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 0.99) if self.latencies else math.inf

    @property
    def held(self) -> bool:
        return self.p99 <= TABLE_TARGET and not self.missing and self.achieved >= 0.9 * self.offered


@dataclass
class TablesRun:
    tables: int
    players: int
    connects: Connects = field(default_factory=Connects)
    steps: list[Step] = field(default_factory=list)

    @property
    def best(self) -> Step | None:
        held = [step for step in self.steps if step.held]
        return max(held, key=lambda step: step.achieved) if held else None


def default_rates(tables: int) -> list[float]:
    return [tables * per_table for per_table in (0.5, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20)]


async def measure_tables(
    ports: Sequence[int], workers: Sequence[Worker], options: dict[str, Any], write: Any
) -> tuple[TablesRun, Table]:
    count, players = options["tables"], options["players"][0]
    run = TablesRun(tables=count, players=players)
    building = asyncio.Semaphore(4)

    async def build(index: int) -> Table:
        async with building:
            return await build_table(ports[0], players, options["monsters"], f"bench {index}")

    tables = list(await asyncio.gather(*(build(i) for i in range(count))))
    crowds = [Crowd() for _ in tables]
    run.connects.sockets = count * (players + 1)
    opened = await asyncio.gather(
        *(
            open_crowd(crowd, table.sockets(players + 1, ports), first_state=True)
            for table, crowd in zip(tables, crowds, strict=True)
        )
    )
    run.connects.times = [t for c in opened for t in c.times]
    run.connects.errors = [e for c in opened for e in c.errors]
    run.connects.last = max(run.connects.times, default=0.0)
    write(
        f"{count} tables x (1 referee + {players} players) = {run.connects.sockets} sockets, "
        f"opened at once: the last had its first state after {run.connects.last:.2f} s, "
        f"{len(run.connects.errors)} errors"
    )
    counters = [0] * count

    async def drive(
        i: int, interval: float, start: float, end: float, step: Step, changes: list
    ) -> None:
        table = tables[i]
        due = start + random.uniform(0, interval)  # tables keep their own rhythm
        while due < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            browser, path, data = table.change(counters[i])
            counters[i] += 1
            table.seq += 1
            seq, began = table.seq, time.perf_counter()
            await browser.post(ports[0], path, data)
            step.posts.append(time.perf_counter() - began)
            changes.append((i, seq, began))
            due = max(due + interval, time.perf_counter())  # late: the next one at once

    for i in range(count):  # warm-up: one change a table
        await fray_change(tables[i], crowds[i], counters[i], ports[0])
        counters[i] += 1
    failed = 0
    for rate in options["rates"] or default_rates(count):
        step = Step(offered=rate, achieved=0.0, seconds=options["step_seconds"])
        changes: list[tuple[int, int, float]] = []
        cpu = servers_cpu(workers)
        start = time.perf_counter()
        end = start + step.seconds
        await asyncio.gather(
            *(drive(i, count / rate, start, end, step, changes) for i in range(count))
        )
        for table, crowd in zip(tables, crowds, strict=True):
            crowd.expect(table.seq)
        await asyncio.gather(*(crowd.wait(TIMEOUT) for crowd in crowds))
        step.cpu = servers_cpu(workers) - cpu
        step.achieved = len(changes) / step.seconds
        for i, seq, began in changes:
            _first, every, missing = crowds[i].latency(seq, began)
            step.missing += missing
            if every is not None:
                step.latencies.append(every)
        run.steps.append(step)
        write(
            f"  {rate:.0f} actions/s offered ({rate / count:.2f} per table): "
            f"{step.achieved:.1f} done; every socket of the table {_spread(step.latencies)}; "
            f"POST p50 {_ms(statistics.median(step.posts or [0]))}; {step.missing} missing; "
            f"server CPU {_ms(step.cpu / max(1, len(changes)))} per change, "
            f"{step.cpu / step.seconds:.0%} of a core" + ("" if step.held else " -- not held")
        )
        failed = 0 if step.held else failed + 1
        if failed == 2:  # twice in a row: not a hiccup of a shared machine
            break
    for crowd in crowds:
        await crowd.close()
    for table in tables[1:]:
        table.close()
    return run, tables[0]


# --------------------------------------------------------------------------- first load


async def first_load(port: int, browser: Browser, slug: str) -> list[tuple[str, int]]:
    """Bytes received for the encounter page and everything it references, as sent to a
    browser with an empty cache that accepts gzip and br: ``(path, bytes)`` per request."""
    connection = HttpConnection(port)  # a fresh connection, as a newly opened page has
    received: list[tuple[str, int]] = []
    queue, seen = [f"/e/{slug}/"], {f"/e/{slug}/"}
    try:
        while queue:
            path = queue.pop(0)
            response = await browser.request(port, "GET", path, connection=connection)
            if response.status != 200:
                raise CommandError(f"{browser.label}: GET {path} answered {response.status}")
            received.append((path, response.wire))
            kind = response.header("content-type") or ""
            if "html" not in kind and "css" not in kind:
                continue
            text = response.text()
            pattern = _ASSET if "html" in kind else _CSS_URL
            for reference in pattern.findall(text):
                url = urllib.parse.urljoin(path, reference.replace("&amp;", "&"))
                if url.startswith("/") and not url.startswith("//") and url not in seen:
                    seen.add(url)
                    queue.append(url)
    finally:
        connection.close()
    return received


# --------------------------------------------------------------------------- profile


class Profiler:
    """Tells each server's profiler (combat/live/bench_socket.py) what the rounds are now."""

    def __init__(self, sockets: list[RawWebSocket]) -> None:
        self.sockets = sockets
        self.current = ""

    @classmethod
    async def open(cls, ports: Sequence[int]) -> Profiler:
        group = f"/ws/bench/profile-{secrets.token_hex(6)}/"
        sockets = [
            await RawWebSocket.open(port, group, {"Origin": f"http://127.0.0.1:{port}"})
            for port in ports
        ]
        profiler = cls(sockets)
        await profiler.bucket("reset")
        return profiler

    async def bucket(self, name: str) -> list[Any]:
        """Switches every server to ``name`` (or runs that command); returns the answers."""
        self.current = name
        for socket_ in self.sockets:
            await socket_.send_text(json.dumps({"profile": name}))
        return [json.loads(await s.receive(TIMEOUT))["profile"] for s in self.sockets]

    async def report(self) -> list[dict[str, Any]]:
        return [answer or {} for answer in await self.bucket("report")]

    async def close(self) -> None:
        for socket_ in self.sockets:
            await socket_.close()


def write_profile(write: Callable[[str], None], reports: list[dict[str, Any]], rounds: int) -> None:
    """Where the servers' CPU went, per kind of round, in ms per round (cProfile's figures,
    with its overhead: compare them with each other, not with the unprofiled ones)."""
    per = 1000 / max(1, rounds)
    for bucket in ("fray", "bare", "request"):
        found = [report[bucket] for report in reports if bucket in report]
        total = sum(part["total"] for part in found) * per
        label = "request+bare" if bucket == "request" else bucket
        write(f"  profile, {label} rounds: {total:.1f} ms of server CPU under cProfile per round")
        for title, key in (("own time", "own"), ("with callees", "inclusive")):
            counts: Counter[str] = Counter()
            for part in found:
                counts.update(dict(part[key]))
            for name, seconds in counts.most_common(12):
                write(f"    {title}: {seconds * per:6.2f} ms  {name}")


# --------------------------------------------------------------------------- a layer's run


@dataclass
class Figures:
    """What one layer's run measured; the parent process prints the summary from it."""

    layer: str
    workers: int
    fanouts: list[Fanout] = field(default_factory=list)
    first_load: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    tables: TablesRun | None = None

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Figures:
        data = json.loads(text)
        fanouts = [Fanout(**{**f, "connects": Connects(**f["connects"])}) for f in data["fanouts"]]
        tables = data["tables"]
        if tables is not None:
            steps = [Step(**step) for step in tables["steps"]]
            connects = Connects(**tables["connects"])
            tables = TablesRun(**{**tables, "steps": steps, "connects": connects})
        first_load = {who: [tuple(r) for r in got] for who, got in data["first_load"].items()}
        return cls(data["layer"], data["workers"], fanouts, first_load, tables)


LAYERS = {
    "embedded": "SQLite, in-memory channel layer, one server process",
    "scale-out": "PostgreSQL + Redis (channels_redis pub/sub), two server processes",
}


def _header(write: Callable[[str], None], layer: str, workers: int) -> None:
    try:
        load = f", load average {os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        load = ""
    write(f"== Fray live benchmark: {layer} ({LAYERS[layer]})")
    write(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs{load}; "
        f"Python {platform.python_version()}, Django {django.get_version()}"
    )
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        version = connection.pg_version
        database = f"PostgreSQL {version // 10000}.{version % 10000}, scratch database"
    else:
        import sqlite3

        database = f"SQLite {sqlite3.sqlite_version}, a fresh file in a temporary folder"
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "none").rsplit(".", 1)[-1]
    write(
        f"servers: {workers} x manage.py serve (Daphne); database: {database}; "
        f"channel layer: {backend}"
    )


async def run_layer(layer: str, options: dict[str, Any], write: Callable[[str], None]) -> Figures:
    workers = [Worker(options["profile"]) for _ in range(2 if layer == "scale-out" else 1)]
    try:
        for worker in workers:
            worker.wait_ready()
        ports = [worker.port for worker in workers]
        figures = Figures(layer=layer, workers=len(workers))
        await sync_to_async(_header)(write, layer, len(workers))
        if options["tables"]:
            figures.tables, table = await measure_tables(ports, workers, options, write)
            figures.first_load = await _first_loads(ports[0], table)
            table.close()
            return figures
        for n in options["players"]:
            fanout, table = await measure_fanout(ports, workers, n, options, write)
            write_fanout(write, fanout, len(workers))
            figures.fanouts.append(fanout)
            if not figures.first_load:  # the first table, its log window full by now
                figures.first_load = await _first_loads(ports[0], table)
            table.close()
        return figures
    finally:
        for worker in workers:
            worker.stop()
            if errors := worker.errors():
                write(f"server errors, worker on port {worker.port}, first 3000 characters:")
                write(errors[:3000])


async def _first_loads(port: int, table: Table) -> dict[str, list[tuple[str, int]]]:
    loads = {"referee": await first_load(port, table.referee, table.slug)}
    if table.players:
        loads["player"] = await first_load(port, table.players[0], table.slug)
    return loads


# --------------------------------------------------------------------------- the summary


def fanout_line(f: Fanout) -> str:
    """The issue's line for one N."""
    fray50, fray99 = statistics.median(f.fray), percentile(f.fray, 0.99)
    bare50, bare99 = statistics.median(f.bare), percentile(f.bare, 0.99)
    return (
        f"fanout N={f.n}: fray p50 {_ms(fray50)} p99 {_ms(fray99)}; "
        f"bare p50 {_ms(bare50)} p99 {_ms(bare99)}; "
        f"ratio p50 {fray50 / bare50:.2f} p99 {fray99 / bare99:.2f}; "
        f"cpu/change fray {_ms(f.fray_cpu_per_change)} bare {_ms(f.bare_cpu_per_change)}"
    )


def fray_over_request(f: Fanout) -> str:
    """Fray against the baseline that starts, as Fray does, from a request: no target."""
    p50 = statistics.median(f.fray) / statistics.median(f.request)
    p99 = percentile(f.fray, 0.99) / percentile(f.request, 0.99)
    cpu = f.fray_cpu_per_change / max(f.request_cpu_per_round, 1e-9)
    return (
        f"  N={f.n}: fray over request+bare: p50 {p50:.2f}x, p99 {p99:.2f}x, cpu {cpu:.2f}x "
        "(informative)"
    )


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _loads(figures: Figures) -> dict[str, int]:
    return {who: sum(size for _path, size in got) for who, got in figures.first_load.items()}


def key_figures(figures: Figures) -> dict[str, float]:
    """The figures the targets name, by name; lower is better for every one but the rate."""
    found: dict[str, float] = {}
    for f in figures.fanouts:
        if f.fray and f.bare:
            found[f"N={f.n} fray p50"] = statistics.median(f.fray)
            found[f"N={f.n} fray p99"] = percentile(f.fray, 0.99)
            found[f"N={f.n} fray cpu/change"] = f.fray_cpu_per_change
        found[f"N={f.n} connects"] = f.connects.last
    if figures.tables and (best := figures.tables.best):
        found["tables actions/s held"] = best.achieved
    found |= {f"first load {who}": size for who, size in _loads(figures).items()}
    return found


def _fanout_targets(write: Callable[[str], None], f: Fanout) -> None:
    p50 = statistics.median(f.fray) / statistics.median(f.bare)
    p99 = percentile(f.fray, 0.99) / percentile(f.bare, 0.99)
    cpu = f.fray_cpu_per_change / max(f.bare_cpu_per_change, 1e-9)
    if f.n == 50:
        write(f"  N=50: fray p50 {p50:.2f}x bare (<= 1.5x) {_met(p50 <= 1.5)}")
        write(f"  N=50: cpu/change {cpu:.2f}x bare (<= 3x) {_met(cpu <= 3)}")
    write(f"  N={f.n}: fray p99 {p99:.2f}x bare (<= 2x) {_met(p99 <= 2)}")
    if f.n == 200:
        c = f.connects
        ok = c.last <= 1.0 and not c.errors
        write(
            f"  N=200: {c.sockets} simultaneous connects: the last had its first state "
            f"after {c.last:.2f} s, {len(c.errors)} errors (<= 1 s, 0 errors) {_met(ok)}"
        )


def write_targets(write: Callable[[str], None], figures: Figures) -> None:
    write(f"targets, {figures.layer} (informative: this machine, this run):")
    for f in figures.fanouts:
        if f.fray and f.bare and f.n in (50, 200):
            _fanout_targets(write, f)
        if f.fray and f.request:  # every N: no target, what the ratio leaves out
            write(fray_over_request(f))
    if figures.tables is not None:
        best = figures.tables.best
        held = best.achieved if best else 0.0
        write(
            f"  {figures.tables.tables} tables x {figures.tables.players} players: {held:.1f} "
            f"actions/s held within 100 ms p99 (>= 100) {_met(held >= 100)}"
        )
    for who, size in _loads(figures).items():
        limit = 60_000 if who == "referee" else 30_000
        write(f"  first load, {who}: {_kb(size)} (<= {_kb(limit)}) {_met(size <= limit)}")


# The figures the targets name (``write_targets``): "the same figures" on PostgreSQL
# and Redis are these. The others are compared too, as information.
TARGETED = {
    "N=50 fray p50",
    "N=50 fray p99",
    "N=50 fray cpu/change",
    "N=200 fray p99",
    "N=200 connects",
    "tables actions/s held",
    "first load referee",
    "first load player",
}


def write_comparison(write: Callable[[str], None], embedded: Figures, scaled: Figures) -> None:
    """Scale-out against embedded, figure by figure: for the figures the targets name, no
    worse than 1.5x; every other one shown beside them, informative."""
    write("targets, scale-out against embedded (no worse than 1.5x):")
    before = key_figures(embedded)
    for name, new in key_figures(scaled).items():
        old = before.get(name)
        if old:
            worse = old / new if "held" in name else new / old
            shown = [
                _kb(v) if "load" in name else f"{v:.1f}" if "held" in name else _ms(v)
                for v in (new, old)
            ]
            verdict = _met(worse <= 1.5) if name in TARGETED else "(informative)"
            write(f"  {name}: {shown[0]} against {shown[1]}, {worse:.2f}x {verdict}")


def write_summary(write: Callable[[str], None], figures: Figures) -> None:
    write(f"-- {figures.layer}: {LAYERS[figures.layer]}")
    for who, got in figures.first_load.items():
        names = [path.rsplit("/", 1)[-1] or "page" for path, _size in got]
        parts = ", ".join(f"{name} {size}" for name, (_path, size) in zip(names, got, strict=True))
        write(f"first load, {who}, bytes received per request: {parts}")
    if figures.tables is not None:
        run, best = figures.tables, figures.tables.best
        held = f"{best.achieved:.1f} actions/s" if best else "no rate"
        at = f" (p99 {_ms(best.p99)} at that rate)" if best else ""
        write(
            f"tables {run.tables} x {run.players} players ({run.connects.sockets} sockets): "
            f"{held} held with every socket served within {TABLE_TARGET * 1000:.0f} ms p99{at}"
        )
    loads = _loads(figures)
    if "player" in loads:
        write(
            f"first load: player {_kb(loads['player'])}, referee {_kb(loads['referee'])} "
            "(compressed, all requests)"
        )
    for f in figures.fanouts:
        if f.fray and f.bare:
            write(fanout_line(f))
        else:
            write(f"fanout N={f.n}: no complete round (see the missing messages above)")


# --------------------------------------------------------------------------- sandboxes


@contextlib.contextmanager
def scratch_postgres(url: str) -> Iterator[str]:
    """A scratch database on the PostgreSQL server ``url`` names; yields its URL, then drops
    it. Only the database created here is ever dropped."""
    import psycopg
    from psycopg import sql

    name = f"fray_bench_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urllib.parse.urlsplit(url)._replace(path="/" + name).geturl()
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            force = " WITH (FORCE)" if admin.info.server_version >= 130000 else ""
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {}" + force).format(sql.Identifier(name))
            )


@contextlib.contextmanager
def sandbox(layer: str, database_url: str, redis_url: str) -> Iterator[dict[str, str]]:
    """The environment a layer's run and its servers get: a temporary data folder, and for
    scale-out a scratch PostgreSQL database and Redis."""
    with tempfile.TemporaryDirectory(prefix="fray-bench-") as data_dir:
        env = dict(os.environ)
        # A *_FILE variant would win over the value set here; the run must not see one.
        for name in ("FRAY_DATA_DIR_FILE", "DATABASE_URL_FILE", "REDIS_URL_FILE", "DEBUG"):
            env.pop(name, None)
        env |= {
            "FRAY_DATA_DIR": data_dir,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
        if layer == "embedded":
            env.pop("DATABASE_URL", None)
            env.pop("REDIS_URL", None)
            yield env
            return
        with scratch_postgres(database_url) as url:
            yield env | {"DATABASE_URL": url, "REDIS_URL": redis_url}


def _spread_ids() -> None:
    """Start the encounters' numbering far from 1 on PostgreSQL: the Redis server may be
    shared (with a test run, say), and its pub/sub channels are not per database."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)",
                [Encounter._meta.db_table, random.randrange(10**9, 10**12)],
            )


# --------------------------------------------------------------------------- the command


def _numbers(cast: Callable[[str], float]) -> Callable[[str], list]:
    """An argument type: comma-separated positive numbers."""

    def parse(text: str) -> list:
        try:
            values = [cast(part) for part in text.split(",") if part.strip()]
        except ValueError:
            values = []
        if not values or min(values) <= 0:
            raise argparse.ArgumentTypeError(f"not a list of positive numbers: {text!r}")
        return values

    return parse


# The options a layer's run gets again from the process that made its sandbox.
FORWARDED = ("players", "rounds", "warmup", "max_seats", "monsters", "tables", "step_seconds")


class Command(BaseCommand):
    help = (
        "Measure how fast a change reaches every socket against real servers, next to a bare "
        "Channels broadcast of the same size; also connects, first load, many tables, and "
        "PostgreSQL + Redis with two workers. Uses throwaway data only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--real-server",
            action="store_true",
            help="measure against real servers over TCP (the only mode; kept for habit)",
        )
        parser.add_argument(
            "--players",
            type=_numbers(int),
            default=None,
            help="sockets per encounter to measure, e.g. 10,50,200 (default); with --tables, "
            "players per table (default 6)",
        )
        parser.add_argument("--rounds", type=int, default=100, help="timed rounds per N (100)")
        parser.add_argument("--warmup", type=int, default=6, help="untimed changes first (6)")
        parser.add_argument(
            "--max-seats",
            type=int,
            default=50,
            help="seated players at most; more sockets are extra tabs (50)",
        )
        parser.add_argument("--monsters", type=int, default=6, help="foes per encounter (6)")
        parser.add_argument(
            "--tables", type=int, default=0, help="measure this many tables at once instead"
        )
        parser.add_argument(
            "--rates",
            type=_numbers(float),
            default=None,
            help="--tables: total actions/s to try in turn (default: 0.5 to 20 per table)",
        )
        parser.add_argument(
            "--step-seconds", type=float, default=5.0, help="--tables: seconds per rate (5)"
        )
        parser.add_argument(
            "--scale-out",
            action="store_true",
            help="then the same on PostgreSQL + Redis with two workers, and compare",
        )
        parser.add_argument(
            "--database-url",
            default=None,
            help="PostgreSQL server for --scale-out (default DATABASE_URL)",
        )
        parser.add_argument(
            "--redis-url", default=None, help="Redis for --scale-out (default REDIS_URL)"
        )
        parser.add_argument(
            "--profile", action="store_true", help="per N, where the servers' CPU went"
        )
        # Internal: a layer's run inside its sandbox, and where it leaves its figures.
        parser.add_argument("--layer", choices=sorted(LAYERS), help=argparse.SUPPRESS)
        parser.add_argument("--figures-file", help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] is None:
            options["players"] = [6] if options["tables"] else [10, 50, 200]
        if not options["tables"] and min(options["players"]) < 2:
            raise CommandError("--players: at least 2 sockets (a referee and a player)")
        if options["layer"]:
            self._run_layer(options)
            return
        layers = ["embedded", "scale-out"] if options["scale_out"] else ["embedded"]
        database_url = options["database_url"] or settings.DATABASE_URL
        redis_url = options["redis_url"] or settings.REDIS_URL
        if options["scale_out"] and not (database_url and redis_url):
            raise CommandError(
                "--scale-out needs PostgreSQL and Redis: set DATABASE_URL and REDIS_URL, or "
                "pass --database-url and --redis-url"
            )
        results: list[Figures] = []
        for layer in layers:
            with tempfile.TemporaryDirectory(prefix="fray-bench-figures-") as folder:
                figures_file = Path(folder) / "figures.json"
                arguments = [
                    sys.executable,
                    str(Path(settings.BASE_DIR) / "manage.py"),
                    "bench_live",
                    f"--layer={layer}",
                    f"--figures-file={figures_file}",
                    *self._forwarded(options),
                ]
                with sandbox(layer, database_url, redis_url) as env:
                    self.stdout.flush()
                    completed = subprocess.run(arguments, env=env, check=False)
                if completed.returncode != 0 or not figures_file.exists():
                    raise CommandError(
                        f"the {layer} run failed (exit status {completed.returncode})"
                    )
                results.append(Figures.from_json(figures_file.read_text()))
        self._summary(results)

    def _forwarded(self, options: dict[str, Any]) -> list[str]:
        arguments = []
        for name in FORWARDED:
            value = options[name]
            value = ",".join(map(str, value)) if isinstance(value, list) else value
            arguments.append(f"--{name.replace('_', '-')}={value}")
        if options["rates"]:
            arguments.append("--rates=" + ",".join(map(str, options["rates"])))
        if options["profile"]:
            arguments.append("--profile")
        return arguments

    def _run_layer(self, options: dict[str, Any]) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        _spread_ids()

        def write(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        figures = asyncio.run(run_layer(options["layer"], options, write))
        Path(options["figures_file"]).write_text(figures.to_json())

    def _summary(self, results: list[Figures]) -> None:
        write = self.stdout.write
        write("")
        write("== summary")
        for figures in results:
            write_targets(write, figures)
        if len(results) == 2:
            write_comparison(write, *results)
        for figures in results:
            write_summary(write, figures)
        self.stdout.flush()


__all__ = [
    "Command",
    "Figures",
    "RawWebSocket",
    "fanout_line",
    "fray_over_request",
    "percentile",
    "snapshot_seq",
]
