"""BECMI / Rules Cyclopedia's special actions at the table: unarmed striking, wrestling (a hold
between two combatants that lasts across rounds) and naval combat (ships as combatants whose
hit points are hull points: ramming, grappling, monster damage to hulls, repairs).

As ``combat.actions``: one transaction each, the rows locked, one log entry of keys and numbers
(``data["becmi"]`` names the action), announced after commit. What an entry changed besides hit
points (a knock-out, a hold, a ship's rowers and repairs) is in ``data["restore"]``, which
``undo`` puts back; hit points come back through the entry's effects as for any other entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db import transaction

from rules import becmi_naval as naval
from rules import becmi_striking as striking
from rules import becmi_wrestling as wrestling
from rules.becmi_hit import _adj
from rules.core import Modifier

from .access import Viewer
from .actions import RNG, _able, _alive, _hurt, _locked, _locked_pair, _mods, _record, _secret
from .errors import Refused
from .models import (
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    EntryKind,
    Hold,
    Kind,
    LogEntry,
    Wrestle,
)

DEFAULT_CON = 10  # a character whose CON is not given: the average score, no adjustment


def _situational(value: int) -> tuple[Modifier, ...]:
    return (Modifier(value, "situational"),) if value else ()


def _strength(combatant: Combatant) -> int | None:
    """The STR score whose adjustment counts: a monster's is its own strength (None: 0)."""
    return None if combatant.kind == Kind.MONSTER else combatant.str_score


def constitution(combatant: Combatant) -> int:
    """C for the stun roll: a monster's ``2 × HD``, a character's CON score."""
    if combatant.kind == Kind.MONSTER:
        return striking.monster_constitution(combatant.hit_dice or "1")
    return combatant.con_score or DEFAULT_CON


def hit_dice_of(combatant: Combatant) -> str | int:
    """Hit Dice as the seed counts helpers: a monster's own, a character's level."""
    if combatant.kind == Kind.MONSTER:
        return combatant.hit_dice or "1"
    return combatant.level or 1


def basic_ac(combatant: Combatant) -> int:
    """The armour's AC without DEX (magic is the referee's to take off): AC + DEX adj."""
    if combatant.kind == Kind.MONSTER:
        return combatant.ac
    return max(-50, min(50, combatant.ac + _adj(combatant.dex_score)))


def rating(combatant: Combatant, ac: int) -> int:
    """The wrestling rating: a monster's ``2 × HD + basic AC``, a character's by level."""
    if combatant.kind == Kind.MONSTER:
        return wrestling.monster_wrestling_rating(combatant.hit_dice or "1", ac)
    level = combatant.level if combatant.level is not None else 1
    if combatant.kind == Kind.NORMAL_HUMAN:
        level = 0
    return wrestling.wrestling_rating(level, combatant.str_score, combatant.dex_score, ac)


def _hit_roll(attack: Any, entered: bool) -> dict[str, Any]:
    return {
        "natural": attack.natural,
        "entered": entered,
        "mods": _mods(attack.modifiers),
        "total": attack.total,
        "needed": attack.needed,
        "success": attack.hit,
    }


def _save_roll(save: Any, entered: bool) -> dict[str, Any]:
    return {
        "natural": save.natural,
        "entered": entered,
        "mods": _mods(save.modifiers),
        "total": save.total,
        "needed": save.target,
        "success": save.saved,
    }


# --- unarmed striking --------------------------------------------------------------------------


def strike_inputs(
    attacker: Combatant,
    target: Combatant,
    *,
    haymaker: bool,
    modifier: int,
    sizes: tuple[Any, Any] = (None, None),
) -> dict[str, Any]:
    """What ``rules.becmi_striking`` needs of the two, for the roll and for its odds alike;
    ``sizes`` the two heights given in the form (None: each one's stored height)."""
    attacker_ft, defender_ft = sizes
    return {
        "defender_con": constitution(target),
        "defender_save": target.save_death,
        "attacker_str": _strength(attacker),
        "haymaker": haymaker,
        "attacker_size": float(attacker_ft or attacker.height_ft),
        "defender_size": float(defender_ft or target.height_ft),
        "modifiers": _situational(modifier),
    }


def strike_odds(
    attacker: Combatant,
    target: Combatant,
    *,
    haymaker: bool,
    modifier: int,
    sizes: tuple[Any, Any] = (None, None),
) -> striking.StrikeOdds:
    inputs = strike_inputs(attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes)
    return striking.strike_odds(attacker.thac0, target.ac, **inputs)


@transaction.atomic
def strike(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    blow: str,
    haymaker: bool,
    pulled: bool,
    modifier: int,
    natural: int | None,
    stun_natural: int | None,
    save_natural: int | None,
    attacker_ft: Any = None,
    defender_ft: Any = None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """A punch or a kick: the hit roll, then on a hit ``1 + STR adj`` damage (0 pulled), the
    stun roll and, if stunned, the save vs Death Ray; a failed save knocks out for t rounds."""
    attacker, target = _locked_pair(viewer, actor, target)
    _able(_alive(attacker))
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    sizes = (attacker_ft, defender_ft)
    inputs = strike_inputs(attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes)
    result = striking.resolve_strike(
        attacker.thac0,
        target.ac,
        pulled=pulled,
        rng=RNG,
        natural=natural,
        stun_natural=stun_natural,
        save_natural=save_natural,
        **inputs,
    )
    data: dict[str, Any] = {
        "becmi": "strike",
        "attacker": attacker.name,
        "target": target.name,
        "blow": blow,
        "haymaker": result.haymaker,
        "pulled": result.pulled,
        "outcome": str(result.outcome),
        "roll": _hit_roll(result.attack, natural is not None),
        "damage": result.damage if result.attack.hit else None,
        "con": result.defender_con,
        "stun": None,
        "save": None,
        "knockout_rounds": result.knockout_rounds,
        "killed": False,
    }
    if result.stun_natural is not None:
        data["stun"] = {
            "natural": result.stun_natural,
            "entered": stun_natural is not None,
            "t": result.t,
        }
    if result.save is not None:
        data["save"] = _save_roll(result.save, save_natural is not None)
    effects = []
    if result.attack.hit and result.damage:
        effect, data["killed"] = _hurt(target, result.damage)
        effects.append(effect)
    if result.knocked_out and not target.dead:
        condition = Condition.objects.create(
            combatant=target, kind=ConditionKind.KNOCKED_OUT, rounds_left=result.knockout_rounds
        )
        data["restore"] = {"conditions": [condition.pk]}
    return _record(
        viewer,
        EntryKind.STRIKE,
        data,
        secret=_secret(viewer, secret, attacker, target),
        effects=effects,
        once=once,
    )


# --- wrestling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One side of a hold as the round sees it: its wrestler's WR and the helpers' bonus."""

    rating: int
    helpers: tuple[Modifier, ...]


def _helpers(ids: list[int], opponent: Combatant, by_pk: dict[int, Combatant]) -> tuple:
    living = [by_pk[pk] for pk in ids if pk in by_pk and not by_pk[pk].dead]
    return wrestling.helper_modifiers([hit_dice_of(c) for c in living], hit_dice_of(opponent))


def sides_of(
    attacker: Combatant,
    defender: Combatant,
    *,
    attacker_ac: int,
    defender_ac: int,
    attacker_helpers: list[int],
    defender_helpers: list[int],
    by_pk: dict[int, Combatant],
) -> tuple[Side, Side]:
    return (
        Side(rating(attacker, attacker_ac), _helpers(attacker_helpers, defender, by_pk)),
        Side(rating(defender, defender_ac), _helpers(defender_helpers, attacker, by_pk)),
    )


def round_odds(
    hold: str, attacker: Side, defender: Side, penalty: int = wrestling.PINNED_PENALTY
) -> dict[Hold, Fraction]:
    """Each hold's chance after one round from ``hold``."""
    found = wrestling.wrestling_round_odds(
        hold,
        attacker.rating,
        defender.rating,
        attacker_modifiers=attacker.helpers,
        defender_modifiers=defender.helpers,
        pinned_penalty=penalty,
    )
    return {Hold(str(h)): p for h, p in found.items()}


def pin_chance(defender: Combatant) -> Fraction:
    """The chance a pinned defender fails its Death Ray save and is hurt."""
    return wrestling.pin_damage_chance(defender.save_death)


def _round(
    wrestle: Wrestle,
    attacker: Combatant,
    defender: Combatant,
    *,
    attacker_natural: int | None,
    defender_natural: int | None,
    save_natural: int | None,
    penalty: int = wrestling.PINNED_PENALTY,
) -> tuple[wrestling.WrestlingRound, dict[str, Any]]:
    by_pk = {c.pk: c for c in wrestle.encounter.combatants.all()}
    a_side, d_side = sides_of(
        attacker,
        defender,
        attacker_ac=wrestle.attacker_ac,
        defender_ac=wrestle.defender_ac,
        attacker_helpers=wrestle.attacker_helpers,
        defender_helpers=wrestle.defender_helpers,
        by_pk=by_pk,
    )
    result = wrestling.resolve_wrestling_round(
        wrestle.hold,
        a_side.rating,
        d_side.rating,
        defender_save=defender.save_death,
        attacker_modifiers=a_side.helpers,
        defender_modifiers=d_side.helpers,
        pinner_str=_strength(attacker),
        pinned_penalty=penalty,
        rng=RNG,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=save_natural,
    )
    data: dict[str, Any] = {
        "becmi": "wrestle",
        "attacker": attacker.name,
        "defender": defender.name,
        "before": str(result.hold_before),
        "hold": str(result.hold),
        "winner": str(result.winner),
        "attacker_roll": {
            "natural": result.attacker_natural,
            "entered": attacker_natural is not None,
            "mods": _mods(result.attacker_modifiers),
            "total": result.attacker_total,
        },
        "defender_roll": {
            "natural": result.defender_natural,
            "entered": defender_natural is not None,
            "mods": _mods(result.defender_modifiers),
            "total": result.defender_total,
        },
        "save": _save_roll(result.pin_save, save_natural is not None) if result.pin_save else None,
        "damage": result.damage,
        "killed": False,
    }
    return result, data


def _wrestle_effects(
    result: wrestling.WrestlingRound, defender: Combatant, data: dict[str, Any]
) -> list[dict[str, int]]:
    if not result.damage:
        return []
    effect, data["killed"] = _hurt(defender, result.damage)
    return [effect]


def _state(wrestle: Wrestle) -> dict[str, Any]:
    return {"hold": wrestle.hold, "ended": wrestle.ended, "rounds": wrestle.rounds}


def _save_wrestle(wrestle: Wrestle, hold: str, *, ended: bool) -> None:
    wrestle.hold, wrestle.ended = hold, ended
    wrestle.rounds += 1
    wrestle.save(update_fields=["hold", "ended", "rounds"])


def active_between(encounter: Encounter, first: Combatant, second: Combatant) -> bool:
    pair = {first.pk, second.pk}
    return any(
        {w.attacker_id, w.defender_id} == pair
        for w in Wrestle.objects.filter(encounter=encounter, ended=False)
    )


@transaction.atomic
def start_wrestle(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    attacker_helpers: list[Combatant],
    defender_helpers: list[Combatant],
    attacker_ac: int,
    defender_ac: int,
    attacker_natural: int | None,
    defender_natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """The first round: a grab from free. Won, the two are wrestling (grabbed); lost or tied,
    the grab failed and nothing holds."""
    attacker, defender = _locked_pair(viewer, actor, target)
    _able(_alive(attacker))
    if defender.dead:
        raise Refused("target_is_dead", name=defender.name)
    if active_between(viewer.encounter, attacker, defender):
        raise Refused("already_wrestling", name=defender.name)
    wrestle = Wrestle.objects.create(
        encounter=viewer.encounter,
        attacker=attacker,
        defender=defender,
        attacker_helpers=[c.pk for c in attacker_helpers],
        defender_helpers=[c.pk for c in defender_helpers],
        attacker_ac=attacker_ac,
        defender_ac=defender_ac,
        started_round=viewer.encounter.round,
    )
    result, data = _round(
        wrestle,
        attacker,
        defender,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=None,
    )
    data["start"] = True
    data["helpers"] = [c.name for c in attacker_helpers]
    data["defender_helpers"] = [c.name for c in defender_helpers]
    data["restore"] = {"wrestle": wrestle.pk, "state": _state(wrestle) | {"ended": True}}
    _save_wrestle(wrestle, str(result.hold), ended=result.hold == wrestling.Hold.FREE)
    return _record(
        viewer,
        EntryKind.WRESTLE,
        data,
        secret=_secret(viewer, secret, attacker, defender),
        once=once,
    )


def _locked_wrestle(viewer: Viewer, wrestle: Wrestle) -> Wrestle:
    found = (
        Wrestle.objects.select_for_update()
        .filter(pk=wrestle.pk, encounter=viewer.encounter)
        .first()
    )
    if found is None or found.ended:
        raise Refused("wrestle_over")
    return found


@transaction.atomic
def wrestle_round(
    viewer: Viewer,
    *,
    wrestle: Wrestle,
    attacker_natural: int | None,
    defender_natural: int | None,
    save_natural: int | None,
    penalty: int = wrestling.PINNED_PENALTY,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """One more round of a hold: the winner moves it a step (the attacker towards the pin,
    the defender back towards free); a pinned defender saves or takes ``1 + STR adj``."""
    wrestle = _locked_wrestle(viewer, wrestle)
    attacker, defender = _locked_pair(viewer, wrestle.attacker, wrestle.defender)
    if attacker.dead or defender.dead:  # the hold ended with the death (rows no longer show it)
        raise Refused("wrestle_over")
    before = _state(wrestle)
    result, data = _round(
        wrestle,
        attacker,
        defender,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=save_natural,
        penalty=penalty,
    )
    effects = _wrestle_effects(result, defender, data)
    broken = result.hold == wrestling.Hold.FREE
    data["broken"] = broken
    data["restore"] = {"wrestle": wrestle.pk, "state": before}
    _save_wrestle(wrestle, str(result.hold), ended=broken or defender.dead)
    return _record(
        viewer,
        EntryKind.WRESTLE,
        data,
        secret=_secret(viewer, secret, attacker, defender),
        effects=effects,
        once=once,
    )


@transaction.atomic
def end_wrestle(viewer: Viewer, *, wrestle: Wrestle, once: str = "") -> LogEntry:
    """The referee parts the two."""
    wrestle = _locked_wrestle(viewer, wrestle)
    before = _state(wrestle)
    wrestle.ended = True
    wrestle.save(update_fields=["ended"])
    data = {
        "becmi": "wrestle_end",
        "attacker": wrestle.attacker.name,
        "defender": wrestle.defender.name,
        "hold": wrestle.hold,
        "restore": {"wrestle": wrestle.pk, "state": before},
    }
    hidden = wrestle.attacker.hidden or wrestle.defender.hidden
    return _record(viewer, EntryKind.WRESTLE, data, secret=hidden, once=once)


# What each side may try next, by hold: the attacker's step forward, the defender's back.
ATTACKER_NEXT = {"free": "grab", "grabbed": "throw", "thrown": "pin", "pinned": "keep"}
DEFENDER_NEXT = {"grabbed": "break", "thrown": "rise", "pinned": "escape"}


@dataclass(frozen=True)
class HoldView:
    """A hold as one of its two combatants' rows says it."""

    wrestle: int
    role: str  # "attacker" or "defender"
    opponent: int
    opponent_name: str
    opponent_hidden: bool
    hold: str
    rounds: int

    @property
    def next(self) -> str:
        table = ATTACKER_NEXT if self.role == "attacker" else DEFENDER_NEXT
        return table.get(self.hold, "")

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            self.wrestle,
            self.role,
            self.opponent,
            self.opponent_name,
            self.opponent_hidden,
            self.hold,
        )


def holds_by_combatant(encounter: Encounter) -> dict[int, list[HoldView]]:
    """Every running hold of a BECMI encounter, by combatant: one query (none elsewhere)."""
    found: dict[int, list[HoldView]] = {}
    if encounter.system != "becmi":
        return found
    running = (
        Wrestle.objects.filter(
            encounter=encounter, ended=False, attacker__hp__gt=0, defender__hp__gt=0
        )
        .select_related("attacker", "defender")
        .order_by("pk")
    )
    for w in running:
        a, d = w.attacker, w.defender
        found.setdefault(a.pk, []).append(
            HoldView(w.pk, "attacker", d.pk, d.name, d.hidden, w.hold, w.rounds)
        )
        found.setdefault(d.pk, []).append(
            HoldView(w.pk, "defender", a.pk, a.name, a.hidden, w.hold, w.rounds)
        )
    return found


def holds_of(combatant: Combatant) -> list[HoldView]:
    return holds_by_combatant(combatant.encounter).get(combatant.pk, [])


# --- naval combat ------------------------------------------------------------------------------


def ship_of(combatant: Combatant) -> naval.Ship:
    """The engine's view of a ship: hull points are the combatant's hit points."""
    hull = max(combatant.hp_max, 1)
    damage = min(hull, max(0, hull - combatant.hp))
    rowers = combatant.rowers or 0
    return naval.Ship(
        hull_points=hull,
        damage=damage,
        rowers=rowers,
        rowers_lost=min(combatant.rowers_lost or 0, rowers),
        temporary_repairs=combatant.hull_repaired or 0,
    )


@dataclass(frozen=True)
class ShipView:
    """What a ship's card shows: hull, speed now and base, crew, and how it floats."""

    hull: int
    hull_max: int
    speed: int | None
    base_speed: int | None
    crew: int | None
    rowers: int
    rowers_lost: int
    status: str
    repaired: int


def ship_view(combatant: Combatant) -> ShipView:
    ship = ship_of(combatant)
    base = combatant.speed
    return ShipView(
        hull=max(combatant.hp, 0),
        hull_max=combatant.hp_max,
        speed=ship.speed(base) if base is not None else None,
        base_speed=base,
        crew=combatant.crew,
        rowers=ship.rowers,
        rowers_lost=ship.rowers_lost,
        status=str(ship.status),
        repaired=ship.temporary_repairs,
    )


def _ship(combatant: Combatant) -> Combatant:
    if combatant.kind != Kind.SHIP:
        raise Refused("not_a_ship", name=combatant.name)
    return combatant


def ram_target(target: Combatant) -> naval.RamTarget:
    return naval.RamTarget.SHIP if target.kind == Kind.SHIP else naval.RamTarget.CREATURE


def _ship_line(combatant: Combatant, before: ShipView | None = None) -> dict[str, Any]:
    after = ship_view(combatant)
    line = {"hull": after.hull, "hull_max": after.hull_max, "status": after.status}
    line["side"] = combatant.side
    line["speed"] = after.speed
    if before is not None:
        line["status_before"] = before.status
    return line


@transaction.atomic
def ram(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    vessel: str,
    modifier: int,
    natural: int | None,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """A galley rams a ship (hull points) or a creature (hit points): THAC0 19 to hit."""
    ship, target = _locked_pair(viewer, actor, target)
    _alive(_ship(ship))
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    kind = ram_target(target)
    result = naval.resolve_ram(
        vessel,
        kind,
        target.ac,
        modifiers=_situational(modifier),
        rng=RNG,
        natural=natural,
        damage_naturals=damage_dice,
    )
    before = ship_view(target) if target.kind == Kind.SHIP else None
    data: dict[str, Any] = {
        "becmi": "ram",
        "ship": ship.name,
        "target": target.name,
        "vessel": str(result.vessel),
        "against": str(result.target),
        "roll": _hit_roll(result.attack, natural is not None),
        "damage": None,
        "killed": False,
    }
    effects = []
    if result.attack.hit:
        data["damage"] = {
            "dice": list(result.damage_naturals),
            "entered": damage_dice is not None,
            "total": result.damage,
        }
        effect, data["killed"] = _hurt(target, result.damage)
        effects.append(effect)
        if before is not None:
            data["hull"] = _ship_line(target, before)
    return _record(
        viewer,
        EntryKind.NAVAL,
        data,
        secret=_secret(viewer, secret, ship, target),
        effects=effects,
        once=once,
    )


@transaction.atomic
def grapple(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    distance: int,
    mutual: bool,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """Grappling hooks thrown at 50 ft or less: 2 in 6, or by mutual agreement."""
    ship, target = _locked_pair(viewer, actor, target)
    _alive(_ship(ship))
    _ship(target)
    result = naval.resolve_grapple(distance, mutual=mutual, rng=RNG, natural=natural)
    data = {
        "becmi": "grapple",
        "ship": ship.name,
        "target": target.name,
        "distance": result.distance_ft,
        "mutual": result.mutual,
        "natural": result.natural,
        "entered": natural is not None and result.natural is not None,
        "outcome": str(result.outcome),
        "grappled": result.grappled,
    }
    return _record(
        viewer, EntryKind.NAVAL, data, secret=_secret(viewer, secret, ship, target), once=once
    )


@transaction.atomic
def hull_damage(viewer: Viewer, *, actor: Combatant, hit_points: int, once: str = "") -> LogEntry:
    """A magic or giant monster's damage to a hull: 1 hull point for each 5 hit points."""
    ship = _ship(_locked(viewer, actor))
    if ship.dead:
        raise Refused("target_is_dead", name=ship.name)
    before = ship_view(ship)
    hull = naval.hull_damage_from_hit_points(hit_points)
    data: dict[str, Any] = {
        "becmi": "hull_damage",
        "ship": ship.name,
        "hit_points": hit_points,
        "hull_damage": hull,
        "killed": False,
    }
    effects = []
    if hull:
        effect, data["killed"] = _hurt(ship, hull)
        effects.append(effect)
    data["hull"] = _ship_line(ship, before)
    return _record(viewer, EntryKind.NAVAL, data, secret=ship.hidden, effects=effects, once=once)


@transaction.atomic
def repair(
    viewer: Viewer,
    *,
    actor: Combatant,
    crew: int,
    turns: int,
    life_dice: list[int] | None,
    once: str = "",
) -> LogEntry:
    """Temporary repairs: five crew or more, 1 hull point a turn up to half the damage taken;
    they give way after 5d6 days (rolled now, said in the log)."""
    ship = _ship(_locked(viewer, actor))
    if ship.dead:
        raise Refused("ship_sunk")
    before = ship_of(ship)
    after = before.repair(crew, turns)
    life = naval.roll_repair_life(RNG, life_dice)
    repaired = before.damage - after.damage
    data: dict[str, Any] = {
        "becmi": "repair",
        "ship": ship.name,
        "crew": crew,
        "turns": turns,
        "repaired": repaired,
        "days": life.days,
        "dice": list(life.naturals),
        "entered": life_dice is not None,
        "restore": {"ship": ship.pk, "fields": {"hull_repaired": ship.hull_repaired}},
    }
    effects = []
    if repaired:
        effect, _killed = _heal(ship, repaired)
        effects.append(effect)
    ship.hull_repaired = after.temporary_repairs
    ship.save(update_fields=["hull_repaired"])
    data["hull"] = _ship_line(ship)
    return _record(viewer, EntryKind.NAVAL, data, secret=ship.hidden, effects=effects, once=once)


@transaction.atomic
def repairs_fail(viewer: Viewer, *, actor: Combatant, once: str = "") -> LogEntry:
    """The 5d6 days are up: every temporarily repaired hull point is damage again."""
    ship = _ship(_locked(viewer, actor))
    before = ship_view(ship)
    after = ship_of(ship).repairs_fail()
    lost = after.damage - ship_of(ship).damage
    data: dict[str, Any] = {
        "becmi": "repairs_fail",
        "ship": ship.name,
        "lost": lost,
        "killed": False,
        "restore": {"ship": ship.pk, "fields": {"hull_repaired": ship.hull_repaired}},
    }
    effects = []
    if lost:
        effect, data["killed"] = _hurt(ship, lost)
        effects.append(effect)
    ship.hull_repaired = 0
    ship.save(update_fields=["hull_repaired"])
    data["hull"] = _ship_line(ship, before)
    return _record(viewer, EntryKind.NAVAL, data, secret=ship.hidden, effects=effects, once=once)


def _heal(ship: Combatant, points: int) -> tuple[dict[str, int], bool]:
    from .actions import _set_hp

    return _set_hp(ship, min(ship.hp_max, ship.hp + points))


@transaction.atomic
def lose_rowers(viewer: Viewer, *, actor: Combatant, count: int, once: str = "") -> LogEntry:
    """Rowers lost: each full 10 % of them takes 10 % off the ship's speed."""
    ship = _ship(_locked(viewer, actor))
    before = ship_view(ship)
    after = ship_of(ship).lose_rowers(count)
    data = {
        "becmi": "rowers",
        "ship": ship.name,
        "count": count,
        "lost": after.rowers_lost,
        "rowers": after.rowers,
        "restore": {"ship": ship.pk, "fields": {"rowers_lost": ship.rowers_lost}},
    }
    ship.rowers_lost = after.rowers_lost
    ship.save(update_fields=["rowers_lost"])
    data["hull"] = _ship_line(ship, before)
    return _record(viewer, EntryKind.NAVAL, data, secret=ship.hidden, once=once)


def boarding_inputs(
    attacker: Combatant, *, boarding: bool, target_boarding: bool, modifier: int
) -> dict[str, Any]:
    """A melee hit roll in a boarding round: the boarder −2 to hit, its AC 2 worse."""
    from rules import ose

    return {
        "boarding": boarding,
        "target_boarding": target_boarding,
        "modifiers": ose.attack_modifiers(
            "melee", strength=attacker.str_score, dexterity=attacker.dex_score,
            situational=modifier,
        ),
    }  # fmt: skip


def boarding_odds(
    attacker: Combatant, target: Combatant, *, boarding: bool, target_boarding: bool, modifier: int
) -> Fraction:
    from rules import becmi_attack

    inputs = boarding_inputs(
        attacker, boarding=boarding, target_boarding=target_boarding, modifier=modifier
    )
    return becmi_attack.attack_odds(attacker.thac0, target.ac, **inputs)


@transaction.atomic
def board(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    boarding: bool,
    target_boarding: bool,
    modifier: int,
    natural: int | None,
    damage: Any,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """A blow in the boarding round: −2 to hit for the boarder, whose AC is 2 worse."""
    from rules import becmi_attack

    from .actions import _deal_damage

    attacker, target = _locked_pair(viewer, actor, target)
    _able(_alive(attacker))
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    inputs = boarding_inputs(
        attacker, boarding=boarding, target_boarding=target_boarding, modifier=modifier
    )
    result = becmi_attack.resolve_attack(
        attacker.thac0, target.ac, rng=RNG, natural=natural, **inputs
    )
    data: dict[str, Any] = {
        "becmi": "board",
        "attacker": attacker.name,
        "target": target.name,
        "boarding": boarding,
        "target_boarding": target_boarding,
        "ac": result.ac,
        "roll": _hit_roll(result, natural is not None),
        "damage": None,
        "killed": False,
    }
    effects = []
    if result.hit and damage is not None:
        effects.append(_deal_damage(attacker, target, "melee", damage, damage_dice, data))
    return _record(
        viewer,
        EntryKind.NAVAL,
        data,
        secret=_secret(viewer, secret, attacker, target),
        effects=effects,
        once=once,
    )


def ram_odds(target: Combatant, modifier: int) -> Fraction:
    return naval.ram_odds(target.ac, _situational(modifier))


def ram_damage_range(vessel: str, target: Combatant) -> tuple[int, int, Fraction]:
    spread = naval.ram_damage_distribution(vessel, ram_target(target))
    mean = sum(Fraction(v) * p for v, p in spread.items())
    return min(spread), max(spread), mean


# --- undo --------------------------------------------------------------------------------------


def undo(viewer: Viewer, entry: LogEntry) -> None:
    """Put back what ``entry`` changed besides hit points (inside the undo's transaction)."""
    restore = entry.data.get("restore") if isinstance(entry.data, dict) else None
    if not restore:
        return
    for pk in restore.get("conditions", []):
        Condition.objects.filter(pk=pk, combatant__encounter=viewer.encounter).update(rounds_left=0)
    if "wrestle" in restore:
        pk = restore["wrestle"]
        later = LogEntry.objects.filter(
            encounter=viewer.encounter,
            kind=EntryKind.WRESTLE,
            seq__gt=entry.seq,
            undone_by__isnull=True,
            data__restore__wrestle=pk,
        ).exists()
        if later:
            raise Refused("undo_later_wrestling_first")
        state = restore.get("state", {})
        Wrestle.objects.filter(pk=pk, encounter=viewer.encounter).update(
            hold=state.get("hold", Hold.FREE),
            ended=bool(state.get("ended")),
            rounds=state.get("rounds", 0),
        )
    if "ship" in restore:
        fields = {k: v for k, v in restore.get("fields", {}).items() if k in SHIP_FIELDS}
        Combatant.objects.filter(pk=restore["ship"], encounter=viewer.encounter).update(**fields)


SHIP_FIELDS = ("rowers_lost", "hull_repaired")


__all__ = [
    "board",
    "end_wrestle",
    "grapple",
    "holds_by_combatant",
    "hull_damage",
    "lose_rowers",
    "ram",
    "repair",
    "repairs_fail",
    "start_wrestle",
    "strike",
    "undo",
    "wrestle_round",
]


@transaction.atomic
def add_ship(
    viewer: Viewer,
    *,
    name: str,
    side: str,
    ac: int,
    hull_points: int,
    speed: int | None,
    crew: int | None,
    rowers: int,
    hidden: bool,
    once: str = "",
) -> Combatant:
    """The referee puts a ship on the table (as a combatant does, unlogged): its hit points
    are its hull points, its THAC0 the ram's 19, its saves those of a normal man (unused)."""
    from rules import ose

    from .actions import touch

    saves = ose.monster_saves("normal human")
    ship = Combatant.objects.create(
        encounter=viewer.encounter,
        name=name,
        side=side,
        kind=Kind.SHIP,
        ac=ac,
        hp_max=hull_points,
        hp=hull_points,
        thac0=naval.RAM_THAC0,
        speed=speed,
        crew=crew,
        rowers=rowers,
        hidden=hidden,
        **{f"save_{key}": value for key, value in saves.items()},
    )
    touch(viewer, once)
    return ship
