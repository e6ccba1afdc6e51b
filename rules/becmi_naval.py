"""BECMI / Rules Cyclopedia naval combat: hull points, speed loss, grappling, ramming, repairs.

Boarding (−2 to hit and AC 2 worse during the boarding round) is applied by
``resolve_attack(..., boarding=True)`` / ``target_boarding=True`` in ``rules.becmi_attack``.

Keys: ``ShipStatus`` ``afloat``, ``dead_in_water``, ``sinking``; ``GrappleOutcome``
``grappled``, ``failed``, ``agreed``, ``out_of_range``; ``RamVessel`` ``small_galley``,
``large_galley``; ``RamTarget`` ``ship``, ``creature``. Ramming hit rolls use the reason keys of
``rules.becmi_attack`` plus the caller's (weather, manoeuvrability … at the referee's call).

Decisions where the seed is silent:
- Speed loss counts whole steps: each full 10% of hull points lost and each full 10% of rowers
  lost take 10% of the base speed; the steps add up, and the speed is rounded down to a whole
  number. Rower losses count only while rowing (``rowing=True``). At 75% hull damage or more
  the speed is 0 (dead in the water); at 100% the ship is sinking. Damage beyond the hull
  points is not tracked.
- Monster damage to a hull is ``hit points // 5`` (the seed's "usually": the referee may
  override by calling ``take_damage`` directly).
- Grappling needs 50 ft or less even by mutual agreement; the 2-in-6 roll is a d6 of 1 or 2.
- Ramming hits like an attack by THAC0 19 through ``roll_needed``; any step-5 damage bonus is
  added to the ramming damage after the multiplication (it never arises at realistic ACs).
- Repairs: one team of at least five crew repairs 1 hull point per 10-minute turn (a larger
  crew does not go faster); the total repaired stays within half of the damage taken (damage
  now plus damage already repaired, rounded down). A sinking ship cannot be repaired. When the
  repairs fail (after 5d6 days) all temporarily repaired points come back as damage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction

from .becmi_attack import AttackResult, _enum, attack_odds, resolve_attack
from .becmi_hit import _int
from .bounds import BOUNDS
from .core import Modifier, RandomSource, chance, is_sequence, natural_roll, random_source
from .errors import RulesError

__all__ = [
    "GRAPPLE_RANGE_FT",
    "RAM_THAC0",
    "REPAIR_CREW",
    "GrappleOutcome",
    "GrappleResult",
    "RamResult",
    "RamTarget",
    "RamVessel",
    "RepairLife",
    "Ship",
    "ShipStatus",
    "grapple_odds",
    "hull_damage_from_hit_points",
    "ram_damage_distribution",
    "ram_odds",
    "repair_life_distribution",
    "resolve_grapple",
    "resolve_ram",
    "roll_repair_life",
]

HIT_POINTS_PER_HULL_POINT = 5
GRAPPLE_RANGE_FT = 50
GRAPPLE_SUCCESS = 2  # on 1d6
RAM_THAC0 = 19
REPAIR_CREW = 5
REPAIR_LIFE_DICE = (5, 6)  # 5d6 days
_BIG = 1_000_000


def hull_damage_from_hit_points(hit_points: int) -> int:
    """Hull points lost to a magic or giant monster's ``hit_points`` of damage: 1 per 5,
    rounded down."""
    return _int(hit_points, "bad_damage", "damage", 0, _BIG) // HIT_POINTS_PER_HULL_POINT


class ShipStatus(StrEnum):
    AFLOAT = "afloat"
    DEAD_IN_WATER = "dead_in_water"
    SINKING = "sinking"


@dataclass(frozen=True)
class Ship:
    """A ship's state: ``hull_points`` (its maximum), ``damage`` now, ``rowers`` (0 if none) and
    ``rowers_lost``, and ``temporary_repairs`` (points repaired that will fail after 5d6 days).
    Every change returns a new ``Ship``."""

    hull_points: int
    damage: int = 0
    rowers: int = 0
    rowers_lost: int = 0
    temporary_repairs: int = 0

    def __post_init__(self) -> None:
        # What a ship's row stores (rules.bounds): a stored ship is always one drawn.
        hull = BOUNDS["hp_max"]
        _int(self.hull_points, "bad_hull_points", "hull points", hull.low, hull.high)
        _int(self.damage, "bad_damage", "hull damage", 0, self.hull_points)
        BOUNDS["rowers"].check(self.rowers)
        _int(self.rowers_lost, "bad_rowers", "rowers lost", 0, self.rowers)
        BOUNDS["hull_repaired"].check(self.temporary_repairs, "repaired points")

    @property
    def hull_remaining(self) -> int:
        return self.hull_points - self.damage

    @property
    def status(self) -> ShipStatus:
        if self.damage >= self.hull_points:
            return ShipStatus.SINKING
        if 4 * self.damage >= 3 * self.hull_points:
            return ShipStatus.DEAD_IN_WATER
        return ShipStatus.AFLOAT

    def speed_factor(self, rowing: bool = True) -> Fraction:
        """The fraction of base speed left: 10% off per full 10% of hull damage and (while
        rowing) per full 10% of rowers lost; 0 when dead in the water or sinking."""
        if self.status is not ShipStatus.AFLOAT:
            return Fraction(0)
        steps = 10 * self.damage // self.hull_points
        if rowing and self.rowers:
            steps += 10 * self.rowers_lost // self.rowers
        return Fraction(max(0, 10 - steps), 10)

    def speed(self, base: int, rowing: bool = True) -> int:
        """``base`` speed (any unit) reduced by ``speed_factor``, rounded down."""
        base = BOUNDS["speed"].check(base, "a speed")
        return int(base * self.speed_factor(rowing))

    def take_damage(self, hull_points: int) -> Ship:
        points = _int(hull_points, "bad_damage", "damage", 0, _BIG)
        return replace(self, damage=min(self.hull_points, self.damage + points))

    def take_monster_damage(self, hit_points: int) -> Ship:
        """Damage from a magic or giant monster, given in hit points (1 hull point per 5)."""
        return self.take_damage(hull_damage_from_hit_points(hit_points))

    def lose_rowers(self, count: int) -> Ship:
        count = _int(count, "bad_rowers", "rowers lost", 0, _BIG)
        return replace(self, rowers_lost=min(self.rowers, self.rowers_lost + count))

    @property
    def repairable(self) -> int:
        """Hull points still repairable: half the damage taken (rounded down) minus what is
        already repaired."""
        return max(0, (self.damage + self.temporary_repairs) // 2 - self.temporary_repairs)

    def repair(self, crew: int, turns: int = 1) -> Ship:
        """``turns`` of repair by ``crew`` (at least five): 1 hull point per turn, up to
        ``repairable``."""
        crew = _int(crew, "bad_crew", "crew", 0, _BIG)
        turns = _int(turns, "bad_turns", "turns", 0, _BIG)
        if crew < REPAIR_CREW:
            raise RulesError(
                "repair_crew_too_small",
                "repairs need at least five crew",
                crew=crew,
                needed=REPAIR_CREW,
            )
        if self.status is ShipStatus.SINKING:
            raise RulesError("ship_sunk", "a sinking ship cannot be repaired")
        done = min(turns, self.repairable)
        return replace(
            self, damage=self.damage - done, temporary_repairs=self.temporary_repairs + done
        )

    def repairs_fail(self) -> Ship:
        """The temporary repairs give way: their points come back as damage."""
        return replace(
            self,
            damage=min(self.hull_points, self.damage + self.temporary_repairs),
            temporary_repairs=0,
        )


@dataclass(frozen=True)
class RepairLife:
    """How many days temporary repairs hold: the 5d6 naturals and their sum."""

    naturals: tuple[int, ...]
    days: int


def _dice(
    count: int, sides: int, rng: RandomSource | None, entered: Sequence[int] | None
) -> tuple[int, ...]:
    random_source(rng)
    if entered is None:
        return tuple(natural_roll(sides, rng) for _ in range(count))
    if not is_sequence(entered):
        raise RulesError(
            "wrong_dice_count", f"enter a list of {count} dice", count=count, value=None
        )
    if len(entered) != count:
        raise RulesError(
            "wrong_dice_count",
            f"enter {count} dice, not {len(entered)}",
            count=count,
            value=len(entered),
        )
    return tuple(natural_roll(sides, entered=n) for n in entered)


def _distribution(count: int, sides: int) -> dict[int, Fraction]:
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, w in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + w
        ways = nxt
    return {total: Fraction(w, sides**count) for total, w in sorted(ways.items())}


def roll_repair_life(
    rng: RandomSource | None = None, naturals: Sequence[int] | None = None
) -> RepairLife:
    """Roll (or enter) the 5d6 days after which temporary repairs fail."""
    dice = _dice(*REPAIR_LIFE_DICE, rng, naturals)
    return RepairLife(dice, sum(dice))


def repair_life_distribution() -> dict[int, Fraction]:
    """Exact chance of each number of days (5..30) that temporary repairs hold."""
    return _distribution(*REPAIR_LIFE_DICE)


# --- grappling ---------------------------------------------------------------------------------


class GrappleOutcome(StrEnum):
    GRAPPLED = "grappled"
    FAILED = "failed"
    AGREED = "agreed"
    OUT_OF_RANGE = "out_of_range"


@dataclass(frozen=True)
class GrappleResult:
    """A grappling attempt at ``distance_ft``; ``natural`` is the d6 (``None`` if not rolled)."""

    distance_ft: int
    mutual: bool
    natural: int | None
    needed: int
    outcome: GrappleOutcome

    @property
    def grappled(self) -> bool:
        return self.outcome in (GrappleOutcome.GRAPPLED, GrappleOutcome.AGREED)


def _distance(distance_ft: int) -> int:
    return _int(distance_ft, "bad_distance", "a distance", 0, _BIG)


def resolve_grapple(
    distance_ft: int,
    *,
    mutual: bool = False,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> GrappleResult:
    """Grapple another ship: beyond 50 ft it cannot be done; by mutual agreement it succeeds;
    otherwise a d6 of 1 or 2 succeeds."""
    distance = _distance(distance_ft)
    mutual = bool(mutual)
    random_source(rng)
    if distance > GRAPPLE_RANGE_FT:
        return GrappleResult(distance, mutual, None, GRAPPLE_SUCCESS, GrappleOutcome.OUT_OF_RANGE)
    if mutual:
        return GrappleResult(distance, mutual, None, GRAPPLE_SUCCESS, GrappleOutcome.AGREED)
    roll = natural_roll(6, rng, natural)
    outcome = GrappleOutcome.GRAPPLED if roll <= GRAPPLE_SUCCESS else GrappleOutcome.FAILED
    return GrappleResult(distance, mutual, roll, GRAPPLE_SUCCESS, outcome)


def grapple_odds(distance_ft: int, mutual: bool = False) -> Fraction:
    """Exact chance that ``resolve_grapple`` succeeds: 0, 1/3 or 1."""
    if _distance(distance_ft) > GRAPPLE_RANGE_FT:
        return Fraction(0)
    return Fraction(1) if mutual else chance(6, lambda n: n <= GRAPPLE_SUCCESS)


# --- ramming -----------------------------------------------------------------------------------


class RamVessel(StrEnum):
    SMALL_GALLEY = "small_galley"
    LARGE_GALLEY = "large_galley"


class RamTarget(StrEnum):
    SHIP = "ship"
    CREATURE = "creature"


@dataclass(frozen=True)
class _RamDamage:
    count: int
    sides: int
    plus: int = 0
    times: int = 1

    def of(self, dice_sum: int) -> int:
        return (dice_sum + self.plus) * self.times


RAM_DAMAGE = {
    (RamVessel.SMALL_GALLEY, RamTarget.SHIP): _RamDamage(1, 4, plus=4, times=10),
    (RamVessel.SMALL_GALLEY, RamTarget.CREATURE): _RamDamage(3, 8),
    (RamVessel.LARGE_GALLEY, RamTarget.SHIP): _RamDamage(1, 6, plus=5, times=10),
    (RamVessel.LARGE_GALLEY, RamTarget.CREATURE): _RamDamage(6, 6),
}


def _ram_damage(vessel: RamVessel | str, target: RamTarget | str) -> _RamDamage:
    return RAM_DAMAGE[
        (_enum(RamVessel, vessel, "unknown_vessel"), _enum(RamTarget, target, "unknown_ram_target"))
    ]


@dataclass(frozen=True)
class RamResult:
    """A ramming attempt: the hit roll (THAC0 19), the damage dice and the damage (hull points
    for a ship, hit points for a creature; 0 on a miss)."""

    vessel: RamVessel
    target: RamTarget
    attack: AttackResult
    damage_naturals: tuple[int, ...]
    damage: int


def resolve_ram(
    vessel: RamVessel | str,
    target: RamTarget | str,
    target_ac: int,
    *,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
    damage_naturals: Sequence[int] | None = None,
) -> RamResult:
    """Ram a ship or a creature of ``target_ac`` with a galley; ``modifiers`` are the
    referee's (weather, manoeuvrability …). Dice from ``rng`` or entered."""
    spec = _ram_damage(vessel, target)
    random_source(rng)
    attack = resolve_attack(RAM_THAC0, target_ac, modifiers=modifiers, rng=rng, natural=natural)
    if not attack.hit:
        if damage_naturals is not None:  # still check what was typed
            _dice(spec.count, spec.sides, None, damage_naturals)
        return RamResult(RamVessel(vessel), RamTarget(target), attack, (), 0)
    dice = _dice(spec.count, spec.sides, rng, damage_naturals)
    damage = spec.of(sum(dice)) + attack.damage_bonus
    return RamResult(RamVessel(vessel), RamTarget(target), attack, dice, damage)


def ram_odds(target_ac: int, modifiers: Iterable[Modifier] = ()) -> Fraction:
    """Exact chance that a ram hits ``target_ac``."""
    return attack_odds(RAM_THAC0, target_ac, modifiers=modifiers)


def ram_damage_distribution(
    vessel: RamVessel | str, target: RamTarget | str
) -> dict[int, Fraction]:
    """Exact chance of each damage of a ramming hit (hull points for a ship)."""
    spec = _ram_damage(vessel, target)
    return {spec.of(s): p for s, p in _distribution(spec.count, spec.sides).items()}
