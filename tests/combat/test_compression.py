"""Compressed pages, hashed static files cached for a year, and what a first load weighs.

In process: the middleware and the storage. With a real server in a subprocess (the helpers of
test_host.py): what ``host`` and ``serve`` collect at startup and what a phone downloads.
"""

from __future__ import annotations

import gzip
import http.cookiejar
import io
import json
import re
import secrets
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

from combat.models import Encounter
from combat.site import serving

from .test_host import STARTUP_SECONDS, fetch_page, start_command, stop_command

# What a phone's browser sends: compression on every request.
BROWSER_ENCODINGS = "gzip, deflate, br, zstd"
HASHED_STATIC = re.compile(r"^/static/.+\.[0-9a-f]{12}\.(?:css|js|svg)$")
ONE_YEAR = "max-age=31536000"
# The targets for a first load, every request counted, compressed.
PLAYER_FIRST_LOAD_BYTES = 30_000
REFEREE_FIRST_LOAD_BYTES = 60_000


# --- pages: gzip, and Django's padding against BREACH -----------------------------------------


@pytest.mark.django_db
def test_a_page_is_gzipped_when_the_browser_accepts_it() -> None:
    response = Client().get("/", HTTP_ACCEPT_ENCODING=BROWSER_ENCODINGS)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    page = gzip.decompress(response.content)
    assert page.lstrip().startswith(b"<!doctype html>")
    assert b"csrfmiddlewaretoken" in page


@pytest.mark.django_db
def test_a_page_is_sent_plain_to_a_client_that_does_not_accept_gzip() -> None:
    response = Client().get("/")
    assert "Content-Encoding" not in response
    # A cache between must still keep the two answers apart.
    assert "Accept-Encoding" in response["Vary"]
    assert response.content.lstrip().startswith(b"<!doctype html>")


@pytest.mark.django_db
def test_a_gzipped_page_carries_djangos_random_padding_against_breach() -> None:
    # "Heal the Breach": a file name of 0-99 random bytes in the gzip header, so the length
    # of a page carrying a CSRF token no longer tells an attacker what it contains.
    body = Client().get("/", HTTP_ACCEPT_ENCODING="gzip").content
    assert body[:2] == b"\x1f\x8b"
    assert body[3] & 0x08, "no FNAME field: Django's BREACH padding is missing"
    padding = body[10 : body.index(b"\x00", 10)]
    assert set(padding) <= {ord("a")} and len(padding) < 100


def test_the_join_qr_code_still_arrives_whole_and_private_when_gzipped(
    referee: Client, encounter: Encounter
) -> None:
    response = referee.get(
        reverse("join_qr", args=[encounter.slug]), HTTP_ACCEPT_ENCODING=BROWSER_ENCODINGS
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Encoding"] == "gzip"
    assert "no-store" in response["Cache-Control"]
    svg = gzip.decompress(response.content)
    assert b"<svg" in svg and svg.rstrip().endswith(b"</svg>")


@pytest.mark.django_db
def test_a_static_file_streams_past_the_page_compression_untouched() -> None:
    # WhiteNoise answers before GZipMiddleware: its streamed file is never compressed twice.
    response = Client().get("/static/fray.js", HTTP_ACCEPT_ENCODING=BROWSER_ENCODINGS)
    assert response.status_code == 200
    assert response.streaming
    assert "Content-Encoding" not in response
    sent = b"".join(response.streaming_content)
    assert sent == (Path(django_settings.BASE_DIR) / "static" / "fray.js").read_bytes()


# --- static files: plain names without a collect, hashed ones after ---------------------------


@pytest.fixture
def static_folders(settings, tmp_path: Path) -> tuple[Path, Path]:
    """An empty STATIC_ROOT and a source folder of our own in place of the project's."""
    source, root = tmp_path / "source", tmp_path / "static"
    source.mkdir()
    (source / "fray.css").write_text("body { color: black; }\n")
    (source / "fray.js").write_text("document.documentElement.classList.add('js');\n")
    (source / "favicon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"></svg>\n')
    settings.STATICFILES_DIRS = [source]
    settings.STATIC_ROOT = root
    return source, root


def test_pages_name_the_plain_static_files_when_nothing_was_collected(
    static_folders: tuple[Path, Path],
) -> None:
    assert static("fray.css") == "/static/fray.css"
    assert static("django_htmx/htmx-2.min.js") == "/static/django_htmx/htmx-2.min.js"


def test_static_files_are_collected_once_then_again_only_when_a_source_changes(
    static_folders: tuple[Path, Path],
) -> None:
    source, root = static_folders
    assert serving.collect_static_if_needed() is True
    first = static("fray.css")
    assert HASHED_STATIC.match(first), first
    assert (root / first.removeprefix("/static/")).is_file()
    assert not (root / "fray.css").exists(), "plain-named copies are not kept"

    assert serving.collect_static_if_needed() is False

    (source / "fray.css").write_text("body { color: darkred; }\n")
    assert serving.collect_static_if_needed() is True
    second = static("fray.css")
    assert HASHED_STATIC.match(second) and second != first
    # A worker started before the change may still hand out pages naming the old file.
    assert (root / first.removeprefix("/static/")).is_file()
    assert serving.collect_static_if_needed() is False


def test_collected_css_and_javascript_leave_out_their_comments(
    static_folders: tuple[Path, Path],
) -> None:
    """What only a reader of the sources needs stays out of what phones download; strings
    that look like comments, and every rule and statement, are kept."""
    source, root = static_folders
    (source / "fray.css").write_text(
        "/* the theme */\nbody { color: black; } /* multi\nline */\n"
        'a::after { content: "/* kept */"; background: url(http://example.org/x.svg); }\n'
    )
    (source / "fray.js").write_text(
        "// what it does\n  // indented\nvar url = 'http://example.org'; // after code\n"
        "function f() {\n\n  return 1;\n}\n"
    )
    (source / "vendor.min.js").write_text("// licence\nx();\n")
    assert serving.collect_static_if_needed() is True
    css = (root / static("fray.css").removeprefix("/static/")).read_text()
    assert css == (
        "body { color: black; } \n"
        'a::after { content: "/* kept */"; background: url(http://example.org/x.svg); }\n'
    )
    js = (root / static("fray.js").removeprefix("/static/")).read_text()
    assert js == "var url = 'http://example.org'; // after code\nfunction f() {\nreturn 1;\n}\n"
    vendor = (root / static("vendor.min.js").removeprefix("/static/")).read_text()
    assert vendor == "// licence\nx();\n"
    # Leaning what is lean changes nothing: the hashed copy is saved lean a second time.
    assert serving.lean("fray.css", css) == css and serving.lean("fray.js", js) == js


def test_a_damaged_or_incomplete_collect_is_redone(static_folders: tuple[Path, Path]) -> None:
    _source, root = static_folders
    assert serving.collect_static_if_needed() is True
    (root / "staticfiles.json").write_text("{not json")
    assert serving.collect_static_if_needed() is True
    assert HASHED_STATIC.match(static("fray.js"))

    hashed = json.loads((root / "staticfiles.json").read_text())["paths"]["fray.js"]
    (root / hashed).unlink()
    assert serving.collect_static_if_needed() is True
    assert (root / hashed).is_file()


def test_a_table_starts_with_plain_static_names_when_the_collect_fails(
    static_folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    source, root = static_folders
    assert serving.collect_static_if_needed() is True
    # A stylesheet naming a file that is not there: collectstatic refuses it.
    (source / "fray.css").write_text('body { background: url("missing.png"); }\n')
    monkeypatch.setattr(serving, "make_data_folder_private", lambda data_dir, database: None)
    errors = io.StringIO()

    serving.DaphneCommand(stdout=io.StringIO(), stderr=errors).prepare_data_folder()

    assert "could not be collected" in errors.getvalue()
    # Nothing stale: the old manifest is gone, every page names the current plain files.
    assert not (root / "staticfiles.json").exists()
    assert static("fray.css") == "/static/fray.css"
    assert static("fray.js") == "/static/fray.js"


# --- a real server: what host and serve send ---------------------------------------------------


class Browser:
    """A browser with its own cookies (session, CSRF), asking for compressed answers."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, url: str) -> tuple[int, dict[str, str], bytes]:
        return fetch_page(self.opener, url, headers={"Accept-Encoding": BROWSER_ENCODINGS})

    def post(self, url: str, data: dict[str, object], htmx: bool = False) -> tuple[int, str]:
        """Send a form (with its one-time key), follow the redirect; the status and final URL."""
        csrf = next(cookie.value for cookie in self.jar if cookie.name == "csrftoken")
        headers = {"X-CSRFToken": csrf}
        if htmx:
            headers["HX-Request"] = "true"
        form = urllib.parse.urlencode({**data, "once": secrets.token_urlsafe(16)}).encode()
        request = urllib.request.Request(url, data=form, headers=headers, method="POST")
        with self.opener.open(request, timeout=10) as response:
            response.read()
            return response.status, response.geturl()


def _assets(page: bytes) -> list[str]:
    """What a browser loads for a page: stylesheets, icons, scripts and images, once each."""
    tags = re.findall(rb"<(?:link|script|img)\b[^>]*>", page)
    found = [re.search(rb'\b(?:href|src)="(/[^"]*)"', tag) for tag in tags]
    return list(dict.fromkeys(match.group(1).decode() for match in found if match))


def _page(headers: dict[str, str], body: bytes) -> bytes:
    return gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body


@dataclass
class FirstLoad:
    """Bytes received for a page and everything it loads: status lines, headers and bodies as
    sent (urllib never decompresses); and each body's size once decompressed, for the report."""

    received: dict[str, int] = field(default_factory=dict)
    decompressed: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.received.values())

    def __str__(self) -> str:
        lines = [
            f"{self.received[url]:>7} ({self.decompressed[url]:>6} decompressed) {url}"
            for url in self.received
        ]
        total_decompressed = sum(self.decompressed.values())
        return "\n".join(
            [*lines, f"{self.total:>7} ({total_decompressed:>6} decompressed) bytes in all"]
        )


def _receive(browser: Browser, url: str, load: FirstLoad, label: str) -> bytes:
    """GET ``url`` into ``load``; the body as the browser reads it."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": BROWSER_ENCODINGS})
    with browser.opener.open(request, timeout=10) as response:
        body = response.read()
        status_line = f"HTTP/1.1 {response.status} {response.reason}\r\n".encode()
        load.received[label] = len(status_line) + len(response.headers.as_bytes()) + len(body)
        page = _page(dict(response.headers), body)
        load.decompressed[label] = len(page)
        return page


def _first_load(browser: Browser, url: str) -> tuple[FirstLoad, bytes]:
    """Open ``url`` as a browser with an empty cache would, counting every byte received."""
    load = FirstLoad()
    page = _receive(browser, url, load, url)
    origin = "/".join(url.split("/", 3)[:3])
    for asset in _assets(page):
        _receive(browser, origin + asset, load, asset)
    return load, page


@pytest.mark.parametrize("command", ["host", "serve"])
def test_the_server_names_hashed_static_files_sent_compressed_and_cached_for_a_year(
    tmp_path: Path, command: str
) -> None:
    if command == "serve":  # a worker migrates nothing itself
        migrate, migrate_output = start_command(tmp_path, ["migrate", "-v", "0"])
        assert migrate.wait(timeout=STARTUP_SECONDS) == 0, migrate_output.text()
    process, output = start_command(tmp_path, [command, "--port", "0", "--bind", "127.0.0.1"])
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)
        browser = Browser()
        status, headers, body = browser.get(base)
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assets = _assets(_page(headers, body))
        assert any(asset.endswith(".css") for asset in assets), assets
        assert any(asset.endswith(".js") for asset in assets), assets
        for asset in assets:
            assert HASHED_STATIC.match(asset), asset
            status, headers, _ = browser.get(base + asset.lstrip("/"))
            assert status == 200, asset
            assert ONE_YEAR in headers["Cache-Control"], (asset, headers)
            assert "immutable" in headers["Cache-Control"], (asset, headers)
            # Brotli to a browser that takes it (all do), gzip to one that takes only that.
            assert headers.get("Content-Encoding") == "br", (asset, headers)
            assert "Accept-Encoding" in headers.get("Vary", ""), (asset, headers)
            only_gzip = {"Accept-Encoding": "gzip"}
            _status, headers, _ = fetch_page(
                browser.opener, base + asset.lstrip("/"), headers=only_gzip
            )
            assert headers.get("Content-Encoding") == "gzip", (asset, headers)
    finally:
        text = stop_command(process, output)
    assert "Traceback" not in text, text
    assert "could not be collected" not in text, text


# The table a first load is measured on: four players with a character each, six goblins (one
# hidden from the players) and a full live roll log. The combatants are written through the
# ORM by a `shell` on the server's data folder: filling in their forms is not what is measured.
PLAYERS = ("Anna", "Boris", "Cyril", "Dana")
ATTACKS = 32  # more than the live log shows (FRAY_LOG_PAGE)
_SEAT_THE_TABLE = """
import json
from combat.models import Combatant, Encounter, Kind, Seat, Side
encounter = Encounter.objects.get()
saves = dict(save_death=10, save_wands=11, save_paralysis=12, save_breath=13, save_spells=14)
heroes = [
    Combatant.objects.create(
        encounter=encounter, seat=seat, name=f"Hero of {seat.name}", side=Side.PARTY,
        kind=Kind.CHARACTER, ac=4, hp_max=20, hp=20, thac0=17, str_score=13, dex_score=9,
        **saves,
    ).pk
    for seat in Seat.objects.filter(encounter=encounter).order_by("pk")
]
goblins = [
    Combatant.objects.create(
        encounter=encounter, name=f"Goblin {n}", side=Side.FOES, kind=Kind.MONSTER, ac=6,
        hp_max=500, hp=500, hit_dice="1-1", thac0=19, hidden=n == 6, **saves,
    ).pk
    for n in range(1, 7)
]
print("TABLE " + json.dumps({"heroes": heroes, "visible_goblins": goblins[:5]}))
"""


def _set_the_table(tmp_path: Path, base: str) -> tuple[str, Browser, list[Browser]]:
    """An encounter played for a while: its page's URL, the referee and the players."""
    referee = Browser()
    referee.get(base)  # the CSRF cookie
    status, encounter_url = referee.post(
        base, {"name": "The goblin cave", "system": "ose", "attack_method": "matrix"}
    )
    assert status == 200 and "/e/" in encounter_url, encounter_url
    _status, _headers, body = referee.get(encounter_url)
    token = re.search(rb"/join/([\w-]+)/", _page(_headers, body))
    assert token, "no join link on the referee's page"
    join_url = f"{base}join/{token.group(1).decode()}/"
    players = []
    for name in PLAYERS:
        player = Browser()
        player.get(join_url)
        assert player.post(join_url, {"name": name}) == (200, encounter_url)
        players.append(player)

    shell, shell_output = start_command(tmp_path, ["shell", "-c", _SEAT_THE_TABLE])
    assert shell.wait(timeout=STARTUP_SECONDS) == 0, shell_output.text()
    table = json.loads(shell_output.wait_for(r"^TABLE (.*)$", 1).group(1))
    for n in range(ATTACKS):
        attack = {
            "actor": table["heroes"][n % len(PLAYERS)],
            "target": table["visible_goblins"][n % len(table["visible_goblins"])],
            "mode": "melee",
            "damage": "1d6",
        }
        status, _ = players[n % len(PLAYERS)].post(f"{encounter_url}attack/", attack, htmx=True)
        assert status == 200
    return encounter_url, referee, players


def test_a_players_and_the_referees_first_load_stay_within_their_budgets(
    tmp_path: Path,
) -> None:
    process, output = start_command(tmp_path, ["host", "--port", "0", "--bind", "127.0.0.1"])
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)
        encounter_url, referee, players = _set_the_table(tmp_path, base)
        player_load, player_page = _first_load(players[0], encounter_url)
        referee_load, referee_page = _first_load(referee, encounter_url)
    finally:
        text = stop_command(process, output)
    assert "Traceback" not in text, text
    # Measured on the table it claims to be: every visible goblin, and a roll log.
    for page in (player_page, referee_page):
        assert page.count(b"Goblin ") >= 5 and b"Hero of Anna" in page
    assert b"Goblin 6" in referee_page and b"Goblin 6" not in player_page
    print(f"\nplayer's first load:\n{player_load}\nreferee's first load:\n{referee_load}")
    assert player_load.total <= PLAYER_FIRST_LOAD_BYTES, str(player_load)
    assert referee_load.total <= REFEREE_FIRST_LOAD_BYTES, str(referee_load)
