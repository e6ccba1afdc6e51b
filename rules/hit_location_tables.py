"""The data of the hit-location option: body types, zones, shares, weights, reach and fates.

Kept apart from the logic in ``rules.hit_location`` so that a referee (and, later, an editor in
the app) can read it as tables. Two kinds of numbers live here:

* from the seed (``seeds/001_1fbefe00f65f9f68.txt``, the Russian translation of the 1975
  Blackmoor "Hit Location During Melee"): the zone **shares** of total hit points, which zones
  each attack direction reaches, which zones are fatal or non-cumulative, and the death timers;
* from the project's **reconstruction** of the lost tables (``rules/hit-location.md`` part B):
  the **weights** that size each zone on the d100 location tables, the reptile wing share (30%)
  and the height matrix. The interface must say that these are a reconstruction.

Reach letters in the rows: ``F`` front, ``L`` left, ``R`` right, ``B`` rear (back), ``U`` above,
``D`` below. A sided part (one per side) with ``own_side`` is also reached from its own side
only: from the left, ``left_arm`` but not ``right_arm``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .core import is_whole, shown
from .errors import RulesError

__all__ = [
    "BODY_ROWS",
    "DIRECTION_LETTERS",
    "FATAL_FATES",
    "FIN_OR_TAIL_LOST_FATE",
    "HEIGHT_MATRIX",
    "MAIMING",
    "TOTAL_DEATH",
    "BodyType",
    "Condition",
    "DiceSpec",
    "Direction",
    "Fate",
    "MaimingRule",
    "Part",
    "PartRow",
    "Side",
    "Zone",
    "zone_anatomy",
    "zone_key",
]


class BodyType(StrEnum):
    HUMANOID = "humanoid"
    BIRD = "bird"
    REPTILE = "reptile"
    INSECTOID = "insectoid"
    FISH = "fish"
    SNAKE = "snake"


class Direction(StrEnum):
    FRONT = "front"
    LEFT = "left"
    RIGHT = "right"
    REAR = "rear"
    ABOVE = "above"
    BELOW = "below"


class Side(StrEnum):
    LEFT = "left"
    RIGHT = "right"


class Part(StrEnum):
    """What a zone is, regardless of side and number (``left_leg_2`` is a ``leg``)."""

    HEAD = "head"
    CHEST = "chest"
    ABDOMEN = "abdomen"
    BODY = "body"
    BELLY = "belly"
    THORAX = "thorax"
    UPPER_BODY = "upper_body"
    LOWER_BODY = "lower_body"
    ARM = "arm"
    LEG = "leg"
    FORELEG = "foreleg"
    HIND_LEG = "hind_leg"
    WING = "wing"
    TAIL = "tail"
    DORSAL_FIN = "dorsal_fin"
    PECTORAL_FIN = "pectoral_fin"
    PELVIC_FIN = "pelvic_fin"


class Zone(StrEnum):
    """Every zone key. Sided zones are ``<side>_<part>``; insect legs and wings also carry a
    number from the front (``left_leg_1`` is the foremost left leg). Insects may have up to five
    leg pairs and three wing pairs (the seed: "six or more" legs, "four or more" wings)."""

    HEAD = "head"
    CHEST = "chest"
    ABDOMEN = "abdomen"
    BODY = "body"
    BELLY = "belly"
    THORAX = "thorax"
    UPPER_BODY = "upper_body"
    LOWER_BODY = "lower_body"
    TAIL = "tail"
    DORSAL_FIN = "dorsal_fin"
    LEFT_ARM = "left_arm"
    RIGHT_ARM = "right_arm"
    LEFT_LEG = "left_leg"
    RIGHT_LEG = "right_leg"
    LEFT_WING = "left_wing"
    RIGHT_WING = "right_wing"
    LEFT_FORELEG = "left_foreleg"
    RIGHT_FORELEG = "right_foreleg"
    LEFT_HIND_LEG = "left_hind_leg"
    RIGHT_HIND_LEG = "right_hind_leg"
    LEFT_PECTORAL_FIN = "left_pectoral_fin"
    RIGHT_PECTORAL_FIN = "right_pectoral_fin"
    LEFT_PELVIC_FIN = "left_pelvic_fin"
    RIGHT_PELVIC_FIN = "right_pelvic_fin"
    LEFT_LEG_1 = "left_leg_1"
    LEFT_LEG_2 = "left_leg_2"
    LEFT_LEG_3 = "left_leg_3"
    LEFT_LEG_4 = "left_leg_4"
    LEFT_LEG_5 = "left_leg_5"
    RIGHT_LEG_1 = "right_leg_1"
    RIGHT_LEG_2 = "right_leg_2"
    RIGHT_LEG_3 = "right_leg_3"
    RIGHT_LEG_4 = "right_leg_4"
    RIGHT_LEG_5 = "right_leg_5"
    LEFT_WING_1 = "left_wing_1"
    LEFT_WING_2 = "left_wing_2"
    LEFT_WING_3 = "left_wing_3"
    RIGHT_WING_1 = "right_wing_1"
    RIGHT_WING_2 = "right_wing_2"
    RIGHT_WING_3 = "right_wing_3"


def _unknown_zone(value: object) -> RulesError:
    return RulesError("unknown_zone", f"no zone {shown(value)}", value=value)


def zone_key(part: Part, side: Side | None = None, number: int | None = None) -> Zone:
    """The zone of a part on a side with a number: ``(LEG, LEFT, 2)`` is ``left_leg_2``; a
    combination no body has is ``unknown_zone``."""
    try:
        part = Part(part)
        side = None if side is None else Side(side)
    except ValueError:
        raise _unknown_zone((part, side, number)) from None
    if number is not None and not (is_whole(number) and 1 <= number <= 9):
        raise _unknown_zone((part, side, number))
    key = part.value if side is None else f"{side.value}_{part.value}"
    key = key if number is None else f"{key}_{number}"
    try:
        return Zone(key)
    except ValueError:
        raise _unknown_zone(key) from None


def _anatomy(zone: Zone) -> tuple[Part, Side | None, int | None]:
    key = zone.value
    side = None
    for s in Side:
        if key.startswith(s.value + "_"):
            side, key = s, key[len(s.value) + 1 :]
    number = None
    head, _, tail = key.rpartition("_")
    if tail.isdigit():
        key, number = head, int(tail)
    return Part(key), side, number


_ANATOMY = {zone: _anatomy(zone) for zone in Zone}


def zone_anatomy(zone: Zone) -> tuple[Part, Side | None, int | None]:
    """``(part, side, number)`` of a zone: ``left_leg_2`` gives ``(LEG, LEFT, 2)``."""
    try:
        return _ANATOMY[Zone(zone)]
    except ValueError:
        raise _unknown_zone(zone) from None


DIRECTION_LETTERS = {
    "F": Direction.FRONT,
    "L": Direction.LEFT,
    "R": Direction.RIGHT,
    "B": Direction.REAR,
    "U": Direction.ABOVE,
    "D": Direction.BELOW,
}


@dataclass(frozen=True)
class PartRow:
    """One line of a body type's table, top to bottom.

    ``share``: percent of the creature's hit points the zone holds (seed). ``weight``: its size
    on the location tables (reconstruction). ``reach``: the directions that reach it (for a
    sided part, plus its own side when ``own_side``). ``fatal``: potentially fatal (the zones
    of an ``A`` result). ``cumulative``: its damage counts against total hit points.
    ``wounding``: a zone of a ``W`` result. ``limb``: bleeds when lost (severed limb) and is
    subject to the body's maiming rule. ``sided`` parts come one per side, ``per_side`` of them
    (numbered when the body numbers them).
    """

    part: Part
    share: int
    weight: int
    reach: frozenset[Direction]
    sided: bool = False
    own_side: bool = False
    fatal: bool = False
    cumulative: bool = True
    wounding: bool = False
    limb: bool = False
    optional: bool = False
    seed_share: bool = True


def _row(part: Part, share: int, weight: int, reach: str, **flags: bool) -> PartRow:
    directions = frozenset(DIRECTION_LETTERS[letter] for letter in reach if letter != " ")
    return PartRow(part, share, weight, directions, **flags)


def _limb(part: Part, share: int, weight: int, reach: str, **flags: bool) -> PartRow:
    """A paired limb: sided, wounding, bleeds when lost, reached from its own side unless
    ``own_side=False``."""
    flags = {"own_side": True, **flags}
    return _row(part, share, weight, reach, sided=True, wounding=True, limb=True, **flags)


P = Part
BODY_ROWS: dict[BodyType, tuple[PartRow, ...]] = {
    # Front: all but tail and wings. Side: that side's arm and leg, head, chest, abdomen, tail,
    # wings. Rear: head, back (the chest seen from behind), abdomen, arms, legs, tail, wings.
    # All zones cumulative; head and chest fatal at once.
    BodyType.HUMANOID: (
        _row(P.HEAD, 15, 10, "FLRB", fatal=True),
        _limb(P.WING, 10, 4, "B", optional=True),
        _row(P.CHEST, 80, 30, "FLRB", fatal=True),
        _row(P.ABDOMEN, 60, 20, "FLRB"),
        _limb(P.ARM, 20, 8, "FB"),
        _row(P.TAIL, 20, 6, "LRB", wounding=True, limb=True, optional=True),
        _limb(P.LEG, 25, 12, "FB"),
    ),
    # Front: head, body, wings, legs. Side: wings; head and body too when the wings are not
    # spread (added by the wings_spread=False variant). Rear: body, wings, tail. Above: head,
    # body, wings, tail. Below: body, wings, legs, tail. Tail alone is non-cumulative.
    BodyType.BIRD: (
        _row(P.HEAD, 20, 10, "FU", fatal=True),
        _limb(P.WING, 30, 20, "FBUD"),
        _row(P.BODY, 80, 30, "FBUD", fatal=True),
        _row(P.TAIL, 20, 6, "BUD", wounding=True, limb=True, cumulative=False),
        _limb(P.LEG, 20, 7, "FD", own_side=False),
    ),
    # Front: head, chest, forelegs. Side: belly, that side's wing and hind leg, tail. Rear:
    # belly, wings, hind legs, tail. Tail and wings non-cumulative. The seed gives wings no
    # share: 30% is the reconstruction's.
    BodyType.REPTILE: (
        _row(P.HEAD, 25, 10, "F", fatal=True),
        _limb(P.WING, 30, 6, "B", cumulative=False, seed_share=False),
        _row(P.CHEST, 80, 24, "F", fatal=True),
        _limb(P.FORELEG, 30, 7, "F", own_side=False),
        _row(P.BELLY, 60, 16, "LRB"),
        _row(P.TAIL, 30, 10, "LRB", wounding=True, limb=True, cumulative=False),
        _limb(P.HIND_LEG, 30, 7, "B"),
    ),
    # Front: head only. Side: every part on that side (head, thorax, abdomen and that side's
    # wings and legs). Rear: abdomen only. Above: head, wings, abdomen. Below: all but wings.
    # Legs, wings and abdomen non-cumulative.
    BodyType.INSECTOID: (
        _row(P.HEAD, 20, 15, "FLRUD", fatal=True),
        _limb(P.WING, 10, 4, "U", optional=True, cumulative=False),
        _row(P.THORAX, 60, 24, "LRD", fatal=True),
        _row(P.ABDOMEN, 50, 21, "LRBUD", cumulative=False),
        _limb(P.LEG, 15, 4, "D", cumulative=False),
    ),
    # Front: head or the two pectoral fins. Side: every zone, fins of that side only. Rear:
    # tail only. Above: head, body, dorsal fin, tail. Below: head, body, pectoral and pelvic
    # fins, tail. Tail and fins non-cumulative.
    BodyType.FISH: (
        _row(P.HEAD, 40, 20, "FLRUD", fatal=True),
        _row(P.DORSAL_FIN, 10, 5, "LRU", wounding=True, limb=True, cumulative=False),
        _row(P.BODY, 80, 40, "LRUD", fatal=True),
        _limb(P.PECTORAL_FIN, 10, 6, "FD", cumulative=False),
        _limb(P.PELVIC_FIN, 10, 5, "D", cumulative=False),
        _row(P.TAIL, 15, 13, "LRBUD", wounding=True, limb=True, cumulative=False),
    ),
    # Front: head only. Rear: the tail end (lower body) only. Any other direction, or a coiled
    # snake (the coiled=True variant): any zone. Every zone cumulative.
    BodyType.SNAKE: (
        _row(P.HEAD, 30, 15, "LRUDF", fatal=True),
        _row(P.UPPER_BODY, 50, 40, "LRUD", fatal=True),
        _row(P.LOWER_BODY, 40, 45, "LRUDB", wounding=True),
    ),
}
del P


@dataclass(frozen=True)
class DiceSpec:
    """``count`` d ``sides`` + ``bias``; ``count == 0`` is the constant ``bias``."""

    count: int
    sides: int
    bias: int = 0

    @property
    def low(self) -> int:
        return self.count + self.bias

    @property
    def high(self) -> int:
        return self.count * self.sides + self.bias

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.bias)
        dice = f"{self.count}d{self.sides}"
        return dice if self.bias == 0 else f"{dice}{self.bias:+d}"


class Condition(StrEnum):
    """Lasting states a wound puts a creature in (keys for the interface)."""

    CANNOT_DEFEND = "cannot_defend"
    CANNOT_MOVE = "cannot_move"
    CANNOT_ATTACK = "cannot_attack"
    MOVES_RANDOMLY = "moves_randomly"
    WRITHING = "writhing"
    DEFENDS_FRONT_ONLY = "defends_front_only"
    FLIGHTLESS_FOREVER = "flightless_forever"
    MAIMED = "maimed"


@dataclass(frozen=True)
class Fate:
    """What follows a fatal event: death at once (``dies_in`` None) or within a rolled number of
    rounds, conditions meanwhile, and (snake) rounds the body writhes after death."""

    dies_in: DiceSpec | None = None
    conditions: frozenset[Condition] = frozenset()
    writhes: DiceSpec | None = None


C = Condition
AT_ONCE = Fate()
FATAL_FATES: dict[tuple[BodyType, Part], Fate] = {
    (BodyType.HUMANOID, Part.HEAD): AT_ONCE,
    (BodyType.HUMANOID, Part.CHEST): AT_ONCE,
    (BodyType.BIRD, Part.HEAD): AT_ONCE,
    (BodyType.BIRD, Part.BODY): AT_ONCE,
    (BodyType.REPTILE, Part.HEAD): AT_ONCE,
    (BodyType.REPTILE, Part.CHEST): AT_ONCE,
    # Dies after one round, acting normally meanwhile (within its damage).
    (BodyType.INSECTOID, Part.HEAD): Fate(
        DiceSpec(0, 0, 1), frozenset({C.CANNOT_DEFEND, C.MOVES_RANDOMLY})
    ),
    (BodyType.INSECTOID, Part.THORAX): Fate(DiceSpec(0, 0, 1), frozenset({C.CANNOT_MOVE})),
    (BodyType.FISH, Part.HEAD): Fate(DiceSpec(1, 4), frozenset({C.MOVES_RANDOMLY})),
    (BodyType.FISH, Part.BODY): Fate(DiceSpec(1, 4), frozenset({C.MOVES_RANDOMLY})),
    (BodyType.SNAKE, Part.HEAD): Fate(writhes=DiceSpec(2, 8)),
    (BodyType.SNAKE, Part.UPPER_BODY): Fate(DiceSpec(2, 4), frozenset({C.DEFENDS_FRONT_ONLY})),
}

# (dies only when total damage strictly exceeds max hp, fate). The seed says "reaches" for the
# humanoid, bird and snake, "exceeds" for the reptile and fish; the insect follows the general
# (humanoid) rule.
TOTAL_DEATH: dict[BodyType, tuple[bool, Fate]] = {
    BodyType.HUMANOID: (False, AT_ONCE),
    BodyType.BIRD: (False, AT_ONCE),
    BodyType.REPTILE: (True, Fate(DiceSpec(1, 3, -1), frozenset({C.CANNOT_MOVE, C.CANNOT_ATTACK}))),
    BodyType.INSECTOID: (False, AT_ONCE),
    BodyType.FISH: (True, AT_ONCE),
    BodyType.SNAKE: (False, Fate(DiceSpec(1, 8), frozenset({C.WRITHING, C.CANNOT_DEFEND}))),
}

# A fish does not survive the full loss of a fin or its tail.
FIN_OR_TAIL_LOST_FATE = Fate(DiceSpec(1, 4))
del C


class MaimingRule(StrEnum):
    DEX_PER_POINT = "dex_per_point"  # general rule: 1 DEX per point over the limb's maximum
    HALVE_DEX = "halve_dex"  # reptile: each lost limb halves DEX; two (not both wings) kill
    NEST_REPLACES = "nest_replaces"  # insect: the nest replaces or destroys the maimed
    DIES = "dies"  # fish: a lost fin or tail kills within 1d4 rounds
    HEALS_IF_LOWER = "heals_if_lower"  # snake: lower-body damage heals, the rest kills in the end


MAIMING: dict[BodyType, MaimingRule] = {
    BodyType.HUMANOID: MaimingRule.DEX_PER_POINT,
    BodyType.BIRD: MaimingRule.DEX_PER_POINT,
    BodyType.REPTILE: MaimingRule.HALVE_DEX,
    BodyType.INSECTOID: MaimingRule.NEST_REPLACES,
    BodyType.FISH: MaimingRule.DIES,
    BodyType.SNAKE: MaimingRule.HEALS_IF_LOWER,
}

# The reconstruction's height matrix: (lowest ratio, whether that bound is included, band).
# r = effective attacker height / defender height; the first row whose bound r meets wins.
HEIGHT_MATRIX: tuple[tuple[Fraction, bool, str], ...] = (
    (Fraction(3), True, "A"),
    (Fraction(7, 4), True, "40 N"),
    (Fraction(3, 2), True, "60 N"),
    (Fraction(5, 4), True, "80 N"),
    (Fraction(4, 5), False, "N"),
    (Fraction(7, 10), True, "N 20"),
    (Fraction(3, 5), True, "N 40"),
    (Fraction(9, 20), True, "N 60"),
    (Fraction(33, 100), True, "N 80"),
    (Fraction(0), False, "W"),
)
