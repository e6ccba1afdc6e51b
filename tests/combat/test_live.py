"""The websocket: each viewer gets only what their role may see, live and on reconnect."""

from __future__ import annotations

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from combat.site.asgi import application

from .conftest import character, count_loads, monster

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _connect(client: Client | None, slug: str, language: str | None = None):
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    cookies = []
    if client is not None and settings.SESSION_COOKIE_NAME in client.cookies:
        cookies.append(
            f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        )
    if language:
        cookies.append(f"{settings.LANGUAGE_COOKIE_NAME}={language}")
    if cookies:
        headers.append((b"cookie", "; ".join(cookies).encode()))
    return WebsocketCommunicator(application, f"/ws/e/{slug}/", headers=headers)


async def _open(client, slug, language=None):
    communicator = _connect(client, slug, language)
    connected, _code = await communicator.connect()
    assert connected
    return communicator, await communicator.receive_from(timeout=5)


@pytest.fixture
def table(db):
    """An encounter with a referee, a seated player with a character, a visible goblin and a
    hidden wight, built synchronously before the async test runs."""
    from combat.models import Encounter

    encounter = Encounter.objects.create(name="Crypt")
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    seat = encounter.seats.get()
    hero = character(encounter, "Aldric", seat=seat)
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    wight = monster(encounter, "Wight", hidden=True, hp_max=13, hp=13, hit_dice="3*")
    return encounter, referee, player, hero, goblin, wight


async def test_the_snapshot_on_connect_hides_what_a_player_may_not_see(table):
    encounter, referee, player, _hero, _goblin, _wight = table
    referee_ws, referee_view = await _open(referee, encounter.slug)
    player_ws, player_view = await _open(player, encounter.slug)
    assert "Wight" in referee_view and "13/13" in referee_view
    assert "Wight" not in player_view
    assert "Goblin" in player_view and "7/7" not in player_view  # a health word instead
    assert "Aldric" in player_view
    await referee_ws.disconnect()
    await player_ws.disconnect()


async def test_a_change_reaches_every_browser_in_its_own_language(table):
    from asgiref.sync import sync_to_async

    encounter, referee, player, hero, goblin, _wight = table
    referee_ws, _ = await _open(referee, encounter.slug, language="en")
    player_ws, _ = await _open(player, encounter.slug, language="cs")
    await sync_to_async(player.post)(
        reverse("attack", args=[encounter.slug]),
        {
            "actor": hero.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 17,
            "damage": "1d6",
            "damage_dice": "3",
        },
    )
    referee_msg = await referee_ws.receive_from(timeout=5)
    player_msg = await player_ws.receive_from(timeout=5)
    assert "Aldric attacks Goblin" in referee_msg
    assert "hx-swap-oob" in player_msg
    assert "Aldric" in player_msg and "Goblin" in player_msg
    assert "TZ" in player_msg  # Czech: třída zbroje
    await referee_ws.disconnect()
    await player_ws.disconnect()


async def test_a_secret_roll_never_reaches_a_player(table):
    from asgiref.sync import sync_to_async

    encounter, referee, player, _hero, _goblin, wight = table
    referee_ws, _ = await _open(referee, encounter.slug)
    player_ws, _ = await _open(player, encounter.slug)
    await sync_to_async(referee.post)(
        reverse("free_roll", args=[encounter.slug]),
        {"expression": "1d100", "label": "Wandering monsters", "secret": "on"},
    )
    assert "Wandering monsters" in await referee_ws.receive_from(timeout=5)
    assert "Wandering monsters" not in await player_ws.receive_from(timeout=5)
    # A roll involving the hidden wight is secret by itself.
    await sync_to_async(referee.post)(
        reverse("save", args=[encounter.slug]),
        {"actor": wight.pk, "category": "spells", "natural": 3},
    )
    assert "Wight" in await referee_ws.receive_from(timeout=5)
    assert "Wight" not in await player_ws.receive_from(timeout=5)
    await referee_ws.disconnect()
    await player_ws.disconnect()


async def test_a_browser_can_ask_for_a_fresh_snapshot(table):
    encounter, _referee, player, *_ = table
    player_ws, _ = await _open(player, encounter.slug)
    await player_ws.send_json_to({"type": "sync"})
    assert "Goblin" in await player_ws.receive_from(timeout=5)
    await player_ws.send_to(text_data="not json")
    assert await player_ws.receive_nothing(timeout=0.2)
    await player_ws.disconnect()


async def test_an_outsider_gets_no_snapshot_and_a_final_close_code(table):
    encounter, *_ = table
    communicator = _connect(Client(), encounter.slug)
    await communicator.connect()
    # Closed at once with 4403, which the page's script does not retry; nothing else sent.
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4403}


async def test_a_foreign_origin_is_refused(table):
    encounter, referee, *_ = table
    communicator = _connect(referee, encounter.slug)
    communicator.scope["headers"] = [
        (k, v) if k != b"origin" else (k, b"http://evil.example")
        for k, v in communicator.scope["headers"]
    ]
    connected, _code = await communicator.connect()
    assert not connected


async def test_one_listener_per_process_and_the_group_is_empty_once_the_table_is_left(
    table, monkeypatch
):
    from combat.live import hub

    monkeypatch.setattr(hub, "LINGER_SECONDS", 0.0)
    encounter, referee, player, *_ = table
    sockets = [(await _open(client, encounter.slug))[0] for client in (referee, player, player)]
    layer = get_channel_layer()
    in_memory = isinstance(layer, InMemoryChannelLayer)  # its groups can be looked at
    if in_memory:  # the process's hub, not each socket, is in the encounter's group
        assert len(layer.groups.get(encounter.group_name, {})) == 1
    for socket in sockets:
        await socket.disconnect()
    await _until(lambda: encounter.pk not in hub.HUBS, "the hub forgotten")
    if in_memory:
        await _until(lambda: not layer.groups.get(encounter.group_name), "the group emptied")


async def test_a_socket_reconnecting_soon_costs_no_load(table, monkeypatch):

    encounter, referee, *_ = table
    first, _ = await _open(referee, encounter.slug)
    await first.disconnect()
    loads = count_loads(monkeypatch)
    again, snapshot = await _open(referee, encounter.slug)
    assert "Goblin" in snapshot and loads == []  # the lingering hub's views
    await again.disconnect()


async def test_a_change_while_no_one_looks_costs_no_render_and_is_shown_on_return(
    table, monkeypatch
):
    from asgiref.sync import sync_to_async

    encounter, referee, _player, _fighter, goblin, _wight = table
    first, _ = await _open(referee, encounter.slug)
    await first.disconnect()
    loads = count_loads(monkeypatch)

    def wound() -> None:
        url = reverse("hit_points", args=[encounter.slug])
        data = {"actor": goblin.pk, "action": "damage", "amount": 2}
        assert referee.post(url, data, HTTP_HX_REQUEST="true").status_code == 200

    await sync_to_async(wound)()
    await sync_to_async(encounter.refresh_from_db)()
    await _until(lambda: _heard(encounter), "the lingering hub heard of the change")
    assert loads == []  # nobody is looking: nothing rendered
    again, snapshot = await _open(referee, encounter.slug)
    assert "HP</abbr> 5/7" in snapshot and len(loads) == 1
    await again.disconnect()


def _heard(encounter) -> bool:
    from combat.live import hub

    table = hub.HUBS.get(encounter.pk)
    return table is not None and table.wanted >= encounter.seq


async def test_a_page_newer_than_what_the_hub_heard_is_never_sent_back(table):
    from asgiref.sync import sync_to_async

    from combat.live import hub

    encounter, referee, _player, _fighter, goblin, _wight = table
    first, _ = await _open(referee, encounter.slug)
    table_hub = hub.HUBS[encounter.pk]
    heard = table_hub.changed
    table_hub.changed = lambda seq: None  # the announcement is late: still on its way
    await first.disconnect()

    def wound() -> int:
        url = reverse("hit_points", args=[encounter.slug])
        data = {"actor": goblin.pk, "action": "damage", "amount": 2}
        assert referee.post(url, data, HTTP_HX_REQUEST="true").status_code == 200
        encounter.refresh_from_db()
        return encounter.seq

    seq = await sync_to_async(wound)()
    page = _connect(referee, encounter.slug)
    page.scope["query_string"] = f"seq={seq}".encode()
    connected, _code = await page.connect()
    assert connected
    assert await page.receive_nothing(timeout=0.3)  # the page is current: nothing to send
    table_hub.changed = heard
    await page.disconnect()


async def test_a_snapshot_shows_every_change_to_a_row_it_has_shown_before(table):
    from asgiref.sync import sync_to_async

    encounter, referee, player, _hero, goblin, wight = table
    player_ws, first = await _open(player, encounter.slug)
    assert "unhurt" in first
    await sync_to_async(referee.post)(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": goblin.pk, "action": "damage", "amount": 4},
    )
    assert "badly wounded" in await player_ws.receive_from(timeout=5)
    await sync_to_async(referee.post)(reverse("combatant_hide", args=[encounter.slug, wight.pk]))
    assert "Wight" in await player_ws.receive_from(timeout=5)  # revealed
    await sync_to_async(referee.post)(reverse("combatant_hide", args=[encounter.slug, wight.pk]))
    assert "Wight" not in await player_ws.receive_from(timeout=5)  # hidden again
    await player_ws.disconnect()


# --- hardening: origins, unknown paths, bad frames, sync floods ----------------------------


def _with_headers(communicator, **headers: str):
    replaced = {name.encode(): value.encode() for name, value in headers.items()}
    communicator.scope["headers"] = [
        (k, replaced.pop(k, v)) for k, v in communicator.scope["headers"]
    ] + list(replaced.items())
    return communicator


async def test_a_page_on_another_port_of_the_same_host_is_refused(table):
    encounter, referee, *_ = table
    communicator = _with_headers(
        _connect(referee, encounter.slug), origin="http://localhost:9999", host="localhost:8000"
    )
    connected, _code = await communicator.connect()
    assert not connected


async def test_a_page_on_the_same_host_and_port_is_served(table):
    encounter, referee, *_ = table
    communicator = _with_headers(
        _connect(referee, encounter.slug), origin="http://localhost:8000", host="localhost:8000"
    )
    connected, _code = await communicator.connect()
    assert connected
    assert "Goblin" in await communicator.receive_from(timeout=5)
    await communicator.disconnect()


def _no_tracebacks(caplog) -> None:
    noisy = [r for r in caplog.records if r.exc_info or r.exc_text or r.levelno >= 40]
    assert not noisy, [r.getMessage() for r in noisy]


async def test_an_unknown_socket_path_is_closed_cleanly_without_a_traceback(table, caplog):
    communicator = WebsocketCommunicator(
        application,
        "/ws/nowhere/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    await communicator.connect()
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    _no_tracebacks(caplog)


@pytest.mark.parametrize(
    "frame",
    [
        "[" * 1000 + "]" * 1000,
        '{"a":' * 1000 + "1" + "}" * 1000,
        "[" * 120 + "]" * 120,  # short enough to be parsed
        '{"type": "sync", "pad": "' + "x" * 10_000 + '"}',
        '"sync"',
    ],
)
async def test_a_malformed_or_oversized_frame_is_ignored_and_the_socket_lives_on(
    table, caplog, frame
):
    encounter, _referee, player, *_ = table
    player_ws, _ = await _open(player, encounter.slug)
    await player_ws.send_to(text_data=frame)
    await player_ws.send_to(bytes_data=b"\x00" * 64)
    await player_ws.send_json_to({"type": "sync"})
    # Frames are handled in order: the answer to the sync proves the others were survived.
    assert "Goblin" in await player_ws.receive_from(timeout=5)
    await player_ws.disconnect()
    _no_tracebacks(caplog)


class _Window:
    """A sync window under the test's control: a clock that moves only when told, and an end
    of window that comes only when released."""

    def __init__(self) -> None:
        import asyncio

        self.time = 1000.0
        self.waits: list[float] = []
        self.release = asyncio.Event()

    def now(self) -> float:
        return self.time

    async def wait(self, delay: float) -> None:
        self.waits.append(delay)
        await self.release.wait()


async def _until(condition, what: str) -> None:
    import asyncio

    for _ in range(1000):  # a deadline for a broken test, not a measurement
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"never happened: {what}")


async def test_a_flood_of_sync_requests_costs_a_burst_and_one_deferred_snapshot(table, monkeypatch):
    from combat.live import consumers

    window = _Window()
    monkeypatch.setattr(consumers.EncounterConsumer, "SYNC_BURST", 3)
    monkeypatch.setattr(consumers.EncounterConsumer, "SYNC_WINDOW", 2.0)
    monkeypatch.setattr(consumers.EncounterConsumer, "_now", staticmethod(window.now))
    monkeypatch.setattr(consumers.EncounterConsumer, "_wait", staticmethod(window.wait))
    # Each answer is a snapshot sent (built once and shared: see test_fanout.py).
    renders = []
    real_send = consumers.EncounterConsumer.send

    async def counting_send(self, text_data=None, bytes_data=None, close=False):
        renders.append(text_data)
        await real_send(self, text_data, bytes_data, close)

    monkeypatch.setattr(consumers.EncounterConsumer, "send", counting_send)
    handled = []
    real_receive = consumers.EncounterConsumer.receive

    async def counting_receive(self, text_data=None, bytes_data=None):
        await real_receive(self, text_data, bytes_data)
        handled.append(text_data)

    monkeypatch.setattr(consumers.EncounterConsumer, "receive", counting_receive)

    encounter, _referee, player, *_ = table
    player_ws, _ = await _open(player, encounter.slug)
    assert len(renders) == 1  # the snapshot on connect

    for _ in range(500):
        await player_ws.send_json_to({"type": "sync"})
    for _ in range(3):  # the burst, answered at once
        assert "Goblin" in await player_ws.receive_from(timeout=5)
    await _until(lambda: len(handled) == 500, "every sync request handled")
    assert len(renders) == 1 + 3
    assert window.waits == [2.0]  # one snapshot deferred to the end of the window, no more

    window.release.set()  # the window ends
    assert "Goblin" in await player_ws.receive_from(timeout=5)
    assert len(renders) == 1 + 3 + 1

    window.time += 2.0  # a new window: a sync is answered at once again
    window.release.clear()
    await player_ws.send_json_to({"type": "sync"})
    assert "Goblin" in await player_ws.receive_from(timeout=5)
    assert len(renders) == 1 + 3 + 1 + 1
    assert await player_ws.receive_nothing(timeout=0.1)
    await player_ws.disconnect()


@pytest.mark.parametrize("path", ["/ws/e/\x00/", "/ws/e/ž/display/"])
async def test_a_socket_path_with_no_slug_in_it_is_closed_cleanly(table, caplog, path):
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")]
    )
    await communicator.connect()
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    _no_tracebacks(caplog)
