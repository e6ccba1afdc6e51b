"""The table display: its own link exchanged for a mark, a read-only page showing what players
see (never a hidden combatant, a secret roll or foes' hit points they are not shown), and a
socket that is the players' common view in its language, costing no render of its own."""

from __future__ import annotations

import re

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from combat.models import Encounter
from combat.site.asgi import application

from .conftest import character, monster

SECRET = "Wandering monster check"


def _display(encounter: Encounter, language: str | None = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language) if language else Client()
    response = client.get(reverse("display_link", args=[encounter.display_token]))
    assert response.status_code == 302
    return client


def _hide_facts(referee: Client, encounter: Encounter, lurker) -> None:
    """A secret roll, and a roll of the hidden foe (secret by itself)."""
    referee.post(
        reverse("free_roll", args=[encounter.slug]),
        {"expression": "1d100", "label": SECRET, "secret": "on"},
    )
    referee.post(
        reverse("save", args=[encounter.slug]),
        {"actor": lurker.pk, "category": "spells", "natural": 5},
    )


# --- the link and the page -----------------------------------------------------------------


def test_the_display_link_is_exchanged_for_a_clean_url(encounter, outsider):
    response = outsider.get(reverse("display_link", args=[encounter.display_token]))
    assert response.status_code == 302
    assert response["Location"] == reverse("display", args=[encounter.slug])
    assert encounter.display_token not in response["Location"]
    page = outsider.get(response["Location"])
    assert page.status_code == 200
    assert encounter.display_token not in page.content.decode()


def test_the_display_token_is_a_capability_of_its_own(encounter):
    tokens = {encounter.display_token, encounter.join_token, encounter.referee_key}
    assert len(tokens) == 3
    assert len(encounter.display_token) >= 22  # 128 bits in URL-safe base64
    other = Encounter.objects.create(name="Another")
    assert other.display_token != encounter.display_token


def test_an_outsider_without_the_mark_gets_404(encounter, outsider, player):
    display = reverse("display", args=[encounter.slug])
    assert outsider.get(display).status_code == 404
    assert player.get(display).status_code == 404  # a seat is not the display's mark
    assert outsider.get(reverse("display_link", args=["nope"])).status_code == 404
    assert outsider.get(reverse("display", args=["no-such-table"])).status_code == 404


def test_the_display_link_does_not_make_a_referee_or_a_player(encounter, outsider):
    _ = outsider.get(reverse("display_link", args=[encounter.display_token]))
    assert outsider.get(reverse("encounter", args=[encounter.slug])).status_code == 404
    assert outsider.get(reverse("log", args=[encounter.slug])).status_code == 404
    refused = outsider.post(reverse("free_roll", args=[encounter.slug]), {"expression": "1d6"})
    assert refused.status_code == 404


def test_new_links_shut_out_the_old_display_link_and_its_displays(referee, encounter):
    old_token = encounter.display_token
    display = _display(encounter)
    referee.post(reverse("new_links", args=[encounter.slug]))
    encounter.refresh_from_db()
    assert encounter.display_token != old_token
    assert display.get(reverse("display", args=[encounter.slug])).status_code == 404
    assert Client().get(reverse("display_link", args=[old_token])).status_code == 404
    fresh = _display(encounter)
    assert fresh.get(reverse("display", args=[encounter.slug])).status_code == 200


def test_the_referee_sees_the_display_link_beside_the_join_link(referee, encounter, settings):
    """As the join link: an address the TV can open, though the referee is on localhost."""
    settings.FRAY_PLAYER_URLS = ["http://192.168.1.20:8000/"]
    settings.ALLOWED_HOSTS = ["localhost", "192.168.1.20"]
    page = referee.get(
        reverse("encounter", args=[encounter.slug]), HTTP_HOST="localhost:8000"
    ).content.decode()
    assert f"http://192.168.1.20:8000/d/{encounter.display_token}/" in page


def test_players_never_see_the_display_link(player, encounter):
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert encounter.display_token not in page


def test_the_display_shows_the_table_and_no_hidden_fact(
    referee, player, fighter, goblin, lurker, encounter
):
    _hide_facts(referee, encounter, lurker)
    referee.post(
        reverse("free_roll", args=[encounter.slug]), {"expression": "1d20", "label": "Torch"}
    )
    html = _display(encounter).get(reverse("display", args=[encounter.slug])).content.decode()
    assert "Aldric" in html and "Goblin" in html and "Torch" in html
    assert "Lurking wight" not in html
    assert SECRET not in html
    assert "5/5" not in html  # the goblin's hit points: a health word instead
    assert "unhurt" in html
    for secret in (encounter.referee_key, encounter.join_token, encounter.display_token):
        assert secret not in html
    assert 'class="display-page"' in html
    assert f'ws-connect="/ws/e/{encounter.slug}/display/?seq={encounter_seq(encounter)}"' in html


def encounter_seq(encounter: Encounter) -> int:
    encounter.refresh_from_db()
    return encounter.seq


def test_the_display_shows_foes_hit_points_when_players_see_them(
    referee, goblin, lurker, encounter
):
    encounter.show_foe_hp = True
    encounter.save(update_fields=["show_foe_hp"])
    html = _display(encounter).get(reverse("display", args=[encounter.slug])).content.decode()
    assert "5/5" in html and "13/13" not in html  # the hidden wight's, never


def test_the_display_has_nothing_to_press(referee, player, fighter, goblin, encounter):
    """No button, form or field but the header's language and theme menus, which change only
    this browser's display; a seated player's own buttons are the player's alone."""
    referee.post(reverse("fight", args=[encounter.slug]), {"surprised": ""})
    html = _display(encounter).get(reverse("display", args=[encounter.slug])).content.decode()
    content = html.split("<main>", 1)[1]
    assert not re.search(r"<(form|button|input|select|textarea)\b", content)
    assert reverse("attack", args=[encounter.slug]) not in content
    assert "csrfmiddlewaretoken" not in content


def test_the_display_shows_the_round_and_puts_the_acting_side_first(
    referee, player, fighter, goblin, lurker, encounter
):
    """Group initiative: the round card says who acts, and names the side for the display's
    layout (data-acting), in the fragment every player gets anyway."""
    from .test_rounds import _initiative, _start

    _start(referee, encounter)
    _initiative(referee, encounter, party_die=2, foes_die=5)
    html = _display(encounter).get(reverse("display", args=[encounter.slug])).content.decode()
    round_card = html.split('<section id="round"', 1)[1].split("</section>", 1)[0]
    assert 'data-acting="foes"' in round_card
    assert "Round 1" in round_card and "The foes act." in round_card
    assert "Lurking wight" not in html


def test_the_display_speaks_its_own_language(referee, fighter, goblin, encounter):
    html = _display(encounter, "cs").get(reverse("display", args=[encounter.slug])).content.decode()
    assert "Družina" in html  # the party, in Czech
    assert 'lang="cs"' in html


def test_a_removed_encounter_leaves_its_display_with_404(encounter):
    display = _display(encounter)
    encounter.delete()
    assert display.get(reverse("display", args=[encounter.slug])).status_code == 404


# --- the socket ----------------------------------------------------------------------------


def _connect(client: Client, slug: str, path: str = "display/", language: str = "en"):
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    cookie += f"; {settings.LANGUAGE_COOKIE_NAME}={language}"
    headers = [
        (b"origin", b"http://localhost"),
        (b"host", b"localhost"),
        (b"cookie", cookie.encode()),
    ]
    return WebsocketCommunicator(application, f"/ws/e/{slug}/{path}", headers=headers)


async def _open(client: Client, slug: str, path: str = "display/", language: str = "en"):
    communicator = _connect(client, slug, path, language)
    connected, _code = await communicator.connect()
    assert connected
    return communicator, await communicator.receive_from(timeout=5)


@pytest.fixture
def live_table(transactional_db):
    """A referee, a seated player with a character, a goblin, a hidden wight and a display."""
    encounter = Encounter.objects.create(name="Crypt")
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    hero = character(encounter, "Aldric", seat=encounter.seats.get())
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    wight = monster(encounter, "Wight", hidden=True, hp_max=13, hp=13, hit_dice="3*")
    return encounter, referee, player, _display(encounter), hero, goblin, wight


@pytest.mark.asyncio
async def test_the_display_receives_every_change_and_never_a_hidden_fact(live_table):
    from asgiref.sync import sync_to_async

    encounter, referee, _player, display, _hero, goblin, wight = live_table
    socket, snapshot = await _open(display, encounter.slug)
    assert "Goblin" in snapshot and "Aldric" in snapshot
    assert "Wight" not in snapshot and "7/7" not in snapshot
    wound = {"actor": goblin.pk, "action": "damage", "amount": 6}
    await sync_to_async(referee.post)(reverse("hit_points", args=[encounter.slug]), wound)
    change = await socket.receive_from(timeout=5)
    assert f'id="combatant-{goblin.pk}"' in change and "badly" in change
    assert "1/7" not in change
    await sync_to_async(referee.post)(
        reverse("free_roll", args=[encounter.slug]),
        {"expression": "1d100", "label": SECRET, "secret": "on"},
    )
    await sync_to_async(referee.post)(
        reverse("save", args=[encounter.slug]),
        {"actor": wight.pk, "category": "spells", "natural": 3},
    )
    for _ in range(2):
        message = await socket.receive_from(timeout=5)
        assert SECRET not in message and "Wight" not in message
    await sync_to_async(referee.post)(
        reverse("free_roll", args=[encounter.slug]), {"expression": "1d20", "label": "Torch"}
    )
    assert "Torch" in await socket.receive_from(timeout=5)
    await socket.disconnect()


@pytest.mark.asyncio
async def test_the_display_costs_no_render_beyond_the_players_view(live_table, monkeypatch):
    """Its socket is the players' common view in its language: a change renders as much with
    a display watching as without, no audience of its own is built, and the display gets the
    common view's very message."""
    from asgiref.sync import sync_to_async

    from combat.live import state as live
    from combat.templatetags import fray_live

    encounter, referee, player, display, _hero, goblin, _wight = live_table
    built: list[live.Audience] = []
    renders: list[str] = []
    build_view, html, entry_html = live.build_view, live._html, fray_live.entry_html

    def counting_build(state, audience, *args, **kwargs):
        built.append(audience)
        return build_view(state, audience, *args, **kwargs)

    def counting_html(template, context, language):
        renders.append(template)
        return html(template, context, language)

    def counting_entry(entry, **how):
        renders.append("entry")
        return entry_html(entry, **how)

    monkeypatch.setattr(live, "build_view", counting_build)
    monkeypatch.setattr(live, "_html", counting_html)
    monkeypatch.setattr(fray_live, "entry_html", counting_entry)
    url = reverse("hit_points", args=[encounter.slug])

    async def wound(amount: int) -> None:
        built.clear()
        renders.clear()
        data = {"actor": goblin.pk, "action": "damage", "amount": amount}
        await sync_to_async(referee.post)(url, data)

    player_ws, _ = await _open(player, encounter.slug, path="")
    await wound(1)  # 7 -> 6: the log's first entry (the whole log is sent)
    await player_ws.receive_from(timeout=5)
    await wound(1)  # 6 -> 5: the player alone
    await player_ws.receive_from(timeout=5)
    alone = sorted(renders)
    display_ws, _ = await _open(display, encounter.slug)
    await wound(1)  # 5 -> 4: the same change, with the display watching
    to_display = await display_ws.receive_from(timeout=5)
    to_player = await player_ws.receive_from(timeout=5)
    assert sorted(renders) == alone and alone  # rendered as much, and something was
    seat = (await sync_to_async(encounter.seats.get)()).pk
    common = live.Audience(referee=False, seat=None, language="en")
    assert set(built) == {common, live.Audience(referee=False, seat=seat, language="en")}
    assert "Goblin takes 1 point of damage" in to_display
    assert to_display == to_player  # nothing of the seat's own changed: the common message
    await player_ws.disconnect()
    await display_ws.disconnect()


@pytest.mark.asyncio
async def test_only_the_display_mark_opens_the_display_socket(live_table):
    """A referee's or a player's session is not a display's: the referee's browser showing the
    display on a projector must still show what players see, so it is refused here."""
    encounter, referee, player, *_ = live_table
    for client in (referee, player):
        communicator = _connect(client, encounter.slug)
        await communicator.connect()
        closed = await communicator.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4403}


@pytest.mark.asyncio
async def test_new_links_close_an_open_display(live_table):
    from asgiref.sync import sync_to_async

    encounter, referee, _player, display, *_ = live_table
    socket, _ = await _open(display, encounter.slug)
    await sync_to_async(referee.post)(reverse("new_links", args=[encounter.slug]))
    # Closed with a code the page reloads on; the reloaded page is then a 404.
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


@pytest.mark.asyncio
async def test_a_referee_browser_showing_the_display_shows_what_players_see(live_table):
    """The referee's laptop on a projector: its display is the players' view, not the
    referee's, though the same browser holds the referee's mark."""
    from asgiref.sync import sync_to_async

    encounter, referee, *_ = live_table
    await sync_to_async(referee.get)(reverse("display_link", args=[encounter.display_token]))
    page = await sync_to_async(referee.get)(reverse("display", args=[encounter.slug]))
    assert "Wight" not in page.content.decode()
    socket, snapshot = await _open(referee, encounter.slug)
    assert "Goblin" in snapshot and "Wight" not in snapshot and "13/13" not in snapshot
    await socket.disconnect()


# --- one h1 a page (issue 31: axe's page-has-heading-one on the player's page) ---------------


def test_every_table_page_has_one_h1_the_encounters_name(encounter, referee, player):
    display = _display(encounter)
    pages = {
        "referee": referee.get(reverse("encounter", args=[encounter.slug])),
        "player": player.get(reverse("encounter", args=[encounter.slug])),
        "display": display.get(reverse("display", args=[encounter.slug])),
    }
    for who, page in pages.items():
        html = page.content.decode()
        headings = re.findall(r"<h1\b[^>]*>(.*?)</h1>", html, re.S)
        assert headings == [encounter.name], (who, headings)


def test_the_display_holds_its_sides_in_one_box_and_words_for_its_pages(encounter):
    html = _display(encounter, "cs").get(reverse("display", args=[encounter.slug]))
    assert 'data-pager="' in html.content.decode()
    assert 'class="sides"' in html.content.decode()  # the two sides share one box
