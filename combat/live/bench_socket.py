"""For ``manage.py bench_live`` only: a websocket and a view, bare broadcasts to compare Fray with.

``combat/live/routing.py`` routes ``ws/bench/<group>/`` here only when the server's environment has
``FRAY_BENCH=1``, which the benchmark sets for the servers it starts; normal serving never has
it, and the path then gets the catch-all 4404 like any other unknown socket.

Every socket joins the group ``bench-<group>`` (never an encounter's group). A frame
``{"seq": 7, "bytes": 1800}`` from any of them makes this process ``group_send`` one message of
that many bytes, starting with a ``#live-seq`` marker as Fray's messages do, and every socket
in the group forwards it untouched. That is the floor for Fray's live updates: the same server,
channel layer, sockets and message size, and no database, no rendering.

A change in Fray starts from an HTTP request, though, not from a frame. ``bench_send`` is the
floor for that: a plain POST (``bench/send/<group>/``, routed by ``combat/site/urls.py`` only with
``FRAY_BENCH=1`` too) through the whole middleware stack, sessions, CSRF, gzip and all, whose
view does just what ``combat.live.state.announce`` does once a change has committed, a
``group_send`` from sync code, here of the same message as a frame would make, and answers 204.
It never reads the session: finding out who asks is part of Fray's own work, not the floor.

With ``FRAY_BENCH_PROFILE=1`` as well, every thread runs under cProfile (``Profiles``). Frames
``{"profile": "fray"}`` (or ``"bare"``, ``"request"``, ``"off"``) name what the CPU is spent on
from then, ``"reset"`` forgets it all, and ``"report"`` gets the most expensive functions per
name.
"""

from __future__ import annotations

import cProfile
import functools
import json
import os
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.http import require_POST

_GROUP = re.compile(r"^[A-Za-z0-9_-]{1,60}$")
MAX_BYTES = 1_000_000
_SEQ = re.compile(r"-?[0-9]{1,18}")  # ASCII digits only: int() reads other scripts' too
_SIZE = re.compile(r"[0-9]{1,7}")


def payload(seq: int, size: int) -> str:
    """A message of ``size`` bytes (ASCII) that starts like Fray's, carrying ``seq``."""
    marker = f'<div id="live-seq" data-seq="{seq}" hidden></div>'
    return marker + "x" * max(0, size - len(marker))


class BenchSocket(AsyncWebsocketConsumer):
    """Joins its group; forwards the group's messages; broadcasts on request."""

    async def connect(self) -> None:
        name = self.scope["url_route"]["kwargs"]["group"]
        if not _GROUP.match(name):
            await self.accept()
            await self.close(code=4404)
            return
        self.group: str | None = f"bench-{name}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = json.loads(text_data or "")
        except ValueError:
            return
        if not isinstance(frame, dict):
            return
        if "profile" in frame:
            await self._profile(str(frame["profile"]))
            return
        seq, size = frame.get("seq"), frame.get("bytes")
        if isinstance(seq, int) and isinstance(size, int) and 0 <= size <= MAX_BYTES:
            # Built here, so the trigger frame stays small whatever the size measured.
            await self.channel_layer.group_send(
                self.group, {"type": "bench.message", "text": payload(seq, size)}
            )

    async def bench_message(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def _profile(self, command: str) -> None:
        """Switch buckets, forget, or report; always answered, so that the benchmark knows
        the switch happened before it reads the CPU clock."""
        answer: Any = None
        if PROFILES is not None and command == "report":
            answer = PROFILES.report()
        elif PROFILES is not None and command == "reset":
            PROFILES.reset()
        elif PROFILES is not None:
            PROFILES.switch(None if command == "off" else command)
        await self.send(text_data=json.dumps({"profile": answer}))


@require_POST
def bench_send(request: HttpRequest, group: str) -> HttpResponse:
    """``seq`` and ``bytes`` POSTed as a form: ``group_send`` the bare socket's message to
    the group ``bench-<group>``, as ``combat.live.state.announce`` sends Fray's after a commit (a
    plain sync view, as Fray's are); 204. Anything out of bounds is a 400 and sends nothing."""
    seq, size = request.POST.get("seq", ""), request.POST.get("bytes", "")
    if not (_GROUP.fullmatch(group) and _SEQ.fullmatch(seq) and _SIZE.fullmatch(size)):
        return HttpResponseBadRequest()
    if int(size) > MAX_BYTES:
        return HttpResponseBadRequest()
    layer = get_channel_layer()
    if layer is None:
        return HttpResponse(status=503)
    async_to_sync(layer.group_send)(
        f"bench-{group}", {"type": "bench.message", "text": payload(int(seq), int(size))}
    )
    return HttpResponse(status=204)


# --------------------------------------------------------------------------- the profiler

_STDLIB = re.compile(r"^.*/(?:site-packages|lib/python3\.\d+)/")
_BASE = str(Path(__file__).resolve().parents[2]) + os.sep


@functools.cache
def _where(code: Any) -> str:
    """``package/module.py:function`` for a code object, short enough to read."""
    if isinstance(code, str):  # a built-in function
        return code
    path = _STDLIB.sub("", code.co_filename).removeprefix(_BASE)
    return f"{path}:{code.co_qualname}"


class Profiles:
    """cProfile in every thread of this process, timed by each thread's own CPU clock, and
    its figures split by what the benchmark says it is doing (the "buckets").

    A sampler would be cheaper, but one written in Python only runs when it gets the GIL,
    which other threads give up mostly inside database calls: it would charge them the CPU
    spent in between. Tracing every call costs time (figures of a profiled run are higher)
    and puts nothing where it does not belong."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.profiles: list[cProfile.Profile] = []
        self.bucket: str | None = None
        self.last: dict[str, tuple[float, float]] = {}
        self.own: dict[str, Counter[str]] = {}  # bucket -> function -> seconds in itself
        self.inclusive: dict[str, Counter[str]] = {}  # bucket -> function -> with callees
        self._start()
        threading.setprofile(self._start)  # every thread started from now on

    def _start(self, *args: Any) -> None:
        profile = cProfile.Profile(time.thread_time)
        with self.lock:
            self.profiles.append(profile)
        profile.enable()

    def _snapshot(self) -> dict[str, tuple[float, float]]:
        # Safe on other threads' profilers: they only change while their thread holds the GIL.
        totals: dict[str, tuple[float, float]] = {}
        for profile in list(self.profiles):
            for entry in profile.getstats():
                name = _where(entry.code)
                own, inclusive = totals.get(name, (0.0, 0.0))
                totals[name] = (own + entry.inlinetime, inclusive + entry.totaltime)
        return totals

    def switch(self, bucket: str | None) -> None:
        """Charge what was spent since the last switch to the bucket then current."""
        now = self._snapshot()
        if self.bucket is not None:
            own = self.own.setdefault(self.bucket, Counter())
            inclusive = self.inclusive.setdefault(self.bucket, Counter())
            for name, (spent, spent_inclusive) in now.items():
                before = self.last.get(name, (0.0, 0.0))
                own[name] += spent - before[0]
                inclusive[name] += spent_inclusive - before[1]
        self.last, self.bucket = now, bucket

    def reset(self) -> None:
        self.switch(None)
        self.own.clear()
        self.inclusive.clear()

    def report(self, top: int = 12) -> dict[str, Any]:
        """Per bucket: the CPU seen, the functions that spent most in themselves, and Fray's
        own functions and the library calls that matter, with everything they called. Small
        enough for one message under the server's limit on websocket messages."""
        result = {}
        for bucket, own in self.own.items():
            inclusive = [
                (name, seconds)
                for name, seconds in self.inclusive[bucket].most_common()
                if name.startswith(ANCHORS) and "bench" not in name
            ]
            ranked = [(n, s) for n, s in own.most_common(top + 4) if "bench_socket" not in n]
            result[bucket] = {
                "total": sum(own.values()),
                "own": ranked[:top],
                "inclusive": inclusive[:top],
            }
        return result


# The calls worth naming with their callees: Fray's code, the database, templates, the
# channel layer, and sending on sockets.
ANCHORS = (
    "combat/views/",
    "combat/live/state.py",
    "combat/live/hub.py",
    "combat/live/consumers.py:",
    "combat/table/",
    "combat/systems/",
    "combat/access.py",
    "rules/",
    "django/db/backends/utils.py:CursorWrapper._execute",
    "django/db/backends/base/base.py:BaseDatabaseWrapper.c",  # connect, close
    "django/template/loader.py:render_to_string",
    "django/template/response.py",
    "django/shortcuts.py:render",
    "channels/layers.py:InMemoryChannelLayer.group_send",
    "channels_redis/pubsub.py:RedisPubSubChannelLayer.group_send",
    "autobahn/websocket/protocol.py:WebSocketProtocol.sendMessage",
    "django/middleware/gzip.py",
)

PROFILES: Profiles | None = None
if os.environ.get("FRAY_BENCH_PROFILE") == "1":
    PROFILES = Profiles()
