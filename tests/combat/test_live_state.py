"""The state a change is rendered from: read as what changed since the last one, it is the
same as read whole (the log's windows for the referee and for players)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from decimal import Decimal

import pytest
from django.conf import settings

from combat import table as toolkit
from combat.access import Viewer
from combat.live.state import State
from combat.models import Combatant, Condition, Encounter, PendingSave, Seat
from rules import dice as rules_dice

from .conftest import character, monster

pytestmark = pytest.mark.django_db

D20 = rules_dice.parse("1d20")


def _log_ids(entries) -> list[tuple[int, int | None]]:
    return [(entry.pk, entry.undone_seq) for entry in entries]


def _same_logs(state: State, whole: State) -> None:
    assert _log_ids(state.referee_log) == _log_ids(whole.referee_log)
    assert _log_ids(state.public_log) == _log_ids(whole.public_log)


def _change_at_random(
    encounter: Encounter,
    targets: list[Combatant],
    dice: random.Random,
    step: int,
    *,
    undo: float,
    roll: float,
) -> None:
    """The referee undoes an entry (chance ``undo``), rolls in the open or in secret
    (``roll``), or wounds one of ``targets``."""
    viewer = Viewer(Encounter.objects.get(pk=encounter.pk), is_referee=True, seat=None)
    choice = dice.random()
    if choice < undo and viewer.encounter.seq:
        entries = list(encounter.log.filter(undone_by__isnull=True).exclude(kind="undo"))
        undoable = [entry for entry in entries if entry.undoable]
        if undoable:
            toolkit.undo(viewer, dice.choice(undoable))
    elif choice < undo + roll:
        toolkit.free_roll(
            viewer, expression=D20, label="", entered=None,
            secret=dice.random() < 0.5, once=f"r{step}",
        )  # fmt: skip
    else:
        toolkit.change_hit_points(
            viewer, actor=dice.choice(targets), action="damage", amount=1, once=f"h{step}"
        )


def test_a_state_read_since_the_last_one_has_the_logs_a_whole_reading_has():
    """Rolls open and secret, damage, and undos of old and new entries, past the log's
    window: after each change the windows read incrementally are those read whole."""
    encounter = Encounter.objects.create(name="Crypt")
    hero = character(encounter, "Aldric")
    goblin = monster(encounter, "Goblin", hp_max=500, hp=500)
    dice = random.Random(7)
    previous = State.load(encounter.pk, referee=True, players=True)
    for step in range(3 * settings.FRAY_LOG_PAGE):
        _change_at_random(encounter, [hero, goblin], dice, step, undo=0.2, roll=0.3)
        state = State.load(encounter.pk, referee=True, players=True, previous=previous)
        whole = State.load(encounter.pk, referee=True, players=True)
        _same_logs(state, whole)
        previous = state


def test_on_postgresql_a_state_read_since_the_last_one_asks_the_database_once():
    """Across the network every query is a wait: a load after a blow asks for everything in
    one list of statements, and makes the row that changed from what that read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("a database across the network only")
    encounter = Encounter.objects.create(name="Crypt")
    goblin = monster(encounter, "Goblin", hp_max=500, hp=500)
    previous = State.load(encounter.pk, referee=True, players=True)
    _change_at_random(encounter, [goblin], random.Random(1), 0, undo=0, roll=0)
    with CaptureQueriesContext(connection) as asked:
        state = State.load(encounter.pk, referee=True, players=True, previous=previous)
    assert len(asked) == 1, [q["sql"][:80] for q in asked]
    _same_logs(state, State.load(encounter.pk, referee=True, players=True))
    assert state.by_pk[goblin.pk].hp == 499


def test_what_changed_in_the_log_is_found_without_reading_the_whole_log():
    """The log grows all evening: what a change added or undid is looked up by number, not
    found by reading every entry of the encounter (SQLite's plan for the query says so)."""
    import sqlite3

    from django.db import connection

    from combat.live.state import _LOG_SINCE

    if connection.vendor != "sqlite" or sqlite3.sqlite_version_info < (3, 35):
        pytest.skip("SQLite's own query plan")
    plan = _LOG_SINCE._plan(2, "default")
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + plan.sql, plan.params((1, 100)))
        steps = [row[3] for row in cursor.fetchall()]
    reads = [step for step in steps if "combat_logentry" in step or "U0" in step]
    assert reads, steps
    assert not [s for s in reads if "(encounter_id=?)" in s and "PRIMARY KEY" not in s], steps


def _entries(encounter: Encounter, first: int, count: int, undos: int = 0) -> None:
    """``count`` plain entries numbered from ``first``, then ``undos`` undos of the first ones."""
    from combat.models import LogEntry

    made = LogEntry.objects.bulk_create(
        LogEntry(encounter=encounter, seq=n, public_seq=n, kind="note", actor="x")
        for n in range(first, first + count)
    )
    after = first + count
    LogEntry.objects.bulk_create(
        LogEntry(encounter=encounter, seq=after + n, kind="undo", actor="x", undoes=undone)
        for n, undone in enumerate(made[:undos])
    )
    Encounter.objects.filter(pk=encounter.pk).update(seq=after + undos)


def _log_rows_read(plan: dict) -> int:
    """Rows PostgreSQL's plan (``EXPLAIN (ANALYZE, FORMAT JSON)``) read from the log: those it
    kept and those its filters dropped, over every loop."""
    read = 0
    if plan.get("Relation Name") == "combat_logentry":
        loops = plan.get("Actual Loops", 1)
        read += (plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)) * loops
    return read + sum(_log_rows_read(child) for child in plan.get("Plans", ()))


def test_what_changed_in_the_log_is_found_on_postgresql_without_reading_the_log():
    """On PostgreSQL too, however long the club's log (other encounters' entries and undos,
    this encounter's evening): the entries since a number are found by the index on
    (encounter, number) and by id, with the values in the statement and as the statement
    prepared on the server plans it for any values."""
    import json

    from django.db import connection

    from combat.live.state import _LOG_SINCE

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's own query plan")
    others = [Encounter.objects.create(name=f"Old {n}") for n in range(4)]
    for other in others:
        _entries(other, 1, 1500, undos=150)
    encounter = Encounter.objects.create(name="Crypt")
    _entries(encounter, 1, 600, undos=3)
    plan = _LOG_SINCE._plan(2, "default")
    since = 600  # the three undos are new
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE combat_logentry")
        cursor.execute(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + plan.sql, plan.params((encounter.pk, since))
        )
        custom = cursor.fetchone()[0]
        generic_sql = plan.sql
        for slot in plan.slots:  # each parameter: the value passed it takes
            generic_sql = generic_sql.replace("%s", f"${slot + 1}", 1)
        cursor.execute(f"PREPARE fray_test_log (bigint, bigint) AS {generic_sql}")
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(
            f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE fray_test_log ({encounter.pk}, {since})"
        )
        generic = cursor.fetchone()[0]
        cursor.execute("DEALLOCATE fray_test_log")
    for explained in (custom, generic):
        if isinstance(explained, str):
            explained = json.loads(explained)
        assert _log_rows_read(explained[0]["Plan"]) < 40, explained


def test_a_state_read_for_other_audiences_than_the_last_reads_the_log_whole():
    encounter = Encounter.objects.create(name="Crypt")
    viewer = Viewer(encounter, is_referee=True, seat=None)
    toolkit.free_roll(viewer, expression=D20, label="", entered=None, once="a")
    players_only = State.load(encounter.pk, referee=False, players=True)
    state = State.load(encounter.pk, referee=True, players=True, previous=players_only)
    _same_logs(state, State.load(encounter.pk, referee=True, players=True))


# --- Rows kept from the last reading --------------------------------------------------------


def _rows(state: State) -> list[tuple]:
    """Every stored field of every combatant and seat, as the state holds them."""
    return [_rows_of(c) for c in state.combatants] + [_rows_of(s) for s in state.seats.values()]


def test_a_state_read_since_the_last_one_has_the_rows_a_whole_reading_has():
    """However a row changes (a plain update that no model code sees, a new row, a row
    deleted, a seat renamed or gone), the rows read since the last state are those read
    whole, in the same order, and each unchanged row is the last state's own instance."""
    encounter = Encounter.objects.create(name="Crypt")
    hero = character(encounter, "Aldric")
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    seat = Seat.objects.create(encounter=encounter, name="Anna")
    character(encounter, "Brina", seat=seat)
    changes = [
        lambda: Combatant.objects.filter(pk=goblin.pk).update(hp=4),
        lambda: Combatant.objects.filter(pk=hero.pk).update(zones={"plan": [1]}, notes="torch"),
        # Every kind of column a changed row is made again from: decimals, booleans, JSON.
        lambda: Combatant.objects.filter(pk=hero.pk).update(
            height_ft=Decimal("5.75"), hidden=True, skills=[{"name": "Climb", "target": 5}]
        ),
        lambda: monster(encounter, "Another goblin"),
        lambda: Seat.objects.filter(pk=seat.pk).update(name="Anna K."),
        lambda: Combatant.objects.filter(pk=goblin.pk).delete(),
        lambda: Seat.objects.filter(pk=seat.pk).delete(),
        lambda: None,
    ]
    for previous, state, whole in _read_after_each(encounter, changes):
        assert _rows(state) == _rows(whole)
        assert [c.seat_id for c in state.combatants] == [c.seat_id for c in whole.combatants]
        for c in state.combatants:
            assert c.encounter is state.encounter  # not the last state's encounter
            was = previous.by_pk.get(c.pk)
            if was is not None and _rows_of(was) == _rows_of(c):
                assert c is was, "an unchanged row is not made again"


def test_a_row_changed_since_the_last_state_is_made_from_the_load_without_reading_it_again():
    """A blow changes a row the last state had: the load's one read of the encounter's rows
    is enough to make it again, with what was set when it was made (its creation time)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    encounter = Encounter.objects.create(name="Crypt")
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    previous = State.load(encounter.pk)
    Combatant.objects.filter(pk=goblin.pk).update(hp=4)
    with CaptureQueriesContext(connection) as asked:
        state = State.load(encounter.pk, previous=previous)
    reads_of_one = [q["sql"] for q in asked if '"combat_combatant"."id" =' in q["sql"]]
    assert reads_of_one == []
    made = state.by_pk[goblin.pk]
    assert made is not previous.by_pk[goblin.pk]
    assert (made.hp, made.created, made._state.adding) == (4, goblin.created, False)
    assert _rows_of(made) == _rows_of(Combatant.objects.get(pk=goblin.pk))


def test_what_each_row_shows_read_since_the_last_state_is_what_a_whole_reading_shows():
    """A row whose stored columns are as they were keeps what it showed, unless what is
    around it changed: a condition, a save to roll, its seat's name, the table's hit
    locations. Read since the last state or whole, every row shows the same."""
    encounter = Encounter.objects.create(name="Crypt")
    seat = Seat.objects.create(encounter=encounter, name="Anna")
    hero = character(encounter, "Brina", seat=seat)
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    changes = [
        lambda: Condition.objects.create(combatant=hero, kind="blinded", rounds_left=2),
        lambda: Condition.objects.filter(combatant=hero).update(rounds_left=1),
        lambda: PendingSave.objects.create(
            encounter=encounter, combatant=goblin, category="death", amount=3, on_save="none"
        ),
        lambda: PendingSave.objects.filter(combatant=goblin).update(resolved=True),
        lambda: Seat.objects.filter(pk=seat.pk).update(name="Anna K."),
        lambda: Encounter.objects.filter(pk=encounter.pk).update(hit_locations=True),
        lambda: Combatant.objects.filter(pk=goblin.pk).update(hp=3),
        lambda: None,
    ]
    for _previous, state, whole in _read_after_each(encounter, changes):
        assert state.shown == whole.shown
        assert state.shown_to_players == whole.shown_to_players
        assert state.shown_vaguely == whole.shown_vaguely


def _read_after_each(encounter, changes) -> Iterator[tuple[State, State, State]]:
    """After each change: the state before it, the state read since that one, and the state
    read whole."""
    previous = State.load(encounter.pk)
    for change in changes:
        change()
        state = State.load(encounter.pk, previous=previous)
        yield previous, state, State.load(encounter.pk)
        previous = state


def _rows_of(obj) -> tuple:
    return tuple(getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields)


def test_the_rows_a_request_takes_from_the_render_are_its_own(encounter):
    """A request changes what it read (a form's instance, a cached seat) without touching the
    hub's rows, which the next load keeps as they were stored."""
    from combat.live import hub

    seat = Seat.objects.create(encounter=encounter, name="Anna")
    character(encounter, "Aldric", seat=seat, hp_max=8, hp=8)
    rendered = list(Combatant.objects.select_related("seat").filter(encounter=encounter))
    (copy,) = hub.copied(rendered)
    copy.hp = 1
    copy._state.adding = True
    copy._state.fields_cache["seat"] = None
    (row,) = rendered
    assert copy.pk == row.pk and row.hp == 8 and not row._state.adding
    assert row._state.fields_cache["seat"] == seat and row.seat.name == "Anna"
    assert type(copy._state) is type(row._state) and copy._state.db == row._state.db


def test_the_log_a_view_builds_from_the_last_one_is_the_log_built_whole():
    """New entries on top, undos of new and old entries, secret rolls, past the log's window:
    after each change every audience's entries, kept from its last view or drawn anew, are
    the entries (and their HTML) a view built from nothing has."""
    from combat.live.state import Audience, build_views

    encounter = Encounter.objects.create(name="Crypt")
    hero = character(encounter, "Aldric")
    goblin = monster(encounter, "Goblin", hp_max=500, hp=500)
    audiences = [
        Audience(referee=True, seat=None, language="en"),
        Audience(referee=False, seat=None, language="cs"),
    ]
    dice = random.Random(11)
    state, views = build_views(encounter.pk, audiences, {})
    for step in range(2 * settings.FRAY_LOG_PAGE):
        _change_at_random(encounter, [hero, goblin], dice, step, undo=0.15, roll=0.25)
        state, views = build_views(encounter.pk, audiences, views, state)
        _whole_state, whole = build_views(encounter.pk, audiences, {})
        for audience in audiences:
            assert views[audience].entries == whole[audience].entries, (step, audience)
            assert list(views[audience].entry_keys) == list(whole[audience].entry_keys)
