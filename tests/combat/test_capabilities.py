"""Capabilities, every one alike: every capability link redacted in every log line, from one
list; every answer to one kept out of caches, redirects included; websockets allowed to the
page's own origin only; and new links shutting out every browser that held an old way in,
from the encounter the party came from too."""

from __future__ import annotations

import io
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db.models import CharField
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from combat import capabilities
from combat.access import Viewer
from combat.live.routing import websocket_urlpatterns
from combat.live.state import render_snapshot
from combat.logs import RedactedAccessLog, redact, redact_path
from combat.models import Encounter, Seat

from .conftest import character
from .test_host import STARTUP_SECONDS, fetch_page, start_command, stop_command

# Shaped like the real ones (secrets.token_urlsafe), so a pattern tuned to them is tested too.
SECRET = "sEcReT-0f_tHe-TaBlE-9x8w7v6u5t4s3r2q"

# Route parameters that hand out nothing: an encounter's slug opens nothing without a mark in
# the browser's session (combat/access.py); numbers and names of kinds are no secret. Any
# other parameter is taken for a capability, and must be redacted.
PUBLIC_PARAMETERS = {"slug": "the-cave", "pk": "7", "seq": "12", "kind": "attack"}
PUBLIC_PARAMETERS |= {"what": "round", "panel": "attack", "group": "bench"}

# Each secret an encounter holds, and the route it opens.
CAPABILITY_ROUTES = {
    "referee_key": "referee_link",
    "join_token": "join",
    "display_token": "display_link",
}

PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def _routes() -> Iterator[tuple[str, str | None]]:
    """Every route of the URLconf and of the websocket routing: its path as a template
    (``/e/<slug:slug>/attack/``) and its name."""

    def walk(patterns: list, prefix: str) -> Iterator[tuple[str, str | None]]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                yield route, pattern.name

    yield from walk(get_resolver().url_patterns, "/")
    yield from walk(websocket_urlpatterns, "/")


def _filled(route: str) -> tuple[str, bool]:
    """A path for ``route``, public parameters filled with plain values and any other with
    ``SECRET``; and whether it took a secret."""
    took = False

    def fill(match: re.Match[str]) -> str:
        nonlocal took
        if match["name"] in PUBLIC_PARAMETERS:
            return PUBLIC_PARAMETERS[match["name"]]
        took = True
        return SECRET

    return PARAMETER.sub(fill, route), took


def _capability_routes() -> dict[str, str]:
    found = {}
    for route, name in _routes():
        path, took = _filled(route)
        if took:
            found[str(name)] = path
    return found


# --- 5. every capability redacted, from one list -------------------------------------------


def test_every_route_that_takes_a_secret_is_redacted_in_every_form_a_log_shows_it() -> None:
    found = _capability_routes()
    # The walk finds the three known ones (so the test cannot pass by finding nothing).
    assert set(CAPABILITY_ROUTES.values()) <= set(found), found
    for name, path in found.items():
        for shown in (
            path,
            f"http://192.168.1.20:8000{path}?x=1",
            f"Not Found: {path}",
            f"<ASGIRequest: GET '{path}'>",
            path.rstrip("/"),
        ):
            assert SECRET not in redact(shown), (name, shown)
        assert SECRET not in redact_path(path), name
        assert SECRET not in redact_path(quote(path, safe="")), name  # /r%2FKEY%2F
        assert redact_path(path).count("[redacted]") == 1, name


def test_every_route_that_takes_a_secret_starts_with_a_listed_capability_prefix() -> None:
    for name, path in _capability_routes().items():
        prefix = path.strip("/").split("/")[0]
        assert prefix in capabilities.PREFIXES, (name, path)


def test_a_route_that_takes_no_secret_is_logged_as_it_is() -> None:
    for route, name in _routes():
        path, took = _filled(route)
        if not took:
            assert redact(path) == path, name
            assert redact_path(path) == path, name


def test_every_secret_an_encounter_holds_opens_a_listed_route(db) -> None:
    encounter = Encounter.objects.create(name="The goblin cave")
    # Every secret the encounter is made with, found by its shape: a unique random string. The
    # slug is one too but opens nothing by itself (combat/access.py).
    made_secret = {
        field.name
        for field in Encounter._meta.fields
        if isinstance(field, CharField) and field.unique and callable(field.default)
    }
    assert made_secret - {"slug"} == set(CAPABILITY_ROUTES)
    for field, name in CAPABILITY_ROUTES.items():
        secret = getattr(encounter, field)
        path = reverse(name, args=[secret])
        assert Client().get(path).status_code in {200, 302}, name
        assert secret not in redact(path) and secret not in redact_path(path), name


@pytest.mark.django_db
def test_a_missing_display_link_is_logged_without_its_token(root_console: io.StringIO) -> None:
    assert Client().get(f"/d/{SECRET}/").status_code == 404
    assert Client().post(f"/d/{SECRET}/").status_code in {403, 405}
    text = root_console.getvalue()
    assert "Not Found: /d/[redacted]/" in text
    assert SECRET not in text


def test_the_serve_access_log_writes_a_display_link_redacted() -> None:
    stream = io.StringIO()
    log = RedactedAccessLog(stream)
    for path in (f"/d/{SECRET}/", f"/d%2F{SECRET}/"):
        details = {"client": "192.168.1.30:5123", "method": "GET", "path": path}
        log("http", "complete", details | {"status": 302, "size": 0})
        log("websocket", "connecting", details)
    text = stream.getvalue()
    assert SECRET not in text
    assert '"GET /d/[redacted]/" 302' in text and '"WSCONNECTING /d/[redacted]/"' in text


class _Unfollowed(urllib.request.HTTPRedirectHandler):
    """Redirects are answers of their own here: the log line of each is what is tested."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _visit_display_link(base: str) -> None:
    opener = urllib.request.build_opener(_Unfollowed)
    assert fetch_page(opener, f"{base}d/{SECRET}/")[0] == 404
    assert fetch_page(opener, f"{base}d/{SECRET}")[0] == 301  # the slash appended


def test_serve_s_access_log_and_log_never_show_a_display_token(tmp_path: Path) -> None:
    migrate, migrate_output = start_command(tmp_path, ["migrate", "-v", "0"])
    assert migrate.wait(timeout=STARTUP_SECONDS) == 0, migrate_output.text()
    process, output = start_command(
        tmp_path, ["serve", "--port", "0", "--bind", "127.0.0.1", "--access-log"]
    )
    try:
        base = output.wait_for(
            r"Fray worker listening on (http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS
        ).group(1)
        _visit_display_link(base)
        output.wait_for(r'"GET /d/\[redacted\]/" 404', STARTUP_SECONDS)
        output.wait_for(r'"GET /d/\[redacted\]" 301', STARTUP_SECONDS)
        output.wait_for(r"Not Found: /d/\[redacted\]/", STARTUP_SECONDS)
    finally:
        text = stop_command(process, output)
    assert SECRET not in text, text


def test_the_host_s_log_never_shows_a_display_token(tmp_path: Path) -> None:
    process, output = start_command(
        tmp_path, ["host", "--port", "0", "--bind", "127.0.0.1", "-v", "2"]
    )
    try:
        base = output.wait_for(r"(http://127\.0\.0\.1:\d+/)", STARTUP_SECONDS).group(1)
        _visit_display_link(base)
        output.wait_for(r"Not Found: /d/\[redacted\]/", STARTUP_SECONDS)
        output.wait_for(r"HTTP GET /d/\[redacted\]/ 404", STARTUP_SECONDS)
        output.wait_for(r"HTTP GET /d/\[redacted\] 301", STARTUP_SECONDS)
    finally:
        text = stop_command(process, output)
    assert SECRET not in text, text


# --- 6. no-store on every capability answer; sockets to the page's own origin --------------


@pytest.mark.django_db
def test_every_answer_to_a_capability_link_is_never_stored() -> None:
    encounter = Encounter.objects.create(name="The goblin cave")
    answers = []
    for field, name in CAPABILITY_ROUTES.items():
        path = reverse(name, args=[getattr(encounter, field)])
        answers += [
            (path, Client().get(path)),  # the exchange: a redirect, or the join form
            (path, Client().head(path)),
            (path.rstrip("/"), Client().get(path.rstrip("/"))),  # the slash appended
            (f"bad {name}", Client().get(reverse(name, args=[SECRET]))),  # 404
            (f"post {name}", Client().post(reverse(name, args=[SECRET]))),
        ]
    statuses = {answer.status_code for _, answer in answers}
    assert {200, 301, 302, 404} <= statuses, statuses
    for what, answer in answers:
        assert "no-store" in answer.get("Cache-Control", ""), (what, answer)
        assert "private" in answer.get("Cache-Control", ""), (what, answer)


@pytest.mark.django_db
def test_the_display_link_s_redirect_is_never_stored(encounter: Encounter) -> None:
    answer = Client().get(reverse("display_link", args=[encounter.display_token]))
    assert answer.status_code == 302
    assert answer["Cache-Control"] == "private, no-store"


def _connect_src(answer) -> list[str]:
    policy = answer["Content-Security-Policy"]
    [directive] = [d.split() for d in policy.split(";") if d.split()[:1] == ["connect-src"]]
    return directive[1:]


@pytest.mark.django_db
def test_websockets_are_allowed_to_the_page_s_own_origin_only(settings) -> None:
    settings.ALLOWED_HOSTS = ["192.168.1.20", "table.example"]
    page = Client().get("/", HTTP_HOST="192.168.1.20:8000")
    assert _connect_src(page) == ["'self'", "ws://192.168.1.20:8000"]
    page = Client().get("/", HTTP_HOST="table.example", secure=True)
    assert _connect_src(page) == ["'self'", "wss://table.example"]
    # No scheme-wide source: another host's socket is refused.
    for answer in (page, Client().get("/", HTTP_HOST="192.168.1.20")):
        assert not {"ws:", "wss:", "*"} & set(_connect_src(answer))


# --- 7. new links shut out every old way in, from the encounter before too -----------------


def _move_on(referee: Client, encounter: Encounter, name: str = "The ogre's bridge") -> Encounter:
    carried = [c.pk for c in encounter.combatants.all()]
    answer = referee.post(
        reverse("party_next", args=[encounter.slug]), {"name": name, "carried": carried}
    )
    assert answer.status_code == 302, answer
    encounter.refresh_from_db()
    assert encounter.moved_on_to is not None
    return encounter.moved_on_to


def _referee_of(client: Client, encounter: Encounter) -> bool:
    answer = client.get(reverse("encounter", args=[encounter.slug]))
    return answer.status_code == 200 and "referee-tools" in answer.content.decode()


def _follow(client: Client, encounter: Encounter):
    return client.post(reverse("party_follow", args=[encounter.slug]))


@pytest.fixture
def next_encounter(encounter: Encounter, referee: Client, player: Client) -> Encounter:
    """The party went on from ``encounter`` (A) to the encounter returned (B): the referee's
    browser referees B; Anna's seat went on with Aldric, but she has not followed yet."""
    character(encounter, "Aldric", seat=player.seat)
    return _move_on(referee, encounter)


def test_a_referee_browser_of_the_encounter_before_cannot_follow_after_new_links(
    encounter: Encounter, referee: Client, next_encounter: Encounter
) -> None:
    before = Client()  # another browser that opened A's referee link
    before.get(reverse("referee_link", args=[encounter.referee_key]))
    assert _referee_of(before, encounter) and _referee_of(referee, next_encounter)
    assert referee.post(reverse("new_links", args=[next_encounter.slug])).status_code == 302
    # It follows the party as a user would, with the button on A's page: refused.
    answer = _follow(before, encounter)
    assert answer.status_code == 302
    assert answer["Location"] == reverse("encounter", args=[encounter.slug])
    assert before.get(reverse("encounter", args=[next_encounter.slug])).status_code == 404
    assert not _referee_of(before, next_encounter)
    # Nor by sending A's next-encounter form again (what a second tap would do).
    again = before.post(reverse("party_next", args=[encounter.slug]), {"name": "x", "once": "k"})
    assert not _referee_of(before, next_encounter), again
    # A's page no longer offers the way; the browser that made the new links keeps B.
    page = before.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert reverse("party_follow", args=[encounter.slug]) not in page
    assert _referee_of(referee, next_encounter)
    assert _referee_of(before, encounter)  # A's own links were not replaced


def test_b_s_old_referee_link_and_a_s_referee_both_lose_b_after_its_new_links(
    encounter: Encounter, referee: Client, next_encounter: Encounter
) -> None:
    old_key = next_encounter.referee_key
    elsewhere = Client()
    elsewhere.get(reverse("referee_link", args=[old_key]))
    before = Client()
    before.get(reverse("referee_link", args=[encounter.referee_key]))
    referee.post(reverse("new_links", args=[next_encounter.slug]))
    for client in (elsewhere, before):
        _follow(client, encounter)
        client.get(reverse("referee_link", args=[old_key]))
        assert not _referee_of(client, next_encounter)


def test_a_second_tap_of_the_next_encounter_form_leads_nowhere_after_new_links(
    encounter: Encounter, referee: Client, player: Client
) -> None:
    character(encounter, "Aldric", seat=player.seat)
    url = reverse("party_next", args=[encounter.slug])
    carried = [c.pk for c in encounter.combatants.all()]
    referee.post(url, {"name": "B", "carried": carried, "once": "the-same-tap"})
    encounter.refresh_from_db()
    new = encounter.moved_on_to
    referee.post(reverse("new_links", args=[new.slug]))
    before = Client()
    before.get(reverse("referee_link", args=[encounter.referee_key]))
    answer = before.post(url, {"name": "B", "carried": carried, "once": "the-same-tap"})
    assert answer.status_code == 200  # the form, saying it was done already
    assert not _referee_of(before, new)


def test_a_player_who_had_not_followed_yet_must_ask_for_the_new_join_link(
    encounter: Encounter, referee: Client, player: Client, next_encounter: Encounter
) -> None:
    referee.post(reverse("new_links", args=[next_encounter.slug]))
    answer = _follow(player, encounter)
    assert answer["Location"] == reverse("encounter", args=[encounter.slug])
    assert player.get(reverse("encounter", args=[next_encounter.slug])).status_code == 404
    # The new join link seats the player as before.
    next_encounter.refresh_from_db()
    player.post(reverse("join", args=[next_encounter.join_token]), {"name": "Anna"})
    assert player.get(reverse("encounter", args=[next_encounter.slug])).status_code == 200


def test_a_player_who_followed_before_the_new_links_keeps_the_seat(
    encounter: Encounter, referee: Client, player: Client, next_encounter: Encounter
) -> None:
    _follow(player, encounter)
    assert "Aldric" in player.get(reverse("encounter", args=[next_encounter.slug])).content.decode()
    referee.post(reverse("new_links", args=[next_encounter.slug]))
    page = player.get(reverse("encounter", args=[next_encounter.slug]))
    assert page.status_code == 200 and "Aldric" in page.content.decode()


def test_new_links_take_the_notice_off_the_encounter_before_live(
    encounter: Encounter, referee: Client, player: Client, next_encounter: Encounter
) -> None:
    anna = Viewer(encounter, is_referee=False, seat=player.seat)
    assert "The party moved on to" in render_snapshot(anna, "en")[1]
    encounter.refresh_from_db()
    seq = encounter.seq
    referee.post(reverse("new_links", args=[next_encounter.slug]))
    encounter.refresh_from_db()
    # Its screens are told (its change number moved on), and the notice is gone from them.
    assert encounter.seq == seq + 1 and encounter.moved_on_to is None
    anna = Viewer(encounter, is_referee=False, seat=Seat.objects.get(pk=player.seat.pk))
    assert "The party moved on to" not in render_snapshot(anna, "en")[1]
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "The party moved on to" not in page


def test_the_referee_tools_say_what_new_links_do_to_the_encounter_before(
    encounter: Encounter, referee: Client
) -> None:
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "nobody can follow it here any more" in page
