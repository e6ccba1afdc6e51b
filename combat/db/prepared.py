"""Queries whose SQL, and the way their rows become model instances, Django works out once
per process.

Writing a query's SQL costs more than running it on SQLite (a combatant's fifty columns: about
1.5 ms to write, 0.5 ms to run), and the live renderer and every action ask the same few
queries again and again. A :class:`Prepared` query is a queryset built once with stand-in
values for its parameters; its SQL is kept, with what Django's own iterable
(``django.db.models.query.ModelIterable``) would work out for every run of it: which columns
are the model's fields, which are annotations, and the converters of each. Each call runs the
SQL with the real values and makes the instances as that iterable does: the same rows, in the
same order, with the same annotations.

Only for querysets of model instances or ``values_list`` rows without ``select_related`` or
``prefetch_related``, with a fixed number of parameters (no ``__in`` lists).

On PostgreSQL, where each query is a round trip to another process, ``read_together`` asks
several of them at once; and the statements run again and again are kept on the server,
planned once (``on_server``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, overload

from django.db import DatabaseError, connections, models

# Stand-ins, one per parameter: values an id or a count could take (Django drops a comparison
# with a value outside its field's range from the SQL), yet none will in practice.
_STAND_INS = tuple(1_987_654_301 + n for n in range(8))


@dataclass(frozen=True)
class _Plan:
    model: type[models.Model]
    sql: str
    slots: tuple[Any, ...]  # per parameter: the index of a value passed, or a _Fixed one
    fields: tuple[int, int]  # the columns that are the model's fields, as a slice
    names: tuple[str, ...]  # their attribute names, in the columns' order
    annotations: tuple[tuple[str, int], ...]  # (attribute, column) of each annotation
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]

    def params(self, values: tuple[Any, ...]) -> list[Any]:
        return [values[slot] if isinstance(slot, int) else slot.value for slot in self.slots]


class Prepared:
    """``build(*values)`` run with new values, planned at its first run.

    >>> running = Prepared(lambda encounter_id: Condition.objects.filter(
    ...     combatant__encounter_id=encounter_id).exclude(rounds_left=0))
    >>> running(encounter.pk)  # a list of Conditions
    """

    def __init__(self, build: Callable[..., models.QuerySet[Any]]) -> None:
        self.build = build
        self._plans: dict[str, _Plan] = {}

    def __call__(self, *values: Any, using: str = "default") -> list[Any]:
        plan = self._plan(len(values), using)
        connection = connections[using]
        rows = self._fetch(plan, values, using)
        start, end = plan.fields
        made = []
        for raw in rows:
            row = _converted(plan, raw, connection)
            obj = plan.model.from_db(using, plan.names, row[start:end])
            for attribute, column in plan.annotations:
                setattr(obj, attribute, row[column])
            made.append(obj)
        return made

    def rows(self, *values: Any, using: str = "default") -> list[tuple[Any, ...]]:
        """The rows as the database gives them, unconverted (for a ``values_list`` of plain
        columns: ids, numbers, text)."""
        return self._fetch(self._plan(len(values), using), values, using)

    def values(self, raw: tuple[Any, ...], using: str = "default") -> list[Any]:
        """``raw``, a row ``rows`` gave, as Django's converters make it: what a row of the
        ``values_list`` holds, each value as the model's attribute would (booleans, dates,
        JSON, decimals)."""
        plan = self._plans.get(using)
        if plan is None:
            raise ValueError("values() of a row that rows() did not give")
        return _converted(plan, raw, connections[using])

    def _fetch(self, plan: _Plan, values: tuple[Any, ...], using: str) -> list[tuple[Any, ...]]:
        read = _READ_AHEAD.__dict__.get(using)
        if read is not None:
            rows = read.pop((self, values), None)
            if rows is not None:
                return rows
        with connections[using].cursor() as cursor:
            cursor.execute(on_server(cursor, plan.sql), plan.params(values))
            return cursor.fetchall()

    def _plan(self, arity: int, using: str) -> _Plan:
        plan = self._plans.get(using)
        if plan is None:
            plan = self._plans[using] = _planned(self.build(*_STAND_INS[:arity]), arity, using)
        return plan


def _converted(plan: _Plan, raw: tuple[Any, ...], connection: Any) -> list[Any]:
    row = list(raw)
    for column, functions, expression in plan.converters:
        value = row[column]
        for function in functions:
            value = function(value, expression, connection)
        row[column] = value
    return row


def _planned(queryset: models.QuerySet[Any], arity: int, using: str) -> _Plan:
    query = queryset.query
    if query.select_related or queryset._prefetch_related_lookups:
        raise ValueError("a prepared query makes no related instances")
    compiler = query.get_compiler(using=using)
    sql, params = compiler.as_sql()
    # A stand-in given to a text field comes back as text.
    where = {v: n for n, v in enumerate(_STAND_INS[:arity])}
    where |= {str(v): n for v, n in list(where.items())}
    slots = tuple(where[p] if p in where else _Fixed(p) for p in params)
    if {s for s in slots if isinstance(s, int)} != set(range(arity)):
        raise ValueError("a value passed was not kept as a parameter of the query")
    select, klass_info = compiler.select, compiler.klass_info
    if klass_info is None:  # values_list: rows only
        fields, names, annotations = (0, 0), (), ()
    else:
        columns = klass_info["select_fields"]
        fields = (columns[0], columns[-1] + 1)
        names = tuple(column[0].target.attname for column in select[fields[0] : fields[1]])
        annotations = tuple(compiler.annotation_col_map.items())
    converters = compiler.get_converters([column[0] for column in select])
    return _Plan(
        model=queryset.model,
        sql=sql,
        slots=slots,
        fields=fields,
        names=names,
        annotations=annotations,
        converters=tuple(
            (column, tuple(functions), expression)
            for column, (functions, expression) in converters.items()
        ),
    )


class _Fixed:
    """A parameter the query always has (a constant in the queryset, not a value passed)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


# The UPDATE statements of ``save_fields``, by model, fields and database vendor.
_UPDATES: dict[tuple[type[models.Model], tuple[str, ...], str], tuple[str, list[Any]]] = {}


def save_fields(instance: models.Model, *names: str, using: str = "default") -> None:
    """``instance.save(update_fields=names)``, its statement written once per model and
    fields, not by Django's compiler on every call (storing a combatant's hit points after
    a blow was mostly Django writing the statement, not SQLite running it: a twentieth of a
    change's time in the request, in-process). The same values are written, as
    each field prepares them; as ``save`` does, a row that is no longer there is an error.
    For models no signal or ``save`` override of Fray's own listens to.

    On PostgreSQL, within a transaction, the statement waits for the next one the
    connection sends, and goes with it (``_WAITING``)."""
    model = type(instance)
    connection = connections[using]
    key = (model, names, connection.vendor)
    found = _UPDATES.get(key)
    if found is None:
        quote = connection.ops.quote_name
        fields = [model._meta.get_field(name) for name in names]
        sets = ", ".join(f"{quote(field.column)} = %s" for field in fields)
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        found = _UPDATES[key] = (f"UPDATE {table} SET {sets} WHERE {pk} = %s", fields)
    sql, fields = found
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection) for field in fields
    ]
    if _goes_later(connection):
        _write_later(connection, sql, [*values, instance.pk])
        return
    with connection.cursor() as cursor:
        cursor.execute(on_server(cursor, sql), [*values, instance.pk])
        _updated(cursor)


def _updated(cursor: Any) -> None:
    if cursor.rowcount == 0:
        raise DatabaseError("Save with update_fields did not affect any rows.")


# --- Writes that go with the next statement ---------------------------------------------------
#
# On PostgreSQL each statement is a wait for another process. A blow stores hit points, then
# writes its log entry (``run_then_read``): within a transaction, ``save_fields`` keeps its
# UPDATE until the connection sends its next statement, and sends it with that one, in the
# same round trip, in the same order; a ``run_then_read`` takes the waiting writes into its
# own list of statements. A lock whose rows the caller has already waits the same way
# (``lock_later``), written to give one row, as a write that found its row does. A write
# that affected no row fails as it would have, only later in the same transaction (which
# then rolls back whole, as before). Before a commit the writes go on their own
# (``combat.db.postgresql``); a rollback drops them.

_WAITING = threading.local()  # per thread: database alias -> [(sql, params)] not yet sent


def _goes_later(connection: Any) -> bool:
    return (
        connection.vendor == "postgresql"
        and connection.in_atomic_block
        and not connection.settings_dict["OPTIONS"].get("server_side_binding")
    )  # (binding on the server, statements go one by one)


def lock_later(query: Prepared, *values: Any, using: str = "default") -> None:
    """Lock the rows ``query`` (a ``select_for_update``) finds, as its run would, but with
    the connection's next statement, as ``save_fields`` writes (a lock whose rows the caller
    has already: it holds them in the same order, one wait less). Where nothing waits for a
    next statement, at once; where a transaction locks the whole database (SQLite), nothing."""
    connection = connections[using]
    if not connection.features.has_select_for_update:
        return
    plan = query._plan(len(values), using)
    if not _goes_later(connection):
        query._fetch(plan, values, using)
        return
    # One row whatever it locks, so that it counts as a write that found its row.
    _write_later(connection, f"SELECT count(*) FROM ({plan.sql}) AS locked", plan.params(values))


def _write_later(connection: Any, sql: str, params: list[Any]) -> None:
    waiting = _WAITING.__dict__.setdefault(connection.alias, [])
    if not waiting:
        # Outermost (Django's ``execute_wrapper`` blocks pop the innermost one).
        connection.execute_wrappers.insert(0, _send_waiting_first)
    waiting.append((sql, params))


def waiting_writes(connection: Any) -> list[tuple[str, list[Any]]]:
    """The writes kept for ``connection``'s next statement, no longer kept (to send now)."""
    waiting = _WAITING.__dict__.pop(connection.alias, None)
    if not waiting:
        return []
    with contextlib.suppress(ValueError):
        connection.execute_wrappers.remove(_send_waiting_first)
    return waiting


def send_waiting(connection: Any) -> None:
    """Send the writes kept for ``connection``, if any, now (before a commit)."""
    if not _WAITING.__dict__.get(connection.alias):
        return
    with connection.cursor() as cursor:
        waiting = waiting_writes(connection)
        sql, params = _together(cursor, waiting)
        cursor.execute(sql, params)
        _each_updated(cursor, len(waiting))


def _together(cursor: Any, waiting: list[tuple[str, list[Any]]]) -> tuple[str, list[Any]]:
    sql = ";\n".join(on_server(cursor, statement) for statement, _params in waiting)
    return sql, [value for _statement, params in waiting for value in params]


def _each_updated(cursor: Any, count: int) -> None:
    """After ``count`` waiting statements sent together (and maybe more after them): each
    affected its row (a lock: gave its one row). Leaves the cursor at the result after theirs."""
    for index in range(count):
        if index:
            cursor.cursor.nextset()
        _updated(cursor)
    if count:
        cursor.cursor.nextset()


def _send_waiting_first(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
):
    cursor = context["cursor"]
    waiting = waiting_writes(cursor.db)
    if waiting:
        before, values = _together(cursor, waiting)
        if many:  # a batch runs as it is: the writes go first, on their own
            execute(before, values, False, context)
            _each_updated(cursor, len(waiting))
        else:
            if params is None:  # (its text was not to have values written in)
                sql, params = sql.replace("%", "%%"), ()
            result = execute(f"{before};\n{sql}", [*values, *params], False, context)
            _each_updated(cursor, len(waiting))
            return result
    return execute(sql, params, many, context)


def drop_waiting(connection: Any) -> None:
    """The transaction rolled back (or the connection closed): the writes go with it."""
    waiting_writes(connection)


Saved = TypeVar("Saved", bound=models.Model)
# The INSERT statements of ``insert``, by model and database vendor.
_INSERTS: dict[tuple[type[models.Model], str, bool], tuple[str, list[Any], bool]] = {}


@overload
def insert(instance: Saved, *, unless_there: Literal[False] = ..., using: str = ...) -> Saved: ...


@overload
def insert(instance: Saved, *, unless_there: bool, using: str = ...) -> Saved | None: ...


def insert(instance: Saved, *, unless_there: bool = False, using: str = "default") -> Saved | None:
    """``instance.save()`` for a new row of a model of its own table (no parent model), its
    statement written once per model: every field as Django would write it (its default, an
    ``auto_now_add`` time, JSON), the id as the database gives it. ``instance``, saved.

    With ``unless_there``, a row a unique constraint finds there already (committed, or
    committed meanwhile by the transaction that wrote it) is left as it is, and None
    returned: what catching the ``IntegrityError`` in a savepoint told, in one statement."""
    model = type(instance)
    connection = connections[using]
    key = (model, connection.vendor, unless_there)
    found = _INSERTS.get(key)
    if found is None:
        quote, meta = connection.ops.quote_name, model._meta
        sql, fields = insert_statement(connection, model)
        returning = connection.features.can_return_columns_from_insert
        if unless_there:
            sql += " ON CONFLICT DO NOTHING"
        if returning:
            sql += f" RETURNING {quote(meta.pk.column)}"
        found = _INSERTS[key] = (sql, fields, returning)
    sql, fields, returning = found
    values = inserted_values(instance, fields, connection)
    with connection.cursor() as cursor:
        cursor.execute(on_server(cursor, sql), values)
        if returning:
            row = cursor.fetchone()
            pk = None if row is None else row[0]
        else:
            pk = cursor.lastrowid if cursor.rowcount else None
    if pk is None:
        return None  # there already (unless_there)
    instance.pk = pk
    instance._state.adding, instance._state.db = False, using
    return instance


def insert_statement(
    connection: Any, model: type[models.Model], given: dict[str, str] | None = None
) -> tuple[str, list[models.Field[Any, Any]]]:
    """An INSERT of a new ``model`` row (a model of its own table, no parent model): every
    field but an id the database gives, each a parameter, or the SQL expression ``given``
    for it (by attribute name); and the fields whose values are its parameters, in order."""
    meta = model._meta
    if meta.parents:
        raise ValueError("insert() writes one table: not for a model with a parent")
    fields = [f for f in meta.concrete_fields if not f.primary_key or not f.db_returning]
    given = given or {}
    quote = connection.ops.quote_name
    names = ", ".join(quote(field.column) for field in fields)
    values = ", ".join(given.get(field.attname, "%s") for field in fields)
    sql = f"INSERT INTO {quote(meta.db_table)} ({names}) VALUES ({values})"
    return sql, [field for field in fields if field.attname not in given]


def inserted_values(
    instance: models.Model, fields: list[models.Field[Any, Any]], connection: Any
) -> list[Any]:
    """What an INSERT of ``instance``, a new row, writes in ``fields``, as ``save`` prepares
    it (a default, an ``auto_now_add`` time, JSON)."""
    if instance.pk is not None and type(instance)._meta.pk.db_returning:
        raise ValueError("insert() writes new rows, whose id the database gives")
    return [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]


# Rows read ahead by ``read_together``, by database alias, then by (query, values): each
# thread's own (a render and the requests each run on a thread of their own).
_READ_AHEAD = threading.local()


@contextlib.contextmanager
def read_together(
    *queries: tuple[Prepared, tuple[Any, ...]], using: str = "default"
) -> Iterator[None]:
    """Within the block, the first run of each of ``queries`` (a prepared query and the
    values it will be asked with) takes its rows from one round trip made on entering it.

    On PostgreSQL the queries go as one list of statements (Django's PostgreSQL cursor binds
    values on the client, so each is written out whole), run in their order, and answered
    together: a worker's load of a table asks the database once where it asked once per
    query, each a wait for another process on a busy machine. Elsewhere
    (SQLite, in this process: there is no trip to save) nothing is read ahead and each query
    runs when it is asked, as without the block. A query asked again, or with other values,
    runs as usual."""
    connection = connections[using]
    if not queries or connection.vendor != "postgresql" or using in _READ_AHEAD.__dict__:
        yield
        return
    from psycopg import ClientCursor  # the PostgreSQL driver Fray installs

    with connection.cursor() as cursor:
        if not isinstance(cursor.cursor, ClientCursor):  # binding on the server: one by one
            yield
            return
        cursor.execute(";\n".join(_written(cursor, queries, using)))
        read = _answers(cursor, queries, first=True)
    with reading(read, using=using):
        yield


Named = tuple[Prepared, tuple[Any, ...]]  # a prepared query and the values it is asked with
Read = dict[Named, list[tuple[Any, ...]]]


def _written(cursor: Any, queries: Sequence[Named], using: str) -> list[str]:
    """Each query's SQL with its values written in (the driver binds on the client)."""
    return [
        cursor.cursor.mogrify(on_server(cursor, plan.sql), plan.params(values))
        for prepared, values in queries
        for plan in (prepared._plan(len(values), using),)
    ]


def _answers(cursor: Any, queries: Sequence[Named], *, first: bool) -> Read:
    """The rows of each of ``queries``, the results of a list of statements in turn (after
    one result that is not theirs unless ``first``)."""
    read: Read = {}
    for index, key in enumerate(queries):
        if index or not first:
            cursor.cursor.nextset()
        read[key] = cursor.fetchall()
    return read


def run_then_read(
    cursor: Any,
    sql: str,
    params: Sequence[Any],
    queries: Sequence[Named],
    using: str = "default",
) -> tuple[tuple[Any, ...] | None, Read | None]:
    """``sql`` run with ``params``, then, in the same round trip where the database is across
    the network, ``queries`` read as ``read_together`` reads them: ``sql``'s first row, and
    the rows of each query (None where nothing was read with it: SQLite, a driver binding on
    the server). What the queries read is the database as ``sql`` left it, in the caller's
    transaction."""
    from psycopg import ClientCursor  # the PostgreSQL driver Fray installs

    connection = connections[using]
    if connection.vendor != "postgresql" or not isinstance(cursor.cursor, ClientCursor):
        cursor.execute(sql, params)
        return cursor.fetchone(), None
    reads = ";\n".join(_written(cursor, queries, using)).replace("%", "%%")
    waiting = waiting_writes(connection)
    before, values = _together(cursor, waiting) if waiting else ("", [])
    sql = f"{before};\n{on_server(cursor, sql)}" if waiting else on_server(cursor, sql)
    cursor.execute(f"{sql};\n{reads}", [*values, *params])
    _each_updated(cursor, len(waiting))
    row = cursor.fetchone()
    return row, _answers(cursor, queries, first=False)


@contextlib.contextmanager
def reading(read: Read, using: str = "default") -> Iterator[None]:
    """Within the block, the first run of each query ``read`` holds rows for takes them
    from it, as from ``read_together``'s round trip (not within another such block)."""
    if using in _READ_AHEAD.__dict__:
        yield
        return
    _READ_AHEAD.__dict__[using] = dict(read)
    try:
        yield
    finally:
        del _READ_AHEAD.__dict__[using]


# --- Statements kept on the PostgreSQL server ------------------------------------------------
#
# PostgreSQL plans every statement it is sent, and planning was most of the time it spent on
# a change: the table's load with the change's own statement took 1.0 ms there, 0.26 ms as
# statements it had planned before. So the statements Fray sends again and again (each
# ``Prepared`` query, ``save_fields``, ``insert``, a change's one statement) go as ``EXECUTE``
# of a statement prepared once per connection with SQL's own ``PREPARE``: still plain text,
# so several still go in one round trip (``read_together``, ``run_then_read``), with the
# values written in by the driver as before. The server plans it for the values of its first
# runs, then keeps one plan for any values where that costs no more (PostgreSQL's
# ``plan_cache_mode`` at its default). A prepared statement lasts as long as its connection,
# whatever becomes of the transaction it was prepared in; one the server cannot prepare (a
# value of a type only the statement's text told) runs as it is, written out each time.
# Not for a pooler that hands one connection to several clients between transactions.

# The name each statement is prepared under, by its SQL (None: it cannot be prepared).
_NAMES: dict[str, str | None] = {}
_TEXTS: dict[str, str] = {}  # and the SQL of each name
_NAMING = threading.Lock()
_PLACEHOLDER = re.compile(r"%([s%])")
_EXECUTE = re.compile(r"EXECUTE (fray_\d+)\b")


def on_server(cursor: Any, sql: str) -> str:
    """``sql`` (a statement with ``%s`` placeholders) as it is to run on ``cursor`` (Django's)
    with the same values: on PostgreSQL, binding values on the client, an ``EXECUTE`` of it
    prepared on the cursor's connection (prepared first, if it is not yet); else ``sql``."""
    if cursor.db.vendor != "postgresql":
        return sql
    from psycopg import ClientCursor  # the PostgreSQL driver Fray installs

    raw = cursor.cursor
    if not isinstance(raw, ClientCursor):  # the driver prepares what it binds on the server
        return sql
    name = _NAMES.get(sql, "")
    if name is None:
        return sql
    if not name:
        with _NAMING:
            name = _NAMES.setdefault(sql, f"fray_{len(_NAMES) + 1}")
            if name is None:  # found unpreparable meanwhile
                return sql
            _TEXTS.setdefault(name, sql)
    # Per Django connection (each thread has its own), for the driver's connection it holds.
    kept = getattr(cursor.db, "fray_statements", None)
    if kept is None or kept[0] is not raw.connection:
        kept = cursor.db.fray_statements = (raw.connection, set())
    if name not in kept[1]:
        if not _prepare(cursor.db, raw.connection, name, sql):
            return sql
        kept[1].add(name)
    count = sql.count("%s")
    return f"EXECUTE {name}({', '.join(['%s'] * count)})" if count else f"EXECUTE {name}"


def _prepare(db: Any, connection: Any, name: str, sql: str) -> bool:
    """``PREPARE name AS sql`` on the driver's ``connection`` (out of Django's query log and
    execute wrappers: it reads and writes nothing), in a savepoint of its own within a
    transaction, so that a statement the server refuses leaves the transaction as it was.
    Whether it is prepared now."""
    import psycopg  # the PostgreSQL driver Fray installs
    from psycopg.pq import TransactionStatus

    status = connection.info.transaction_status
    if status == TransactionStatus.INERROR:  # the transaction failed: nothing more runs in it
        return False
    numbers = iter(range(1, sql.count("%s") + 1))
    text = _PLACEHOLDER.sub(lambda m: f"${next(numbers)}" if m[1] == "s" else "%", sql)
    prepare = f"PREPARE {name} AS {text}"
    within = status != TransactionStatus.IDLE or not connection.autocommit
    run = psycopg.ClientCursor(connection).execute
    if within:
        prepare = f"SAVEPOINT fray_prepare; {prepare}; RELEASE SAVEPOINT fray_prepare"
    recover = "ROLLBACK TO SAVEPOINT fray_prepare; RELEASE SAVEPOINT fray_prepare"
    with db.wrap_database_errors:
        try:
            run(prepare)
        except psycopg.DatabaseError as error:
            if connection.broken or connection.closed:
                raise
            if within:
                run(recover)
            if isinstance(error, psycopg.errors.DuplicatePreparedStatement):
                return True  # prepared before, on a connection this process took over
            if isinstance(error, psycopg.errors.SyntaxErrorOrAccessRuleViolation):
                _NAMES[sql] = None  # a type the server cannot tell: never preparable
            return False
    return True


def spelled_out(sent: str) -> str:
    """``sent`` (SQL as it went to the server) with each ``EXECUTE`` of a statement
    ``on_server`` prepared spelled out: the statement's own text, then its name, before the
    values it ran with. For query logs (``combat.db.postgresql``'s ``last_executed_query``) and
    those who read them."""

    def text(match: re.Match[str]) -> str:
        sql = _TEXTS.get(match[1])
        return match[0] if sql is None else f"{sql} /* {match[0]} */"

    return _EXECUTE.sub(text, sent)
