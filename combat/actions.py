"""What happens when someone acts: ask the rules, store the outcome, announce it.

Each function runs in one transaction: it locks the combatants it changes (row locks on
PostgreSQL; the IMMEDIATE write lock on SQLite), applies what the rules decided, appends one
log entry under a new sequence number and announces the change after commit. On a copy of
the table as this process last rendered it, nothing is read again: the change finds the
number moved on by exactly one, or rolls back (``Encounter.moved_to``). The log entry's
``data`` is keys and numbers only, so each viewer reads it in their own language.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, connections, router, transaction
from django.db.models import Model, Q

from combat import classes, unseen
from combat.access import Viewer
from combat.db.prepared import (
    Prepared,
    insert,
    insert_statement,
    inserted_values,
    lock_later,
    read_together,
    run_then_read,
    save_fields,
)
from combat.errors import Refused
from combat.live.state import announce, keep_read, table_ahead
from combat.models import (
    HP_FLOOR,
    ActionKey,
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    EntryKind,
    HelplessRule,
    LogEntry,
    Side,
    bump_returning,
)
from rules import dice, ose
from rules.core import Modifier

logger = logging.getLogger(__name__)

RNG = secrets.SystemRandom()


class Repeated(Exception):
    """The action's one-time key was already used: nothing was applied this time."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def first_result(viewer: Viewer, key: str) -> tuple[bool, LogEntry | None]:
    """Whether ``key`` was already applied on this encounter, and the entry it made. A key no
    form could carry (too long, a NUL byte PostgreSQL refuses in text) was never applied:
    the form then says what is wrong with it."""
    if not key or len(key) > ActionKey._meta.get_field("key").max_length or "\x00" in key:
        return False, None
    found = next(iter(_KEY(viewer.encounter.pk, key)), None)
    return found is not None, found.entry if found else None


def _claim(viewer: Viewer, once: str, entry: LogEntry | None = None) -> None:
    """Record ``once`` in the current transaction; a key already used rolls the whole action
    back (the caller's transaction) and raises :class:`Repeated`."""
    if not once:
        return
    if insert(ActionKey(encounter=viewer.encounter, key=once, entry=entry), unless_there=True):
        return
    raise Repeated(once)


def _mods(modifiers: Sequence[Modifier]) -> list[list[Any]]:
    return [[m.value, m.reason] for m in modifiers]


# The queries every action asks, their SQL written once (combat.db.prepared).
_KEY = Prepared(lambda encounter, key: ActionKey.objects.filter(encounter=encounter, key=key))
_LOCKED = Prepared(
    lambda first, second, encounter: (
        Combatant.objects.select_for_update()
        .filter(Q(pk=first) | Q(pk=second), encounter=encounter)
        .order_by("pk")
    )
)
_RUNNING_KINDS = Prepared(
    lambda combatant: Condition.objects.filter(combatant=combatant).running().values_list("kind")
)
_RUNNING_KINDS_OF_TWO = Prepared(
    lambda first, second: (
        Condition.objects.filter(Q(combatant=first) | Q(combatant=second))
        .running()
        .values_list("combatant", "kind")
    )
)


def _locked(viewer: Viewer, combatant: Combatant) -> Combatant:
    return _locked_pair(viewer, combatant, combatant)[0]


def _locked_pair(
    viewer: Viewer, first: Combatant, second: Combatant
) -> tuple[Combatant, Combatant]:
    """Lock two combatants in id order, so two attacks in opposite directions at once never
    deadlock on PostgreSQL.

    On a copy of the table as this process last rendered it (``Encounter.moved_to``), the
    rows the request has are the stored ones, as the change's number will confirm: nothing
    is read, and the lock goes with the next statement (on PostgreSQL, one wait less)."""
    encounter = viewer.encounter
    if _taken_as_rendered(encounter, first, second):
        return first, second
    rows = {c.pk: c for c in _LOCKED(first.pk, second.pk, encounter.pk)}
    if first.pk not in rows or second.pk not in rows:
        raise Combatant.DoesNotExist
    for row in rows.values():
        Combatant.encounter.field.set_cached_value(row, encounter)
    return rows[first.pk], rows[second.pk]


def _taken_as_rendered(encounter: Encounter, first: Combatant, second: Combatant) -> bool:
    """Whether ``first`` and ``second`` are ``encounter``'s as this process last rendered
    it (its copy of the table, ``as_rendered``, until a bump confirms it): then what the
    request has is what is stored, and they are taken as they are, set up as ``_LOCKED``
    reads them. Their lock goes with the next statement: it is not needed to read them, but
    it keeps the order every change takes its locks in (combatants by id first, the
    encounter's number last), so that no two changes at once wait for each other."""
    if not encounter.as_rendered or any(
        row.encounter_id != encounter.pk or "_shown_conditions" not in row.__dict__
        for row in (first, second)
    ):
        return False
    for row in (first, second):
        Combatant.encounter.field.set_cached_value(row, encounter)
    lock_later(_LOCKED, first.pk, second.pk, encounter.pk, using=router.db_for_write(Combatant))
    return True


def _attack_pair(
    viewer: Viewer, attacker: Combatant, target: Combatant
) -> tuple[Combatant, Combatant]:
    """The attacker and its target locked (``_locked_pair``), each with the conditions in
    force on it, read in one query for both: an attack asks whether the one can act and
    whether the other is helpless (``_able``, ``_helpless``)."""
    if _taken_as_rendered(viewer.encounter, attacker, target):  # with the conditions rendered
        attacker.running_kinds = [c.kind for c in attacker.shown_conditions]
        target.running_kinds = [c.kind for c in target.shown_conditions]
        return attacker, target
    first, second, encounter = attacker.pk, target.pk, viewer.encounter.pk
    # (on PostgreSQL the lock and the read in one round trip, in this order)
    with read_together(
        (_LOCKED, (first, second, encounter)), (_RUNNING_KINDS_OF_TWO, (first, second))
    ):
        attacker, target = _locked_pair(viewer, attacker, target)
        running: dict[int, list[str]] = {attacker.pk: [], target.pk: []}
        for pk, kind in _RUNNING_KINDS_OF_TWO.rows(first, second):
            running[pk].append(kind)
    attacker.running_kinds, target.running_kinds = running[attacker.pk], running[target.pk]
    return attacker, target


def _public_outcome(viewer: Viewer, effects: Sequence[dict[str, int]]) -> list[dict[str, Any]]:
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
            {
                "who": combatant.name,
                "hp": effect["hp"],
                "amount": abs(effect["hp"]),
                "killed": before > 0 >= combatant.hp,
                "revived": before <= 0 < combatant.hp,
            }
        )
    return shown


def _record(
    viewer: Viewer,
    kind: str,
    data: dict[str, Any],
    *,
    secret: bool = False,
    effects: Sequence[dict[str, int]] = (),
    undoes: LogEntry | None = None,
    once: str = "",
    names: Iterable[Combatant] = (),
) -> LogEntry:
    """Write ``data`` as the encounter's next log entry and announce it after commit.

    ``names``: the combatants ``data`` names besides the entry's actor and target (whose
    being hidden makes the whole entry ``secret``): those hidden now are left out of what
    players read of it (``combat.unseen``)."""
    encounter = viewer.encounter
    data = unseen.stamped(data, names)
    if secret:
        public = _public_outcome(viewer, effects)
        if public:
            data = data | {"public": public}
    entry = LogEntry(
        encounter=encounter,
        kind=kind,
        actor=viewer.actor_name,
        by_referee=viewer.is_referee,
        seat=viewer.seat,
        secret=secret,
        data=data,
        effects=list(effects),
        undoes=undoes,
    )
    public = not secret or "public" in data
    connection = connections[router.db_for_write(LogEntry)]
    if connection.vendor == "postgresql":
        _numbered_together(connection, entry, public, once)
    else:
        entry.seq = encounter.bump(public=public)
        entry.public_seq = encounter.public_seq if public else None
        insert(entry)
        _claim(viewer, once, entry)
    entry.undo_seq = None  # nothing has undone it yet: no query to ask (LogEntry.undone_seq)
    announce(encounter)
    return entry


def _numbered_together(connection: Any, entry: LogEntry, public: bool, once: str) -> None:
    """What ``_record`` does in three statements, in one: the encounter's numbers moved on
    (``Encounter.bump``), ``entry`` stored at them, and the one-time key ``once`` claimed
    for it (``_claim``), raising ``Repeated`` when it was claimed before. On PostgreSQL each
    statement is a wait for another process, and every change makes these three."""
    encounter = entry.encounter
    sql, entry_fields, key_fields = _numbered_sql(connection, public, bool(once))
    params: list[Any] = [int(public), encounter.pk]
    params += inserted_values(entry, entry_fields, connection)
    if once:
        key = ActionKey(encounter=encounter, key=once)
        params += inserted_values(key, key_fields, connection)
    # The table as this change leaves it, read in the same round trip (``live.keep_read``).
    since, ahead = table_ahead(encounter)
    with connection.cursor() as cursor:
        row, read = run_then_read(cursor, sql, params, ahead, using=connection.alias)
    entry.pk, entry.seq, entry.public_seq, public_seq, claimed = row
    entry._state.adding, entry._state.db = False, connection.alias
    encounter.moved_to(entry.seq, public_seq)
    if not claimed:
        raise Repeated(once)
    if read is not None:
        keep_read(connection, entry.seq, since, read)


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


def touch(viewer: Viewer, once: str = "") -> None:
    """Announce a change that writes no log entry (a combatant added, a seat joined)."""
    _claim(viewer, once)
    viewer.encounter.bump()
    announce(viewer.encounter)


@transaction.atomic
def save_edit(viewer: Viewer, form: Any, row: Model, once: str = "") -> Model:
    """Write what an edit form (a ``MergingForm``) changed on ``row``, and nothing else.

    The row is locked and read again first, so a field someone else changed since the form
    was opened is never overwritten: the form records a conflict and nothing is written. A
    combatant's hit points change only as a logged correction. Returns the row as it is now.
    """
    current = type(row).objects.select_for_update().get(pk=row.pk)
    changes = form.changes(current)
    if form.conflicts:
        return current
    hp = changes.pop("hp", None) if isinstance(current, Combatant) else None
    from combat.systems import common as systems  # fixed from the first roll (checked again)

    if "system" in changes and systems.has_rolled(current):
        changes.pop("system")
    for name, value in changes.items():
        setattr(current, name, value)
    if changes:
        current.save(update_fields=list(changes))
        _sync_zones(viewer, current)
    if "system" in changes:
        systems.system_changed(current)
    if hp is not None:
        correct_hit_points(viewer, actor=current, hp=hp)
    touch(viewer, once or form.cleaned_data.get("once", ""))
    return current


def _sync_zones(viewer: Viewer, row: Model) -> None:
    """Hit locations turned on, or a body changed: the zone states follow (combat.zones)."""
    from combat import zones

    if isinstance(row, Combatant):
        zones.sync(row, viewer.encounter)
    elif row.pk == viewer.encounter.pk and getattr(row, "hit_locations", False):
        viewer.encounter.hit_locations = True
        zones.sync_all(row)


def _alive(combatant: Combatant) -> Combatant:
    """The dead do not act: refused with a message naming them."""
    if combatant.dead:
        raise Refused("dead_cannot_act", name=combatant.name)
    return combatant


def _secret(viewer: Viewer, wanted: bool, *combatants: Combatant) -> bool:
    """Secret when the referee asks, and always when a hidden combatant takes part: players
    must not learn of it from the log."""
    return (viewer.is_referee and wanted) or any(c.hidden for c in combatants)


def _set_hp(combatant: Combatant, hp: int) -> tuple[dict[str, int], bool]:
    """Store new hit points; the effect an undo reverses, and whether this change killed."""
    before = combatant.hp
    combatant.hp = max(hp, HP_FLOOR)
    save_fields(combatant, "hp")
    return {"combatant": combatant.pk, "hp": combatant.hp - before}, before > 0 >= combatant.hp


def _hurt(target: Combatant, amount: int) -> tuple[dict[str, int], bool]:
    return _set_hp(target, ose.apply_damage(target.hp, amount).after)


def _roll_data(result: Any, *, needed: int, success: bool, entered: bool) -> dict[str, Any]:
    return {
        "natural": result.natural,
        "entered": entered,  # typed in from a die rolled at the table, not the server's roll
        "mods": _mods(result.modifiers),
        "total": result.total,
        "needed": needed,
        "success": success,
    }


@transaction.atomic
def attack(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    mode: str,
    modifier: int,
    natural: int | None,
    damage: dice.DiceExpression | None,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
    direction: str | None = None,
    attacker_ft: Any = None,
    weapon_ft: Any = None,
    location: int | None = None,
    special: str = "",
    hold_round: int | None = None,
    escape: int | None = None,
    wound_dice: list[int] | None = None,
    posture: str = "",
    attack_name: str = "",  # a monster's attack from its button (combat.monsters)
) -> LogEntry:
    attacker, target = _attack_pair(viewer, actor, target)
    _armed(viewer, _able(_alive(attacker)))
    # Hit locations: where a hit lands (combat.zones); off, None and nothing changes.
    where = _where(viewer, attacker, direction, attacker_ft, weapon_ft, location)
    if where is not None:
        where["special"] = {"kind": special, "round": hold_round, "escape": escape}
        where["wound_dice"] = wound_dice
        where["roll"]["posture"] = posture
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    if helpless_outcome(viewer.encounter, target):
        return _attack_helpless(
            viewer, attacker, target, mode, damage, damage_dice, secret, once, where, attack_name
        )
    modifiers = ose.attack_modifiers(
        mode, strength=attacker.str_score, dexterity=attacker.dex_score, situational=modifier
    )
    result = ose.resolve_attack(
        thac0=attacker.thac0,
        target_ac=target.ac,
        method=viewer.encounter.attack_method,
        modifiers=modifiers,
        rng=RNG,
        natural=natural,
    )
    data: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "mode": mode,
        "method": viewer.encounter.attack_method,
        "roll": _roll_data(
            result, needed=result.needed, success=result.hit, entered=natural is not None
        )
        | {"hit_ac": result.hit_ac},
        "damage": None,
        "attack_name": attack_name,
    }
    effects = []
    if result.hit and damage is not None:
        effects.append(_deal_damage(attacker, target, mode, damage, damage_dice, data, where))
    return _record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=_secret(viewer, secret, attacker, target),
        effects=effects,
        once=once,
    )


def _active_conditions(combatant: Combatant) -> list[str]:
    known = getattr(combatant, "running_kinds", None)  # read with its attacker or target
    if known is not None:
        return known
    return [kind for (kind,) in _RUNNING_KINDS.rows(combatant.pk)]


def _able(combatant: Combatant) -> Combatant:
    """Paralysed, asleep or held: no attack, check or rest until it ends."""
    from rules.rounds import PREVENTS_ACTION

    for kind in _active_conditions(combatant):
        if kind in PREVENTS_ACTION:
            raise Refused(
                "cannot_act_now", name=combatant.name, condition=ConditionKind(kind).label
            )
    return combatant


def _armed(viewer: Viewer, attacker: Combatant) -> Combatant:
    """Hit locations: wounds that leave their bearer unable to attack (a reptile in its death
    throes, a swallowed or seized victim's state as the engine says) refuse its attacks."""
    from combat.zones import state_of
    from rules.hit_location import Condition as ZoneCondition

    state = state_of(attacker) if viewer.encounter.hit_locations else None
    if state is not None and ZoneCondition.CANNOT_ATTACK in state.conditions:
        raise Refused("wounds_prevent_attack", name=attacker.name)
    return attacker


def _helpless(combatant: Combatant) -> bool:
    from rules.rounds import HELPLESS

    return any(kind in HELPLESS for kind in _active_conditions(combatant))


def helpless_outcome(encounter: Encounter, target: Combatant) -> str | None:
    """What an attack on ``target`` does without a roll: the table's helpless rule
    (``HelplessRule.HIT``, hit automatically, or ``SLAIN``, slain outright) while a
    condition leaves it helpless (paralysed, asleep, held), else None and the attack is
    rolled. Every system's attack and the odds shown before it ask this one question, so
    the preview never promises a roll the attack will not make."""
    return encounter.helpless_rule if _helpless(target) else None


def _attack_helpless(
    viewer: Viewer,
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression | None,
    damage_dice: list[int] | None,
    secret: bool,
    once: str,
    where: dict[str, Any] | None = None,
    attack_name: str = "",
) -> LogEntry:
    """A helpless target (paralysed, asleep, held) is hit without a roll, or slain outright,
    as the referee set the table's rule; the caller has asked :func:`helpless_outcome`."""
    rule = viewer.encounter.helpless_rule
    data: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "attack_name": attack_name,
        "mode": mode,
        "method": viewer.encounter.attack_method,
        "helpless": rule,
        "roll": None,
        "damage": None,
    }
    if rule == HelplessRule.SLAIN:
        effect, data["killed"] = _set_hp(target, min(target.hp, 0))
    else:
        effect, data["killed"] = {"combatant": target.pk, "hp": 0}, False
        if damage is not None:
            effect = _deal_damage(attacker, target, mode, damage, damage_dice, data, where)
    return _record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=_secret(viewer, secret, attacker, target),
        effects=[effect] if effect["hp"] else [],
        once=once,
    )


def _deal_damage(
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression,
    damage_dice: list[int] | None,
    data: dict[str, Any],
    where: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Roll a hit's damage and take it from ``target``; the roll and whether it killed go
    into the entry's ``data``. Returns the effect an undo reverses. With ``where`` (hit
    locations), the location is rolled first and the damage lands in that zone."""
    dealt = ose.resolve_damage(
        damage, mode, strength=attacker.str_score, rng=RNG, entered=damage_dice
    )
    data["damage"] = _damage_data(dealt, damage_dice)
    if where is not None:
        from combat import zones

        return zones.land(where, attacker, target, damage, dealt.total, data)
    effect, data["killed"] = _hurt(target, dealt.total)
    return effect


def _where(
    viewer: Viewer,
    attacker: Combatant,
    direction: str | None,
    attacker_ft: Any,
    weapon_ft: Any,
    location: int | None,
) -> dict[str, Any] | None:
    """How a hit is located when the encounter plays hit locations: the direction, the
    attacker's height and weapon (remembered on the attacker when the form changed them)
    and the d100 typed in, if any."""
    if not viewer.encounter.hit_locations:
        return None
    from combat import zones

    zones.remember(attacker, attacker_ft, weapon_ft)
    roll = {"direction": direction, "natural": location}
    return {"encounter": viewer.encounter, "roll": roll}


def _damage_data(dealt: Any, entered: list[int] | None) -> dict[str, Any]:
    return {
        "expr": dice.format_expression(dealt.roll.expression),
        "dice": list(dealt.roll.naturals),
        "entered": entered is not None,
        "rolled": dealt.roll.total,
        "mods": _mods(dealt.modifiers),
        "total": dealt.total,
    }


@transaction.atomic
def saving_throw(
    viewer: Viewer,
    *,
    actor: Combatant,
    category: str,
    modifier: int,
    natural: int | None,
    damage: int | None,
    secret: bool = False,
    once: str = "",
    magical: bool = False,
) -> LogEntry:
    actor = _alive(_locked(viewer, actor))
    modifiers = [Modifier(modifier, "situational")] if modifier else []
    # Against magic the stored WIS counts (combat.classes), as OSE's magic saves column says.
    wis = classes.magic_save_modifier(viewer.encounter.system, actor.wis_score) if magical else 0
    if wis:
        modifiers.insert(0, Modifier(wis, "wis"))
    result = ose.resolve_save(
        save_value=actor.save_value(category),
        category=category,
        modifiers=modifiers,
        rng=RNG,
        natural=natural,
        damage=damage,
    )
    data: dict[str, Any] = {
        "who": actor.name,
        "category": category,
        "roll": _roll_data(
            result, needed=result.needed, success=result.success, entered=natural is not None
        ),
        "damage": None,
    }
    effects = []
    if damage is not None:
        effect, data["killed"] = _hurt(actor, result.damage_taken)
        effects.append(effect)
        data["damage"] = {
            "amount": damage,
            "taken": result.damage_taken,
            "halved": result.damage_taken != damage,
        }
    return _record(
        viewer,
        EntryKind.SAVE,
        data,
        secret=_secret(viewer, secret, actor),
        effects=effects,
        once=once,
    )


@transaction.atomic
def ability_check(
    viewer: Viewer,
    *,
    actor: Combatant,
    ability: str,
    score: int,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    actor = _able(_alive(_locked(viewer, actor)))
    result = ose.resolve_ability_check(score=score, modifier=modifier, rng=RNG, natural=natural)
    data = {
        "who": actor.name,
        "ability": ability,
        "score": score,
        "roll": _roll_data(
            result, needed=score, success=result.success, entered=natural is not None
        ),
    }
    return _record(viewer, EntryKind.CHECK, data, secret=_secret(viewer, secret, actor), once=once)


@transaction.atomic
def change_hit_points(
    viewer: Viewer, *, actor: Combatant, action: str, amount: int, once: str = ""
) -> LogEntry:
    actor = _locked(viewer, actor)
    if action == "damage":
        if viewer.encounter.system == "dolmenwood" and actor.hp >= 0:
            amount = min(amount, actor.hp)  # Dolmenwood: hit points never drop below 0
        effect, killed = _hurt(actor, amount)
        kind = EntryKind.DAMAGE
    else:
        effect, killed = _set_hp(actor, ose.apply_healing(actor.hp, actor.hp_max, amount).after)
        kind = EntryKind.HEAL
    data = {
        "who": actor.name,
        # Players do not see a foe's numbers: how much of a healing took would tell them.
        "side": actor.side,
        "amount": amount,
        "applied": abs(effect["hp"]),
        "killed": killed,
    }
    return _record(
        viewer, kind, data, secret=_secret(viewer, False, actor), effects=[effect], once=once
    )


def correct_hit_points(viewer: Viewer, *, actor: Combatant, hp: int) -> LogEntry:
    """The referee sets hit points outright (an edit form): logged, and undoable, like any
    other change of hit points. Runs inside the caller's transaction, which holds the row."""
    before = actor.hp
    effect, killed = _set_hp(actor, hp)
    data = {
        "who": actor.name,
        "side": actor.side,
        "before": before,
        "after": actor.hp,
        "killed": killed,
        "revived": before <= 0 < actor.hp,
    }
    return _record(
        viewer, EntryKind.CORRECT, data, secret=_secret(viewer, False, actor), effects=[effect]
    )


@transaction.atomic
def rest(
    viewer: Viewer,
    *,
    actor: Combatant,
    days: int,
    interrupted: int,
    day_dice: list[int] | None,
    once: str = "",
) -> LogEntry:
    actor = _alive(_locked(viewer, actor))
    # Full days first; which of the days were interrupted does not change the sum.
    schedule = [True] * (days - interrupted) + [False] * interrupted
    result = ose.natural_healing(
        schedule, rng=RNG, naturals=day_dice, current_hp=actor.hp, max_hp=actor.hp_max
    )
    effect, _killed = _set_hp(actor, result.hp.after)
    data = {
        "who": actor.name,
        "days": days,
        "interrupted": interrupted,
        "dice": [n for n in result.naturals if n is not None],
        "entered": day_dice is not None,
        "healed": effect["hp"],
    }
    return _record(
        viewer,
        EntryKind.REST,
        data,
        secret=_secret(viewer, False, actor),
        effects=[effect],
        once=once,
    )


@transaction.atomic
def free_roll(
    viewer: Viewer,
    *,
    expression: dice.DiceExpression,
    label: str,
    entered: list[int] | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    rolled = dice.roll(expression, rng=RNG, entered=entered)
    data = {
        "expr": dice.format_expression(rolled.expression),
        "dice": list(rolled.naturals),
        "entered": entered is not None,
        "total": rolled.total,
        "label": label,
    }
    return _record(viewer, EntryKind.ROLL, data, secret=_secret(viewer, secret), once=once)


def _undo_round(viewer: Viewer, entry: LogEntry) -> None:
    """What an entry of the round's course changed besides hit points, put back."""
    from combat import rounds

    if entry.kind in rounds.COURSE:
        rounds.undo_course(rounds.locked_encounter(viewer), entry)
    elif entry.kind == EntryKind.MORALE:
        rounds.undo_morale(rounds.locked_encounter(viewer), entry)
    elif entry.kind == EntryKind.CONDITION:
        rounds.undo_condition(entry)


class AlreadyUndone(Exception):
    """The entry was undone before (the undo that did it is ``undo``), or is itself an undo."""

    def __init__(self, undo: LogEntry | None = None) -> None:
        super().__init__()
        self.undo = undo


def undo(viewer: Viewer, entry: LogEntry) -> LogEntry:
    """A new entry that reverses ``entry``'s hit-point changes; the original stays. Each entry
    is undone at most once, however many taps or requests ask for it at once."""
    try:
        return _undo(viewer, entry)
    except IntegrityError:  # another request undid it between our check and our write
        raise AlreadyUndone(LogEntry.objects.filter(undoes=entry).first()) from None


@transaction.atomic
def _undo(viewer: Viewer, entry: LogEntry) -> LogEntry:
    entry = LogEntry.objects.select_for_update().get(pk=entry.pk, encounter=viewer.encounter)
    if entry.kind == EntryKind.UNDO:
        raise AlreadyUndone
    done = LogEntry.objects.filter(undoes=entry).first()
    if done is not None:
        raise AlreadyUndone(done)
    try:
        reversed_effects, revived = _put_back(viewer, entry)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        # Stored data this code cannot read (written by hand, or by a version that wrote it
        # otherwise): nothing is put back (the transaction rolls back), and the referee is
        # told why rather than shown a server error.
        logger.warning("entry #%s cannot be undone: its data cannot be read", entry.seq)
        raise Refused("entry_unreadable") from None
    data = {
        "entry_seq": entry.seq,
        "entry_public_seq": entry.public_seq,
        "entry_kind": entry.kind,
        "revived": [c.name for c in revived],
    }
    return _record(
        viewer,
        EntryKind.UNDO,
        data,
        secret=entry.secret,
        effects=reversed_effects,
        undoes=entry,
        names=revived,
    )


def _put_back(viewer: Viewer, entry: LogEntry) -> tuple[list[dict[str, int]], list[Combatant]]:
    """What ``entry`` changed, put back: the effects that reverse its hit points, and who
    they brought back to life."""
    _undo_round(viewer, entry)
    if entry.data.get("restore"):  # BECMI: a knock-out, a hold, a ship's state
        from combat.systems.becmi import special as becmi_special

        becmi_special.undo(viewer, entry)
    reversed_effects = []
    revived = []
    rows = Combatant.objects.select_for_update().filter(encounter=viewer.encounter)
    for effect in entry.effects:
        combatant = rows.filter(pk=effect["combatant"]).first()
        if combatant is None:  # removed since: nothing left to reverse
            continue
        reversed_effect, _killed = _set_hp(combatant, combatant.hp - effect["hp"])
        if "zones" in effect:  # hit locations: the zones as they were (combat.zones)
            from combat import zones

            zones.undo_effect(combatant, effect)
        reversed_effects.append(reversed_effect)
        if combatant.hp > 0 >= combatant.hp - reversed_effect["hp"]:
            revived.append(combatant)
    return reversed_effects, revived
