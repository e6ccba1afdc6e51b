"""The websocket's heartbeat: a page pings, the server answers with a tiny pong at once, never
with a query or a render, and a flood of pings costs a few pongs per window."""

from __future__ import annotations

import pytest

from .test_live import _open

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

PONG = '{"type":"pong"}'


@pytest.fixture
def seated(db):
    """An encounter with a seated player (her browser's client) and a goblin."""
    from django.test import Client
    from django.urls import reverse

    from combat.models import Encounter

    from .conftest import monster

    encounter = Encounter.objects.create(name="Crypt")
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    monster(encounter, "Goblin", hp_max=7, hp=7)
    return encounter, player


class _Clock:
    def __init__(self) -> None:
        self.time = 1000.0

    def now(self) -> float:
        return self.time


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    from combat.live import consumers

    clock = _Clock()
    monkeypatch.setattr(consumers.EncounterConsumer, "_now", staticmethod(clock.now))
    return clock


@pytest.fixture
def no_database(monkeypatch) -> list[str]:
    """Every SQL statement any thread runs from now on (none, for a pong)."""
    from django.db.backends import utils

    statements: list[str] = []
    for name in ("execute", "executemany"):
        real = getattr(utils.CursorWrapper, name)

        def spy(self, sql, *args, _real=real, **kwargs):
            statements.append(sql)
            return _real(self, sql, *args, **kwargs)

        monkeypatch.setattr(utils.CursorWrapper, name, spy)
    return statements


async def test_a_ping_is_answered_with_a_pong_without_a_query_or_a_render(
    seated, clock, no_database, monkeypatch
):
    from combat.live import hub

    encounter, player = seated
    player_ws, snapshot = await _open(player, encounter.slug)
    assert "Goblin" in snapshot
    asked = []

    async def no_current_seq(self):
        asked.append("current_seq")

    async def no_view(self, *args):
        asked.append("view")

    monkeypatch.setattr(hub.TableHub, "current_seq", no_current_seq)
    monkeypatch.setattr(hub.TableHub, "view", no_view)
    no_database.clear()

    await player_ws.send_json_to({"type": "ping"})
    assert await player_ws.receive_from(timeout=5) == PONG
    clock.time += 2.0
    await player_ws.send_to(text_data='{"type":"ping"}')
    assert await player_ws.receive_from(timeout=5) == PONG
    assert no_database == []
    assert asked == []
    assert await player_ws.receive_nothing(timeout=0.1)
    await player_ws.disconnect()


async def test_a_flood_of_pings_gets_a_few_pongs_per_window(seated, clock, monkeypatch):
    from combat.live import consumers

    monkeypatch.setattr(consumers.EncounterConsumer, "PING_BURST", 3)
    monkeypatch.setattr(consumers.EncounterConsumer, "PING_WINDOW", 2.0)
    encounter, player = seated
    player_ws, _ = await _open(player, encounter.slug)

    for _ in range(200):
        await player_ws.send_json_to({"type": "ping"})
    await player_ws.send_json_to({"type": "sync"})
    # Frames are handled in order: the pongs of the burst, then the sync's answer.
    for _ in range(3):
        assert await player_ws.receive_from(timeout=5) == PONG
    assert "live-seq" in await player_ws.receive_from(timeout=5)
    assert await player_ws.receive_nothing(timeout=0.1)

    clock.time += 2.0  # a new window: pings are answered again
    await player_ws.send_json_to({"type": "ping"})
    assert await player_ws.receive_from(timeout=5) == PONG
    await player_ws.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "PING"}',
        '{"type": ["ping"]}',
        '["ping"]',
        '"ping"',
        "ping",
        '{"type": "pong"}',
        '{"type": "ping", "pad": "' + "x" * 1000 + '"}',
    ],
)
async def test_junk_that_looks_like_a_ping_gets_no_answer_and_the_socket_lives_on(
    seated, clock, frame
):
    encounter, player = seated
    player_ws, _ = await _open(player, encounter.slug)
    await player_ws.send_to(text_data=frame)
    await player_ws.send_to(bytes_data=b'{"type":"ping"}')
    await player_ws.send_json_to({"type": "ping"})
    # Frames are handled in order: the one pong is the real ping's.
    assert await player_ws.receive_from(timeout=5) == PONG
    assert await player_ws.receive_nothing(timeout=0.1)
    await player_ws.disconnect()
