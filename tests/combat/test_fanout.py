"""The live core: a change is loaded once and rendered once per audience, and each socket gets
only what changed for it; a gap, a reconnect or a check brings a page up to date."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import reverse

from combat.live import state as live
from combat.site.asgi import application

from .conftest import count_loads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

MARKER = re.compile(r'id="live-seq" data-seq="(\d+)"(?: data-from="(\d+)")?')


def _socket(client: Client, slug: str, language: str = "en", seq: int | None = None):
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    cookie += f"; {settings.LANGUAGE_COOKIE_NAME}={language}"
    path = f"/ws/e/{slug}/" + (f"?seq={seq}" if seq is not None else "")
    return WebsocketCommunicator(
        application,
        path,
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", cookie.encode()),
        ],
    )


async def _open(
    client: Client, slug: str, language: str = "en", seq: int | None = None, settle: bool = True
):
    """A socket as a page at ``seq`` opens it; with ``seq``, once it has settled (its check
    answered with the number alone: the page needs nothing)."""
    socket = _socket(client, slug, language, seq)
    connected, _code = await socket.connect()
    assert connected
    if seq is not None and settle:
        await socket.send_json_to({"type": "sync", "seq": seq})
        assert _marker(await socket.receive_from(timeout=5)) == (seq, None)
    return socket


def _marker(message: str) -> tuple[int, int | None]:
    match = MARKER.search(message)
    assert match, message[:200]
    return int(match.group(1)), int(match.group(2)) if match.group(2) else None


def _count_drawings(monkeypatch) -> list[str]:
    """The templates the live views draw from now on, in order (a row with its line drawn
    anew, ``fray_live.row_html``, as ``LINE``)."""
    drawn: list[str] = []
    original = live._html

    def counting(template, context, language):
        drawn.append(template)
        return original(template, context, language)

    monkeypatch.setattr(live, "_html", counting)
    from combat.templatetags import fray_live

    row_html = fray_live.row_html

    def counting_lines(*args, **kwargs):  # a row's line drawn anew
        drawn.append(LINE)
        return row_html(*args, **kwargs)

    monkeypatch.setattr(fray_live, "row_html", counting_lines)
    return drawn


LINE = "a row's line"


def _damage(client: Client, encounter, who, amount: int = 1):
    return client.post(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": who.pk, "action": "damage", "amount": amount},
        HTTP_HX_REQUEST="true",
    )


async def test_a_roll_sends_each_socket_only_the_row_and_the_entry_it_changed(table):
    encounter, referee, players, heroes, goblins = table
    await sync_to_async(_damage)(referee, encounter, heroes[0], 1)  # the log has an entry
    await sync_to_async(encounter.refresh_from_db)()
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)
    player_ws = await _open(players[0], encounter.slug, "cs", seq=encounter.seq)
    await sync_to_async(_damage)(referee, encounter, goblins[2], 3)
    message = await referee_ws.receive_from(timeout=5)
    seq, since = _marker(message)
    assert (seq, since) == (encounter.seq + 1, encounter.seq)
    assert f'id="combatant-{goblins[2].pk}"' in message
    for other in [*goblins[:2], *goblins[3:], *heroes]:
        assert f'id="combatant-{other.pk}"' not in message
    assert 'id="party"' not in message and 'id="foes"' not in message
    assert 'hx-swap-oob="afterbegin:#log-entries"' in message
    # The referee's row still carries its dozen buttons (issue 12's action bar will shrink
    # it), and on PostgreSQL ids and slugs run to more digits than on a fresh SQLite file.
    assert len(message.encode()) < 3200
    to_player = await player_ws.receive_from(timeout=5)
    assert _marker(to_player) == (seq, since)
    assert "Goblin 2" in to_player and "zranění" in to_player  # Czech, and the entry
    assert len(to_player.encode()) < 2000
    await referee_ws.disconnect()
    await player_ws.disconnect()


async def test_an_undo_redraws_the_undone_entry_on_every_socket_and_keeps_the_others(table):
    """An entry changes only by being undone: the views keep every other entry as it was,
    and send the undone one again, marked, to the referee and to players alike."""
    from combat.models import LogEntry

    encounter, referee, players, _heroes, goblins = table
    for amount in (1, 2):
        await sync_to_async(_damage)(referee, encounter, goblins[0], amount)
    await sync_to_async(encounter.refresh_from_db)()
    first, second = await sync_to_async(
        lambda: list(LogEntry.objects.filter(encounter=encounter).order_by("seq"))
    )()
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)
    player_ws = await _open(players[0], encounter.slug, "uk", seq=encounter.seq)
    undo = reverse("undo", args=[encounter.slug, first.seq])
    await sync_to_async(referee.post)(undo, HTTP_HX_REQUEST="true")
    for socket, number in ((referee_ws, first.seq), (player_ws, first.public_seq)):
        message = await socket.receive_from(timeout=5)
        undone = re.search(rf'<li [^>]*id="entry-{number}"[^>]*>', message)
        assert undone and " undone" in undone.group(0), message[:400]
        assert f'id="entry-{second.seq if socket is referee_ws else second.public_seq}"' not in (
            message
        )
    await referee_ws.disconnect()
    await player_ws.disconnect()


async def test_a_change_is_loaded_once_and_rendered_once_per_audience(table, monkeypatch):
    encounter, referee, players, _heroes, goblins = table
    loads = count_loads(monkeypatch)
    renders = []
    original_row = live._row

    def counting_row(state, audience, combatant, *rest):
        before = len(live.ROWS)
        html = original_row(state, audience, combatant, *rest)
        if len(live.ROWS) != before or combatant.pk == goblins[0].pk:
            renders.append((audience, combatant.pk))
        return html

    monkeypatch.setattr(live, "_row", counting_row)
    # Nine sockets: the same player in three tabs, two other players, the referee twice,
    # and a second referee language.
    sockets = [await _open(players[0], encounter.slug, seq=encounter.seq) for _ in range(3)]
    sockets += [await _open(p, encounter.slug, seq=encounter.seq) for p in players[1:]]
    sockets += [await _open(referee, encounter.slug, seq=encounter.seq) for _ in range(2)]
    sockets.append(await _open(referee, encounter.slug, "uk", seq=encounter.seq))
    loads.clear()
    renders.clear()
    live.ROWS.clear()
    await sync_to_async(_damage)(referee, encounter, goblins[0], 2)
    messages = [await s.receive_from(timeout=5) for s in sockets]
    assert all(f'id="combatant-{goblins[0].pk}"' in m for m in messages)
    assert len(loads) == 1  # one load for nine sockets
    audiences = {a for a, pk in renders if pk == goblins[0].pk}
    # The goblin's row: once for the referee per language, once for the players (en).
    assert len(audiences) == len([a for a, _ in renders if _ == goblins[0].pk]) <= 5
    # Sockets of one audience share the very same message.
    assert messages[0] is messages[1] or messages[0] == messages[1]
    for socket in sockets:
        await socket.disconnect()


async def test_seats_opening_at_once_share_the_sections_that_are_the_same_for_them(
    table, monkeypatch
):
    """Phones of a language coming back at once (a server restarted) each get a full
    snapshot; the log and the foes, the same on every phone, are drawn once for all of
    them, and only each seat's party (its own character first) once per seat."""
    encounter, referee, players, heroes, goblins = table
    await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    drawn = _count_drawings(monkeypatch)
    phones = [await _open(player, encounter.slug, seq=0, settle=False) for player in players]
    firsts = [await phone.receive_from(timeout=5) for phone in phones]
    for first, hero in zip(firsts, heroes, strict=True):
        assert 'id="log"' in first and 'id="foes"' in first and "Goblin 0" in first
        # Its own character first in its party.
        assert first.index(f'id="combatant-{hero.pk}"') < min(
            first.index(f'id="combatant-{other.pk}"') for other in heroes if other != hero
        )
    assert drawn.count("combat/_log.html") == 1
    assert drawn.count("combat/_foes.html") == 1
    assert drawn.count("combat/_party.html") == len(players)
    for phone in phones:
        await phone.disconnect()


async def test_sockets_of_new_audiences_joining_a_current_table_cost_no_load(table, monkeypatch):
    """A phone connecting to a table this process has loaded, at the latest number, gets
    its first state from the loaded one: no query, its own view (a hidden foe stays
    hidden), and the next change reaches it like everyone else."""
    encounter, referee, players, _heroes, goblins = table
    await sync_to_async(type(goblins[5]).objects.filter(pk=goblins[5].pk).update)(hidden=True)
    await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    await sync_to_async(encounter.refresh_from_db)()
    referee_ws = await _open(referee, encounter.slug, seq=0, settle=False)
    assert "Goblin 5" in await referee_ws.receive_from(timeout=5)
    loads = count_loads(monkeypatch)
    phones = []
    for player, language in zip(players, ("cs", "uk", "en"), strict=True):
        phone = await _open(player, encounter.slug, language, seq=0, settle=False)
        first = await phone.receive_from(timeout=5)
        assert _marker(first) == (encounter.seq, None)
        assert "Goblin 0" in first and "Goblin 5" not in first
        phones.append(phone)
    assert loads == []
    await sync_to_async(_damage)(referee, encounter, goblins[1], 1)
    for socket in [referee_ws, *phones]:
        assert f'id="combatant-{goblins[1].pk}"' in await socket.receive_from(timeout=5)
    assert len(loads) == 1
    for socket in [referee_ws, *phones]:
        await socket.disconnect()


async def test_a_change_that_is_no_seats_own_is_worked_out_once_for_all_players(table, monkeypatch):
    encounter, referee, players, heroes, goblins = table
    deltas = []
    original = live.View._delta

    def counting_delta(self, base):
        deltas.append(self.audience)
        return original(self, base)

    monkeypatch.setattr(live.View, "_delta", counting_delta)
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)
    sockets = [await _open(p, encounter.slug, seq=encounter.seq) for p in players]
    deltas.clear()
    await sync_to_async(_damage)(referee, encounter, goblins[1], 2)
    messages = [await s.receive_from(timeout=5) for s in sockets]
    assert len(set(messages)) == 1 and f'id="combatant-{goblins[1].pk}"' in messages[0]
    assert "?actor=" not in messages[0]  # no seat's own buttons in what all get
    await referee_ws.receive_from(timeout=5)
    # The referee's, the players' common one, and each seat's asking for the common one.
    assert len([a for a in deltas if not a.referee and a.seat is None]) == 1
    # A change to a seat's own row is that seat's alone.
    deltas.clear()
    await sync_to_async(_damage)(referee, encounter, heroes[0], 1)
    own, *others = [await s.receive_from(timeout=5) for s in sockets]
    assert own != others[0] and others[0] == others[1]
    assert f'id="combatant-{heroes[0].pk}"' in own and "?actor=" in own
    assert "?actor=" not in others[0]
    for socket in [referee_ws, *sockets]:
        await socket.disconnect()


async def test_a_change_is_rendered_by_the_request_that_made_it(table, monkeypatch):
    import threading

    encounter, referee, players, _heroes, goblins = table
    threads = []
    original = live.build_views

    def noting_build(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(live, "build_views", noting_build)
    from combat.live import hub

    monkeypatch.setattr(hub, "build_views", noting_build)
    sockets = [await _open(c, encounter.slug, seq=encounter.seq) for c in (referee, players[0])]
    threads.clear()
    await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    messages = [await s.receive_from(timeout=5) for s in sockets]
    assert all(f'id="combatant-{goblins[0].pk}"' in m for m in messages)
    assert len(threads) == 1 and not threads[0].startswith("fray-live")
    for socket in sockets:
        await socket.disconnect()


async def test_the_request_that_made_a_change_answers_once_the_change_is_sent(table, monkeypatch):
    """Drawing the answer while the sockets are written to would only slow the broadcast
    down (one interpreter lock): the answer comes once every socket has the change."""
    import asyncio

    from combat.live import hub

    encounter, referee, players, _heroes, goblins = table
    original = hub.TableHub._deliver_all

    async def slow_deliver_all(self):
        await asyncio.sleep(0.05)  # a crowd of sockets to write to
        await original(self)

    monkeypatch.setattr(hub.TableHub, "_deliver_all", slow_deliver_all)
    monkeypatch.setattr(hub, "SEND_WAIT_SECONDS", 5.0)  # however slow this machine is
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)
    response = await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    assert response.status_code == 200
    assert not socket.output_queue.empty()  # sent before the answer came
    assert f'id="combatant-{goblins[0].pk}"' in await socket.receive_from(timeout=5)
    await socket.disconnect()


async def test_a_change_made_here_goes_out_without_waiting_for_the_channel_layer(
    table, monkeypatch
):
    """The announcement to other processes is sent from the event loop while the request
    renders: a slow layer (a round trip to Redis) delays neither this process's sockets nor
    the request's answer, and the other processes still hear of the change."""
    import asyncio

    from channels.layers import get_channel_layer

    from combat.live import hub

    encounter, referee, players, _heroes, goblins = table
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()  # another process's hub, as it were
    await layer.group_add(hub.group_of(encounter.pk), elsewhere)
    release = asyncio.Event()
    original = layer.group_send

    async def late_group_send(group, message):
        await release.wait()
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", late_group_send)
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)
    try:
        damage = sync_to_async(_damage)(referee, encounter, goblins[0], 1)
        response = await asyncio.wait_for(damage, timeout=10)
        assert response.status_code == 200
        assert f'id="combatant-{goblins[0].pk}"' in await socket.receive_from(timeout=5)
    finally:
        release.set()
    announced = await asyncio.wait_for(layer.receive(elsewhere), timeout=5)
    assert announced["seq"] == encounter.seq + 1
    await socket.disconnect()


async def test_a_change_nobody_else_can_hear_is_not_announced(table, monkeypatch):
    """On the in-memory layer (one process) with only this process's hub in the encounter's
    group, the change the request renders here goes to the sockets without a trip through
    the layer: nothing else could hear it."""
    import asyncio

    from channels.layers import InMemoryChannelLayer, get_channel_layer

    encounter, referee, players, _heroes, goblins = table
    layer = get_channel_layer()
    if not isinstance(layer, InMemoryChannelLayer):
        pytest.skip("the in-memory layer only: on Redis other workers may listen")
    sent = []
    original = layer.group_send

    async def counted_group_send(group, message):
        sent.append(group)
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", counted_group_send)
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)
    response = await asyncio.wait_for(
        sync_to_async(_damage)(referee, encounter, goblins[0], 1), timeout=10
    )
    assert response.status_code == 200
    assert f'id="combatant-{goblins[0].pk}"' in await socket.receive_from(timeout=5)
    assert sent == []
    await socket.disconnect()


async def test_a_change_counts_as_sent_once_the_server_has_written_it():
    """The server queues a socket's message and writes it when the loop next polls the
    socket (Daphne's Twisted transport): the request that made the change is told it was
    sent only after that, or drawing its answer would compete with the writes."""
    import asyncio
    import socket as sockets
    import threading
    from types import SimpleNamespace

    from combat.live import hub

    loop = asyncio.get_running_loop()
    mine, theirs = sockets.socketpair()
    written: list[bool] = []

    class QueuedSocket:
        audience = None

        async def deliver(self, table) -> None:
            def write() -> None:
                loop.remove_writer(mine.fileno())
                written.append(True)

            loop.add_writer(mine.fileno(), write)

    class Noting(threading.Event):
        def set(self) -> None:
            self.written_then = list(written)
            super().set()

    table = hub.TableHub(encounter_id=0, loop=loop)
    table.sockets.add(QueuedSocket())
    sent = Noting()
    table.adopt((SimpleNamespace(seq=1), {}), sent)
    assert await asyncio.to_thread(sent.wait, 5)
    assert sent.written_then == [True]
    mine.close()
    theirs.close()


async def test_a_monsters_hit_dice_given_later_bring_its_save_to_bestiary_button(table):
    """The referee's row offers to keep a monster in the bestiary once it has Hit Dice: a
    change of its Hit Dice alone redraws the row, not a copy kept from before."""
    from combat import table as toolkit
    from combat.access import Viewer
    from combat.models import Combatant

    encounter, referee, _players, _heroes, goblins = table
    goblin = goblins[0]
    await sync_to_async(Combatant.objects.filter(pk=goblin.pk).update)(hit_dice="")
    await sync_to_async(_damage)(referee, encounter, goblins[1], 1)
    socket = await _open(referee, encounter.slug, seq=0, settle=False)
    row = re.compile(rf'<li [^>]*id="combatant-{goblin.pk}".*?</li>', re.S)
    assert "Save to bestiary" not in row.search(await socket.receive_from(timeout=5)).group(0)

    def give_hit_dice() -> None:
        with transaction.atomic():
            Combatant.objects.filter(pk=goblin.pk).update(hit_dice="2")
            current = type(encounter).objects.get(pk=encounter.pk)
            toolkit.touch(Viewer(current, is_referee=True, seat=None))

    await sync_to_async(give_hit_dice)()
    assert "Save to bestiary" in row.search(await socket.receive_from(timeout=5)).group(0)
    await socket.disconnect()


async def test_a_blow_redraws_a_rows_line_and_keeps_what_is_under_it(table, monkeypatch):
    """Hit points show on a row's line; under it the sheet, body and actions show only
    whether the combatant is dead: a blow that does not kill draws the line again and keeps
    the rest as drawn, one that kills draws it again (the dead do not act)."""
    encounter, referee, _players, _heroes, goblins = table
    goblin = goblins[0]
    socket = await _open(referee, encounter.slug, seq=encounter.seq)
    drawn = _count_drawings(monkeypatch)
    row = re.compile(rf'<li [^>]*id="combatant-{goblin.pk}".*?</li>', re.S)
    await sync_to_async(_damage)(referee, encounter, goblin, 1)
    drawn.clear()
    await sync_to_async(_damage)(referee, encounter, goblin, 1)
    await socket.receive_from(timeout=5)
    shown = row.search(await socket.receive_from(timeout=5)).group(0)
    assert "HP</abbr> 48/50" in shown and ">Attack<" in shown
    assert drawn.count(LINE) == 1 and drawn.count(live.REST) == 0
    await sync_to_async(_damage)(referee, encounter, goblin, 48)
    shown = row.search(await socket.receive_from(timeout=5)).group(0)
    assert ">dead<" in shown and ">Attack<" not in shown
    assert drawn.count(live.REST) == 1
    await socket.disconnect()


async def test_a_change_the_request_fails_to_render_still_arrives(table, monkeypatch, caplog):
    from combat.live import hub

    encounter, referee, _players, _heroes, goblins = table
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)
    original = hub.build_views
    failures = []

    def failing_once(*args, **kwargs):
        if not failures:
            failures.append(1)
            raise RuntimeError("a render that breaks")
        return original(*args, **kwargs)

    monkeypatch.setattr(hub, "build_views", failing_once)
    response = await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    assert response.status_code == 200  # the request never fails for it
    message = await referee_ws.receive_from(timeout=5)
    assert _marker(message) == (encounter.seq + 1, encounter.seq)
    assert failures and "a render that breaks" in caplog.text
    await referee_ws.disconnect()


async def test_a_burst_of_changes_goes_out_as_one_message(table):
    encounter, referee, _players, _heroes, goblins = table
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)

    def burst() -> None:
        with transaction.atomic():  # both announced at once, on the one commit
            for goblin in goblins[:3]:
                _damage(referee, encounter, goblin, 1)

    await sync_to_async(burst)()
    message = await referee_ws.receive_from(timeout=5)
    assert _marker(message) == (encounter.seq + 3, encounter.seq)
    assert all(f'id="combatant-{g.pk}"' in message for g in goblins[:3])
    assert await referee_ws.receive_nothing(timeout=0.3)
    await referee_ws.disconnect()


async def test_a_page_behind_or_reconnecting_gets_a_full_snapshot(table):
    encounter, referee, players, _heroes, goblins = table
    stale = encounter.seq
    await sync_to_async(_damage)(referee, encounter, goblins[0], 1)
    player_ws = await _open(players[0], encounter.slug, seq=stale, settle=False)  # one behind
    snapshot = await player_ws.receive_from(timeout=5)
    assert _marker(snapshot) == (stale + 1, None)
    assert 'id="party"' in snapshot and 'id="foes"' in snapshot and 'id="log"' in snapshot
    # A page that saw a gap asks with its number, and gets the snapshot again.
    await player_ws.send_json_to({"type": "sync", "seq": stale})
    again = await player_ws.receive_from(timeout=5)
    assert _marker(again) == (stale + 1, None) and 'id="foes"' in again
    await player_ws.disconnect()


async def test_the_periodic_check_of_a_current_page_sends_the_number_only(table):
    encounter, _referee, players, *_ = table
    player_ws = await _open(players[0], encounter.slug, seq=encounter.seq)
    await player_ws.send_json_to({"type": "sync", "seq": encounter.seq})
    answer = await player_ws.receive_from(timeout=5)
    assert _marker(answer) == (encounter.seq, None)
    assert "combatant" not in answer and len(answer) < 120
    await player_ws.disconnect()


async def test_a_secret_roll_sends_players_only_the_new_number(table):
    encounter, referee, players, *_ = table
    player_ws = await _open(players[0], encounter.slug, seq=encounter.seq)
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)
    await sync_to_async(referee.post)(
        reverse("free_roll", args=[encounter.slug]),
        {"expression": "1d100", "label": "Wandering monsters", "secret": "on"},
        HTTP_HX_REQUEST="true",
    )
    assert "Wandering monsters" in await referee_ws.receive_from(timeout=5)
    to_player = await player_ws.receive_from(timeout=5)
    assert "Wandering" not in to_player and "entry" not in to_player
    assert _marker(to_player) == (encounter.seq + 1, encounter.seq)
    await player_ws.disconnect()
    await referee_ws.disconnect()


async def test_an_unseated_player_and_an_old_referee_link_lose_their_sockets(table):
    encounter, referee, players, *_ = table
    player_ws = await _open(players[1], encounter.slug, seq=encounter.seq)
    seat = await sync_to_async(lambda: encounter.seats.order_by("pk")[1])()
    await sync_to_async(referee.post)(
        reverse("seat_remove", args=[encounter.slug, seat.pk]), HTTP_HX_REQUEST="true"
    )
    assert (await player_ws.receive_output(timeout=5))["code"] == 4404
    elsewhere = Client()
    await sync_to_async(elsewhere.get)(reverse("referee_link", args=[encounter.referee_key]))
    old_referee_ws = await _open(elsewhere, encounter.slug, seq=None)
    await old_referee_ws.receive_from(timeout=5)
    await sync_to_async(referee.post)(reverse("new_links", args=[encounter.slug]))
    assert (await old_referee_ws.receive_output(timeout=5))["code"] == 4403


async def test_the_round_reaches_every_phone_and_tells_the_acting_side(table):
    encounter, referee, players, _heroes, _goblins = table
    player_ws = await _open(players[0], encounter.slug, "cs", seq=encounter.seq)
    referee_ws = await _open(referee, encounter.slug, seq=encounter.seq)

    def post(name: str, data: dict, *args) -> None:
        url = reverse(name, args=[encounter.slug, *args])
        assert referee.post(url, data, HTTP_HX_REQUEST="true").status_code == 200

    def form(name: str) -> dict:
        from .conftest import form_values

        url = reverse(name, args=[encounter.slug])
        return form_values(referee.get(url, HTTP_HX_REQUEST="true").content.decode(), url)

    values = await sync_to_async(form)("fight")
    await sync_to_async(post)("fight", values | {"surprise": ""})
    started = await player_ws.receive_from(timeout=5)
    assert 'id="round"' in started and "Kolo 1" in started  # Czech
    await referee_ws.receive_from(timeout=5)
    values = await sync_to_async(form)("initiative")
    await sync_to_async(post)("initiative", values | {"party_die": "5", "foes_die": "2"})
    rolled = await player_ws.receive_from(timeout=5)
    assert "Vaše strana jedná" in rolled  # "Your side acts", on this phone
    at = re.search(r'name="at" value="([^"]+)"', await referee_ws.receive_from(timeout=5))
    await sync_to_async(post)("advance", {"at": at.group(1)}, "turn")
    handed_over = await player_ws.receive_from(timeout=5)
    assert 'id="round"' in handed_over and "Vaše strana jedná" not in handed_over
    for socket in (player_ws, referee_ws):
        await socket.disconnect()


async def test_a_save_left_to_a_player_reaches_that_phone_only(table):
    encounter, referee, players, heroes, goblins = table
    own_ws = await _open(players[0], encounter.slug, seq=encounter.seq)
    other_ws = await _open(players[1], encounter.slug, seq=encounter.seq)

    def fireball() -> None:
        url = reverse("area_effect", args=[encounter.slug])
        data = {
            "targets": [heroes[0].pk, goblins[0].pk],
            "damage": "2d6",
            "category": "breath",
            "on_save": "half",
            "players_roll": "on",
        }
        assert referee.post(url, data, HTTP_HX_REQUEST="true").status_code == 200

    await sync_to_async(fireball)()
    own, other = await own_ws.receive_from(timeout=5), await other_ws.receive_from(timeout=5)
    assert "/saves/" in own and "/saves/" not in other
    assert f"Their players roll the saves of: {heroes[0].name}" in other
    for socket in (own_ws, other_ws):
        await socket.disconnect()


async def test_a_waiting_save_says_what_it_needs_after_the_save_is_corrected(table):
    """A save left to a player says on its button what it needs: the referee correcting
    the character's saving throw redraws the button with the new number."""
    from combat import table as toolkit
    from combat.access import Viewer
    from combat.models import Combatant

    encounter, referee, players, heroes, _goblins = table
    own_ws = await _open(players[0], encounter.slug, seq=encounter.seq)

    def fireball() -> None:
        url = reverse("area_effect", args=[encounter.slug])
        data = {"targets": [heroes[0].pk], "damage": "2d6", "category": "breath"}
        data |= {"on_save": "half", "players_roll": "on"}
        assert referee.post(url, data, HTTP_HX_REQUEST="true").status_code == 200

    def correct_save(value: int) -> None:
        with transaction.atomic():
            Combatant.objects.filter(pk=heroes[0].pk).update(save_breath=value)
            current = type(encounter).objects.get(pk=encounter.pk)
            toolkit.touch(Viewer(current, is_referee=True, seat=None))

    await sync_to_async(fireball)()
    assert "needs 13+" in await own_ws.receive_from(timeout=5)
    await sync_to_async(correct_save)(9)
    assert "needs 9+" in await own_ws.receive_from(timeout=5)
    await own_ws.disconnect()


async def test_a_render_may_read_the_combatants_through_a_viewer(table):
    """Reading the combatants from the live render takes the render's lock: a render that
    reads them itself goes on instead of waiting for itself."""
    import threading

    from combat.live import hub
    from combat.models import Encounter

    encounter, _referee, players, heroes, goblins = table
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)
    current = await sync_to_async(Encounter.objects.get)(pk=encounter.pk)
    read = []

    def inside_a_render() -> None:
        with hub.RENDER_LOCK:
            read.append(hub.rows_at(current))

    reader = threading.Thread(target=inside_a_render, daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert read and {c.pk for c in read[0]} == {c.pk for c in heroes + goblins}
    await socket.disconnect()


def _combatant_reads(queries) -> int:
    """Reads of all an encounter's combatants as model instances (not one row, not values)."""
    return sum(
        1
        for q in queries
        if q["sql"].startswith('SELECT "combat_combatant"."id", "combat_combatant"."encounter_id"')
        and 'WHERE "combat_combatant"."encounter_id" =' in q["sql"]
    )


async def test_a_request_on_a_watched_table_reads_no_combatant_the_live_render_holds(table):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from combat.models import Combatant, Encounter

    encounter, referee, players, heroes, goblins = table

    def post(name: str, data: dict) -> tuple[str, int]:
        with CaptureQueriesContext(connection) as queries:
            response = referee.post(
                reverse(name, args=[encounter.slug]), data, HTTP_HX_REQUEST="true"
            )
        assert response.status_code == 200
        return response.content.decode(), _combatant_reads(queries.captured_queries)

    # No socket on the table: the combatants are read before acting, and again for the
    # answer's form, as the change left them.
    damage = {"actor": goblins[0].pk, "action": "damage", "amount": 49}
    answer, alone = await sync_to_async(post)("hit_points", damage)
    assert alone == 2
    assert f'<option value="{goblins[0].pk}"' in answer
    player_ws = await _open(players[0], encounter.slug, seq=encounter.seq + 1)
    # A socket open: before acting, the combatants come from the live table's state at the
    # encounter's number; the change is rendered in the request, and the answer takes them
    # from that render, as the change left them (the goblin it killed is gone from the form).
    attack = {"actor": heroes[1].pk, "target": goblins[0].pk, "mode": "melee", "natural": 20}
    attack |= {"damage": "1d6", "damage_dice": "3"}
    answer, watched = await sync_to_async(post)("attack", attack)
    assert watched == 0
    assert "Goblin 0" in answer and f'<option value="{goblins[0].pk}"' not in answer
    assert _marker(await player_ws.receive_from(timeout=5))[0] == encounter.seq + 2

    # A change this process has not rendered (another worker's, its announcement still on
    # its way): the number moved on, so the combatants are read from the database.
    def elsewhere() -> None:
        with transaction.atomic():
            Combatant.objects.filter(pk=goblins[1].pk).update(name="Goblin chief")
            Encounter.objects.get(pk=encounter.pk).bump()

    await sync_to_async(elsewhere)()
    damage = {"actor": goblins[2].pk, "action": "damage", "amount": 1}
    answer, behind = await sync_to_async(post)("hit_points", damage)
    assert behind == 1  # before acting; the answer's form from the render of the change
    assert "Goblin chief" in answer
    await player_ws.disconnect()


def _seat_reads(queries) -> int:
    return sum(
        1
        for q in queries
        if q["sql"].startswith('SELECT "combat_seat"') and '"combat_seat"."id" =' in q["sql"]
    )


async def test_a_players_request_on_a_watched_table_reads_no_seat_the_live_render_holds(table):
    """Who a player is comes from the live render's seats at the encounter's number, as the
    combatants do; a seat removed since is gone for its player's next request all the same."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    encounter, referee, players, heroes, goblins = table

    def attack(n: int) -> tuple[int, int]:
        data = {"actor": heroes[n].pk, "target": goblins[0].pk, "mode": "melee", "natural": 5}
        with CaptureQueriesContext(connection) as queries:
            response = players[n].post(
                reverse("attack", args=[encounter.slug]), data, HTTP_HX_REQUEST="true"
            )
        return response.status_code, _seat_reads(queries.captured_queries)

    assert await sync_to_async(attack)(0) == (200, 1)  # no socket: read from the database
    seq = encounter.seq + 1
    socket = await _open(players[0], encounter.slug, seq=seq)
    assert await sync_to_async(attack)(0) == (200, 0)
    assert _marker(await socket.receive_from(timeout=5))[0] == seq + 1
    seat = heroes[1].seat

    def remove_seat() -> int:
        url = reverse("seat_remove", args=[encounter.slug, seat.pk])
        return referee.post(url, HTTP_HX_REQUEST="true").status_code

    assert await sync_to_async(remove_seat)() == 200
    assert _marker(await socket.receive_from(timeout=5))[0] == seq + 2
    assert await sync_to_async(attack)(1) == (404, 0)  # the render knows the seat is gone
    await socket.disconnect()


async def test_a_blow_players_cannot_see_the_size_of_sends_them_no_row(table):
    """Players who see no foe's numbers see its health in words: a blow that leaves it as
    wounded as it was changes nothing on their row (only the log says it), and the referee's
    row shows the new hit points."""
    encounter, referee, players, _heroes, goblins = table
    goblin = f'id="combatant-{goblins[0].pk}"'
    seq = encounter.seq
    player_ws = await _open(players[0], encounter.slug, seq=seq)
    referee_ws = await _open(referee, encounter.slug, seq=seq)
    # 50 -> 49: unhurt -> wounded, for everyone; 49 -> 47: still wounded, to players.
    for amount, hp, row_for_players in ((1, 49, True), (2, 47, False)):
        await sync_to_async(_damage)(referee, encounter, goblins[0], amount)
        to_player = await player_ws.receive_from(timeout=5)
        to_referee = await referee_ws.receive_from(timeout=5)
        seq += 1
        assert _marker(to_player) == _marker(to_referee) == (seq, seq - 1)
        assert (goblin in to_player) is row_for_players
        assert "Goblin 0" in to_player  # the log's entry
        assert goblin in to_referee and f"{hp}/50" in to_referee
    await player_ws.disconnect()
    await referee_ws.disconnect()
