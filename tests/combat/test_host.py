"""The ``host`` command: finding the machine's LAN addresses and names, and serving for real."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError

from combat.management.commands import host
from combat.site.middleware import same_origin

IP_OUTPUT = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: wlp2s0    inet 192.168.1.23/24 brd 192.168.1.255 scope global dynamic wlp2s0
3: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\       valid_lft forever
"""

FIB_TRIE = """\
Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 10.0.0.0/24 2 0 2
        +-- 10.0.0.0/30 2 0 2
           |-- 10.0.0.0
              /24 link UNICAST
           |-- 10.0.0.2
              /32 host LOCAL
        |-- 10.0.0.255
           /32 link BROADCAST
Local:
  +-- 0.0.0.0/0 3 0 5
     +-- 10.0.0.0/24 2 0 2
           |-- 10.0.0.2
              /32 host LOCAL
"""


def test_it_reads_addresses_from_the_ip_command() -> None:
    assert host.addresses_from_ip_command(IP_OUTPUT) == ["127.0.0.1", "192.168.1.23", "172.17.0.1"]


def test_it_reads_only_the_machines_own_addresses_from_the_fib_trie() -> None:
    assert host.addresses_from_fib_trie(FIB_TRIE) == ["127.0.0.1", "10.0.0.2"]


@pytest.mark.parametrize(
    ("address", "usable"),
    [
        ("192.168.1.23", True),
        ("10.0.0.2", True),
        ("172.17.0.1", True),
        ("127.0.0.1", False),
        ("127.0.1.1", False),
        ("0.0.0.0", False),
        ("169.254.10.1", False),
        ("224.0.0.1", False),
        ("fe80::1", False),
        ("not an address", False),
    ],
)
def test_it_offers_players_only_reachable_ipv4_addresses(address: str, usable: bool) -> None:
    assert host.usable_ipv4(address) is usable


def test_it_lists_the_routed_address_first_then_private_ones_without_repeats() -> None:
    ordered = host.order_addresses(
        [None, "192.168.1.23", "192.168.1.23"],
        ["127.0.0.1", "93.184.216.34", "172.17.0.1", "192.168.1.23", "10.0.0.2"],
    )
    assert ordered == ["192.168.1.23", "172.17.0.1", "10.0.0.2", "93.184.216.34"]


def test_it_combines_every_source_of_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        host, "outgoing_address", lambda target: "192.168.1.23" if target[0] == "1" else None
    )
    monkeypatch.setattr(host, "_ip_command_output", lambda: IP_OUTPUT)
    monkeypatch.setattr(host, "_fib_trie_text", lambda: FIB_TRIE)
    monkeypatch.setattr(host, "addresses_from_hostname", lambda name: ["127.0.1.1", "10.9.8.7"])
    assert host.lan_addresses("laptop") == ["192.168.1.23", "172.17.0.1", "10.0.0.2", "10.9.8.7"]


def test_it_finds_no_address_without_crashing_when_every_source_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("no network here")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(Path, "read_text", refuse)
    assert host.lan_addresses("laptop") == []


def test_it_gives_up_on_a_name_lookup_that_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def hang(*args: object, **kwargs: object) -> list[object]:
        release.wait(5)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", hang)
    started = time.monotonic()
    try:
        assert host.addresses_from_hostname("laptop", timeout=0.1) == []
    finally:
        release.set()
    assert time.monotonic() - started < 2


def test_it_finds_the_outgoing_address_without_sending_anything() -> None:
    # Loopback is always routable, so this works on any machine, online or not.
    assert host.outgoing_address("127.0.0.1") == "127.0.0.1"


@pytest.mark.parametrize(
    ("hostname", "names"),
    [
        ("Laptop", ["localhost", "laptop", "laptop.local"]),
        ("box.lan", ["localhost", "box.lan", "box", "box.local"]),
        ("gm-pc.local.", ["localhost", "gm-pc.local", "gm-pc"]),
        ("", ["localhost"]),
    ],
)
def test_it_accepts_the_machines_hostname_and_mdns_name(hostname: str, names: list[str]) -> None:
    assert host.machine_names(hostname) == names


def test_it_extends_allowed_hosts_with_addresses_names_and_extras_once_each() -> None:
    hosts = host.extended_allowed_hosts(
        ["localhost", "127.0.0.1", "[::1]"],
        ["192.168.1.23", "10.0.0.2"],
        ["localhost", "laptop", "laptop.local"],
        [" Table.Example ", "192.168.1.23"],
    )
    assert hosts == [
        "localhost",
        "127.0.0.1",
        "[::1]",
        "laptop",
        "laptop.local",
        "192.168.1.23",
        "10.0.0.2",
        "table.example",
    ]
    assert "*" not in hosts


def test_it_refuses_a_wildcard_allowed_host() -> None:
    with pytest.raises(CommandError, match="every site"):
        host.extended_allowed_hosts(["localhost"], [], [], ["*"])


def test_the_websocket_origin_check_accepts_the_lan_address_once_applied(settings) -> None:
    settings.ALLOWED_HOSTS = ["localhost"]

    def scope(origin: str, host_header: str) -> dict:
        headers = [(b"origin", origin.encode()), (b"host", host_header.encode())]
        return {"type": "websocket", "headers": headers}

    lan = scope("http://192.168.1.23:8000", "192.168.1.23:8000")
    assert not same_origin(lan)

    host.apply_allowed_hosts(["localhost", "laptop.local", "192.168.1.23"])

    assert django_settings.ALLOWED_HOSTS == ["localhost", "laptop.local", "192.168.1.23"]
    assert same_origin(lan)
    assert same_origin(scope("http://laptop.local:8000", "laptop.local:8000"))
    assert not same_origin(scope("http://evil.example", "laptop.local:8000"))
    assert not same_origin(scope("http://laptop.local:9999", "laptop.local:8000"))


@pytest.mark.parametrize(
    ("bind", "addresses", "urls"),
    [
        (
            "0.0.0.0",
            ["192.168.1.23", "10.0.0.2"],
            ["http://192.168.1.23:8000/", "http://10.0.0.2:8000/"],
        ),
        ("0.0.0.0", [], []),
        ("192.168.1.23", ["10.0.0.2"], ["http://192.168.1.23:8000/"]),
        ("127.0.0.1", ["192.168.1.23"], ["http://127.0.0.1:8000/"]),
        ("::1", [], ["http://[::1]:8000/"]),
    ],
)
def test_it_shows_players_the_addresses_the_server_listens_on(
    bind: str, addresses: list[str], urls: list[str]
) -> None:
    assert host.player_urls(bind, 8000, addresses) == urls


def test_it_refuses_a_port_out_of_range() -> None:
    with pytest.raises(CommandError, match="--port"):
        call_command("host", port=70000)


# --- end to end: the real command in a subprocess --------------------------------------------

STARTUP_SECONDS = 30
STOP_SECONDS = 10
# The host test proves the embedded default: SQLite in its data folder, whatever the suite uses.
SCALE_OUT_ENV = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "SECRET_KEY_FILE", "ALLOWED_HOSTS")


class ServerOutput:
    """Collects a process's output on a thread, so reading never blocks the test."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._process = process
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if match := re.search(pattern, line):
                    return match
            if self._process.poll() is not None:
                break
            time.sleep(0.05)
        pytest.fail(f"no line matching {pattern!r}; output:\n{self.text()}")

    def text(self) -> str:
        self._thread.join(0.5)
        return "".join(self.lines)


def _get(url: str, host_header: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if host_header:
        request.add_header("Host", host_header)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_it_serves_pages_and_static_files_then_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    data_dir = tmp_path / "fray-data"
    env = {key: value for key, value in os.environ.items() if key not in SCALE_OUT_ENV}
    env |= {"FRAY_DATA_DIR": str(data_dir), "PYTHONUNBUFFERED": "1", "DEBUG": "0"}
    manage = Path(django_settings.BASE_DIR) / "manage.py"
    process = subprocess.Popen(
        # Port 0: the server picks a free port and prints the one it got, so no race.
        [sys.executable, str(manage), "host", "--port", "0", "--bind", "127.0.0.1"],
        cwd=django_settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = ServerOutput(process)
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)

        status, page = _get(base)
        assert status == 200, page[:500]
        mdns_name = f"{socket.gethostname().split('.')[0].lower()}.local"
        if re.fullmatch(r"[a-z0-9-]+\.local", mdns_name):  # else no valid Host header at all
            status, _ = _get(base, host_header=mdns_name)
            assert status == 200, "the machine's mDNS name must be an allowed host"

        status, script = _get(base + "static/django_htmx/htmx-2.min.js")
        assert status == 200
        assert b"htmx" in script

        assert (data_dir / "fray.sqlite3").is_file()
        assert (data_dir / "secret_key").is_file()

        process.send_signal(signal.SIGINT)
        returncode = process.wait(timeout=STOP_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = output.text()
    assert returncode == 0, text
    assert "Traceback" not in text
    assert "Fray stopped." in text


# --- end to end: secrets never in the output, DEBUG off, a private data folder ---------------

# Shaped like real ones (secrets.token_urlsafe); the redaction does not care whether they work.
REFEREE_KEY = "kEy-0f-tHe_rEfErEe-9x8w7v6u5t4s3r2q"
JOIN_TOKEN = "t0KeN_0f-tHe-TaBlE1"


def start_command(
    tmp_path: Path, command: list[str], extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], ServerOutput]:
    env = {key: value for key, value in os.environ.items() if key not in SCALE_OUT_ENV}
    env |= {"FRAY_DATA_DIR": str(tmp_path / "fray-data"), "PYTHONUNBUFFERED": "1"}
    env |= extra_env or {}
    manage = Path(django_settings.BASE_DIR) / "manage.py"
    process = subprocess.Popen(
        [sys.executable, str(manage), *command],
        cwd=django_settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return process, ServerOutput(process)


def stop_command(process: subprocess.Popen[str], output: ServerOutput) -> str:
    try:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=STOP_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return output.text()


def fetch_page(
    opener: urllib.request.OpenerDirector,
    url: str,
    method: str = "GET",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    data = b"" if method == "POST" else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _websocket_close_code(port: int, path: str) -> int | None:
    """Open a websocket on ``path`` like a browser on the page would, and return the code the
    server closes it with (just enough RFC 6455 for that)."""
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Origin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Key: {key}\r\n\r\n"
            ).encode()
        )
        received = b""
        while b"\r\n\r\n" not in received or len(received.partition(b"\r\n\r\n")[2]) < 4:
            chunk = connection.recv(4096)
            if not chunk:
                break
            received += chunk
    head, _, frames = received.partition(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n", 1)[0] + b" ":
        return None
    if len(frames) >= 4 and frames[0] == 0x88:  # a close frame, unmasked, short payload
        return int.from_bytes(frames[2:4], "big")
    return None


def _visit_capability_paths(base: str, port: int) -> None:
    """Everything that used to put a referee key or join token in the log."""
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    assert fetch_page(browser, base)[0] == 200  # the CSRF cookie
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    assert fetch_page(browser, f"{base}r/{REFEREE_KEY}/")[0] == 404
    assert fetch_page(browser, f"{base}join/{JOIN_TOKEN}/")[0] == 404
    assert fetch_page(browser, f"{base}r/{REFEREE_KEY}/", "POST", {"X-CSRFToken": csrf})[0] == 405
    assert fetch_page(urllib.request.build_opener(), f"{base}r/{REFEREE_KEY}/", "POST")[0] == 403
    assert _websocket_close_code(port, f"/join/{JOIN_TOKEN}/") == 4404


def _assert_no_secrets(text: str) -> None:
    assert REFEREE_KEY not in text, text
    assert JOIN_TOKEN not in text, text
    assert "Traceback" not in text, text


def test_the_host_log_never_shows_a_referee_key_or_join_token(tmp_path: Path) -> None:
    # -v 2: the access log too, on top of the default log's refusals and missing pages.
    process, output = start_command(
        tmp_path, ["host", "--port", "0", "--bind", "127.0.0.1", "-v", "2"]
    )
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)
        port = int(base.rsplit(":", 1)[1].strip("/"))
        _visit_capability_paths(base, port)
        # The lines are there, redacted: the test would prove nothing if they were missing.
        output.wait_for(r"Method Not Allowed.*/r/\[redacted\]/", STARTUP_SECONDS)
        output.wait_for(r"Not Found: /join/\[redacted\]/", STARTUP_SECONDS)
        output.wait_for(r"HTTP POST /r/\[redacted\]/ 405", STARTUP_SECONDS)
        output.wait_for(r"WebSocket connected /join/\[redacted\]/", STARTUP_SECONDS)
    finally:
        text = stop_command(process, output)
    _assert_no_secrets(text)


def test_a_serve_worker_serves_with_debug_off_and_a_redacted_access_log(tmp_path: Path) -> None:
    env = {"DEBUG": "1"}
    migrate, migrate_output = start_command(tmp_path, ["migrate", "-v", "0"], env)
    assert migrate.wait(timeout=STARTUP_SECONDS) == 0, migrate_output.text()
    process, output = start_command(
        tmp_path, ["serve", "--port", "0", "--bind", "127.0.0.1", "--access-log"], env
    )
    try:
        base = output.wait_for(
            r"Fray worker listening on (http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS
        ).group(1)
        port = int(base.rsplit(":", 1)[1].strip("/"))
        _visit_capability_paths(base, port)
        output.wait_for(r'"POST /r/\[redacted\]/" 405', STARTUP_SECONDS)
        output.wait_for(r'"GET /join/\[redacted\]/" 404', STARTUP_SECONDS)
        output.wait_for(r"WSCONNECT /join/\[redacted\]/", STARTUP_SECONDS)
        output.wait_for(r"Method Not Allowed.*/r/\[redacted\]/", STARTUP_SECONDS)

        # DEBUG=1 in the environment, yet no debug page and WhiteNoise's production caching.
        status, _headers, page = fetch_page(urllib.request.build_opener(), f"{base}no/such/page/")
        assert status == 404
        assert b"URLconf" not in page and b"DEBUG = True" not in page
        status, headers, _ = fetch_page(
            urllib.request.build_opener(), f"{base}static/django_htmx/htmx-2.min.js"
        )
        assert status == 200 and "max-age=60" in headers.get("Cache-Control", "")
    finally:
        text = stop_command(process, output)
    _assert_no_secrets(text)
    assert "Fray stopped." in text


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_host_serves_with_debug_off_and_makes_an_older_data_folder_private(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "fray-data"
    data_dir.mkdir()
    os.chmod(data_dir, 0o755)
    secret_key = data_dir / "secret_key"
    secret_key.write_text("an older key, readable by anyone")
    os.chmod(secret_key, 0o644)
    database = data_dir / "fray.sqlite3"
    database.touch()
    os.chmod(database, 0o644)

    process, output = start_command(
        tmp_path, ["host", "--port", "0", "--bind", "127.0.0.1"], {"DEBUG": "1"}
    )
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)
        assert fetch_page(urllib.request.build_opener(), base)[0] == 200  # the database is in use
        status, _headers, page = fetch_page(urllib.request.build_opener(), f"{base}no/such/page/")
        assert status == 404 and b"URLconf" not in page
        status, headers, _ = fetch_page(
            urllib.request.build_opener(), f"{base}static/django_htmx/htmx-2.min.js"
        )
        assert "max-age=60" in headers.get("Cache-Control", "")

        def mode(path: Path) -> int:
            return path.stat().st_mode & 0o777

        assert mode(data_dir) == 0o700
        assert mode(secret_key) == 0o600
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
            assert path.exists(), path
            assert mode(path) == 0o600, path
    finally:
        text = stop_command(process, output)
    assert "Traceback" not in text, text


@pytest.mark.django_db(transaction=True)
def test_serving_opens_the_live_parts_database_connections_before_it_listens() -> None:
    """The render thread and the thread sockets' database work runs on are connected before
    the first socket comes: a fresh worker's first sockets wait for no connection."""
    import asyncio

    from asgiref.sync import sync_to_async
    from django.db import connection

    from combat.live.hub import RENDER_THREAD
    from combat.site import serving

    def connected() -> bool:
        return connection.connection is not None

    def close() -> None:
        connection.close()

    def on_sockets_thread(func):
        found = []
        thread = threading.Thread(target=lambda: found.append(asyncio.run(sync_to_async(func)())))
        thread.start()
        thread.join()
        return found[0] if found else None

    RENDER_THREAD.submit(close).result()
    on_sockets_thread(close)
    try:
        serving.connect_ahead()
        assert RENDER_THREAD.submit(connected).result()
        assert on_sockets_thread(connected)
    finally:  # the test database is dropped at the end: nothing may stay connected to it
        RENDER_THREAD.submit(close).result()
        on_sockets_thread(close)


def test_a_server_queues_a_crowd_of_connects_instead_of_dropping_them(monkeypatch) -> None:
    """Daphne listens through Twisted, whose backlog is 50 unless told: 200 sockets opening
    at once lost some connects, retried by the browsers a second later."""
    from twisted.internet.endpoints import serverFromString

    from combat.management.commands.serve import Command
    from combat.site import serving

    given: dict = {}

    class Server:
        def __init__(self, **kwargs) -> None:
            given.update(kwargs)
            self.listening_addresses = [("127.0.0.1", 8000)]

        def run(self) -> None:
            pass

    monkeypatch.setattr(serving, "_server_class", lambda: Server)
    monkeypatch.setattr(serving, "connect_ahead", lambda: None)
    monkeypatch.setattr(serving, "settle_memory", lambda: None)
    Command().run_daphne(
        bind="0.0.0.0", port=8000, verbosity=0, action_logger=None, ready=lambda server: None
    )
    assert given["endpoints"]
    for description in given["endpoints"]:
        endpoint = serverFromString(None, description)
        assert endpoint._port == 8000 and endpoint._backlog == serving.LISTEN_BACKLOG >= 200


def test_serving_leaves_what_starting_built_out_of_the_collectors_passes() -> None:
    """What a server builds before it listens lives as long as it does: frozen, so that the
    collector's full passes (a pause every socket feels) walk only what serving made, and
    young objects are collected less often than Python's default."""
    import gc

    from combat.site import serving

    threshold = gc.get_threshold()
    try:
        serving.settle_memory()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == serving.GC_THRESHOLDS
        assert serving.GC_THRESHOLDS[0] > threshold[0]
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_serving_compiles_every_template_and_the_url_patterns_before_it_listens(
    monkeypatch,
) -> None:
    """A worker that only holds sockets (the second of two) renders live views without
    having served a page: what its first render would import and compile is done first, and
    its channel layer is made (its first socket would make it on the event loop)."""
    import gc

    from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers
    from django.template import engines
    from django.urls import clear_url_caches, get_resolver

    from combat.site import serving

    clear_url_caches()
    loader = engines["django"].engine.template_loaders[0]
    loader.reset()
    monkeypatch.setattr(channel_layers, "backends", {})
    threshold = gc.get_threshold()
    try:
        serving.settle_memory()
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    names = serving._template_names()
    assert "combat/_combatant_rest.html" in names and "base.html" in names
    assert set(names) <= set(loader.get_template_cache)
    assert get_resolver()._populated
    assert DEFAULT_CHANNEL_LAYER in channel_layers.backends


def test_the_server_leaves_parsing_a_posted_form_to_django() -> None:
    """Twisted would parse every POSTed form into ``request.args`` (its content type through
    the email package) for Daphne, which never reads them: Django parses the body itself."""
    import io

    from twisted.web import http
    from twisted.web.test.requesthelper import DummyChannel

    from combat.site import serving

    server = serving._server_class()(application=None, endpoints=["tcp:port=0"])
    server.connections = {}  # as Server.run() starts it
    request = http.Request(DummyChannel())
    server.protocol_connected(request)
    request.requestHeaders.setRawHeaders(b"content-type", [b"application/x-www-form-urlencoded"])
    request.content = io.BytesIO()
    request.content.write(b"amount=3&actor=7")
    request.requestReceived(b"POST", b"/e/x/hit-points/?from=row", b"HTTP/1.1")
    assert request.args == {b"from": [b"row"]}  # the query string only, as before
    assert request.content.read() == b"amount=3&actor=7"  # the body, whole, for Django
