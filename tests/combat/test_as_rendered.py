"""A roll on a table this process shows live is decided on the table as it last rendered it,
reading nothing and locking nothing before its change; the change's number confirms that
nothing was stored since, or the roll is decided again on what is stored."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from combat.access import Viewer
from combat.models import Combatant, Encounter, EntryKind, LogEntry, Stale

from .test_fanout import _marker, _open

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _post(client, encounter, name: str, data: dict) -> tuple[int, str, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(reverse(name, args=[encounter.slug]), data, HTTP_HX_REQUEST="true")
    return response.status_code, response.content.decode(), [q["sql"] for q in queries]


def _elsewhere(encounter: Encounter, **changes) -> None:
    """A change another worker stored, its announcement not yet here: this process's render
    still shows the table as it was."""
    with transaction.atomic():
        if changes:
            Combatant.objects.filter(pk=changes.pop("pk")).update(**changes)
        Encounter.objects.get(pk=encounter.pk).bump()


def _entries(encounter: Encounter, kind: str) -> int:
    return LogEntry.objects.filter(encounter=encounter, kind=kind).count()


async def test_a_roll_on_a_watched_table_reads_nothing_before_it_writes(table):
    encounter, referee, players, heroes, goblins = table
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)
    for name, data in (
        ("hit_points", {"actor": goblins[0].pk, "action": "damage", "amount": 4}),
        (
            "attack",
            {"actor": heroes[0].pk, "target": goblins[0].pk, "mode": "melee", "natural": 20}
            | {"damage": "1d6", "damage_dice": "3"},
        ),
    ):
        client = referee if name == "hit_points" else players[0]
        status, _answer, sql = await sync_to_async(_post)(client, encounter, name, data)
        assert status == 200
        first_write = next(n for n, s in enumerate(sql) if 'UPDATE "' in s)
        assert not [s for s in sql[:first_write] if "SELECT" in s], sql[:first_write]
        # The rows' lock (PostgreSQL's; SQLite locks the whole database) goes with the write.
        locks = [n for n, s in enumerate(sql) if "FOR UPDATE" in s]
        assert locks == ([first_write] if connection.vendor == "postgresql" else [])
        await socket.receive_from(timeout=5)
    goblin = await sync_to_async(Combatant.objects.get)(pk=goblins[0].pk)
    assert goblin.hp < 50 - 4
    await socket.disconnect()


async def test_a_change_stored_meanwhile_is_decided_again_on_what_is_stored(table):
    """The render says 50 hit points; another worker left 20: the blow takes 3 from 20."""
    encounter, referee, _players, _heroes, goblins = table
    socket = await _open(referee, encounter.slug, seq=encounter.seq)
    await sync_to_async(_elsewhere)(encounter, pk=goblins[1].pk, hp=20)
    damage = {"actor": goblins[1].pk, "action": "damage", "amount": 3}
    status, answer, _sql = await sync_to_async(_post)(referee, encounter, "hit_points", damage)
    assert status == 200 and "Goblin 1" in answer
    goblin = await sync_to_async(Combatant.objects.get)(pk=goblins[1].pk)
    assert goblin.hp == 17
    assert await sync_to_async(_entries)(encounter, EntryKind.DAMAGE) == 1
    stored = await sync_to_async(Encounter.objects.get)(pk=encounter.pk)
    assert stored.seq == encounter.seq + 2  # the change elsewhere, then this one: no gap
    assert _marker(await socket.receive_from(timeout=5))[0] == stored.seq
    await socket.disconnect()


async def test_links_replaced_meanwhile_shut_the_old_referee_out_at_once(table):
    """The render still holds the old referee key; the change finds the number moved on and
    asks again: the old link's browser is a stranger now, and nothing is applied."""
    encounter, referee, players, _heroes, goblins = table
    socket = await _open(players[0], encounter.slug, seq=encounter.seq)

    def new_links() -> None:
        with transaction.atomic():
            current = Encounter.objects.get(pk=encounter.pk)
            current.new_links()
            current.bump()

    await sync_to_async(new_links)()
    damage = {"actor": goblins[0].pk, "action": "damage", "amount": 3}
    status, _answer, _sql = await sync_to_async(_post)(referee, encounter, "hit_points", damage)
    assert status == 404
    goblin = await sync_to_async(Combatant.objects.get)(pk=goblins[0].pk)
    assert goblin.hp == 50
    assert await sync_to_async(_entries)(encounter, EntryKind.DAMAGE) == 0
    await socket.disconnect()


async def test_a_refusal_on_the_rendered_table_is_asked_again_of_the_stored_one(table):
    """The render shows the goblin dead, so the form would not offer it; another worker
    brought it back: the attack goes through."""
    encounter, referee, players, heroes, goblins = table
    dead = {"actor": goblins[2].pk, "action": "damage", "amount": 50}
    assert (await sync_to_async(_post)(referee, encounter, "hit_points", dead))[0] == 200
    socket = await _open(players[0], encounter.slug, seq=encounter.seq + 1)
    await sync_to_async(_elsewhere)(encounter, pk=goblins[2].pk, hp=9)
    attack = {"actor": heroes[0].pk, "target": goblins[2].pk, "mode": "melee", "natural": 20}
    attack |= {"damage": "1d6", "damage_dice": "2"}
    status, answer, _sql = await sync_to_async(_post)(players[0], encounter, "attack", attack)
    assert status == 200 and "errorlist" not in answer
    goblin = await sync_to_async(Combatant.objects.get)(pk=goblins[2].pk)
    assert 0 < goblin.hp < 9  # the blow landed on the 9 stored, not on the dead rendered
    assert await sync_to_async(_entries)(encounter, EntryKind.ATTACK) == 1
    await socket.disconnect()


async def test_a_mistake_in_the_form_is_shown_as_the_stored_table_has_it(table):
    encounter, referee, _players, _heroes, goblins = table
    socket = await _open(referee, encounter.slug, seq=encounter.seq)
    wrong = {"actor": goblins[0].pk, "action": "damage", "amount": "lots"}
    status, answer, _sql = await sync_to_async(_post)(referee, encounter, "hit_points", wrong)
    assert status == 200 and "errorlist" in answer
    assert await sync_to_async(_entries)(encounter, EntryKind.DAMAGE) == 0
    await socket.disconnect()


def _as_rendered(encounter: Encounter) -> Encounter:
    copy = Encounter.objects.get(pk=encounter.pk)
    copy.as_rendered = True
    return copy


async def test_the_first_bump_confirms_the_rendered_copy_and_only_the_first(table):
    encounter = table[0]

    def bumps() -> None:
        with transaction.atomic():
            copy = _as_rendered(encounter)
            assert copy.bump() == encounter.seq + 1
            assert "as_rendered" not in copy.__dict__
            _elsewhere(encounter)  # in the same transaction: no longer checked
            assert copy.bump() == encounter.seq + 3

        copy = _as_rendered(encounter)
        _elsewhere(encounter)
        with pytest.raises(Stale), transaction.atomic():
            copy.bump()
        assert Encounter.objects.get(pk=encounter.pk).seq == encounter.seq + 4  # rolled back

    await sync_to_async(bumps)()


async def test_a_stale_copy_rolls_back_everything_its_change_wrote(table):
    """``actions`` takes the copy's rows as locked; the stale number undoes the blow."""
    from combat import table as toolkit

    encounter, _referee, _players, _heroes, goblins = table

    def blow() -> None:
        copy = _as_rendered(encounter)
        viewer = Viewer(copy, is_referee=True, seat=None)
        rows = {c.pk: c for c in viewer.combatants}
        _elsewhere(encounter)
        with pytest.raises(Stale):
            toolkit.change_hit_points(viewer, actor=rows[goblins[0].pk], action="damage", amount=5)
        assert Combatant.objects.get(pk=goblins[0].pk).hp == 50
        assert not LogEntry.objects.filter(encounter=encounter).exists()

    await sync_to_async(blow)()


async def test_blows_racing_on_a_watched_table_lose_nothing(table):
    """Several requests at once, each deciding on the same render: one stores first, the
    others find the number moved on and decide again (PostgreSQL: rows written meanwhile
    wait for the first one's commit, then roll back)."""
    import asyncio

    from django.conf import settings
    from django.db import connections
    from django.test import Client

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's row locks only")
    encounter, referee, _players, _heroes, goblins = table
    socket = await _open(referee, encounter.slug, seq=encounter.seq)
    cookie = referee.cookies[settings.SESSION_COOKIE_NAME].value

    def hammer() -> list[int]:
        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = cookie
        damage = {"actor": goblins[3].pk, "action": "damage", "amount": 1}
        try:
            return [_post(client, encounter, "hit_points", damage)[0] for _ in range(5)]
        finally:
            connections.close_all()

    codes = await asyncio.gather(*(sync_to_async(hammer, thread_sensitive=False)() for _ in "abcd"))
    assert [code for each in codes for code in each] == [200] * 20
    goblin = await sync_to_async(Combatant.objects.get)(pk=goblins[3].pk)
    assert goblin.hp == 50 - 20
    seqs = await sync_to_async(
        lambda: sorted(LogEntry.objects.filter(encounter=encounter).values_list("seq", flat=True))
    )()
    assert seqs == list(range(encounter.seq + 1, encounter.seq + 21))
    await socket.disconnect()
