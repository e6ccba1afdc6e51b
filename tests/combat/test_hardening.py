"""Hardening: no capability in any log line, quiet refusals, same-origin sockets, private pages,
DEBUG off and a private data folder when serving."""

from __future__ import annotations

import ast
import io
import logging
import os
import stat
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from combat.logs import RedactCapabilities, redact, redact_path
from combat.models import Encounter
from combat.site import middleware, serving

KEY = "Zq9-kX_3vR7mPq2sT8wYb4nC5dE6fG7h"
TOKEN = "J0in-T0ken_abcdefghij"


# --- redaction ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (f"/r/{KEY}/", "/r/[redacted]/"),
        (f"/join/{TOKEN}/", "/join/[redacted]/"),
        (f"Method Not Allowed: /r/{KEY}/", "Method Not Allowed: /r/[redacted]/"),
        (
            f"http://192.168.1.23:8000/join/{TOKEN}/?x=1",
            "http://192.168.1.23:8000/join/[redacted]/?x=1",
        ),
        (f"<WSGIRequest: POST '/r/{KEY}/'>", "<WSGIRequest: POST '/r/[redacted]/'>"),
        (f"/r/{KEY}", "/r/[redacted]"),
        ("/e/slug/log/ and /static/fray.js", "/e/slug/log/ and /static/fray.js"),
    ],
)
def test_redaction_hides_the_key_and_token_in_any_path_or_url(text: str, redacted: str) -> None:
    assert redact(text) == redacted


def test_an_access_log_path_is_redacted_even_percent_encoded() -> None:
    # The server decodes the path before routing, so /r%2FKEY/ reaches the referee link.
    assert KEY not in redact_path(f"/r%2F{KEY}/")
    assert KEY not in redact_path(f"/%72/{KEY}/")
    assert redact_path("/e/abc/?page=2") == "/e/abc/?page=2"


def _record(msg: object, args: object = (), exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("django.request", logging.WARNING, __file__, 1, msg, args, exc_info)


def test_the_log_filter_redacts_message_arguments_of_any_kind_and_tracebacks() -> None:
    try:
        raise ValueError(f"no route for /join/{TOKEN}/")
    except ValueError as error:
        exc = error
    records = [
        _record("Method Not Allowed (%s): %s", ("POST", f"/r/{KEY}/")),
        _record(
            "WebSocket CONNECT %(path)s [%(client)s]", ({"path": f"/r/{KEY}/", "client": "x"},)
        ),
        _record(ValueError(f"/join/{TOKEN}/")),
        _record("Internal Server Error: %s", ("/e/slug/",), exc=exc),
    ]
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(RedactCapabilities())
    for record in records:
        handler.handle(record)
    text = handler.stream.getvalue()
    assert KEY not in text and TOKEN not in text
    assert "Method Not Allowed (POST): /r/[redacted]/" in text
    assert "WebSocket CONNECT /r/[redacted]/ [x]" in text
    assert "\n/join/[redacted]/\n" in text
    # The traceback is kept, redacted.
    assert "Traceback" in text and "ValueError: no route for /join/[redacted]/" in text


def test_every_configured_log_handler_redacts_capabilities() -> None:
    handlers = logging.getLogger().handlers + logging.getLogger("django.server").handlers
    configured = [h for h in handlers if not type(h).__module__.startswith("_pytest")]
    assert configured
    for handler in configured:
        assert any(isinstance(f, RedactCapabilities) for f in handler.filters), handler
    # Django's DEBUG-only console handler is gone: it would print each line again, unredacted.
    assert logging.getLogger("django").handlers == []


@pytest.mark.django_db
def test_a_refused_or_missing_capability_link_is_logged_without_its_secret(
    root_console: io.StringIO,
) -> None:
    encounter = Encounter.objects.create(name="Crypt")
    client = Client()
    assert client.post(f"/r/{encounter.referee_key}/").status_code == 405
    assert client.get(f"/r/{KEY}/").status_code == 404
    assert client.get(f"/join/{TOKEN}/").status_code == 404
    text = root_console.getvalue()
    assert "Method Not Allowed" in text and "Not Found" in text
    assert encounter.referee_key not in text and KEY not in text and TOKEN not in text
    assert text.count("[redacted]") == 3


# --- refusals: one line, no traceback -----------------------------------------------------


def _one_clean_line(caplog: pytest.LogCaptureFixture, words: str) -> None:
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert words in records[0].getMessage()
    assert records[0].exc_info is None and not records[0].exc_text


def test_a_player_refused_a_referee_action_gets_403_and_one_log_line_without_traceback(
    player: Client, encounter: Encounter, caplog: pytest.LogCaptureFixture
) -> None:
    response = player.post(reverse("combatant_new", args=[encounter.slug]), {"name": "Orc"})
    assert response.status_code == 403
    _one_clean_line(caplog, "Forbidden")


def test_an_outsider_gets_404_and_one_log_line_without_traceback(
    outsider: Client, encounter: Encounter, caplog: pytest.LogCaptureFixture
) -> None:
    assert outsider.get(reverse("encounter", args=[encounter.slug])).status_code == 404
    _one_clean_line(caplog, "Not Found")


# --- the websocket Origin check -----------------------------------------------------------


def _scope(origin: str | None, host: str | None, scheme: str | None = None, **extra: str) -> dict:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    headers += [(name.replace("_", "-").encode(), value.encode()) for name, value in extra.items()]
    scope: dict = {"type": "websocket", "headers": headers}
    if scheme:
        scope["scheme"] = scheme
    return scope


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", None, True),
        ("http://localhost", "localhost", "ws", True),
        ("http://LOCALHOST:80", "localhost", "ws", True),  # the default port, spelt out
        ("http://[::1]:8000", "[::1]:8000", None, True),
        ("https://localhost", "localhost", "wss", True),
        ("https://localhost:8443", "localhost:8443", "wss", True),
        # Another port, scheme or host is another site, even on an allowed host.
        ("http://127.0.0.1:9999", "127.0.0.1:8000", None, False),
        ("http://localhost", "localhost:8000", None, False),
        ("https://localhost:8000", "localhost:8000", "ws", False),
        ("http://localhost", "localhost", "wss", False),
        ("http://127.0.0.1:8000", "localhost:8000", None, False),
        ("http://evil.example", "evil.example", None, False),  # not in ALLOWED_HOSTS
        ("null", "localhost", None, False),
        (None, "localhost", None, False),
        ("http://localhost", None, None, False),
        ("http://localhost:99999", "localhost:99999", None, False),
        ("http://user@localhost", "localhost", None, False),
    ],
)
def test_a_websocket_must_come_from_the_very_origin_of_its_page(
    origin: str | None, host: str | None, scheme: str | None, allowed: bool
) -> None:
    assert middleware.same_origin(_scope(origin, host, scheme)) is allowed


def test_behind_an_https_proxy_the_forwarded_scheme_decides_only_when_trusted(settings) -> None:
    settings.ALLOWED_HOSTS = ["table.example"]
    behind = _scope("https://table.example", "table.example", x_forwarded_proto="https")
    assert not middleware.same_origin(behind)  # the header is not trusted by default
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert middleware.same_origin(behind)
    assert not middleware.same_origin(
        _scope("http://table.example", "table.example", x_forwarded_proto="https")
    )


def test_the_origin_check_reads_allowed_hosts_at_connect_time(settings) -> None:
    settings.ALLOWED_HOSTS = ["localhost"]
    scope = _scope("http://192.168.1.23:8000", "192.168.1.23:8000")
    assert not middleware.same_origin(scope)
    settings.ALLOWED_HOSTS = ["localhost", "192.168.1.23"]
    assert middleware.same_origin(scope)


# --- private pages, cookies, COOP --------------------------------------------------------


def test_encounter_pages_and_capability_links_are_never_stored(
    referee: Client, player: Client, encounter: Encounter
) -> None:
    responses = [
        referee.get(reverse("encounter", args=[encounter.slug])),
        referee.get(reverse("log", args=[encounter.slug])),
        player.get(reverse("encounter", args=[encounter.slug])),
        Client().get(reverse("join", args=[encounter.join_token])),
        Client().get(reverse("referee_link", args=[encounter.referee_key])),
        Client().get(f"/r/{KEY}/"),
    ]
    for response in responses:
        assert "no-store" in response["Cache-Control"], response


def test_the_language_cookie_is_same_site_lax(client: Client) -> None:
    response = client.post("/i18n/setlang/", {"language": "cs", "next": "/"})
    assert response.cookies[django_settings.LANGUAGE_COOKIE_NAME]["samesite"] == "Lax"


@pytest.mark.django_db
def test_cross_origin_opener_policy_is_sent_over_https_only(client: Client) -> None:
    assert "Cross-Origin-Opener-Policy" not in client.get("/")
    assert client.get("/", secure=True)["Cross-Origin-Opener-Policy"] == "same-origin"


# --- DEBUG off and a private data folder --------------------------------------------------


def test_serving_forces_debug_off_and_everything_settings_derive_from_it(settings) -> None:
    from whitenoise.middleware import WhiteNoiseMiddleware

    settings.DEBUG = True
    settings.WHITENOISE_AUTOREFRESH = True
    serving.force_debug_off()
    assert settings.DEBUG is False
    assert WhiteNoiseMiddleware(lambda request: None).autorefresh is False


def test_every_setting_computed_from_debug_is_forced_off_with_it() -> None:
    # A setting computed from DEBUG at import keeps the environment's DEBUG unless the serving
    # commands reset it too: this fails when someone adds one to settings.py.
    source = Path(django_settings.BASE_DIR, "combat", "site", "settings.py").read_text(
        encoding="utf-8"
    )
    derived = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id == "DEBUG" for n in ast.walk(node.value)
        ):
            derived |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    assert derived == set(serving.DEBUG_DERIVED)


posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
def test_a_new_data_folder_is_private_and_so_is_its_database(tmp_path: Path) -> None:
    data_dir = tmp_path / "fray-data"
    database = data_dir / "fray.sqlite3"
    serving.make_data_folder_private(data_dir, database)
    assert _mode(data_dir) == 0o700
    assert _mode(database) == 0o600
    # SQLite gives its -wal and -shm files the database file's mode.
    import sqlite3

    connection = sqlite3.connect(database)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE t (x)")
    try:
        for path in serving.sqlite_files(database):
            assert _mode(path) & 0o077 == 0, path
    finally:
        connection.close()


@posix_only
def test_an_older_data_folder_is_tightened(tmp_path: Path) -> None:
    data_dir = tmp_path / "fray-data"
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)
    database = data_dir / "fray.sqlite3"
    files = [*serving.sqlite_files(database), data_dir / "secret_key"]
    for path in files:
        path.write_text("x")
        os.chmod(path, 0o644)
    serving.make_data_folder_private(data_dir, database)
    assert _mode(data_dir) == 0o700
    for path in files:
        assert _mode(path) == 0o600, path


@posix_only
def test_a_shared_folder_named_as_the_data_folder_is_left_alone(tmp_path: Path) -> None:
    common = tmp_path / "common"
    common.mkdir()
    os.chmod(common, 0o1777)
    serving.make_data_folder_private(common, None)
    assert _mode(common) == 0o1777


def test_the_server_lets_a_large_snapshot_out():
    # Daphne's message cap applies to what it sends as well: a cap for abusive frames once
    # cut off every referee snapshot over 16 KB (close 1011).
    from combat.live.consumers import MAX_FRAME_CHARS
    from combat.site import serving

    assert serving.WEBSOCKET_MAX_MESSAGE_BYTES >= 1024 * 1024 > 100 * MAX_FRAME_CHARS
