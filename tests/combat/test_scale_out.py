"""Scale-out for real: two ASGI workers on PostgreSQL and Redis, a change made through one
reaching a socket held by the other.

Runs when the suite itself runs on the scale-out parts (``DATABASE_URL`` and ``REDIS_URL``,
as CI's second run does); the workers share the test database and the Redis channel layer.
"""

from __future__ import annotations

import base64
import http.cookiejar
import os
import re
import socket
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from combat.models import Encounter

from .conftest import monster
from .test_host import STARTUP_SECONDS, start_command, stop_command

pytestmark = pytest.mark.django_db(transaction=True)


def _ws_open(port: int, path: str, cookie: str) -> socket.socket:
    """A websocket handshake over a plain socket, as a browser on that worker's page makes it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "the worker closed the socket"
        data += chunk
    return data


def _ws_text(sock: socket.socket) -> str:
    """The next text message (a server's frames are unmasked; small ones fit one frame)."""
    first, second = _read_exactly(sock, 2)
    assert first & 0x0F in (0x1, 0x8), first
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(_read_exactly(sock, 2), "big")
    elif size == 127:
        size = int.from_bytes(_read_exactly(sock, 8), "big")
    payload = _read_exactly(sock, size)
    assert first & 0x0F == 0x1, f"closed: {payload!r}"
    return payload.decode()


@pytest.fixture
def workers(tmp_path: Path):
    if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        pytest.skip("scale-out runs on PostgreSQL and Redis (DATABASE_URL, REDIS_URL)")
    database = connection.settings_dict
    login = quote(database["USER"]) + (
        f":{quote(database['PASSWORD'])}" if database["PASSWORD"] else ""
    )
    env = {
        "DATABASE_URL": (
            f"postgres://{login}@{database['HOST']}:{database['PORT'] or 5432}/"
            f"{quote(database['NAME'])}"
        ),
        "REDIS_URL": os.environ["REDIS_URL"],
        # Sessions are signed cookies: the workers accept the test's with the same key.
        "SECRET_KEY": settings.SECRET_KEY,
    }
    started = []
    try:
        for number in range(2):
            process, output = start_command(
                tmp_path / f"worker-{number}",
                ["serve", "--port", "0", "--bind", "127.0.0.1"],
                env,
            )
            started.append((process, output))
        ports = [
            int(output.wait_for(r"http://127\.0\.0\.1:(\d+)/", STARTUP_SECONDS).group(1))
            for _process, output in started
        ]
        yield ports
    finally:
        for process, output in started:
            stop_command(process, output)


def test_a_change_made_through_one_worker_reaches_a_socket_on_the_other(workers):
    first, second = workers
    encounter = Encounter.objects.create(name="Two halls")
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    session = referee.cookies[settings.SESSION_COOKIE_NAME].value
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}"

    encounter.refresh_from_db()
    listening = _ws_open(second, f"/ws/e/{encounter.slug}/?seq={encounter.seq}", cookie)
    try:
        # Through the first worker, as the referee's browser would: page, token, POST.
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        base = f"http://127.0.0.1:{first}"
        page = urllib.request.Request(base + reverse("encounter", args=[encounter.slug]))
        page.add_header("Cookie", cookie)
        html = opener.open(page, timeout=20).read().decode()
        token = re.search(r'"X-CSRFToken": "([^"]+)"', html).group(1)
        csrf = next(c.value for c in jar if c.name == settings.CSRF_COOKIE_NAME)
        post = urllib.request.Request(
            base + reverse("hit_points", args=[encounter.slug]),
            data=f"actor={goblin.pk}&action=damage&amount=4".encode(),
            method="POST",
            headers={
                "Cookie": f"{cookie}; {settings.CSRF_COOKIE_NAME}={csrf}",
                "X-CSRFToken": token,
                "HX-Request": "true",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        assert opener.open(post, timeout=20).status == 200

        message = _ws_text(listening)
        assert f'data-seq="{encounter.seq + 1}"' in message
        assert f'id="combatant-{goblin.pk}"' in message and "5/9" in message
    finally:
        listening.close()
