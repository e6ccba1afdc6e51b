"""A player's phone lists the player's own character first in its side, marked as theirs, with
its saves by name; the referee's list keeps the table's order and the saves' letters. The page
and the live updates agree, and a change no seat owns still goes out once for all players."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from combat.live.state import own_first
from combat.site.asgi import application

from .conftest import character, monster

ROW = re.compile(r'<li class="combatant([^"]*)" id="combatant-(\d+)"')


def _rows(html: str, section: str) -> list[tuple[int, str]]:
    """The rows of the party or foes section, in order: (pk, classes)."""
    start = html.index(f'id="{section}"')
    end = html.index("</section>", start)
    return [(int(pk), classes) for classes, pk in ROW.findall(html[start:end])]


@pytest.fixture
def party(encounter, player, other_player):
    aldric = character(encounter, "Aldric", seat=player.seat)
    brina = character(encounter, "Brina", seat=other_player.seat)
    cyril = character(encounter, "Cyril")
    goblin = monster(encounter, "Goblin", hp_max=20, hp=20)
    return aldric, brina, cyril, goblin


def test_own_first_keeps_the_others_in_the_tables_order():
    assert own_first([1, 2, 3, 4], {3}) == [3, 1, 2, 4]
    assert own_first([1, 2, 3, 4], {4, 2}) == [2, 4, 1, 3]
    assert own_first([1, 2, 3], {1, 2, 3}) == [1, 2, 3]  # the referee controls every row
    assert own_first([1, 2, 3], set()) == [1, 2, 3]


@pytest.mark.django_db
@given(
    st.lists(st.integers(1, 60), unique=True, max_size=12),
    st.sets(st.integers(1, 60), max_size=3),
)
def test_own_first_moves_exactly_the_own_rows_to_the_top(ids, own):
    ordered = own_first(ids, own)
    assert ordered == [pk for pk in ids if pk in own] + [pk for pk in ids if pk not in own]
    assert own_first(ids, {*own, 61}) == ordered  # a row of its own not on this side


def test_a_players_page_lists_their_character_first_and_marked(
    encounter, referee, other_player, party
):
    aldric, brina, cyril, _goblin = party
    url = reverse("encounter", args=[encounter.slug])
    boris = other_player.get(url).content.decode()
    rows = _rows(boris, "party")
    assert [pk for pk, _ in rows] == [brina.pk, aldric.pk, cyril.pk]
    assert " own" in rows[0][1] and all(" own" not in classes for _, classes in rows[1:])
    assert boris.count('class="badge yours"') == 1
    # Saves by name on the player's own row, for a phone that shows no tooltip.
    assert 'title="Death ray or poison">Death</a>' in boris and 'class="saves words"' in boris

    console = referee.get(url).content.decode()
    assert [pk for pk, _ in _rows(console, "party")] == [aldric.pk, brina.pk, cyril.pk]
    assert all(" own" not in classes for _, classes in _rows(console, "party"))
    assert "badge yours" not in console
    assert 'aria-label="D: Death ray or poison">D</a>' in console


def _socket(client: Client, slug: str) -> WebsocketCommunicator:
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return WebsocketCommunicator(
        application,
        f"/ws/e/{slug}/",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", cookie.encode()),
        ],
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_live_updates_keep_a_players_own_character_first(
    encounter, referee, player, other_player, party
):
    aldric, brina, cyril, goblin = party
    anna_ws, boris_ws = _socket(player, encounter.slug), _socket(other_player, encounter.slug)
    for socket in (anna_ws, boris_ws):
        assert (await socket.connect())[0]
    anna, boris = await anna_ws.receive_from(timeout=5), await boris_ws.receive_from(timeout=5)
    assert [pk for pk, _ in _rows(boris, "party")] == [brina.pk, aldric.pk, cyril.pk]
    assert [pk for pk, _ in _rows(anna, "party")] == [aldric.pk, brina.pk, cyril.pk]

    # A change that is no seat's own: the same message to both phones, whatever their order.
    await sync_to_async(referee.post)(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": goblin.pk, "action": "damage", "amount": 2},
        HTTP_HX_REQUEST="true",
    )
    anna, boris = await anna_ws.receive_from(timeout=5), await boris_ws.receive_from(timeout=5)
    assert anna == boris and f'id="combatant-{goblin.pk}"' in anna

    # A new member of the party: the section again, Boris's own still first.
    await sync_to_async(character)(encounter, "Dunstan")
    await sync_to_async(referee.post)(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": goblin.pk, "action": "damage", "amount": 1},
        HTTP_HX_REQUEST="true",
    )
    boris = await boris_ws.receive_from(timeout=5)
    assert [pk for pk, _ in _rows(boris, "party")][:3] == [brina.pk, aldric.pk, cyril.pk]
    for socket in (anna_ws, boris_ws):
        await socket.disconnect()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("system", "word", "letter"),
    [
        ("dolmenwood", ">Doom</a>", 'aria-label="D: Doom">D</a>'),
        ("becmi", 'title="Dragon Breath">Breath</a>', ">B</a>"),
    ],
)
def test_every_systems_saves_are_words_for_a_player_and_letters_for_the_referee(
    encounter, referee, player, party, system, word, letter
):
    encounter.system = system
    encounter.save(update_fields=["system"])
    url = reverse("encounter", args=[encounter.slug])
    anna = player.get(url).content.decode()
    assert word in anna and 'class="saves words"' in anna
    console = referee.get(url).content.decode()
    assert letter in console and word not in console
