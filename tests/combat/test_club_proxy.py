"""A club's server as the README sets it up: Debian's nginx with the shipped configuration
(``combat/site/deploy/nginx-fray.conf``, only its ports and paths changed) in front of two
``manage.py serve`` workers on PostgreSQL (a scratch database) and Redis (a channel prefix of
its own). Everything goes through the proxy, as browsers would: create, join, a change made
through one worker reaching sockets held by the other, forms with the port in the Host, static
files, a foreign Origin, a worker killed, and nginx's logs without a single capability.

Runs in every run of the suite, on whatever PostgreSQL and Redis the environment names
(``DATABASE_URL``, ``REDIS_URL``) or on 127.0.0.1's; skipped (failed in CI) without nginx,
PostgreSQL or Redis. Every wait is on a condition, with a deadline.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from combat.capabilities import PREFIXES
from combat.management.commands.bench_live import scratch_postgres, snapshot_seq
from tests.conftest import has_program, require_or_skip

from .test_host import STARTUP_SECONDS, ServerOutput, start_command, stop_command

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "combat" / "site" / "deploy"
SITE = DEPLOY / "nginx-fray.conf"
NGINX = "/usr/sbin/nginx"
HOST = "table.example.org"  # the shipped configuration's server_name, left as it is
TIMEOUT = 20.0  # for any one condition; the whole test takes a few seconds
WORKER_READY = r"Fray worker listening on http://127\.0\.0\.1:(\d+)/"


# --------------------------------------------------------------------------- a browser


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    local_port: int  # this end of the connection: the worker's log names it (X-Forwarded-Port)

    @property
    def text(self) -> str:
        return self.body.decode()

    @property
    def location(self) -> str:
        return self.headers.get("Location", "")


@dataclass
class Browser:
    """Cookies, CSRF tokens and the headers a browser sends, to ``127.0.0.1:port`` under the
    club's name (``Host: table.example.org:port``)."""

    port: int
    host: str = HOST
    cookies: dict[str, str] = field(default_factory=dict)

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    def request(
        self, method: str, path: str, form: dict | None = None, headers: dict | None = None
    ) -> Answer:
        sent = {"Host": f"{self.host}:{self.port}", "Accept-Language": "en"}
        if self.cookies:
            sent["Cookie"] = self.cookie_header()
        body = None
        if form is not None:
            form = {**form, "csrfmiddlewaretoken": self.cookies[settings.CSRF_COOKIE_NAME]}
            body = urllib.parse.urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent["Origin"] = self.origin  # as every browser sends it with a POST
        sent |= headers or {}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            connection.request(method, path, body=body, headers=sent)
            local_port = connection.sock.getsockname()[1]
            response = connection.getresponse()
            answer = Answer(response.status, response.headers, response.read(), local_port)
        finally:
            connection.close()
        for value in answer.headers.get_all("Set-Cookie") or []:
            pair, _sep, attributes = value.partition(";")
            name, _sep, content = pair.strip().partition("=")
            if "max-age=0" in attributes.lower().replace(" ", ""):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = content
        return answer

    def get(self, path: str, **headers: str) -> Answer:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, form: dict, referer: str | None = None, htmx: bool = False) -> Answer:
        headers = {"Referer": referer or f"{self.origin}{path}"}
        if htmx:
            headers["HX-Request"] = "true"
        return self.request("POST", path, {**form, "once": secrets.token_urlsafe(16)}, headers)


# --------------------------------------------------------------------------- a websocket


class Closed(Exception):
    pass


class Socket:
    """A page's live socket, opened through the proxy as the page opens it: just enough of
    RFC 6455 for a client that only listens."""

    def __init__(self, browser: Browser, path: str, origin: str | None = None) -> None:
        self.path = path
        self.sock = socket.create_connection(("127.0.0.1", browser.port), timeout=TIMEOUT)
        self.local_port = self.sock.getsockname()[1]
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {browser.host}:{browser.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: {origin or browser.origin}\r\nCookie: {browser.cookie_header()}\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _sep, self.buffer = self.buffer.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.seq = 0  # the number of the latest state this socket's page shows
        self.worker: Worker | None = None  # the one whose log has its handshake
        self.referee = False

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Closed(self.path)
        self.buffer += chunk

    def _take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        taken, self.buffer = self.buffer[:size], self.buffer[size:]
        return taken

    def message(self) -> str:
        """The next text message (a server's frames are unmasked)."""
        first, second = self._take(2)
        size = second & 0x7F
        if size == 126:
            size = int.from_bytes(self._take(2), "big")
        elif size == 127:
            size = int.from_bytes(self._take(8), "big")
        payload = self._take(size)
        if first & 0x0F == 0x8:
            raise Closed(f"{self.path}: closed {payload!r}")
        assert first & 0x0F == 0x1 and first & 0x80, "a whole text frame"
        return payload.decode()

    def wait_for_seq(self, seq: int) -> str:
        """Messages until one brings the page to ``seq`` or later; that one."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.1, deadline - time.monotonic()))
            message = self.message()
            reached = snapshot_seq(message)
            if reached is not None and reached >= seq:
                self.seq = reached
                return message
        pytest.fail(f"socket {self.local_port} never reached {seq}")

    def wait_closed(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        with contextlib.suppress(Closed, ConnectionError):
            while time.monotonic() < deadline:
                self.sock.settimeout(max(0.1, deadline - time.monotonic()))
                self.message()
            pytest.fail(f"socket {self.local_port} still open")

    def close(self) -> None:
        self.sock.close()


# --------------------------------------------------------------------------- the club


@dataclass
class Worker:
    process: subprocess.Popen[str]
    output: ServerOutput
    port: int
    access_log: Path

    def served(self, pattern: str) -> re.Match[str] | None:
        try:
            return re.search(pattern, self.access_log.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None


@dataclass
class Club:
    port: int
    workers: list[Worker]
    logs: Path

    def worker_of(self, local_port: int, request: str) -> Worker:
        """The worker whose access log has ``request`` from this client port: the proxy
        passed the client's port on (X-Forwarded-Port), so each line names its connection."""
        pattern = rf"^127\.0\.0\.1:{local_port} .*\"{request}"
        return wait_until(
            lambda: next((w for w in self.workers if w.served(re.compile(pattern, re.M))), None),
            f"a worker's log line for {request!r} from port {local_port}",
        )

    def nginx_logs(self) -> str:
        """The shipped file's access and error logs, and the main error and access logs."""
        paths = sorted(self.logs.glob("logs/*.log")) + sorted(self.logs.glob("nginx/logs/*.log"))
        assert {path.name for path in paths} >= {"fray-access.log", "fray-error.log"}
        return "".join(path.read_text(encoding="utf-8") for path in paths)


def wait_until(condition: Callable[[], object], what: str) -> object:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.02)
    pytest.fail(f"gave up waiting for {what}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _reachable_postgres() -> str | None:
    url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3, autocommit=True) as probe:
            probe.execute("SELECT 1")
    except Exception:
        return None
    return url


def _reachable_redis() -> str | None:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()
    except Exception:
        return None
    return url


def site_configuration(port: int, worker_ports: list[int], logs: Path) -> str:
    """The shipped file with its ports and log paths changed, nothing else."""
    text = SITE.read_text(encoding="utf-8")
    for old, new in [
        ("listen 80", f"listen 127.0.0.1:{port}"),
        ("127.0.0.1:8001", f"127.0.0.1:{worker_ports[0]}"),
        ("127.0.0.1:8002", f"127.0.0.1:{worker_ports[1]}"),
        ("/var/log/nginx/", f"{logs}/"),
    ]:
        assert old in text, f"the shipped configuration no longer has {old!r}"
        text = text.replace(old, new)
    return text


def nginx_configuration(prefix: Path, site: Path) -> str:
    """What Debian's /etc/nginx/nginx.conf gives the sites, in a folder of the test's."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # a root master's workers stay root
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""{user}worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "logs" / "main-error.log"};
events {{ worker_connections 768; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix / "logs" / "main-access.log"};
    gzip on;
{temp}
    include {site};
}}
"""


@contextlib.contextmanager
def nginx(prefix: Path, site_text: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    site = prefix / "fray.conf"
    site.write_text(site_text, encoding="utf-8")
    configuration = prefix / "nginx.conf"
    configuration.write_text(nginx_configuration(prefix, site), encoding="utf-8")
    command = [NGINX, "-p", str(prefix), "-c", str(configuration)]
    command += ["-e", str(prefix / "logs" / "main-error.log")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        [*command, "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:

        def listening() -> bool:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                return True
            return False

        wait_until(listening, "nginx to listen")
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # graceful: finishes its log lines
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    require_or_skip(has_program(NGINX), f"nginx is not installed ({NGINX})")
    database_url = _reachable_postgres()
    require_or_skip(database_url is not None, "no PostgreSQL reachable (DATABASE_URL)")
    redis_url = _reachable_redis()
    require_or_skip(redis_url is not None, "no Redis reachable (REDIS_URL)")
    # As the README has it: one secret key file every worker shares, one data folder.
    key_file = tmp_path / "secret_key"
    key_file.write_text(secrets.token_urlsafe(50), encoding="utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    with scratch_postgres(database_url) as scratch:
        env = {
            "DATABASE_URL": scratch,
            "REDIS_URL": redis_url,
            # Apart from any other run on this Redis: Pub/Sub ignores the database number.
            "FRAY_CHANNEL_PREFIX": f"fray-club-test-{secrets.token_hex(4)}",
            "ALLOWED_HOSTS": HOST,
            "SECRET_KEY_FILE": str(key_file),
        }
        migrate, migrate_output = start_command(tmp_path, ["migrate", "-v", "0"], env)
        assert migrate.wait(timeout=120) == 0, migrate_output.text()
        started: list[tuple[subprocess.Popen[str], ServerOutput, Path]] = []
        try:
            for name in ("a", "b"):
                access_log = tmp_path / f"worker-{name}.log"
                command = ["serve", "--port", "0", "--proxy-headers", "--access-log"]
                process, output = start_command(tmp_path, [*command, str(access_log)], env)
                started.append((process, output, access_log))
            workers = [
                Worker(process, output, int(output.wait_for(WORKER_READY, STARTUP_SECONDS)[1]), log)
                for process, output, log in started
            ]
            port = _free_port()
            site = site_configuration(port, [w.port for w in workers], logs)
            prefix = tmp_path / "nginx"
            (prefix / "logs").mkdir(parents=True)
            with nginx(prefix, site, port):
                yield Club(port, workers, logs=tmp_path)
        finally:
            for process, output, _log in started:
                stop_command(process, output)


# --------------------------------------------------------------------------- the club night


def test_a_club_behind_nginx_with_two_workers(club: Club) -> None:
    referee = Browser(club.port)
    opened = []
    try:
        # The home page, then its form: a POST whose Origin has the port, as the Host does.
        assert referee.get("/").status == 200
        made = referee.post("/", {"name": "Club night", "system": "ose", "attack_method": "matrix"})
        assert made.status == 302, made.text[:500]
        slug = re.fullmatch(r"/e/([\w-]+)/", made.location)[1]
        page = referee.get(f"/e/{slug}/").text
        referee_key = re.search(r"/r/([\w-]+)/", page)[1]
        join_token = re.search(r"/join/([\w-]+)/", page)[1]
        display_token = re.search(r"/d/([\w-]+)/", page)[1]
        added = referee.post(
            f"/e/{slug}/combatants/quick-add/",
            {"count": 1, "name": "Ogre", "ac": 5, "hit_dice": "4", "hp_dice": "30", "side": "foes"},
            referer=f"{referee.origin}/e/{slug}/",
            htmx=True,
        )
        assert added.status == 200, added.text[:500]

        # The referee's phone, through the secret link; a player through the join link.
        phone = Browser(club.port)
        assert phone.get(f"/r/{referee_key}/").location == f"/e/{slug}/"
        player = Browser(club.port)
        join_page = f"{player.origin}/join/{join_token}/"
        assert player.get(f"/join/{join_token}/").status == 200
        joined = player.post(f"/join/{join_token}/", {"name": "Bára"}, referer=join_page)
        assert joined.status == 302 and joined.location == f"/e/{slug}/", joined.text[:500]
        ogre = re.search(r'id="combatant-(\d+)"', referee.get(f"/e/{slug}/").text)[1]
        player_page = player.get(f"/e/{slug}/").text
        seq = snapshot_seq(player_page)
        assert seq is not None

        # Four pages' sockets, spread over both workers by the proxy.
        for browser in (referee, player, phone, player):
            sock = Socket(browser, f"/ws/e/{slug}/?seq={seq}")
            assert sock.status == 101
            sock.seq = seq
            sock.worker = club.worker_of(sock.local_port, "WSCONNECT ")
            sock.referee = browser is not player
            opened.append(sock)
        assert {sock.worker.port for sock in opened} == {w.port for w in club.workers}

        def five_damage_to_the_ogre() -> Answer:
            """The referee's form post that changes the table, answered by some worker."""
            hit = referee.post(
                f"/e/{slug}/hit-points/",
                {"actor": ogre, "action": "damage", "amount": 5},
                referer=f"{referee.origin}/e/{slug}/",
                htmx=True,
            )
            assert hit.status == 200, hit.text[:500]
            return hit

        # A change through one worker reaches every socket, those on the other worker too.
        hit = five_damage_to_the_ogre()
        changed_on = club.worker_of(hit.local_port, f"POST /e/{slug}/hit-points/")
        assert any(sock.worker is not changed_on for sock in opened)
        for sock in opened:
            message = sock.wait_for_seq(seq + 1)
            if sock.referee:
                assert "25/30" in message

        # Static files through the proxy: hashed, compressed, cached for a year.
        css = re.search(r'href="(/static/[^"]+\.css)"', page)[1]
        for encoding in ("br", "gzip"):
            asset = referee.get(css, **{"Accept-Encoding": encoding})
            assert asset.status == 200
            assert asset.headers["Content-Encoding"] == encoding
            assert "max-age=31536000" in asset.headers["Cache-Control"]

        # Another site's page gets no socket, nor does the club's name on another port.
        for origin in ("http://evil.example", f"http://{HOST}:{club.port + 1}"):
            refused = Socket(referee, f"/ws/e/{slug}/?seq={seq}", origin=origin)
            assert refused.status == 403, origin
            refused.close()

        # A name that is not the club's: nginx closes without a word; a worker asked
        # directly answers 400 and writes one line, no traceback.
        with socket.create_connection(("127.0.0.1", club.port), timeout=TIMEOUT) as probe:
            probe.sendall(b"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n")
            with contextlib.suppress(ConnectionResetError):
                assert probe.recv(100) == b""
        stranger = Browser(club.workers[0].port, host="evil.example")
        assert stranger.get("/").status == 400
        club.workers[0].output.wait_for(r"Invalid HTTP_HOST header: 'evil\.example", TIMEOUT)

        # A capability hidden in a query or percent-encoded, for the log's sake.
        assert referee.get(f"/e/{slug}/log/?back=/r/{referee_key}/").status == 200
        assert Browser(club.port).get(f"/%72/{referee_key}/").status == 302
        assert Browser(club.port).get(f"/d/{display_token}/").status == 302

        # One worker killed: its sockets close, the other worker takes them back, and the
        # change made meanwhile is what each page gets when it reconnects.
        killed = opened[-1].worker
        survivor = next(w for w in club.workers if w is not killed)
        killed.process.send_signal(signal.SIGKILL)
        killed.process.wait(timeout=TIMEOUT)
        lost = [sock for sock in opened if sock.worker is killed]
        for sock in lost:
            sock.wait_closed()
            sock.close()
        hit = five_damage_to_the_ogre()
        assert club.worker_of(hit.local_port, f"POST /e/{slug}/hit-points/") is survivor
        for sock in opened:
            if sock.worker is survivor:
                assert "20/30" in sock.wait_for_seq(seq + 2) or not sock.referee
        for sock in lost:
            browser = referee if sock.referee else player
            back = Socket(browser, f"/ws/e/{slug}/?seq={sock.seq}")
            assert back.status == 101
            assert club.worker_of(back.local_port, "WSCONNECT ") is survivor
            message = back.wait_for_seq(seq + 2)
            assert back.seq == seq + 2
            if sock.referee:
                assert "20/30" in message
            opened.append(back)
    finally:
        for sock in opened:
            sock.close()

    # nginx's own logs: every capability visited is there, redacted, and none in clear.
    logs = club.nginx_logs()
    for secret in (referee_key, join_token, display_token):
        assert secret not in logs
    assert '"GET /r/[redacted]/ HTTP/1.1" 302' in logs
    assert '"POST /join/[redacted]/ HTTP/1.1" 302' in logs
    assert f'"http://{HOST}:{club.port}/join/[redacted]/"' in logs
    assert f'"GET /e/{slug}/log/?[redacted] HTTP/1.1" 200' in logs
    assert '"GET /d/[redacted]/ HTTP/1.1" 302' in logs
    # And the workers': the client's address and port the proxy passed on; the stranger's
    # request one line, no traceback.
    for worker in club.workers:
        assert re.search(r"^127\.0\.0\.1:[1-9]\d* ", worker.access_log.read_text(), re.M)
        assert "Traceback" not in worker.output.text()
    assert club.workers[0].output.text().count("Invalid HTTP_HOST header") == 1


# --------------------------------------------------------------------------- the parts


def test_a_worker_without_its_secret_key_file_says_how_to_make_it_and_stops(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "etc" / "secret_key"
    process, output = start_command(
        tmp_path, ["serve", "--port", "0"], {"SECRET_KEY_FILE": str(missing)}
    )
    assert process.wait(timeout=STARTUP_SECONDS) == 1
    text = output.text()
    assert text.count("\n") == 1, text
    assert f"SECRET_KEY_FILE={missing} does not exist" in text
    assert "secrets.token_urlsafe" in text and "every worker" in text
    assert "Traceback" not in text


@pytest.mark.django_db
def test_https_answers_carry_secure_cookies_and_hsts_and_plain_http_ones_do_not(
    settings,
) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    secure = Client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert secure.cookies[settings.CSRF_COOKIE_NAME]["secure"] is True
    assert secure["Strict-Transport-Security"] == "max-age=31536000"
    plain = Client().get("/")
    assert not plain.cookies[settings.CSRF_COOKIE_NAME]["secure"]
    assert "Strict-Transport-Security" not in plain
    # A client's own X-Forwarded-Proto counts only behind a proxy that sets it.
    settings.SECURE_PROXY_SSL_HEADER = None
    assert "Strict-Transport-Security" not in Client().get(
        "/", headers={"X-Forwarded-Proto": "https"}
    )
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.FRAY_HSTS_SECONDS = 0
    secure = Client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in secure
    assert secure.cookies[settings.CSRF_COOKIE_NAME]["secure"] is True


def test_two_installations_on_one_redis_hear_only_their_own_groups() -> None:
    redis_url = _reachable_redis()
    require_or_skip(redis_url is not None, "no Redis reachable (REDIS_URL)")
    from channels_redis.pubsub import RedisPubSubChannelLayer

    async def run() -> None:
        tag = secrets.token_hex(4)
        ours = RedisPubSubChannelLayer(hosts=[redis_url], prefix=f"club-a-{tag}")
        ours_too = RedisPubSubChannelLayer(hosts=[redis_url], prefix=f"club-a-{tag}")
        theirs = RedisPubSubChannelLayer(hosts=[redis_url], prefix=f"club-b-{tag}")
        try:
            channel = await ours.new_channel()
            await ours.group_add("encounter-1", channel)
            await theirs.group_send("encounter-1", {"type": "live", "from": "theirs"})
            await ours_too.group_send("encounter-1", {"type": "live", "from": "ours"})
            # Redis publishes in order: had theirs reached us, it would come first.
            first = await asyncio.wait_for(ours.receive(channel), TIMEOUT)
            assert first["from"] == "ours"
        finally:
            for layer in (ours, ours_too, theirs):
                await layer.flush()

    asyncio.run(run())


def test_the_channel_prefix_reaches_the_redis_layer() -> None:
    env = {"REDIS_URL": "redis://127.0.0.1:6379/0", "FRAY_CHANNEL_PREFIX": "club-b"}
    shown = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings as s; print(s.CHANNEL_LAYERS)"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "combat.site.settings", **env},
        capture_output=True,
        text=True,
        timeout=STARTUP_SECONDS,
    )
    assert "'prefix': 'club-b'" in shown.stdout, shown.stderr


def _directives(text: str) -> list[str]:
    return [
        line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()
    ]


def test_the_shipped_nginx_configuration_redacts_every_capability_prefix() -> None:
    text = SITE.read_text(encoding="utf-8")
    alternations = set(re.findall(r"\(\?:((?:\w+\|)+\w+)\)", text))
    assert alternations == {"|".join(PREFIXES)}, "combat/capabilities.py and the log's maps"
    directives = _directives(text)
    assert all(" fray;" in line for line in directives if line.startswith("access_log"))
    assert "proxy_set_header Host $http_host;" in directives
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in directives
    assert not any(
        "$proxy_add_x_forwarded_for" in line or "$request " in line for line in directives
    )
    assert "listen 80 default_server;" in directives and "return 444;" in directives


def test_the_shipped_systemd_unit_restarts_a_worker_that_died() -> None:
    unit = _directives((DEPLOY / "fray@.service").read_text(encoding="utf-8"))
    assert "Restart=always" in unit
    start = next(line for line in unit if line.startswith("ExecStart="))
    assert "manage.py serve --port %i --proxy-headers" in start
