"""No stored state takes a page down: a row, a log entry or a panel that cannot be drawn from
what is stored shows a short notice (the referee's with what mends it, the players' with no
detail), the rest of the page and the live updates go on, and the error is logged once.

Each bad value is stored directly, past the forms, the importers and (where the database has
them) the check constraints: a file from elsewhere, an older version or a hand-edited database
holds what no form would take."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import IntegrityError, connection, models, transaction
from django.test import Client
from django.urls import reverse

from combat import fragments
from combat.models import (
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    EntryKind,
    Kind,
    LogEntry,
    Side,
)
from combat.site.asgi import application

from .conftest import character, form_values, monster

ROW_NOTICE = "This row cannot be drawn"
ENTRY_NOTICE = "This entry cannot be shown"
PART_NOTICE = "This part of the table cannot be drawn"
PLAYERS_ROW_NOTICE = "not shown for now"
PLAYERS_ENTRY_NOTICE = "An entry not shown for now."
INTERNALS = ("RulesError", "Traceback", "must be 0 to", "out of range", "ship_view")


# --- storing what no form would take ----------------------------------------------------------

Poison = Callable[..., None]


@pytest.fixture
def poison(db) -> Iterator[Poison]:
    """``poison(Model, pk, field=value, ...)``: the values written straight into the row,
    whatever the database's check constraints say (SQLite: ignored for the write; PostgreSQL:
    dropped, and put back NOT VALID afterwards, rows as they are)."""
    dropped: list[tuple[str, str, str]] = []

    def store(model: type[models.Model], pk: int, **values: Any) -> None:
        rows = model._default_manager.filter(pk=pk)
        try:
            with transaction.atomic():
                assert rows.update(**values) == 1
            return
        except IntegrityError:
            pass
        table = model._meta.db_table
        columns = {model._meta.get_field(name).column for name in values}
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                cursor.execute("PRAGMA ignore_check_constraints = ON")
                try:
                    assert rows.update(**values) == 1
                finally:
                    cursor.execute("PRAGMA ignore_check_constraints = OFF")
                return
            # The foreign keys' checks deferred to the commit first: PostgreSQL alters no
            # table with pending trigger events.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                "WHERE conrelid = %s::regclass AND contype = 'c'",
                [table],
            )
            for name, definition in cursor.fetchall():
                if any(re.search(rf"\b{column}\b", definition) for column in columns):
                    cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
                    dropped.append((table, name, definition))
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        assert rows.update(**values) == 1

    yield store
    if not dropped:
        return
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for table, name, definition in dropped:
            cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition} NOT VALID')


def biggest(model: type[models.Model], name: str) -> int:
    """The largest whole number the column holds: SQLite's every integer is 64 bits."""
    field = model._meta.get_field(name)
    wide = connection.vendor == "sqlite" or "big" in (field.db_type(connection) or "")
    return 2**63 - 1 if wide else 2**31 - 1


@pytest.fixture(autouse=True)
def forgotten() -> None:
    """Each test starts with nothing seen broken (ids are reused once a test rolls back)."""
    fragments._SEEN.clear()


def url(encounter: Encounter, name: str, *args: Any) -> str:
    return reverse(name, args=[encounter.slug, *args])


def display_client(encounter: Encounter) -> Client:
    client = Client()
    assert client.get(reverse("display_link", args=[encounter.display_token])).status_code == 302
    return client


def ship(encounter: Encounter, name: str = "Black Cog", **extra: Any) -> Combatant:
    values = dict(
        side=Side.FOES, kind=Kind.SHIP, ac=8, hp_max=100, hp=100, thac0=19, save_death=20,
        save_wands=20, save_paralysis=20, save_breath=20, save_spells=20, speed=120, crew=20,
        rowers=40,
    )  # fmt: skip
    return Combatant.objects.create(encounter=encounter, name=name, **values | extra)


def pages(encounter: Encounter, referee: Client, player: Client) -> dict[str, str]:
    """Every page of the table, as each kind of visitor loads it: each must answer 200."""
    shown = {}
    for who, client, name in (
        ("referee", referee, "encounter"),
        ("player", player, "encounter"),
        ("referee log", referee, "log"),
        ("player log", player, "log"),
        ("display", display_client(encounter), "display"),
    ):
        response = client.get(url(encounter, name))
        assert response.status_code == 200, who
        shown[who] = response.content.decode()
    return shown


def row_of(html: str, pk: int) -> str:
    row = html[html.index(f'id="combatant-{pk}"') :]
    return row[: row.index("</li>")]


def becmi(encounter: Encounter) -> None:
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    encounter.refresh_from_db()


# --- rows -------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["speed", "rowers", "hull_repaired"])
def test_a_ship_out_of_range_shows_a_notice_and_the_rest_of_every_page_goes_on(
    field, encounter, referee, player, fighter, goblin, poison
):
    becmi(encounter)
    cog = ship(encounter)
    poison(Combatant, cog.pk, **{field: 1_000_001})
    shown = pages(encounter, referee, player)
    row = row_of(shown["referee"], cog.pk)
    assert ROW_NOTICE in row and "Black Cog" in row
    assert url(encounter, "combatant_edit", cog.pk) in row
    assert url(encounter, "combatant_delete", cog.pk) in row
    for who in ("player", "display"):
        row = row_of(shown[who], cog.pk)
        assert PLAYERS_ROW_NOTICE in row and ROW_NOTICE not in row
        assert not any(word in shown[who] for word in INTERNALS)
    for who in ("referee", "player", "display"):  # the other rows are drawn as ever
        assert "Aldric" in row_of(shown[who], fighter.pk)
        assert "Goblin" in row_of(shown[who], goblin.pk)


def test_the_referee_opens_the_edit_form_of_a_row_that_cannot_be_drawn_and_mends_it(
    encounter, referee, player, poison
):
    from .conftest import form_values

    becmi(encounter)
    cog = ship(encounter)
    poison(Combatant, cog.pk, speed=1_000_001)
    edit = url(encounter, "combatant_edit", cog.pk)
    panel = referee.get(edit, HTTP_HX_REQUEST="true")
    assert panel.status_code == 200
    assert 'name="speed"' in panel.content.decode() and "1000001" in panel.content.decode()
    whole = referee.get(edit)  # without htmx: the whole page, with the form in its panel
    assert whole.status_code == 200 and 'value="1000001"' in whole.content.decode()
    referee.post(edit, form_values(whole.content.decode(), edit) | {"speed": "90"})
    cog.refresh_from_db()
    assert cog.speed == 90
    assert ROW_NOTICE not in referee.get(url(encounter, "encounter")).content.decode()


def test_the_referee_removes_a_row_that_cannot_be_drawn(encounter, referee, player, poison):
    becmi(encounter)
    cog = ship(encounter)
    poison(Combatant, cog.pk, rowers=1_000_001)
    response = referee.post(url(encounter, "combatant_delete", cog.pk))
    assert response.status_code == 302
    assert not Combatant.objects.filter(pk=cog.pk).exists()
    assert ROW_NOTICE not in referee.get(url(encounter, "encounter")).content.decode()


def test_the_referee_ends_a_condition_of_a_row_that_cannot_be_drawn(
    encounter, referee, player, poison
):
    becmi(encounter)
    cog = ship(encounter)
    condition = Condition.objects.create(combatant=cog, kind=ConditionKind.HELD, rounds_left=3)
    poison(Combatant, cog.pk, hull_repaired=1_000_001)
    row = row_of(referee.get(url(encounter, "encounter")).content.decode(), cog.pk)
    end = url(encounter, "condition_end", condition.pk)
    assert ROW_NOTICE in row and end in row
    assert referee.post(end).status_code == 302
    assert not Condition.objects.running().filter(pk=condition.pk).exists()


OUT_OF_RANGE = {
    "hit points far above": {"hp": 10**9},
    "hit points far below": {"hp": -(10**9)},
    "no maximum hit points": {"hp_max": 0},
    "negative maximum hit points": {"hp_max": -5},
    "maximum hit points far above": {"hp_max": 32_767, "hp": 10**9},  # (a small integer)
    "armour class far above": {"ac": 30_000},
    "armour class far below": {"ac": -30_000},
    "a zone's damage out of range": {"zones": {"head": {"damage": 10**12, "max": -1}}},
    "zones a list": {"zones": [1, "two", None]},
    "attacks a dict": {"attacks": {"bite": "1d6"}},
    "a ship's every number": {"speed": 10**9, "rowers": 10**9, "hull_repaired": 10**9},
}


@pytest.mark.parametrize("system", ["ose", "becmi", "dolmenwood"])
@pytest.mark.parametrize("case", list(OUT_OF_RANGE))
def test_every_page_draws_whatever_a_row_holds(
    case, system, encounter, referee, player, fighter, poison
):
    Encounter.objects.filter(pk=encounter.pk).update(system=system, hit_locations=True)
    bad = monster(encounter, "Ogre")
    if "ship" in case:
        Combatant.objects.filter(pk=bad.pk).update(kind=Kind.SHIP, speed=120, rowers=40)
    poison(Combatant, bad.pk, **OUT_OF_RANGE[case])
    shown = pages(encounter, referee, player)
    for who in ("referee", "player", "display"):
        assert "Ogre" in row_of(shown[who], bad.pk)
        assert "Aldric" in row_of(shown[who], fighter.pk)
    for who in ("player", "display", "player log"):
        assert not any(word in shown[who] for word in INTERNALS)
    edit = referee.get(url(encounter, "combatant_edit", bad.pk), HTTP_HX_REQUEST="true")
    assert edit.status_code == 200 and 'name="name"' in edit.content.decode()


# --- the panels the rows open -----------------------------------------------------------------


def test_every_panel_a_broken_row_opens_answers(encounter, referee, player, fighter, poison):
    becmi(encounter)
    cog = ship(encounter, side=Side.PARTY, seat=player.seat)
    poison(Combatant, cog.pk, speed=1_000_001, hp=10**9)
    opened = [
        ("attack", {"actor": cog.pk}),
        ("save", {"actor": cog.pk}),
        ("check", {"actor": cog.pk}),
        ("hit_points", {"actor": cog.pk}),
        ("condition_new", {"combatant": cog.pk}),
        ("bx_ram", {"actor": cog.pk}),
        ("bx_hull", {"target": cog.pk}),
        ("bx_repair", {"actor": cog.pk}),
        ("bx_rowers", {"target": cog.pk}),
        ("fight", {}),
        ("morale", {}),
    ]
    for name, query in opened:
        for headers in ({"HTTP_HX_REQUEST": "true"}, {}):
            response = referee.get(url(encounter, name), query, **headers)
            assert response.status_code in (200, 404), name
    for headers in ({"HTTP_HX_REQUEST": "true"}, {}):
        response = player.get(url(encounter, "bx_ram"), {"actor": cog.pk}, **headers)
        assert response.status_code == 200
        assert not any(word in response.content.decode() for word in INTERNALS)


def test_a_panel_that_cannot_be_drawn_says_so_and_the_page_goes_on(
    encounter, referee, player, fighter, goblin, monkeypatch
):
    from django.forms.boundfield import BoundField

    def broken(*args: Any, **kwargs: Any) -> str:
        raise KeyError("a stored value the panel cannot read")

    monkeypatch.setattr(BoundField, "as_widget", broken)  # every form's fields
    answer = referee.get(
        url(encounter, "hit_points"), {"actor": fighter.pk}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200 and PART_NOTICE in answer.content.decode()
    page = referee.get(url(encounter, "hit_points"), {"actor": fighter.pk}).content.decode()
    panel = page[page.index('id="panel"') :]
    assert PART_NOTICE in panel[: panel.index("</section>")]
    assert "Goblin" in row_of(page, goblin.pk) and "Aldric" in row_of(page, fighter.pk)
    answer = player.get(url(encounter, "attack"), {"actor": fighter.pk}, HTTP_HX_REQUEST="true")
    said = answer.content.decode()
    assert answer.status_code == 200 and "This part of the table is not shown for now." in said
    assert "KeyError" not in said and PART_NOTICE not in said


# --- log entries ------------------------------------------------------------------------------

MALFORMED = {
    "a list where a dict is expected": [1, 2, 3],
    "a string": "not a result",
    "nothing at all": {},
    "every key of the wrong kind": {
        key: [1] if n % 2 else {"x": "y"}
        for n, key in enumerate(
            (
                "natural",
                "total",
                "damage",
                "round",
                "target",
                "expired",
                "names",
                "zones",
                "order",
                "before",
                "public",
                "rounds",
                "ship",
                "hold",
                "sides",
                "acting",
                "results",
                "members",
                "modifiers",
                "dice",
                "rolls",
                "effects",
                "body",
            )
        )
    },
    "numbers as words": {"round": "x", "rounds": "z", "natural": "a", "total": "b"},
}


# Entries no template can draw: data that is not a mapping at all (combat.payloads refuses it),
# and a zone change whose effect's dice are a number.
UNDRAWABLE = {"effects": [{"kind": "bled", "amount": 1, "roll": {"count": 1, "dice": 5}}]}


def entry(encounter: Encounter, kind: str, data: Any, seq: int = 50) -> LogEntry:
    made = LogEntry.objects.create(
        encounter=encounter, seq=seq, public_seq=seq, kind=kind, actor="Aldric", data={}
    )
    LogEntry.objects.filter(pk=made.pk).update(data=data, effects=[])
    return made


SYSTEMS = ["ose", "becmi", "dolmenwood"]


@pytest.mark.parametrize("shape", list(MALFORMED))
@pytest.mark.parametrize("kind", [kind.value for kind in EntryKind])
def test_every_page_draws_a_log_entry_whatever_its_data(
    kind, shape, encounter, referee, player, fighter
):
    system = SYSTEMS[(list(EntryKind).index(kind) + list(MALFORMED).index(shape)) % len(SYSTEMS)]
    Encounter.objects.filter(pk=encounter.pk).update(system=system, hit_locations=True)
    entry(encounter, EntryKind.ROLL, {"expression": "1d6", "total": 4, "rolls": [4]}, seq=49)
    entry(encounter, kind, MALFORMED[shape])
    shown = pages(encounter, referee, player)
    for who, text in shown.items():
        assert 'id="entry-50"' in text and 'id="entry-49"' in text, who
        if who.startswith(("player", "display")):
            assert ENTRY_NOTICE not in text
            assert not any(word in text for word in INTERNALS)


def test_a_log_entry_that_cannot_be_shown_says_so_to_the_referee_and_nothing_more_to_players(
    encounter, referee, player, fighter
):
    Encounter.objects.filter(pk=encounter.pk).update(hit_locations=True)
    entry(encounter, EntryKind.ZONE, [1, 2, 3])
    entry(encounter, EntryKind.ZONE, UNDRAWABLE, seq=51)
    shown = pages(encounter, referee, player)
    for who in ("referee", "referee log"):
        assert ENTRY_NOTICE in shown[who], who
    for who in ("player", "player log", "display"):
        assert PLAYERS_ENTRY_NOTICE in shown[who], who
        assert ENTRY_NOTICE not in shown[who]


# --- the round --------------------------------------------------------------------------------


def fighting(encounter: Encounter, referee: Client) -> None:
    assert referee.post(url(encounter, "fight"), {}).status_code in (200, 302)
    encounter.refresh_from_db()
    assert encounter.round == 1


def test_a_condition_lasting_past_every_count_leaves_end_the_round_a_clear_refusal(
    encounter, referee, player, fighter, goblin, poison
):
    fighting(encounter, referee)
    condition = Condition.objects.create(combatant=goblin, kind=ConditionKind.ASLEEP, rounds_left=2)
    poison(Condition, condition.pk, rounds_left=1_000_001)
    shown = pages(encounter, referee, player)
    assert "Goblin" in row_of(shown["player"], goblin.pk)
    at = f"{encounter.round}:0:0:0"
    answer = referee.post(url(encounter, "advance", "round"), {"at": at}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    said = answer.content.decode()
    assert "The round cannot end" in said and "Goblin" in said and "1000001" in said
    encounter.refresh_from_db()
    assert encounter.round == 1  # nothing written
    assert referee.post(url(encounter, "condition_end", condition.pk)).status_code == 302
    answer = referee.post(url(encounter, "advance", "round"), {"at": at}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    encounter.refresh_from_db()
    assert encounter.round == 2


def test_a_round_past_what_the_table_counts_leaves_end_the_round_a_clear_refusal(
    encounter, referee, player, fighter, goblin, poison
):
    fighting(encounter, referee)
    last = biggest(Encounter, "round")
    poison(Encounter, encounter.pk, round=last)
    shown = pages(encounter, referee, player)
    assert str(last) in shown["referee"]
    at = f"{last}:0:0:0"
    answer = referee.post(url(encounter, "advance", "round"), {"at": at}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    said = answer.content.decode()
    assert "The round cannot end" in said and "End the fight" in said
    encounter.refresh_from_db()
    assert encounter.round == last
    plain = referee.post(url(encounter, "advance", "round"), {"at": at})
    assert plain.status_code == 200 and "The round cannot end" in plain.content.decode()
    assert referee.get(url(encounter, "advance", "end"), HTTP_HX_REQUEST="true").status_code == 200


@pytest.mark.parametrize(
    "turn", [[1, 2], {"order": 5, "index": "x"}, {"order": [1, {"ids": 3}], "index": 1}]
)
def test_a_round_whose_course_cannot_be_read_shows_a_notice_and_the_table_goes_on(
    turn, encounter, referee, player, fighter, goblin, poison
):
    fighting(encounter, referee)
    poison(Encounter, encounter.pk, turn=turn)
    shown = pages(encounter, referee, player)
    assert PART_NOTICE in shown["referee"]
    assert url(encounter, "advance", "end") in shown["referee"]  # the way out: end the fight
    for who in ("player", "display"):
        assert PART_NOTICE not in shown[who]
        assert "Goblin" in row_of(shown[who], goblin.pk)
    # The round's buttons (from a page drawn before) answer; what they write, if anything,
    # is a round that can be read again (End the round starts the next one afresh).
    seq = Encounter.objects.get(pk=encounter.pk).seq
    for what in ("step", "turn", "round"):
        answer = referee.post(url(encounter, "advance", what), {"at": "1:0:0:0"})
        assert answer.status_code in (200, 302), what
    assert referee.get(url(encounter, "advance", "end")).status_code == 200
    stored = Encounter.objects.get(pk=encounter.pk)
    assert stored.seq == seq or (isinstance(stored.turn, dict) and stored.round == 2)


# --- logged once ------------------------------------------------------------------------------


def test_what_cannot_be_drawn_is_logged_once_however_often_it_is_drawn(
    encounter, referee, player, fighter, poison, caplog
):
    from combat.access import Viewer
    from combat.live.state import render_snapshot

    becmi(encounter)
    cog = ship(encounter)
    poison(Combatant, cog.pk, speed=1_000_001)
    entry(encounter, EntryKind.ZONE, [1, 2, 3])
    with caplog.at_level(logging.ERROR, logger="combat.fragments"):
        for _ in range(2):
            pages(encounter, referee, player)
            render_snapshot(Viewer(encounter, is_referee=True, seat=None), "cs")
            render_snapshot(Viewer(encounter, is_referee=False, seat=player.seat), "uk")
    logged = [r for r in caplog.records if r.name == "combat.fragments"]
    broken = LogEntry.objects.get(seq=50).pk
    said = sorted(r.getMessage() for r in logged)  # (the log's filter formats each line)
    assert said == [
        f"Could not draw ('entry', {broken}); a notice is shown in its place",
        f"Could not draw ('row', {cog.pk}); a notice is shown in its place",
    ]
    assert all(r.exc_info for r in logged)


# --- the sockets ------------------------------------------------------------------------------


def _connect(client: Client | None, slug: str) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if client is not None and settings.SESSION_COOKIE_NAME in client.cookies:
        cookie = (
            f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        )
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/e/{slug}/", headers=headers)


async def _first(client: Client, slug: str) -> tuple[WebsocketCommunicator, str]:
    communicator = _connect(client, slug)
    connected, _code = await communicator.connect()
    assert connected
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.send", output  # not a close (1011)
    return communicator, output["text"]


@pytest.fixture
def poisoned_table(transactional_db, poison):
    """A BECMI table whose ship cannot be drawn and whose newest entry cannot be shown."""
    encounter = Encounter.objects.create(name="Sea fight", system="becmi")
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    hero = character(encounter, "Aldric", seat=encounter.seats.get())
    cog = ship(encounter)
    poison(Combatant, cog.pk, speed=1_000_001, rowers=1_000_001)
    Encounter.objects.filter(pk=encounter.pk).update(hit_locations=True)
    entry(encounter, EntryKind.ZONE, {"zones": 7, "effects": "x"})
    encounter.refresh_from_db()
    return encounter, referee, player, hero, cog


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_sockets_bring_the_table_with_its_notices_and_go_on_with_changes(
    poisoned_table,
):
    from asgiref.sync import sync_to_async

    encounter, referee, player, hero, _cog = poisoned_table
    referee_ws, referee_view = await _first(referee, encounter.slug)
    player_ws, player_view = await _first(player, encounter.slug)
    assert ROW_NOTICE in referee_view and ENTRY_NOTICE in referee_view
    assert "Aldric" in referee_view and "Aldric" in player_view
    assert PLAYERS_ROW_NOTICE in player_view and PLAYERS_ENTRY_NOTICE in player_view
    assert not any(word in player_view for word in INTERNALS)
    # A change to another row reaches both, the broken row as it was.
    answer = await sync_to_async(referee.post)(
        url(encounter, "hit_points"),
        {"actor": hero.pk, "action": "damage", "amount": 3},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    for communicator in (referee_ws, player_ws):
        output = await communicator.receive_output(timeout=5)
        assert output["type"] == "websocket.send", output
        assert "17/20" in output["text"] or "wounded" in output["text"]
    await referee_ws.disconnect()
    await player_ws.disconnect()


@pytest.mark.parametrize("shape", list(MALFORMED))
@pytest.mark.parametrize("kind", [kind.value for kind in EntryKind if kind != EntryKind.UNDO])
def test_undoing_an_entry_whose_data_cannot_be_read_is_refused_and_changes_nothing(
    kind, shape, encounter, referee, fighter
):
    made = entry(encounter, kind, MALFORMED[shape])
    LogEntry.objects.filter(pk=made.pk).update(effects=[{"combatant": fighter.pk, "hp": "x"}])
    Encounter.objects.filter(pk=encounter.pk).update(seq=50, public_seq=50)
    response = referee.post(url(encounter, "undo", 50), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "cannot be undone" in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter, kind=EntryKind.UNDO).exists()
    fighter.refresh_from_db()
    assert fighter.hp == fighter.hp_max


@pytest.mark.parametrize("round_before", [2**40, -1, "2"])
def test_undoing_a_round_entry_that_holds_no_round_of_this_table_is_refused(
    round_before, encounter, referee, fighter
):
    fighting(encounter, referee)
    entry(encounter, EntryKind.TURN, {"event": "round", "before": {"round": round_before}})
    Encounter.objects.filter(pk=encounter.pk).update(seq=50, public_seq=50)
    response = referee.post(url(encounter, "undo", 50), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "cannot be undone" in response.content.decode()
    assert Encounter.objects.get(pk=encounter.pk).round == 1


@pytest.mark.parametrize(
    "turn", [[1, 2], {"order": 5, "index": "x"}, {"order": [1, {"ids": 3}], "index": 1}]
)
def test_the_referee_ends_a_fight_whose_course_cannot_be_read_and_the_notice_goes(
    turn, encounter, referee, player, fighter, goblin, poison
):
    fighting(encounter, referee)
    poison(Encounter, encounter.pk, turn=turn)
    assert PART_NOTICE in pages(encounter, referee, player)["referee"]
    summary = referee.get(url(encounter, "advance", "end"), HTTP_HX_REQUEST="true")
    values = form_values(summary.content.decode(), url(encounter, "advance", "end"))
    values["share"] = "1"
    answer = referee.post(url(encounter, "advance", "end"), values, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    stored = Encounter.objects.get(pk=encounter.pk)
    assert (stored.round, stored.turn) == (0, {})
    assert PART_NOTICE not in pages(encounter, referee, player)["referee"]


@pytest.mark.django_db
def test_a_save_owed_of_a_category_its_combatant_has_no_save_for_leaves_the_table_live():
    """A database edited by hand: the save owed names no save of its combatant. The live view
    is still built (the row says it cannot be drawn), for the referee and the players."""
    from combat.access import Viewer
    from combat.live.state import render_snapshot
    from combat.models import Encounter, PendingSave, Seat

    encounter = Encounter.objects.create(name="The hand-edited keep")
    seat = Seat.objects.create(encounter=encounter, name="Anna")
    hero = character(encounter, "Aldric")
    PendingSave.objects.create(
        encounter=encounter, combatant=hero, category="nonsense", amount=4, on_save="half"
    )
    _seq, html = render_snapshot(Viewer(encounter, is_referee=True, seat=None), "en")
    assert "Aldric" in html and ROW_NOTICE in html
    _seq, html = render_snapshot(Viewer(encounter, is_referee=False, seat=seat), "en")
    assert "Aldric" in html
