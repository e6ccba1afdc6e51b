"""Concurrent damage from several browsers never loses an update.

Under ASGI the sync views of one process share a thread, so contention only shows between
processes: each worker here is a forked process with its own database connection, posting
through the real view, as several Daphne workers behind a proxy would.
"""

from __future__ import annotations

import functools
import multiprocessing
import os

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Encounter, LogEntry

from .conftest import form_values, monster

WORKERS = 4
HITS_EACH = 10


def _hammer(slug: str, referee_key: str, target: int, results, action: str = "damage") -> None:
    connections.close_all()  # never share the parent's connection across a fork
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    codes = []
    for _ in range(HITS_EACH):
        response = client.post(
            reverse("hit_points", args=[slug]), {"actor": target, "action": action, "amount": 1}
        )
        codes.append(response.status_code)
    connections.close_all()
    results.put(codes)


def _run_workers(encounter: Encounter, target: Combatant, action: str) -> list[int]:
    return _run_mixed(encounter, target, [functools.partial(_hammer, action=action)] * WORKERS)


@pytest.mark.django_db(transaction=True)
def test_parallel_damage_from_several_processes_loses_nothing():
    encounter = Encounter.objects.create(name="Siege")
    troll = monster(encounter, "Troll", hp_max=100, hp=100)
    codes = _run_workers(encounter, troll, "damage")
    assert codes == [302] * WORKERS * HITS_EACH
    troll.refresh_from_db()
    assert troll.hp == 100 - WORKERS * HITS_EACH
    entries = LogEntry.objects.filter(encounter=encounter)
    assert entries.count() == WORKERS * HITS_EACH
    # Every change got its own sequence number.
    assert sorted(entries.values_list("seq", flat=True)) == list(range(1, WORKERS * HITS_EACH + 1))


@pytest.mark.django_db(transaction=True)
def test_parallel_healing_respects_the_maximum_and_loses_nothing():
    encounter = Encounter.objects.create(name="Temple")
    hero = monster(encounter, "Hero", hp_max=100, hp=70)
    _run_workers(encounter, hero, "heal")
    hero.refresh_from_db()
    assert hero.hp == 100
    applied = sum(
        e["hp"] for entry in LogEntry.objects.filter(encounter=encounter) for e in entry.effects
    )
    assert applied == 30


def _duel(slug: str, referee_key: str, attacker: int, target: int, results) -> None:
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    codes = []
    for _ in range(HITS_EACH):
        response = client.post(
            reverse("attack", args=[slug]),
            {
                "actor": attacker,
                "target": target,
                "mode": "melee",
                "natural": 20,
                "damage": "1d4",
                "damage_dice": "1",
            },
        )
        codes.append(response.status_code)
    connections.close_all()
    results.put(codes)


@pytest.mark.django_db(transaction=True)
def test_two_combatants_attacking_each_other_at_once_never_deadlock():
    encounter = Encounter.objects.create(name="Duel")
    red = monster(encounter, "Red", hp_max=100, hp=100)
    blue = monster(encounter, "Blue", hp_max=100, hp=100)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    connections.close_all()
    workers = [
        context.Process(
            target=_duel, args=(encounter.slug, encounter.referee_key, a.pk, b.pk, results)
        )
        for a, b in ((red, blue), (blue, red), (red, blue), (blue, red))
    ]
    for worker in workers:
        worker.start()
    codes = [code for _ in workers for code in results.get(timeout=120)]
    for worker in workers:
        worker.join(timeout=30)
    assert codes == [302] * len(workers) * HITS_EACH
    red.refresh_from_db()
    blue.refresh_from_db()
    assert red.hp == blue.hp == 100 - 2 * HITS_EACH  # each took 1 damage per hit


def _edit_stale_forms(slug: str, referee_key: str, target: int, results) -> None:
    """The referee saves an edit form opened long ago, again and again, changing only AC."""
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    url = reverse("combatant_edit", args=[slug, target])
    stale = form_values(client.get(url, HTTP_HX_REQUEST="true").content.decode(), url)
    codes = []
    for number in range(HITS_EACH):
        data = stale | {"ac": str(number % 5), "once": f"edit-{number}-{os.getpid()}"}
        codes.append(client.post(url, data).status_code)
    connections.close_all()
    results.put(codes)


def _save_settings(slug: str, referee_key: str, target: int, results) -> None:
    """The referee saves the encounter settings, as read at the start, again and again."""
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    url = reverse("encounter_settings", args=[slug])
    page = client.get(reverse("encounter", args=[slug])).content.decode()
    stale = form_values(page, url)
    codes = [client.post(url, stale).status_code for _ in range(HITS_EACH)]
    connections.close_all()
    results.put(codes)


def _damage_once(slug: str, referee_key: str, target: int, results) -> None:
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    codes = [
        client.post(
            reverse("hit_points", args=[slug]),
            {"actor": target, "action": "damage", "amount": 1, "once": f"{os.getpid()}-{n}"},
        ).status_code
        for n in range(HITS_EACH)
    ]
    connections.close_all()
    results.put(codes)


def _run_mixed(encounter: Encounter, target: Combatant, jobs) -> list[int]:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    connections.close_all()
    workers = [
        context.Process(
            target=job, args=(encounter.slug, encounter.referee_key, target.pk, results)
        )
        for job in jobs
    ]
    for worker in workers:
        worker.start()
    codes = [code for _ in workers for code in results.get(timeout=120)]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    return codes


@pytest.mark.django_db(transaction=True)
def test_stale_edit_and_settings_forms_racing_damage_lose_nothing_and_double_nothing():
    encounter = Encounter.objects.create(name="Siege")
    troll = monster(encounter, "Troll", hp_max=5000, hp=5000)
    codes = _run_mixed(
        encounter,
        troll,
        [_damage_once, _damage_once, _damage_once, _edit_stale_forms, _save_settings],
    )
    assert 500 not in codes
    troll.refresh_from_db()
    assert troll.hp == 5000 - 3 * HITS_EACH  # every point of damage stands
    seqs = list(LogEntry.objects.filter(encounter=encounter).values_list("seq", flat=True))
    assert len(seqs) == len(set(seqs)) == 3 * HITS_EACH
    encounter.refresh_from_db()
    assert encounter.seq >= max(seqs)  # the sequence never went backwards


def _same_key(slug: str, referee_key: str, target: int, results) -> None:
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    response = client.post(
        reverse("hit_points", args=[slug]),
        {"actor": target, "action": "damage", "amount": 3, "once": "one-tap"},
    )
    connections.close_all()
    results.put([response.status_code])


@pytest.mark.django_db(transaction=True)
def test_one_form_sent_by_several_processes_at_once_applies_once():
    encounter = Encounter.objects.create(name="Retry storm")
    troll = monster(encounter, "Troll", hp_max=100, hp=100)
    codes = _run_mixed(encounter, troll, [_same_key] * WORKERS)
    assert codes == [302] * WORKERS  # every sending is answered, as the first one was
    troll.refresh_from_db()
    assert troll.hp == 97
    assert LogEntry.objects.filter(encounter=encounter).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("returning", [True, False], ids=["one-statement", "update-then-read"])
def test_a_bump_moves_the_numbers_on_by_one_where_the_database_returns_them_or_not(
    returning, monkeypatch
):
    """Every change takes the encounter's next number (and the players', when they see it):
    in one UPDATE that returns them where the database can, else an UPDATE and a read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if returning and not connection.features.can_return_columns_from_insert:
        pytest.skip("this SQLite predates RETURNING (3.35)")
    encounter = Encounter.objects.create(name="Keep")
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", returning)
    start = (encounter.seq, encounter.public_seq)
    with CaptureQueriesContext(connection) as queries:
        assert encounter.bump() == start[0] + 1
    assert len(queries) == (1 if returning else 2)
    assert encounter.bump(public=True) == start[0] + 2
    assert (encounter.seq, encounter.public_seq) == (start[0] + 2, start[1] + 1)
    encounter.refresh_from_db()
    assert (encounter.seq, encounter.public_seq) == (start[0] + 2, start[1] + 1)
    Encounter.objects.filter(pk=encounter.pk).delete()
    with pytest.raises(Encounter.DoesNotExist):
        encounter.bump()


@pytest.mark.django_db
def test_an_entry_takes_the_next_numbers_and_its_key_in_one_statement_on_postgresql():
    """Every change moves the numbers on, stores its log entry at them and claims its
    one-time key. On PostgreSQL, where each statement is a wait, the three go as one; on
    every database the rows written are the same, and a key used before applies nothing."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from combat import table as toolkit
    from combat.access import Viewer
    from combat.models import ActionKey
    from rules import dice

    encounter = Encounter.objects.create(name="Keep")
    referee = Viewer(encounter, is_referee=True, seat=None)
    d20 = dice.parse("1d20")
    start = (encounter.seq, encounter.public_seq)
    with CaptureQueriesContext(connection) as queries:
        public = toolkit.free_roll(referee, expression=d20, label="", entered=None, once="k1")
    asked = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]  # (the test's own)
    assert len(asked) == (1 if connection.vendor == "postgresql" else 3), asked
    secret = toolkit.free_roll(referee, expression=d20, label="", entered=None, secret=True)
    assert (public.seq, public.public_seq) == (start[0] + 1, start[1] + 1)
    assert (secret.seq, secret.public_seq) == (start[0] + 2, None)
    assert (encounter.seq, encounter.public_seq) == (start[0] + 2, start[1] + 1)
    for made in (public, secret):
        stored = LogEntry.objects.get(pk=made.pk)
        assert (stored.seq, stored.public_seq, stored.secret) == (
            made.seq,
            made.public_seq,
            made.secret,
        )
        assert (stored.data, stored.created, stored.encounter_id) == (
            made.data,
            made.created,
            encounter.pk,
        )
    assert ActionKey.objects.get(encounter=encounter, key="k1").entry_id == public.pk
    with pytest.raises(toolkit.Repeated):
        toolkit.free_roll(referee, expression=d20, label="", entered=None, once="k1")
    encounter.refresh_from_db()
    assert (encounter.seq, encounter.public_seq) == (start[0] + 2, start[1] + 1)
    assert LogEntry.objects.filter(encounter=encounter).count() == 2
