"""Naval combat at a BECMI table: ships as combatants whose hit points are hull points;
ramming, grappling, boarding, monster damage to hulls, rowers lost and repairs."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, EntryKind, Kind, LogEntry
from combat.systems.becmi.payloads import (
    Board,
    Grapple,
    HullDamage,
    Ram,
    RamDamage,
    Repair,
    RepairsFail,
    Restore,
    Rowers,
    ShipLine,
)
from combat.systems.becmi.special.common import hit_roll, situational
from rules import becmi_attack, ose
from rules import becmi_naval as naval

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


def _ship_line(combatant: Combatant, before: ShipView | None = None) -> ShipLine:
    after = ship_view(combatant)
    return ShipLine(
        hull=after.hull,
        hull_max=after.hull_max,
        status=after.status,
        side=combatant.side,
        speed=after.speed,
        status_before=before.status if before is not None else "",
    )


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
    despite_surprise: bool = False,
) -> LogEntry:
    """A galley rams a ship (hull points) or a creature (hit points): THAC0 19 to hit."""
    ship, target = table.locked_pair(viewer, actor, target)
    secret = table.kept_secret(viewer, secret, ship, target)  # before any die is cast
    table.alive(_ship(ship))
    overruled = table.unsurprised(viewer, ship, despite_surprise=despite_surprise)
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    kind = ram_target(target)
    result = naval.resolve_ram(
        vessel,
        kind,
        target.ac,
        modifiers=situational(modifier),
        rng=table.RNG,
        natural=natural,
        damage_naturals=damage_dice,
    )
    before = ship_view(target) if target.kind == Kind.SHIP else None
    data = Ram(
        ship=ship.name,
        target=target.name,
        vessel=str(result.vessel),
        against=str(result.target),
        roll=hit_roll(result.attack, natural is not None),
        despite_surprise=overruled,
    )
    effects = []
    if result.attack.hit:
        data.damage = RamDamage(
            dice=list(result.damage_naturals),
            entered=damage_dice is not None,
            total=result.damage,
        )
        effect, data.killed = table.hurt(target, result.damage)
        effects.append(effect)
        if before is not None:
            data.hull = _ship_line(target, before)
    return table.record(
        viewer,
        EntryKind.NAVAL,
        data,
        secret=secret,
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
    despite_surprise: bool = False,
) -> LogEntry:
    """Grappling hooks thrown at 50 ft or less: 2 in 6, or by mutual agreement."""
    ship, target = table.locked_pair(viewer, actor, target)
    secret = table.kept_secret(viewer, secret, ship, target)  # before any die is cast
    table.alive(_ship(ship))
    overruled = table.unsurprised(viewer, ship, despite_surprise=despite_surprise)
    _ship(target)
    result = naval.resolve_grapple(distance, mutual=mutual, rng=table.RNG, natural=natural)
    data = Grapple(
        ship=ship.name,
        target=target.name,
        distance=result.distance_ft,
        mutual=result.mutual,
        natural=result.natural,
        entered=natural is not None and result.natural is not None,
        outcome=str(result.outcome),
        grappled=result.grappled,
        despite_surprise=overruled,
    )
    return table.record(
        viewer,
        EntryKind.NAVAL,
        data,
        secret=secret,
        once=once,
    )


@transaction.atomic
def hull_damage(viewer: Viewer, *, actor: Combatant, hit_points: int, once: str = "") -> LogEntry:
    """A magic or giant monster's damage to a hull: 1 hull point for each 5 hit points."""
    ship = _ship(table.locked(viewer, actor))
    if ship.dead:
        raise Refused("target_is_dead", name=ship.name)
    before = ship_view(ship)
    hull = naval.hull_damage_from_hit_points(hit_points)
    data = HullDamage(ship=ship.name, hit_points=hit_points, hull_damage=hull)
    effects = []
    if hull:
        effect, data.killed = table.hurt(ship, hull)
        effects.append(effect)
    data.hull = _ship_line(ship, before)
    return table.record(
        viewer, EntryKind.NAVAL, data, secret=ship.hidden, effects=effects, once=once
    )


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
    ship = _ship(table.locked(viewer, actor))
    if ship.dead:
        raise Refused("ship_sunk")
    secret = table.kept_secret(viewer, False, ship)  # before any die is cast
    before = ship_of(ship)
    after = before.repair(crew, turns)
    life = naval.roll_repair_life(table.RNG, life_dice)
    repaired = before.damage - after.damage
    data = Repair(
        ship=ship.name,
        crew=crew,
        turns=turns,
        repaired=repaired,
        days=life.days,
        dice=list(life.naturals),
        entered=life_dice is not None,
        restore=Restore(ship=ship.pk, fields={"hull_repaired": ship.hull_repaired}),
    )
    effects = []
    if repaired:
        effect, _killed = _heal(ship, repaired)
        effects.append(effect)
    ship.hull_repaired = after.temporary_repairs
    ship.save(update_fields=["hull_repaired"])
    data.hull = _ship_line(ship)
    return table.record(viewer, EntryKind.NAVAL, data, secret=secret, effects=effects, once=once)


@transaction.atomic
def repairs_fail(viewer: Viewer, *, actor: Combatant, once: str = "") -> LogEntry:
    """The 5d6 days are up: every temporarily repaired hull point is damage again."""
    ship = _ship(table.locked(viewer, actor))
    before = ship_view(ship)
    after = ship_of(ship).repairs_fail()
    lost = after.damage - ship_of(ship).damage
    data = RepairsFail(
        ship=ship.name,
        lost=lost,
        restore=Restore(ship=ship.pk, fields={"hull_repaired": ship.hull_repaired}),
    )
    effects = []
    if lost:
        effect, data.killed = table.hurt(ship, lost)
        effects.append(effect)
    ship.hull_repaired = 0
    ship.save(update_fields=["hull_repaired"])
    data.hull = _ship_line(ship, before)
    return table.record(
        viewer, EntryKind.NAVAL, data, secret=ship.hidden, effects=effects, once=once
    )


def _heal(ship: Combatant, points: int) -> tuple[dict[str, int], bool]:
    return table.set_hp(ship, min(ship.hp_max, ship.hp + points))


@transaction.atomic
def lose_rowers(viewer: Viewer, *, actor: Combatant, count: int, once: str = "") -> LogEntry:
    """Rowers lost: each full 10 % of them takes 10 % off the ship's speed."""
    ship = _ship(table.locked(viewer, actor))
    before = ship_view(ship)
    after = ship_of(ship).lose_rowers(count)
    data = Rowers(
        ship=ship.name,
        count=count,
        lost=after.rowers_lost,
        rowers=after.rowers,
        restore=Restore(ship=ship.pk, fields={"rowers_lost": ship.rowers_lost}),
    )
    ship.rowers_lost = after.rowers_lost
    ship.save(update_fields=["rowers_lost"])
    data.hull = _ship_line(ship, before)
    return table.record(viewer, EntryKind.NAVAL, data, secret=ship.hidden, once=once)


def boarding_inputs(
    attacker: Combatant, *, boarding: bool, target_boarding: bool, modifier: int
) -> dict[str, Any]:
    """A melee hit roll in a boarding round: the boarder −2 to hit, its AC 2 worse."""
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
    despite_surprise: bool = False,
) -> LogEntry:
    """A blow in the boarding round: −2 to hit for the boarder, whose AC is 2 worse."""
    attacker, target = table.locked_pair(viewer, actor, target)
    secret = table.kept_secret(viewer, secret, attacker, target)  # before any die is cast
    table.able(table.alive(attacker))
    overruled = table.unsurprised(viewer, attacker, despite_surprise=despite_surprise)
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    inputs = boarding_inputs(
        attacker, boarding=boarding, target_boarding=target_boarding, modifier=modifier
    )
    result = becmi_attack.resolve_attack(
        attacker.thac0, target.ac, rng=table.RNG, natural=natural, **inputs
    )
    data = Board(
        attacker=attacker.name,
        target=target.name,
        boarding=boarding,
        target_boarding=target_boarding,
        ac=result.ac,
        roll=hit_roll(result, natural is not None),
        despite_surprise=overruled,
    )
    effects = []
    if result.hit and damage is not None:
        effects.append(table.deal_damage(attacker, target, "melee", damage, damage_dice, data))
    return table.record(
        viewer,
        EntryKind.NAVAL,
        data,
        secret=secret,
        effects=effects,
        once=once,
    )


def ram_odds(target: Combatant, modifier: int) -> Fraction:
    return naval.ram_odds(target.ac, situational(modifier))


def ram_damage_range(vessel: str, target: Combatant) -> tuple[int, int, Fraction]:
    spread = naval.ram_damage_distribution(vessel, ram_target(target))
    mean = sum(Fraction(v) * p for v, p in spread.items())
    return min(spread), max(spread), mean


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
    table.touch(viewer, once)
    return ship
