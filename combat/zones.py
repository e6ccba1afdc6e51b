"""Hit locations at the table: a combatant's zone state stored, damaged, treated, healed and
ticked at the round's end. ``rules.hit_location`` decides; this stores, logs and undoes it.

A combatant's ``zones`` column holds its :class:`~rules.hit_location.ZoneState` as JSON (see
:func:`to_dict`), with the body plan's options, so that the state reads back without the
combatant's body fields (which the referee may change later: the state is then made anew).
Zone damage and the creature's hit points change together: the hit points lose what the
engine counts against the total (cumulative zones, bleeding), and a death the engine decides
(a head destroyed, a timer run out) takes them to 0 at most. Every change is one log entry
whose ``effects`` carry, beside the hit points, the state before and after (``"zones"``),
which is what an undo puts back.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction

from combat import registry, table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, Encounter, EntryKind, LogEntry
from combat.payloads import table as attacks
from combat.payloads import zones as entries
from rules import hit_location as hl
from rules.errors import RulesError
from rules.hit_location import BodyPlan, ZoneEffect, ZoneState

__all__ = [
    "DEFAULT_HEIGHT",
    "HIT_LOCATIONS",
    "cannot_attack",
    "damage_zone",
    "effect_data",
    "from_dict",
    "heal",
    "hit_zone",
    "plan_for",
    "plan_options",
    "revert",
    "state_of",
    "sync",
    "sync_all",
    "tick_round",
    "to_dict",
    "treat",
]

# Feet, for a body type chosen without a height (the referee corrects it per creature).
DEFAULT_HEIGHT = {
    "humanoid": Decimal(6),
    "bird": Decimal(3),
    "reptile": Decimal(6),
    "insectoid": Decimal(2),
    "fish": Decimal(3),
    "snake": Decimal(2),
}

# Which options each body type takes (``rules.hit_location.body_plan``).
WINGS_ALLOWED = {"humanoid": (0, 2), "reptile": (0, 2), "insectoid": (0, 4, 6)}
LEGS_ALLOWED = {"reptile": (2, 4), "insectoid": (6, 8, 10)}
TAIL_ALLOWED = ("humanoid",)


# --- the state as JSON -----------------------------------------------------------------------


def plan_options(combatant: Combatant) -> dict[str, Any]:
    """The ``body_plan`` arguments the combatant's body fields give."""
    body = combatant.body
    if body == "humanoid":
        return {"body": body, "tail": bool(combatant.tail), "wings": bool(combatant.wings)}
    if body == "reptile":
        return {"body": body, "wings": bool(combatant.wings), "legs": combatant.legs or 4}
    if body == "insectoid":
        wings = combatant.wings if combatant.wings in (4, 6) else False
        return {"body": body, "wings": wings, "legs": combatant.legs or 6}
    return {"body": body}


def _plan(options: dict[str, Any]) -> BodyPlan:
    options = dict(options)
    return hl.body_plan(options.pop("body"), **options)


def plan_for(combatant: Combatant) -> BodyPlan:
    return _plan(plan_options(combatant))


def to_dict(state: ZoneState, options: dict[str, Any]) -> dict[str, Any]:
    """The state as JSON keeps it: keys and numbers, sets as sorted lists."""
    return {
        "plan": dict(options),
        "keys": [z.value for z in state.plan.zone_keys],
        "max_hp": state.max_hp,
        "zone_max": list(state.zone_max),
        "damage": list(state.damage),
        "dex_loss": list(state.dex_loss),
        "tail_dex_loss": state.tail_dex_loss,
        "dex_halvings": state.dex_halvings,
        "treated": sorted(z.value for z in state.treated),
        "bleed_loss": state.bleed_loss,
        "conditions": sorted(c.value for c in state.conditions),
        "dead": state.dead,
        "death_cause": state.death_cause.value if state.death_cause else None,
        "dies_in": state.dies_in,
        "dying_cause": state.dying_cause.value if state.dying_cause else None,
        "writhing_rounds": state.writhing_rounds,
        "fired": sorted(state.fired),
    }


COUNT_LIMIT = 10**6  # hit points, rounds: far past any creature's


def _count(value: Any, limit: int = COUNT_LIMIT) -> int:
    """A stored count (hit points, damage, rounds, halvings), never negative: a document
    holding anything else is refused (``ValueError``), not drawn into a server error."""
    number = int(value)
    if not 0 <= number <= limit:
        raise ValueError(f"a count out of range: {number}")
    return number


def from_dict(data: dict[str, Any]) -> ZoneState:
    """The state :func:`to_dict` stored; a document that does not fit its plan is refused
    with ``ValueError``."""
    plan = _plan(data["plan"])
    keys = [z.value for z in plan.zone_keys]
    count = len(keys)
    if data.get("keys", keys) != keys or not all(
        len(data[name]) == count for name in ("zone_max", "damage", "dex_loss")
    ):
        raise ValueError("the stored zones do not fit the body plan")

    def cause(value: str | None) -> hl.DeathCause | None:
        return hl.DeathCause(value) if value else None

    dies_in = data.get("dies_in")
    return ZoneState(
        plan=plan,
        max_hp=_count(data["max_hp"]),
        zone_max=tuple(_count(n) for n in data["zone_max"]),
        damage=tuple(_count(n) for n in data["damage"]),
        dex_loss=tuple(_count(n) for n in data["dex_loss"]),
        tail_dex_loss=_count(data.get("tail_dex_loss", 0)),
        dex_halvings=_count(data.get("dex_halvings", 0), count),  # once per limb lost
        treated=frozenset(hl.Zone(z) for z in data.get("treated", ())),
        bleed_loss=_count(data.get("bleed_loss", 0)),
        conditions=frozenset(hl.Condition(c) for c in data.get("conditions", ())),
        dead=bool(data.get("dead", False)),
        death_cause=cause(data.get("death_cause")),
        dies_in=None if dies_in is None else _count(dies_in),
        dying_cause=cause(data.get("dying_cause")),
        writhing_rounds=_count(data.get("writhing_rounds", 0)),
        fired=frozenset(data.get("fired", ())),
    )


def state_of(combatant: Combatant) -> ZoneState | None:
    """The combatant's zone state, None when it has none (hit locations never on for it)."""
    return from_dict(combatant.zones) if combatant.zones else None


def _fresh(combatant: Combatant) -> dict[str, Any]:
    options = plan_options(combatant)
    return to_dict(hl.new_zone_state(_plan(options), combatant.hp_max), options)


def cannot_attack(combatant: Combatant) -> bool:
    """Whether the combatant's wounds leave it unable to attack (a reptile in its death
    throes, a swallowed or seized victim's state as the engine says)."""
    state = state_of(combatant)
    return state is not None and hl.Condition.CANNOT_ATTACK in state.conditions


def sync(combatant: Combatant, encounter: Encounter) -> bool:
    """Give the combatant the zone state its body calls for, when the encounter plays hit
    locations: a new one if it has none, or if its body (or, unhurt, its hit points) changed.
    Returns whether it changed (and saved) anything."""
    if not encounter.hit_locations:
        return False
    current = combatant.zones or {}
    unhurt = not any(current.get("damage", ())) and not current.get("bleed_loss")
    same_body = current.get("plan") == plan_options(combatant)
    if current and same_body and (current.get("max_hp") == combatant.hp_max or not unhurt):
        return False
    combatant.zones = _fresh(combatant)
    combatant.save(update_fields=["zones"])
    return True


def sync_all(encounter: Encounter) -> None:
    """Every combatant of the encounter with its zone state (hit locations turned on)."""
    for combatant in Combatant.objects.select_for_update().filter(encounter=encounter):
        sync(combatant, encounter)


# --- what a change stores ----------------------------------------------------------------------


def effect_data(effect: ZoneEffect, typed: bool | None = None) -> entries.ZoneEffect:
    """One effect the engine returned, as the log keeps it (keys and numbers:
    ``combat.payloads.zones.ZoneEffect``); ``typed``: whether its dice were typed in from the
    table (None: no dice)."""
    roll = None
    if effect.roll is not None:
        spec = effect.roll.spec
        roll = entries.ZoneRoll(
            purpose=effect.roll.purpose,
            count=spec.count,
            sides=spec.sides,
            bias=spec.bias,
            dice=list(effect.roll.naturals),
            total=effect.roll.total,
            entered=bool(typed),
        )
    return entries.ZoneEffect(
        kind=effect.kind.value,
        zone=None if effect.zone is None else effect.zone.value,
        amount=effect.amount,
        cause=None if effect.cause is None else effect.cause.value,
        condition=None if effect.condition is None else effect.condition.value,
        roll=roll,
    )


def _effects_data(effects: tuple[ZoneEffect, ...], typed: int = 0) -> list[entries.ZoneEffect]:
    """The effects as data; the first ``typed`` dice they rolled were typed in (the engine
    reads entered dice first, in order)."""
    out = []
    for effect in effects:
        count = len(effect.roll.naturals) if effect.roll else 0
        out.append(effect_data(effect, typed >= count if count else None))
        typed = max(0, typed - count)
    return out


@dataclass(frozen=True)
class Change:
    """A zone change applied to a combatant: what the log and the undo keep."""

    effect: dict[str, Any]  # the entry's effect: hit points and the zones before and after
    effects: list[entries.ZoneEffect]  # the engine's effects, as the log keeps them
    killed: bool


def _commit(
    combatant: Combatant,
    before: ZoneState,
    after: ZoneState,
    effects: tuple[ZoneEffect, ...],
    typed: int = 0,
    floor: bool = False,
) -> Change:
    """Store ``after`` on the (locked) combatant and move its hit points with it (never below
    0 with ``floor``: some systems' hit points stop there)."""
    stored = combatant.zones
    change = before.total_damage - after.total_damage  # below 0: hurt
    hp = combatant.hp + change
    if change > 0:  # healing never lifts hit points above the maximum
        hp = min(hp, max(combatant.hp, combatant.hp_max))
    if after.dead and not before.dead:
        hp = min(hp, 0)
    if floor:
        hp = max(hp, min(0, combatant.hp))
    combatant.zones = to_dict(after, stored["plan"])
    combatant.save(update_fields=["zones"])
    effect, killed = table.set_hp(combatant, hp)
    effect["zones"] = {"before": stored, "after": combatant.zones}
    return Change(effect, _effects_data(effects, typed), killed)


def _locked(viewer: Viewer, combatant: Combatant) -> Combatant:
    return Combatant.objects.select_for_update().get(pk=combatant.pk, encounter=viewer.encounter)


def _state(combatant: Combatant, encounter: Encounter) -> ZoneState:
    """The combatant's state; one without (added before the option was on) gets it now."""
    sync(combatant, encounter)
    state = state_of(combatant)
    if state is None:
        raise Refused("no_hit_locations")
    return state


def hit_zone(
    encounter: Encounter,
    target: Combatant,
    zone: str,
    amount: int,
    entered: list[int] | None = None,
) -> Change:
    """Damage to one zone of a locked target, inside the caller's transaction. Dice the
    wound calls for (a tail's DEX, death timers) are ``entered`` from the table first, in
    order, then the server's; more than it needs is the engine's error."""
    before = _state(target, encounter)
    after, effects = hl.apply_zone_damage(
        before, zone, amount, rng=table.RNG, entered=entered or ()
    )
    floor = registry.of(encounter).zero_floor
    return _commit(target, before, after, effects, len(entered or ()), floor=floor)


def remember(attacker: Combatant, height_ft: Any, weapon_ft: Any) -> None:
    """The attacker's height and weapon length as the attack form gave them, kept for its
    next attack (None: unchanged)."""
    changed = []
    for name, value in (("height_ft", height_ft), ("weapon_ft", weapon_ft)):
        if value is not None and Decimal(value) != getattr(attacker, name):
            setattr(attacker, name, Decimal(value))
            changed.append(name)
    if changed:
        attacker.save(update_fields=changed)


def feet(value: Decimal) -> str:
    """6, 5.5, 10: a length as the log keeps it, without trailing zeros."""
    return format(Decimal(value).normalize(), "f")


def default_direction(plan: BodyPlan) -> str:
    """The direction an attack comes from when none is given (a group attack): the front
    when the body has one."""
    directions = plan.directions
    return "front" if hl.Direction.FRONT in directions else directions[0].value


# A body's posture of the moment: which ``body_plan`` variant it is attacked in.
POSTURES = {
    "wings_folded": ("bird", {"wings_spread": False}),
    "upright": ("reptile", {"upright": True}),
    "coiled": ("snake", {"coiled": True}),
}


def postured(plan: BodyPlan, options: dict[str, Any], posture: str | None) -> BodyPlan:
    """The plan as the body stands now (a bird's wings folded, a reptile upright, a snake
    coiled): the same zones, reached from other directions. A posture the body type does
    not have is the engine's ``variant_not_available``."""
    if not posture:
        return plan
    if posture not in POSTURES:
        raise RulesError("variant_not_available", "no such posture", variant=str(posture))
    return _plan({**options, **POSTURES[posture][1]})


def locate(
    encounter: Encounter,
    attacker: Combatant,
    target: Combatant,
    *,
    direction: str | None,
    natural: int | None,
    posture: str | None = None,
) -> entries.Location:
    """Where a hit lands: the height band of the attacker (with its weapon) against the
    target, then the d100 (typed in, or the server's) on the target's table from that
    direction, in the target's posture. Returned as the log keeps it."""
    state = _state(target, encounter)
    plan = postured(state.plan, target.zones["plan"], posture)
    direction = direction or default_direction(plan)
    band = hl.height_band_for(attacker.height_ft, target.height_ft, attacker.weapon_ft)
    roll = hl.roll_location(plan, direction, band.band, rng=table.RNG, entered=natural)
    return entries.Location(
        body=target.body,
        posture=posture or "",
        direction=direction,
        band=str(band.band),
        attacker_ft=feet(attacker.height_ft),
        weapon_ft=feet(attacker.weapon_ft),
        defender_ft=feet(target.height_ft),
        natural=roll.natural,
        entered=natural is not None,
        position=roll.position,
        zone=roll.zone.value,
    )


SPECIALS = ("constriction", "seize_and_tear", "swallow")


def land(
    where: dict[str, Any],
    attacker: Combatant,
    target: Combatant,
    damage: Any,
    rolled: int,
    data: attacks.Attack,
) -> dict[str, Any]:
    """A hit that lands (inside the attack's transaction): where (:func:`locate`), the damage
    in that zone with its effects, and a monster's special attack: constriction adds 3 after a
    hold's first round; seize-and-tear (natural 19+) kills; swallow (natural 18+) swallows,
    unless the d100 escape roll is 10 or less and the monster's damage is not 6-24. Returns
    the entry's effect; what happened is set on the attack's payload ``data``: its
    ``location``, ``special``, ``zone_damage``, ``zone_effects`` and ``killed``."""
    encounter = where["encounter"]
    location = locate(encounter, attacker, target, **where["roll"])
    special = where.get("special") or {}
    kind = special.get("kind") or ""
    total = rolled
    said = None
    if kind == "constriction":
        hold = hl.constriction_damage(special.get("round") or 1, rolled)
        total = hold.total
        said = entries.Special(kind=kind, round=hold.round_number, bonus=total - rolled)
    change = hit_zone(encounter, target, location.zone, total, where.get("wound_dice"))
    effect, killed = change.effect, change.killed
    if kind in ("seize_and_tear", "swallow") and data.roll:
        escape = special.get("escape")
        result = hl.resolve_special_attack(
            kind,
            True,
            natural=data.roll.natural,
            rng=table.RNG,
            escape_allowed=hl.swallow_escape_allowed(damage.minimum, damage.maximum),
            escape_natural=escape,
        )
        said = entries.Special(
            kind=kind,
            needed=result.needed,
            escape=result.escape_natural,
            escape_entered=escape is not None and result.escape_natural is not None,
            outcome=result.outcome.value,
        )
        if result.outcome is hl.SpecialOutcome.SEIZED_AND_TORN and target.hp > 0:
            torn, _killed = table.set_hp(target, min(target.hp, 0))
            effect["hp"] += torn["hp"]
            killed = True
    data.location, data.special, data.zone_damage = location, said, total
    data.zone_effects, data.killed = change.effects, killed
    return effect


def _entry_data(
    combatant: Combatant, event: str, zone: str, change: Change, **more: Any
) -> entries.ZoneChange:
    return entries.ZoneChange(
        event=event,
        who=combatant.name,
        side=combatant.side,
        body=combatant.body,
        zone=zone,
        effects=change.effects,
        killed=change.killed,
        **more,
    )


def _record_zone(
    viewer: Viewer, combatant: Combatant, data: entries.ZoneChange, change: Change, once: str
) -> LogEntry:
    return table.record(
        viewer,
        EntryKind.ZONE,
        data,
        secret=table.kept_secret(viewer, False, combatant),
        effects=[change.effect],
        once=once,
    )


@transaction.atomic
def damage_zone(
    viewer: Viewer,
    *,
    combatant: Combatant,
    zone: str,
    amount: int,
    label: str = "",
    wound_dice: list[int] | None = None,
    once: str = "",
) -> LogEntry:
    """The referee's damage to a zone (a fall, a trap, a spell)."""
    combatant = _locked(viewer, combatant)
    table.kept_secret(viewer, False, combatant)  # before any die is cast (its wound dice)
    change = hit_zone(viewer.encounter, combatant, zone, amount, wound_dice)
    data = _entry_data(combatant, "damage", zone, change, amount=amount, label=label)
    return _record_zone(viewer, combatant, data, change, once)


@transaction.atomic
def treat(viewer: Viewer, *, combatant: Combatant, zone: str, once: str = "") -> LogEntry:
    """A severed limb's wound treated: it bleeds no more."""
    combatant = _locked(viewer, combatant)
    before = _state(combatant, viewer.encounter)
    after, effects = hl.treat_wound(before, zone)
    if not effects:
        raise Refused("nothing_to_treat", name=combatant.name)
    change = _commit(combatant, before, after, effects)
    return _record_zone(
        viewer, combatant, _entry_data(combatant, "treat", zone, change), change, once
    )


@transaction.atomic
def heal(
    viewer: Viewer, *, combatant: Combatant, zone: str, amount: int, once: str = ""
) -> LogEntry:
    """Damage healed in a zone (a lost zone stays lost); the creature's hit points with it."""
    combatant = _locked(viewer, combatant)
    before = _state(combatant, viewer.encounter)
    after, effects = hl.heal_zone(before, zone, amount)
    change = _commit(combatant, before, after, effects)
    data = _entry_data(combatant, "heal", zone, change, amount=amount)
    return _record_zone(viewer, combatant, data, change, once)


def tick_round(encounter: Encounter) -> tuple[list[dict], list[entries.ZoneTick]]:
    """The round's end for every body (inside the round's transaction): death and writhing
    timers count down, severed limbs bleed. Returns the entry's effects (for the undo) and
    what the log says, one item per combatant something happened to."""
    if not encounter.hit_locations:
        return [], []
    undo, said = [], []
    rows = Combatant.objects.select_for_update().filter(encounter=encounter).order_by("pk")
    for combatant in rows:
        before = state_of(combatant)
        if before is None:
            continue
        # A hidden combatant's dice are secret: the round's entry, which players read
        # without it, must not carry them (combat.table.dice).
        with table.secret_dice(combatant.hidden):
            after, effects = hl.end_round(before, rng=table.RNG)
        if after == before:
            continue
        change = _commit(combatant, before, after, effects, floor=registry.of(encounter).zero_floor)
        undo.append(change.effect)
        if change.effects or change.killed:
            said.append(
                entries.ZoneTick(
                    who=combatant.name,
                    side=combatant.side,
                    body=combatant.body,
                    hidden=combatant.hidden,
                    effects=change.effects,
                    killed=change.killed,
                )
            )
    return undo, said


# --- undo --------------------------------------------------------------------------------------

_SETS = ("treated", "conditions", "fired")
_STRUCTURE = ("plan", "keys", "zone_max", "max_hp")


def revert(current: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> dict:
    """``current`` without the change from ``before`` to ``after``: exactly ``before`` when
    nothing changed since; otherwise each field loses that change's part of it (damage, DEX,
    bleeding subtracted; sets without what it added, with what it took; flags and timers as
    they were). A body made anew since is left as it is."""
    if current == after:
        return before
    if any(current.get(k) != after.get(k) for k in _STRUCTURE):
        return current
    out = dict(current)
    for key in before.keys() | after.keys():
        b, a, c = before.get(key), after.get(key), current.get(key)
        if a == b:
            continue
        if key in _SETS:
            out[key] = sorted(
                (set(c or ()) - (set(a or ()) - set(b or ()))) | (set(b or ()) - set(a or ()))
            )
        elif isinstance(b, list) and isinstance(a, list) and isinstance(c, list):
            out[key] = [x - (y - z) for x, y, z in zip(c, a, b, strict=True)]
        elif _number(b) and _number(a) and _number(c):
            out[key] = c - (a - b)
        else:
            out[key] = b
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def undo_effect(combatant: Combatant, effect: dict[str, Any]) -> None:
    """The zones an entry changed, put back on the (locked) combatant (its hit points are
    the undo's own business)."""
    zones = effect.get("zones")
    if not zones or not combatant.zones:
        return
    combatant.zones = revert(combatant.zones, zones["before"], zones["after"])
    combatant.save(update_fields=["zones"])


# What the toolkit's attacks and undos ask of hit locations (``combat.table.hooks``;
# ``combat.apps`` plugs it in): this module builds on the toolkit, which never imports it.
HIT_LOCATIONS = table.HitLocations(
    cannot_attack=cannot_attack, remember=remember, land=land, put_back=undo_effect
)
