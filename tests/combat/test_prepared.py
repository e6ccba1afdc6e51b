"""Queries whose SQL is written once: the same rows, in the same order, with the same
annotations as the querysets they stand for, whatever values they are asked with."""

from __future__ import annotations

import re

import pytest
from django.db.models import F, Q

from combat.db.prepared import Prepared
from combat.models import Combatant, Condition, ConditionKind, Encounter, LogEntry

from .conftest import character, monster

pytestmark = pytest.mark.django_db


def _fields(obj) -> tuple:
    return tuple(getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields)


@pytest.fixture
def two_tables(db):
    tables = [Encounter.objects.create(name=name) for name in ("Crypt", "Keep")]
    for table in tables:
        hero = character(table, f"Aldric of the {table.name}")
        goblin = monster(table, f"Goblin of the {table.name}", hp=0)
        Condition.objects.create(combatant=hero, kind=ConditionKind.PARALYSED, rounds_left=2)
        Condition.objects.create(combatant=goblin, kind=ConditionKind.ASLEEP, rounds_left=0)
    return tables


def test_a_prepared_query_reads_what_its_queryset_reads_for_every_value(two_tables):
    combatants = Prepared(lambda pk: Combatant.objects.filter(encounter=pk))
    running = Prepared(
        lambda pk: Condition.objects.filter(combatant__encounter=pk).exclude(rounds_left=0)
    )
    by_slug = Prepared(lambda slug: Encounter.objects.filter(slug=slug))
    for table in [*two_tables, Encounter(pk=10**9, slug="none")]:
        for prepared, queryset in (
            (combatants, Combatant.objects.filter(encounter=table.pk)),
            (
                running,
                Condition.objects.filter(combatant__encounter=table.pk).exclude(rounds_left=0),
            ),
            (by_slug, Encounter.objects.filter(slug=table.slug)),
        ):
            value = table.slug if prepared is by_slug else table.pk
            assert [_fields(o) for o in prepared(value)] == [_fields(o) for o in queryset]


def test_annotations_constants_and_repeated_values_survive(two_tables):
    table = two_tables[1]
    since = Prepared(
        lambda pk, seq: (
            LogEntry.objects.filter(encounter=pk)
            .annotate(undo_seq=F("undone_by__seq"))
            .filter(Q(seq__gt=seq) | Q(undone_by__seq__gt=seq))
        )
    )
    first = LogEntry.objects.create(encounter=table, seq=1, kind="free", actor="", data={})
    LogEntry.objects.create(encounter=table, seq=2, kind="undo", actor="", data={}, undoes=first)
    for seq in (0, 1, 2):
        assert [(e.pk, e.undo_seq) for e in since(table.pk, seq)] == [
            (e.pk, e.undo_seq)
            for e in LogEntry.objects.filter(encounter=table)
            .annotate(undo_seq=F("undone_by__seq"))
            .filter(Q(seq__gt=seq) | Q(undone_by__seq__gt=seq))
        ]
    kinds = Prepared(
        lambda pk: (
            Condition.objects.filter(combatant__encounter=pk)
            .exclude(rounds_left=0)
            .values_list("kind")
        )
    )
    assert kinds.rows(table.pk) == [("paralysed",)]


def test_what_a_prepared_query_cannot_stand_for_is_refused_when_first_asked(two_tables):
    with pytest.raises(ValueError):
        Prepared(lambda pk: Combatant.objects.filter(encounter=pk).select_related("seat"))(1)
    # A value Django turns into others (a year into a range of dates) is not a parameter
    # the SQL could be given again.
    with pytest.raises(ValueError):
        Prepared(lambda year: Combatant.objects.filter(created__year=year))(2026)


def test_queries_read_together_find_what_they_find_alone(two_tables):
    """``read_together``: on PostgreSQL the queries named go to the database as one list of
    statements, and each one's first run inside the block asks nothing more; elsewhere each
    runs when asked. Either way every query finds what it finds on its own, a query asked
    again runs again, and one not named runs as usual."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from combat.db.prepared import read_together

    table, other = two_tables
    combatants = Prepared(lambda pk: Combatant.objects.filter(encounter=pk).order_by("pk"))
    names = Prepared(lambda pk: Combatant.objects.filter(encounter=pk).values_list("name"))
    fifty = Prepared(lambda pk: Encounter.objects.filter(pk=pk, name__contains="50% 'off'"))
    Encounter.objects.filter(pk=other.pk).update(name="Keep, 50% 'off'")
    alone = (
        [_fields(c) for c in combatants(table.pk)],
        sorted(names.rows(table.pk)),
        [e.pk for e in fifty(other.pk)],
    )
    others = [c.name for c in Combatant.objects.filter(encounter=other).order_by("pk")]
    ahead = [(combatants, (table.pk,)), (names, (table.pk,)), (fifty, (other.pk,))]
    with CaptureQueriesContext(connection) as asked:
        with read_together(*ahead):
            together = (
                [_fields(c) for c in combatants(table.pk)],
                sorted(names.rows(table.pk)),
                [e.pk for e in fifty(other.pk)],
            )
            after_the_first_runs = len(asked)
            assert sorted(names.rows(table.pk)) == alone[1]  # asked again: read again
            assert [c.name for c in combatants(other.pk)] == others  # not named: as usual
    assert together == alone
    assert alone[2] == [other.pk]
    if connection.vendor == "postgresql":
        assert after_the_first_runs == 1  # the three, in one round trip
        assert len(asked[0]["sql"].split(";\n")) == 3
    else:
        assert after_the_first_runs == 3
    assert len(asked) == after_the_first_runs + 2
    with read_together():  # nothing named: nothing read
        assert [c.pk for c in combatants(table.pk)] == [c[0] for c in alone[0]]


def test_fields_saved_with_their_sql_written_once_are_saved_as_django_saves_them(two_tables):
    """``save_fields`` writes what ``save(update_fields=...)`` writes, fields prepared as
    each prepares them (JSON, text, numbers), and refuses a row that is gone."""
    from django.db import DatabaseError

    from combat.db.prepared import save_fields

    table = two_tables[0]
    hero, goblin = Combatant.objects.filter(encounter=table).order_by("pk")
    for times in range(2):  # the second time from the statement written the first
        hero.hp, hero.notes, hero.zones = 7 - times, f"torch 50% 'lit' {times}", {"plan": [times]}
        save_fields(hero, "hp", "notes", "zones")
        stored = Combatant.objects.get(pk=hero.pk)
        assert (stored.hp, stored.notes, stored.zones) == (hero.hp, hero.notes, hero.zones)
        assert Combatant.objects.get(pk=goblin.pk).hp == 0, "no other row"
    hero.name = "Not saved"
    save_fields(hero, "hp")
    assert Combatant.objects.get(pk=hero.pk).name != "Not saved", "only the fields named"
    Combatant.objects.filter(pk=goblin.pk).delete()
    with pytest.raises(DatabaseError):
        save_fields(goblin, "hp")
        # (on PostgreSQL, in a transaction, the write goes with the next statement)
        Combatant.objects.filter(encounter=table).count()


def test_a_row_inserted_with_its_sql_written_once_is_the_row_django_would_write(two_tables):
    """``insert`` writes every field as ``Model.save`` would (defaults, JSON, the creation
    time, relations) and gives the instance its id; a row with an id is not new."""
    from combat.db.prepared import insert

    table = two_tables[0]
    first = LogEntry.objects.create(encounter=table, seq=1, kind="free", actor="A", data={})
    made = []
    for seq in (2, 3):  # the second from the statement written the first time
        entry = LogEntry(
            encounter=table, seq=seq, public_seq=seq - 1, kind="undo", actor="Ann 'B' 50%",
            data={"roll": {"natural": 20, "mods": [[1, "Strength"]]}, "name": "Ан"},
            effects=[{"combatant": 1, "hp": -3}], undoes=first if seq == 2 else None,
        )  # fmt: skip
        assert insert(entry) is entry and not entry._state.adding
        made.append(entry)
    assert made[1].pk > made[0].pk > first.pk
    for entry in made:
        stored = LogEntry.objects.get(pk=entry.pk)
        assert _fields(stored) == _fields(entry)
        assert stored.created is not None and stored.by_referee is False  # a default
    assert LogEntry.objects.get(pk=first.pk).undone_by == made[0]
    with pytest.raises(ValueError):
        insert(made[0])


def test_a_row_already_there_is_left_as_it_is_and_the_transaction_goes_on(two_tables):
    """``insert(..., unless_there=True)``: a second row with the same unique values is not
    written, says so (None), and leaves the transaction usable (PostgreSQL aborts one that
    met an IntegrityError outside a savepoint)."""
    from django.db import transaction

    from combat.db.prepared import insert
    from combat.models import ActionKey

    table, other = two_tables
    with transaction.atomic():
        first = insert(ActionKey(encounter=table, key="k1"), unless_there=True)
        assert first is not None and first.pk
        assert insert(ActionKey(encounter=table, key="k1"), unless_there=True) is None
        elsewhere = insert(ActionKey(encounter=other, key="k1"), unless_there=True)
        assert elsewhere is not None, "the same key at another table is another key"
        assert ActionKey.objects.filter(key="k1").count() == 2  # still usable
    assert sorted(ActionKey.objects.values_list("pk", flat=True)) == sorted(
        [first.pk, elsewhere.pk]
    )


# --- Statements kept on the PostgreSQL server -------------------------------------------------


def _server_statements() -> dict[str, str]:
    """The statements prepared on this connection: name -> their text."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        return dict(cursor.fetchall())


@pytest.fixture
def postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the scale-out database only")
    return connection


def test_a_prepared_query_runs_on_postgresql_as_a_statement_prepared_once(two_tables, postgresql):
    """The server plans it once per connection: its text is prepared at the first run, each
    run (this one included) asks for it by name with its values, and finds what the queryset
    finds."""
    from django.test.utils import CaptureQueriesContext

    by_table = Prepared(lambda pk: Combatant.objects.filter(encounter=pk))
    with CaptureQueriesContext(postgresql) as asked:
        found = [by_table(table.pk) for table in two_tables]
    assert [[_fields(c) for c in rows] for rows in found] == [
        [_fields(c) for c in Combatant.objects.filter(encounter=table)] for table in two_tables
    ]
    # (the query log spells the statement out before its name and values)
    ran = [query["sql"] for query in asked]
    assert len(ran) == 2 and all(sql.startswith('SELECT "combat_combatant"') for sql in ran)
    names = [re.search(r"/\* EXECUTE (fray_\d+) \*/\(\d+\)$", sql)[1] for sql in ran]
    assert names[0] == names[1], ran
    assert '"combat_combatant"."encounter_id" = $1' in _server_statements()[names[0]]


def test_a_statement_prepared_in_a_transaction_rolled_back_stays_prepared(two_tables, postgresql):
    from django.db import transaction

    by_table = Prepared(lambda pk: Combatant.objects.filter(encounter=pk).order_by("pk"))
    with pytest.raises(RuntimeError), transaction.atomic():
        assert by_table(two_tables[0].pk)
        raise RuntimeError
    assert [c.pk for c in by_table(two_tables[1].pk)] == list(
        Combatant.objects.filter(encounter=two_tables[1])
        .order_by("pk")
        .values_list("pk", flat=True)
    )


@pytest.mark.django_db(transaction=True)
def test_a_new_connection_prepares_its_statements_anew(two_tables, postgresql):
    by_table = Prepared(lambda pk: Combatant.objects.filter(encounter=pk))
    assert by_table(two_tables[0].pk)
    postgresql.close()
    assert len(by_table(two_tables[0].pk)) == 2
    assert any("$1" in text for text in _server_statements().values())


def test_a_statement_the_server_cannot_prepare_runs_as_it_is_and_the_transaction_goes_on(
    two_tables, postgresql
):
    """A value whose type only the statement's text told (a constant in the select list):
    PostgreSQL cannot prepare it, so it is written out each time, and a transaction it was
    tried in is none the worse."""
    from django.db import transaction
    from django.db.models import CharField, Value
    from django.test.utils import CaptureQueriesContext

    worded = Prepared(
        lambda pk: (
            Encounter.objects.filter(pk=pk)
            .annotate(word=Value("x", CharField()))
            .extra(where=["%s IS NOT NULL"], params=["x"])
        )
    )
    with transaction.atomic():
        with CaptureQueriesContext(postgresql) as asked:
            assert [e.word for e in worded(two_tables[0].pk)] == ["x"]
            assert [e.word for e in worded(two_tables[1].pk)] == ["x"]
        assert Encounter.objects.filter(pk=two_tables[0].pk).update(name="Crypt of Bones") == 1
    assert not [q["sql"] for q in asked if "EXECUTE" in q["sql"]]
    assert Encounter.objects.get(pk=two_tables[0].pk).name == "Crypt of Bones"


def test_saved_fields_and_inserted_rows_go_as_prepared_statements(two_tables, postgresql):
    from django.test.utils import CaptureQueriesContext

    from combat.db.prepared import insert, save_fields

    goblin = Combatant.objects.get(encounter=two_tables[0], name__startswith="Goblin")
    with CaptureQueriesContext(postgresql) as asked:
        goblin.hp = 3
        save_fields(goblin, "hp")
        note = insert(LogEntry(encounter=two_tables[0], seq=1, kind="note", actor="x"))
    # (in a transaction the UPDATE waits for the next statement, and goes with it)
    (ran,) = [q["sql"] for q in asked]
    update, insert_ = ran.split(";\n")
    assert update.startswith("UPDATE") and insert_.startswith("INSERT"), ran
    assert "/* EXECUTE fray_" in update and "/* EXECUTE fray_" in insert_, ran
    assert Combatant.objects.get(pk=goblin.pk).hp == 3
    assert LogEntry.objects.get(pk=note.pk).actor == "x"


def test_in_a_transaction_saved_fields_go_with_the_next_statement(two_tables, postgresql):
    """One round trip for both, the write first: what the next statement reads has it."""
    from django.test.utils import CaptureQueriesContext

    from combat.db.prepared import save_fields

    goblin = Combatant.objects.get(encounter=two_tables[0], name__startswith="Goblin")
    goblin.hp = 4
    with CaptureQueriesContext(postgresql) as asked:
        save_fields(goblin, "hp")
        assert Combatant.objects.get(pk=goblin.pk).hp == 4
    (sent,) = [q["sql"] for q in asked]
    assert sent.startswith('UPDATE "combat_combatant"') and ";\nSELECT" in sent, sent


@pytest.mark.django_db(transaction=True)
def test_saved_fields_kept_for_the_next_statement_go_with_a_commit_and_go_with_a_rollback(
    two_tables, postgresql
):
    from django.db import transaction
    from django.test.utils import CaptureQueriesContext

    from combat.db.prepared import save_fields

    goblin = Combatant.objects.get(encounter=two_tables[0], name__startswith="Goblin")
    with transaction.atomic():
        goblin.hp = 5
        save_fields(goblin, "hp")  # and nothing after it
    assert Combatant.objects.get(pk=goblin.pk).hp == 5
    with pytest.raises(RuntimeError), transaction.atomic():
        goblin.hp = 6
        save_fields(goblin, "hp")
        raise RuntimeError
    with CaptureQueriesContext(postgresql) as asked:
        assert Combatant.objects.get(pk=goblin.pk).hp == 5
    assert not [q for q in asked if "UPDATE" in q["sql"]]
    with transaction.atomic():  # a savepoint rolled back takes the write with it
        with pytest.raises(RuntimeError), transaction.atomic():
            goblin.hp = 7
            save_fields(goblin, "hp")
            raise RuntimeError
    assert Combatant.objects.get(pk=goblin.pk).hp == 5
    goblin.hp = 8
    save_fields(goblin, "hp")  # no transaction: at once
    assert postgresql.execute_wrappers == []
    assert Combatant.objects.get(pk=goblin.pk).hp == 8


@pytest.mark.django_db(transaction=True)
def test_a_lock_kept_for_the_next_statement_holds_its_rows_from_that_statement_on(
    two_tables, postgresql
):
    """Another connection finds the rows locked once the next statement has gone, and free
    before it, and after the commit; the lock counts as a write that found its rows even
    where it finds none."""
    import threading

    from django.db import connections, transaction
    from django.test.utils import CaptureQueriesContext

    from combat.db.prepared import lock_later

    hero, goblin = Combatant.objects.filter(encounter=two_tables[0]).order_by("pk")
    by_id = Prepared(
        lambda first, second: Combatant.objects.select_for_update().filter(pk__in=[first, second])
    )

    def locked_elsewhere() -> bool:
        found: list[bool] = []

        def probe() -> None:
            try:
                with transaction.atomic():
                    rows = Combatant.objects.select_for_update(nowait=True).filter(pk=goblin.pk)
                    found.append(not list(rows))
            except Exception as error:  # psycopg's LockNotAvailable, as Django raises it
                found.append("could not obtain lock" in str(error))
            finally:
                connections.close_all()

        thread = threading.Thread(target=probe)
        thread.start()
        thread.join(10)
        return found == [True]

    with transaction.atomic():
        with CaptureQueriesContext(postgresql) as asked:
            lock_later(by_id, hero.pk, goblin.pk)
            assert not asked.captured_queries and not locked_elsewhere()
            assert Encounter.objects.get(pk=two_tables[0].pk).name == "Crypt"
        (sent,) = [q["sql"] for q in asked]
        assert sent.startswith("SELECT count(*) FROM (SELECT") and "FOR UPDATE" in sent, sent
        assert locked_elsewhere()
        lock_later(by_id, 1_000_000_001, 1_000_000_002)  # no such rows: nothing to lock
        assert Encounter.objects.filter(pk=two_tables[1].pk).exists()
    assert not locked_elsewhere()
