"""Recording a change: its one-time key, the next number, the log entry, the announcement."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connections, router, transaction

from combat import unseen
from combat.access import Viewer
from combat.db.prepared import Prepared, insert, insert_statement, inserted_values, run_then_read
from combat.models import ActionKey, Combatant, Encounter, LogEntry, Side, bump_returning
from combat.payloads import Payload, Shown, to_json
from combat.table import dice, hooks


class Repeated(Exception):
    """The action's one-time key was already used: nothing was applied this time."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


_KEY = Prepared(lambda encounter, key: ActionKey.objects.filter(encounter=encounter, key=key))


def usable_key(key: str) -> bool:
    """Whether ``key`` can be a one-time key: one no form could carry (too long, a NUL byte
    PostgreSQL refuses in text) cannot."""
    return (
        bool(key) and len(key) <= ActionKey._meta.get_field("key").max_length and "\x00" not in key
    )


def first_result(viewer: Viewer, key: str) -> tuple[bool, LogEntry | None]:
    """Whether ``key`` was already applied on this encounter, and the entry it made. A key no
    form could carry (:func:`usable_key`) was never applied: the form then says what is wrong
    with it."""
    if not usable_key(key):
        return False, None
    found = next(iter(_KEY(viewer.encounter.pk, key)), None)
    return found is not None, found.entry if found else None


def claim(viewer: Viewer, once: str, entry: LogEntry | None = None) -> None:
    """Record ``once`` in the current transaction; a key already used rolls the whole action
    back (the caller's transaction) and raises :class:`Repeated`. An empty key claims
    nothing."""
    if not once:
        return
    if insert(ActionKey(encounter=viewer.encounter, key=once, entry=entry), unless_there=True):
        return
    raise Repeated(once)


def secret_for(viewer: Viewer, wanted: bool, *combatants: Combatant) -> bool:
    """Whether an entry is secret: when the referee asks, and always when a hidden combatant
    takes part (players must not learn of it from the log)."""
    return (viewer.is_referee and wanted) or any(c.hidden for c in combatants)


def kept_secret(viewer: Viewer, wanted: bool, *combatants: Combatant) -> bool:
    """:func:`secret_for`, said by the action about to roll: asked before its first die, so
    that a secret action's dice come from the secret stream (``combat.table.dice``)."""
    secret = secret_for(viewer, wanted, *combatants)
    if secret:
        dice.secret_action()
    return secret


def _public_outcome(viewer: Viewer, effects: Sequence[dict[str, int]]) -> list[Shown]:
    """What players may learn of a secret entry: the hit points it changed where they see
    them (their side's, or foes' when the referee shows those), without the cause."""
    encounter = viewer.encounter
    shown = []
    for effect in effects:
        combatant = Combatant.objects.filter(pk=effect["combatant"], encounter=encounter).first()
        if combatant is None or combatant.hidden or not effect["hp"]:
            continue
        if combatant.side != Side.PARTY and not encounter.show_foe_hp:
            continue
        before = combatant.hp - effect["hp"]
        shown.append(
            Shown(
                who=combatant.name,
                hp=effect["hp"],
                amount=abs(effect["hp"]),
                killed=before > 0 >= combatant.hp,
                revived=before <= 0 < combatant.hp,
            )
        )
    return shown


def record(
    viewer: Viewer,
    kind: str,
    data: Payload,
    *,
    secret: bool = False,
    effects: Sequence[dict[str, int]] = (),
    undoes: LogEntry | None = None,
    once: str = "",
    names: Iterable[Combatant] = (),
    roll: dice.ServerRoll | None = None,
    proof: dict[str, Any] | None = None,
) -> LogEntry:
    """Write ``data`` (its kind's payload: ``combat.payloads``) as the encounter's next log
    entry and announce it after commit.

    The entry takes the encounter's next sequence number (and its next public one unless it
    is secret, or a secret whose ``effects`` players may see: the payload's ``public``), claims
    ``once`` for itself (:class:`Repeated` if it was claimed before: the caller's
    transaction then rolls back), and is announced once the transaction commits.
    ``effects``: the hit points it changed, ``{"combatant": pk, "hp": change}`` each (and
    more, e.g. ``"zones"``), which an undo reverses. ``names``: the combatants ``data`` names
    besides the entry's actor and target (whose being hidden makes the whole entry
    ``secret``): those hidden now are left out of what players read of it
    (``combat.unseen``). The server dice drawn since the action's last entry are its
    ``proof`` (``combat.table.dice``), or ``roll``'s: dice drawn earlier for it; or ``proof``
    itself (a secret roll shown to players carries the secret one's)."""
    encounter = viewer.encounter
    if not isinstance(data, Payload):
        raise TypeError(f"a {kind} entry is written as its payload, not {type(data).__name__}")
    stored = unseen.stamped(data.to_json(), names)
    if secret:
        public = _public_outcome(viewer, effects)
        if public:
            stored["public"] = to_json(public)
    entry = LogEntry(
        encounter=encounter,
        kind=kind,
        actor=viewer.actor_name,
        by_referee=viewer.is_referee,
        seat=viewer.seat,
        secret=secret,
        data=stored,
        effects=list(effects),
        proof=dice.taken(secret, roll) if proof is None else proof,
        undoes=undoes,
    )
    public = not secret or "public" in stored
    connection = connections[router.db_for_write(LogEntry)]
    if connection.vendor == "postgresql":
        _numbered_together(connection, entry, public, once)
    else:
        entry.seq = encounter.bump(public=public)
        entry.public_seq = encounter.public_seq if public else None
        insert(entry)
        claim(viewer, once, entry)
    entry.undo_seq = None  # nothing has undone it yet: no query to ask (LogEntry.undone_seq)
    announce(encounter)
    return entry


def _numbered_together(connection: Any, entry: LogEntry, public: bool, once: str) -> None:
    """What :func:`record` does in three statements, in one: the encounter's numbers moved on
    (``Encounter.bump``), ``entry`` stored at them, and the one-time key ``once`` claimed
    for it (:func:`claim`), raising ``Repeated`` when it was claimed before. On PostgreSQL each
    statement is a wait for another process, and every change makes these three."""
    encounter = entry.encounter
    sql, entry_fields, key_fields = _numbered_sql(connection, public, bool(once))
    params: list[Any] = [int(public), encounter.pk]
    params += inserted_values(entry, entry_fields, connection)
    if once:
        key = ActionKey(encounter=encounter, key=once)
        params += inserted_values(key, key_fields, connection)
    # The table as this change leaves it, read in the same round trip, for the live table
    # to render the change from (``combat.live.state.keep_read``).
    live = hooks.announcer()
    since, ahead = live.ahead(encounter)
    with connection.cursor() as cursor:
        row, read = run_then_read(cursor, sql, params, ahead, using=connection.alias)
    entry.pk, entry.seq, entry.public_seq, public_seq, claimed = row
    entry._state.adding, entry._state.db = False, connection.alias
    encounter.moved_to(entry.seq, public_seq)
    if not claimed:
        raise Repeated(once)
    if read is not None:
        live.keep(connection, entry.seq, since, read)


# The statement of ``_numbered_together``, by (public, with a key), and the fields whose
# values it takes: the entry's, then the key's.
_NUMBERED: dict[tuple[bool, bool], tuple[str, list[Any], list[Any]]] = {}


def _numbered_sql(connection: Any, public: bool, claims: bool) -> tuple[str, list[Any], list[Any]]:
    found = _NUMBERED.get((public, claims))
    if found is not None:
        return found
    quote = connection.ops.quote_name
    seq, public_seq, pk = quote("seq"), quote("public_seq"), quote("id")
    moved = bump_returning(connection)  # Encounter.bump's own statement
    assert moved is not None  # (PostgreSQL returns what it writes)
    at = {"seq": f"(SELECT {seq} FROM moved)"}
    at["public_seq"] = f"(SELECT {public_seq} FROM moved)" if public else "NULL"
    entry_sql, entry_fields = insert_statement(connection, LogEntry, at)
    sql = f"WITH moved AS ({moved}), entry AS ({entry_sql} RETURNING {pk}, {seq}, {public_seq})"
    key_fields: list[Any] = []
    claimed = "TRUE"
    if claims:
        key_sql, key_fields = insert_statement(
            connection, ActionKey, {"entry_id": f"(SELECT {pk} FROM entry)"}
        )
        sql += f", claimed AS ({key_sql} ON CONFLICT DO NOTHING RETURNING 1)"
        claimed = "EXISTS (SELECT 1 FROM claimed)"
    sql += f" SELECT {pk}, {seq}, {public_seq}, (SELECT {public_seq} FROM moved), {claimed}"
    sql += " FROM entry"
    found = _NUMBERED[public, claims] = (sql, entry_fields, key_fields)
    return found


def announce(encounter: Encounter) -> None:
    """Announce ``encounter``'s change at its current number once the current transaction
    commits (nothing, if it rolls back), through the live table's hook (``hooks.Announcer``).
    Outside a transaction, at once."""
    committed = hooks.announcer().committed
    pk, seq, group = encounter.pk, encounter.seq, encounter.group_name
    transaction.on_commit(lambda: committed(pk, seq, group))


def touch(viewer: Viewer, once: str = "") -> None:
    """Announce a change that writes no log entry (a combatant added, a seat joined): its
    one-time key claimed, the encounter's number moved on, announced after commit."""
    claim(viewer, once)
    viewer.encounter.bump()
    announce(viewer.encounter)
