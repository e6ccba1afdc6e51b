"""Personas: the referee, a seated player, another player, and an outsider who should have
no access at all; plus an encounter with a party and some foes."""

from __future__ import annotations

import io
import logging
import random
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from combat.logs import RedactCapabilities
from combat.models import Combatant, Encounter, Kind, Seat, Side
from combat.table import dice as server_dice


def fixed_dice(monkeypatch: pytest.MonkeyPatch, rng: random.Random) -> random.Random:
    """The server's dice (``combat.table.RNG``) drawn from ``rng``, so that a test can replay
    the same rolls (again, with a new ``rng``). They are still numbered and recorded as the
    server's dice (``combat.table.dice``): only the values are fixed."""
    monkeypatch.setattr(server_dice.RNG, "fixed", rng)
    return rng


@pytest.fixture(autouse=True)
def strict_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A die drawn and never recorded, or a secret entry's die taken from the public stream,
    fails the test (a server logs it): either would leave a gap players could see."""
    monkeypatch.setattr(server_dice, "STRICT", True)


@pytest.fixture
def encounter(db) -> Encounter:
    return Encounter.objects.create(name="The goblin cave")


@pytest.fixture
def referee(encounter: Encounter) -> Client:
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    return client


def _seated(encounter: Encounter, name: str) -> Client:
    client = Client()
    response = client.post(reverse("join", args=[encounter.join_token]), {"name": name})
    assert response.status_code == 302
    client.seat = Seat.objects.get(encounter=encounter, name=name)
    return client


@pytest.fixture
def player(encounter: Encounter) -> Client:
    return _seated(encounter, "Anna")


@pytest.fixture
def other_player(encounter: Encounter) -> Client:
    return _seated(encounter, "Boris")


@pytest.fixture
def outsider(db) -> Client:
    return Client()


def character(encounter: Encounter, name: str, seat: Seat | None = None, **extra) -> Combatant:
    values = dict(
        side=Side.PARTY,
        kind=Kind.CHARACTER,
        ac=4,
        hp_max=20,
        hp=20,
        thac0=17,
        save_death=10,
        save_wands=11,
        save_paralysis=12,
        save_breath=13,
        save_spells=14,
        str_score=13,
        dex_score=9,
    )
    return Combatant.objects.create(encounter=encounter, name=name, seat=seat, **values | extra)


def monster(encounter: Encounter, name: str, **extra) -> Combatant:
    values = dict(
        side=Side.FOES,
        kind=Kind.MONSTER,
        ac=6,
        hp_max=5,
        hp=5,
        hit_dice="1-1",
        thac0=19,
        save_death=12,
        save_wands=13,
        save_paralysis=14,
        save_breath=15,
        save_spells=16,
    )
    return Combatant.objects.create(encounter=encounter, name=name, **values | extra)


@pytest.fixture
def fighter(encounter: Encounter, player: Client) -> Combatant:
    return character(encounter, "Aldric", seat=player.seat)


@pytest.fixture
def thief(encounter: Encounter, other_player: Client) -> Combatant:
    return character(encounter, "Brina", seat=other_player.seat, thac0=19, ac=7, hp_max=8, hp=8)


@pytest.fixture
def goblin(encounter: Encounter) -> Combatant:
    return monster(encounter, "Goblin")


@pytest.fixture
def lurker(encounter: Encounter) -> Combatant:
    """A foe the referee keeps hidden."""
    return monster(encounter, "Lurking wight", hidden=True, hp_max=13, hp=13, hit_dice="3*")


class _FormReader(HTMLParser):
    """The values a browser would send from the first form whose action contains ``action``
    (is exactly ``action``, if ``exact``)."""

    def __init__(self, action: str, exact: bool = False) -> None:
        super().__init__()
        self.action, self.exact, self.inside, self.done = action, exact, False, False
        self.values: dict[str, str] = {}
        self.select: str | None = None
        self.first_option: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        found = a.get("action", "")
        if (
            tag == "form"
            and not self.done
            and (found == self.action or (not self.exact and self.action in found))
        ):
            self.inside = True
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.values[name] = a.get("value") or "on"
            elif a.get("type") not in {"submit", "button"}:
                self.values[name] = a.get("value", "")
        elif tag == "select" and name:
            self.select, self.first_option = name, None
        elif tag == "option" and self.select:
            if self.first_option is None:
                self.first_option = a.get("value", "")
            if "selected" in a:
                self.values[self.select] = a.get("value", "")
        elif tag == "textarea" and name:
            self.values[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self.select:
            self.values.setdefault(self.select, self.first_option or "")
            self.select = None
        elif tag == "form" and self.inside:
            self.inside, self.done = False, True


def form_values(html: str, action: str) -> dict[str, str]:
    """What submitting the form (action containing ``action``) on a page would send,
    without the CSRF token: the test client does not check it. A form whose action is exactly
    ``action`` comes first: a row's Hide (``…/combatants/7/hide/``) may come before the panel's
    Edit form (``…/combatants/7/``) on the referee's page."""
    reader = _FormReader(action, exact=True)
    reader.feed(html)
    if not reader.done and not reader.inside:
        reader = _FormReader(action)
        reader.feed(html)
    reader.values.pop("csrfmiddlewaretoken", None)
    return reader.values


def count_loads(monkeypatch) -> list[tuple]:
    """Every load of an encounter's live state from now on (its arguments), in a list."""
    from combat.live import state as live

    loads: list[tuple] = []
    original = live.State.load.__func__

    def counting_load(cls, *args, **kwargs):
        loads.append(args)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(live.State, "load", classmethod(counting_load))
    return loads


@pytest.fixture
def table(db):
    """A referee, three seated players with a hero each, and six goblins of 50 hit points."""
    encounter = Encounter.objects.create(name="Crypt")
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    players = []
    for name in ("Anna", "Boris", "Cyril"):
        player = Client()
        player.post(reverse("join", args=[encounter.join_token]), {"name": name})
        players.append(player)
    seats = list(encounter.seats.order_by("pk"))
    heroes = [character(encounter, f"Hero {n}", seat=seat) for n, seat in enumerate(seats)]
    goblins = [monster(encounter, f"Goblin {n}", hp_max=50, hp=50) for n in range(6)]
    encounter.refresh_from_db()
    return encounter, referee, players, heroes, goblins


@pytest.fixture
def root_console() -> Iterator[io.StringIO]:
    """What the configured root handler writes, as the referee's terminal would show it."""
    handler = next(
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, RedactCapabilities) for f in h.filters)
    )
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)


@contextmanager
def migrated_to(migration: tuple[str, str]) -> Iterator[Apps]:
    """The database as ``migration`` left it, with the models as they were then (to store
    what an older version stored); migrated forward to today's models afterwards. For a test
    marked ``django_db(transaction=True)``."""
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    MigrationExecutor(connection).migrate([migration])
    try:
        yield MigrationExecutor(connection).loader.project_state([migration]).apps
    finally:
        MigrationExecutor(connection).migrate(leaves)


def migrate(migration: tuple[str, str]) -> None:
    """Migrate to ``migration`` (inside ``migrated_to``: the change a test looks at)."""
    MigrationExecutor(connection).migrate([migration])
