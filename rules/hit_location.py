"""Optional hit locations: body zones, location tables, height bands and zone damage.

Source: ``seeds/001_1fbefe00f65f9f68.txt`` (1975 Blackmoor, "Hit Location During Melee", in
Russian) and the project's reconstruction of its lost tables (``rules/hit-location.md`` part B).
The data (shares, weights, reach, fates, height matrix) lives in ``rules.hit_location_tables``.

Public lookups promised in ``API.md``: :func:`zone_max_hp`, :func:`location_table`,
:func:`height_band`. The richer engine: :func:`body_plan` / :func:`combine_bodies` (body types
as data, with their variants and combinations), :func:`location_table_for`,
:func:`roll_location` and :func:`location_odds` (the d100 location roll and its exact odds),
:class:`ZoneState` with the pure functions :func:`apply_zone_damage`, :func:`end_round`,
:func:`treat_wound`, :func:`heal_zone`, :func:`dice_needed`, :func:`round_dice_needed`,
:func:`mobility`, :func:`effective_dex`, and the special monster attacks
(:func:`resolve_special_attack`, :func:`special_attack_chance`, :func:`constriction_damage`).

Keys the interface translates
-----------------------------
* body types, directions, zones, parts, sides: the values of ``BodyType``, ``Direction``,
  ``Zone``, ``Part``, ``Side``; bands: ``A``, ``N``, ``W``, ``<X> N``, ``N <X>``;
  band kinds ``automatic``, ``normal``, ``wounding``, ``top``, ``bottom``.
* modifier reasons: ``weapon_reach`` (band points a taller attacker gains from weapon length),
  ``constriction`` (+3 in later rounds of a hold).
* effect kinds (``EffectKind``): ``damaged``, ``zone_lost``, ``limb_severed``, ``dex_lost``,
  ``dex_halved``, ``condition``, ``dying``, ``killed``, ``writhing``, ``wound_will_heal``,
  ``bled``, ``wound_treated``, ``healed``.
* conditions (``Condition``): ``cannot_defend``, ``cannot_move``, ``cannot_attack``,
  ``moves_randomly``, ``writhing``, ``defends_front_only``,
  ``flightless_forever``, ``maimed``.
* death causes (``DeathCause``): ``head_destroyed``, ``chest_destroyed``, ``body_destroyed``,
  ``thorax_destroyed``, ``upper_body_destroyed``, ``total_damage``, ``two_limbs_lost``,
  ``both_wings_destroyed``, ``both_legs_destroyed``, ``fin_lost``, ``tail_lost``.
* dice purposes (``DiceRoll.purpose``): ``tail_dex_loss``, ``death_timer``, ``writhing``.
* turning (``Turning``): ``free``, ``one_per_move``, ``none``.
* special attacks (``SpecialAttack``): ``constriction``, ``seize_and_tear``, ``swallow``;
  outcomes (``SpecialOutcome``): ``none``, ``seized_and_torn``, ``swallowed``, ``escaped``.
* error codes: ``unknown_body``, ``unknown_direction``, ``unknown_zone``, ``unknown_band``,
  ``zone_not_on_body``, ``direction_not_available``, ``variant_not_available``,
  ``bad_leg_count``, ``bad_wing_count``, ``no_zones``, ``zone_repeated``, ``max_hp_invalid``,
  ``damage_invalid``, ``height_invalid``, ``unknown_unit``, ``too_many_dice_entered``,
  ``zone_cannot_heal``, ``heal_invalid``, ``dex_invalid``, ``round_invalid``,
  ``unknown_special_attack``, ``bad_argument`` (name, value, expected: a state, plan, dice
  spec, list of entered dice, callback, ``tail`` flag or combined body's part that is not
  one), plus ``die_out_of_range`` / ``die_not_integer`` / ``no_random_source`` from
  ``rules.core``. Heights and weapon lengths are at most :data:`MAX_LENGTH` (``height_invalid``).

Decisions where the rules leave things open
-------------------------------------------
* The location roll is always a d100 (rolled or entered). A band ``X N`` reads it as position
  ``ceil(d100 * X / 100)`` on the table, ``N X`` as ``X + ceil(d100 * (100 - X) / 100)``; so a
  physical percentile roll works in every band, and the odds (exact, by enumerating the 100
  naturals) differ from a true 1dX by less than one percentage point per zone.
* The bands apply once an attack has hit (the seed: "when you hit, adjust for height and
  weapon"): ``A`` is an automatic hit *on a fatal zone*, not a hit without an attack roll.
* ``A`` rolls d100 on a table of the fatal zones reachable from that direction, ``W`` on one
  of the wounding zones (limbs, tail, fins, a snake's lower body), sized by weight. When no
  such zone is reachable the full table is used.
* From a side, a sided zone is reached only on that side (the near wing, not the far one), for
  every body type.
* Reptile wings are a standard reptile zone (the seed lists them in its directions without
  calling them optional), so ``location_table("reptile", ...)`` includes them; a wingless
  reptile is ``body_plan("reptile", wings=False)``. A two-legged reptile has hind legs only.
  An upright reptile is reached in every zone but wings and tail from front, sides and rear.
* A zone is lost when its damage reaches its maximum. Damage to cumulative zones counts against
  total hit points in full, overflow included; a lost zone can still be hit (its damage grows).
* Severed-limb bleeding (1 hp per round per lost limb until treated) applies to every body
  type's limbs (arms, legs, wings, tails, fins); it counts against total hit points.
* Maiming by DEX per point over the maximum (capped at twice the limb's maximum) applies to the
  limbs of humanoids and birds, except the humanoid tail, which has its own rule (1d6 DEX when
  lost). A reptile's DEX is halved once per lost limb; :func:`effective_dex` subtracts the
  points first, then halves, never below 0.
* Bird: a wing lost (damage = its maximum) stops flight; over its maximum, flight is lost for
  ever. Both wings over their maximum, or both legs over their maximum (the seed's "over
  100%"), kill at once.
* Reptile "two limbs lost kills" counts wings and legs together, unless all the lost limbs are
  wings; death is at once.
* Insect: any lost zone marks it ``maimed`` (the nest replaces or destroys it). Head or thorax
  destroyed: dies at the end of the next round. A side with no legs left cannot walk; a lost
  leg on each side, or one leg left on a side, halves ground speed. Any lost wing halves flight,
  all the wings of one side stop it.
* Fish: speed is ``(1/2 if the body is lost else 1) * (1 - 1/5 per lost fin)``, never below
  0. Turns towards a side are barred once every fin of the other side (pectoral and pelvic) is
  lost. It can dive while its speed is above 0.
* Snake: the first lost zone halves speed (once); damage beyond 75% of max hp immobilises it.
  Only the lower body heals (:func:`heal_zone`); other types heal any zone that is not lost.
* Death timers: ``dies_in`` counts rounds; :func:`end_round` counts down first (death at 0),
  then the creature bleeds. A new timer never lengthens a running one. A reptile's 1d3-1 of 0
  kills at once.
* Combinations (a centipede is insectoid plus snake): each zone keeps the rules of its own body
  type (share, fatality, cumulativeness, maiming, movement); total-damage death follows the
  first part's body type; movement factors of each part multiply.
* Special attacks: seize-and-tear needs a natural 19 or 20 on the d20 attack roll *and* a hit;
  swallow a natural 18+ and a hit, then a d100 of 10 or less escapes unless the monster's
  damage is listed as 6-24. Constriction deals the rolled damage in the first round and the
  rolled damage +3 in each later round of the hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .core import (
    Modifier,
    RandomSource,
    bad_argument,
    chance,
    is_sequence,
    is_whole,
    items_of,
    natural_roll,
    random_source,
    shown,
)
from .errors import RulesError
from .hit_location_tables import (
    BODY_ROWS,
    FATAL_FATES,
    FIN_OR_TAIL_LOST_FATE,
    HEIGHT_MATRIX,
    MAIMING,
    TOTAL_DEATH,
    BodyType,
    Condition,
    DiceSpec,
    Direction,
    Fate,
    MaimingRule,
    Part,
    PartRow,
    Side,
    Zone,
    zone_key,
)

__all__ = [
    "BENCH_CASES",
    "Band",
    "BandKind",
    "BodyPlan",
    "BodyType",
    "Condition",
    "ConstrictionDamage",
    "DeathCause",
    "DiceRoll",
    "DiceSpec",
    "Direction",
    "EffectKind",
    "HeightBand",
    "LocationRoll",
    "LocationRow",
    "LocationTable",
    "Mobility",
    "Part",
    "Side",
    "SpecialAttack",
    "SpecialAttackResult",
    "SpecialOutcome",
    "Turning",
    "Zone",
    "ZoneEffect",
    "ZoneSpec",
    "ZoneState",
    "apply_zone_damage",
    "band_position",
    "band_table",
    "band_zones",
    "body_plan",
    "combine_bodies",
    "constriction_damage",
    "dice_needed",
    "effective_dex",
    "end_round",
    "feet_from_metres",
    "heal_zone",
    "height_band",
    "height_band_for",
    "location_odds",
    "location_table",
    "location_table_for",
    "mobility",
    "new_zone_state",
    "parse_band",
    "roll_location",
    "roll_odds",
    "round_dice_needed",
    "special_attack_chance",
    "swallow_escape_allowed",
    "treat_wound",
    "zone_max_hp",
]

_SIDE_DIRECTION = {Side.LEFT: Direction.LEFT, Side.RIGHT: Direction.RIGHT}
_ALL_DIRECTIONS = frozenset(Direction)
_SIDES_AND_ENDS = frozenset({Direction.FRONT, Direction.LEFT, Direction.RIGHT, Direction.REAR})


# --------------------------------------------------------------------------- parsing inputs


def _as_enum(enum: type, value: Any, code: str, what: str) -> Any:
    if isinstance(value, enum):
        return value
    try:
        return enum(value)
    except ValueError:
        raise RulesError(code, f"unknown {what}: {shown(value)}", value=value) from None


def _as_body(value: BodyType | str) -> BodyType:
    return _as_enum(BodyType, value, "unknown_body", "body type")


def _as_direction(value: Direction | str) -> Direction:
    return _as_enum(Direction, value, "unknown_direction", "direction")


def _as_zone(value: Zone | str) -> Zone:
    return _as_enum(Zone, value, "unknown_zone", "zone")


def _whole(value: Any, code: str, what: str, minimum: int) -> int:
    if not is_whole(value) or value < minimum:
        raise RulesError(
            code,
            f"{what} must be a whole number of at least {minimum}",
            value=value,
            minimum=minimum,
        )
    return value


# --------------------------------------------------------------------------- body plans


@dataclass(frozen=True)
class ZoneSpec:
    """One zone of a body plan: its key, anatomy, origin body type and the flags of its row."""

    zone: Zone
    part: Part
    side: Side | None
    number: int | None
    body: BodyType
    share: int
    weight: int
    reach: frozenset[Direction]
    fatal: bool
    cumulative: bool
    wounding: bool
    limb: bool
    optional: bool
    seed_share: bool

    def max_hp(self, creature_max_hp: int) -> int:
        """``round(share × max hp)``, halves up, at least 1."""
        return max(1, (self.share * creature_max_hp + 50) // 100)


@dataclass(frozen=True)
class BodyPlan:
    """A creature's zones, top to bottom, each with the directions that reach it.

    ``body`` is the primary body type (its total-damage death rule applies); ``name`` is a key
    for the interface (the body type, or the name given to a combination)."""

    name: str
    body: BodyType
    zones: tuple[ZoneSpec, ...]

    @property
    def directions(self) -> tuple[Direction, ...]:
        """Directions from which at least one zone is reached, in ``Direction`` order."""
        reached = set().union(*(spec.reach for spec in self.zones))
        return tuple(d for d in Direction if d in reached)

    @property
    def zone_keys(self) -> tuple[Zone, ...]:
        return tuple(spec.zone for spec in self.zones)

    def index(self, zone: Zone | str) -> int:
        z = _as_zone(zone)
        for i, spec in enumerate(self.zones):
            if spec.zone is z:
                return i
        raise RulesError(
            "zone_not_on_body", f"{self.name} has no {z.value}", body=self.name, zone=z.value
        )

    def spec(self, zone: Zone | str) -> ZoneSpec:
        return self.zones[self.index(zone)]


def _expand(body: BodyType, row: PartRow, per_side: int, numbered: bool) -> list[ZoneSpec]:
    def make(side: Side | None, number: int | None) -> ZoneSpec:
        reach = row.reach
        if side is not None and row.own_side:
            reach = reach | {_SIDE_DIRECTION[side]}
        return ZoneSpec(
            zone=zone_key(row.part, side, number),
            part=row.part,
            side=side,
            number=number,
            body=body,
            share=row.share,
            weight=row.weight,
            reach=frozenset(reach),
            fatal=row.fatal,
            cumulative=row.cumulative,
            wounding=row.wounding,
            limb=row.limb,
            optional=row.optional,
            seed_share=row.seed_share,
        )

    if not row.sided:
        return [make(None, None)]
    if not numbered:
        return [make(side, None) for side in Side]
    return [make(side, n) for side in Side for n in range(1, per_side + 1)]


def body_plan(
    body: BodyType | str,
    *,
    optional: bool = False,
    tail: bool | None = None,
    wings: bool | int | None = None,
    legs: int | None = None,
    wings_spread: bool = True,
    upright: bool = False,
    coiled: bool = False,
) -> BodyPlan:
    """The zones of one body type with its variants.

    ``optional`` switches on the type's optional zones (a humanoid's tail and wings, an insect's
    wings); ``tail`` / ``wings`` choose them one by one (humanoid tail and wings; reptile wings,
    present unless ``wings=False``; insect wings, ``True`` for 4 or a count 4 or 6). ``legs``:
    a reptile's 4 (default) or 2 (hind legs only); an insect's 6 (default), 8 or 10.
    ``wings_spread=False``: a bird seen from the side shows head and body too.
    ``upright``: a reptile moving upright is reached in every zone but wings and tail from the
    front, sides and rear. ``coiled``: a coiled snake is reached in every zone from every
    direction. A variant the body type does not have raises ``variant_not_available``."""
    b = _as_body(body)
    # Checked before the cache, which would otherwise hash whatever it was given.
    if tail is not None and not isinstance(tail, bool):
        raise bad_argument("tail", tail, "True, False or None")
    if wings is not None and not isinstance(wings, bool) and not is_whole(wings):
        raise RulesError("bad_wing_count", f"not a wing count: {shown(wings)}", value=wings)
    if legs is not None and not is_whole(legs):
        raise RulesError("bad_leg_count", f"not a leg count: {shown(legs)}", value=legs)
    return _body_plan(
        b, bool(optional), tail, wings, legs, bool(wings_spread), bool(upright), bool(coiled)
    )


def _refuse(b: BodyType, variant: str) -> RulesError:
    return RulesError(
        "variant_not_available",
        f"a {b.value} has no variant {variant}",
        body=b.value,
        variant=variant,
    )


@lru_cache(maxsize=256, typed=True)
def _body_plan(
    b: BodyType,
    optional: bool,
    tail: bool | None,
    wings: bool | int | None,
    legs: int | None,
    wings_spread: bool,
    upright: bool,
    coiled: bool,
) -> BodyPlan:
    if tail is not None and b is not BodyType.HUMANOID:
        raise _refuse(b, "tail")
    if wings is not None and b not in (BodyType.HUMANOID, BodyType.REPTILE, BodyType.INSECTOID):
        raise _refuse(b, "wings")
    if legs is not None and b not in (BodyType.REPTILE, BodyType.INSECTOID):
        raise _refuse(b, "legs")
    if not wings_spread and b is not BodyType.BIRD:
        raise _refuse(b, "wings_folded")
    if upright and b is not BodyType.REPTILE:
        raise _refuse(b, "upright")
    if coiled and b is not BodyType.SNAKE:
        raise _refuse(b, "coiled")

    has_tail = optional if tail is None else bool(tail)
    wing_pairs = 0
    if b is BodyType.INSECTOID:
        if wings is None:
            wings = optional
        if isinstance(wings, bool):
            wing_pairs = 2 if wings else 0
        elif wings in (4, 6):
            wing_pairs = wings // 2
        else:
            raise RulesError("bad_wing_count", "an insect has 4 or 6 wings", value=wings)
    elif b is BodyType.HUMANOID:
        wing_pairs = int(optional if wings is None else _bool_wings(b, wings))
    elif b is BodyType.REPTILE:
        wing_pairs = int(True if wings is None else _bool_wings(b, wings))
    leg_pairs = 1
    if b is BodyType.REPTILE:
        if legs not in (None, 2, 4):
            raise RulesError("bad_leg_count", "a reptile has 2 or 4 legs", value=legs)
        leg_pairs = 1 if legs == 2 else 2
    elif b is BodyType.INSECTOID:
        if legs not in (None, 6, 8, 10):
            raise RulesError("bad_leg_count", "an insect has 6, 8 or 10 legs", value=legs)
        leg_pairs = 3 if legs is None else legs // 2

    zones: list[ZoneSpec] = []
    for row in BODY_ROWS[b]:
        if row.part is Part.WING and b is not BodyType.BIRD:
            if wing_pairs == 0:
                continue
        elif row.part is Part.TAIL and b is BodyType.HUMANOID and not has_tail:
            continue
        elif row.part is Part.FORELEG and leg_pairs == 1:
            continue
        numbered = b is BodyType.INSECTOID
        per_side = wing_pairs if row.part is Part.WING else leg_pairs
        zones.extend(_expand(b, row, per_side, numbered))

    if b is BodyType.BIRD and not wings_spread:
        zones = [
            _with_reach(s, s.reach | {Direction.LEFT, Direction.RIGHT})
            if s.part in (Part.HEAD, Part.BODY)
            else s
            for s in zones
        ]
    if upright:
        zones = [
            _with_reach(s, frozenset() if s.part in (Part.WING, Part.TAIL) else _SIDES_AND_ENDS)
            for s in zones
        ]
    if coiled:
        zones = [_with_reach(s, _ALL_DIRECTIONS) for s in zones]
    return BodyPlan(b.value, b, tuple(zones))


def _bool_wings(b: BodyType, wings: bool | int) -> bool:
    if not isinstance(wings, bool):
        raise RulesError(
            "bad_wing_count", f"a {b.value} has wings or not (True or False)", value=wings
        )
    return wings


def _with_reach(spec: ZoneSpec, reach: frozenset[Direction]) -> ZoneSpec:
    return replace(spec, reach=frozenset(reach))


def combine_bodies(
    name: str, *parts: BodyPlan | tuple[BodyPlan, Iterable[Zone | str] | None]
) -> BodyPlan:
    """A creature that fits no single body type, from whole or partial plans, top to bottom.

    Each part is a plan (all its zones) or ``(plan, zones)``; each zone keeps its own body
    type's rules; the first part's body type is primary. A centipede::

        combine_bodies("centipede",
                       (body_plan("insectoid"), ["head", "left_leg_1", ..., "right_leg_3"]),
                       (body_plan("snake"), ["upper_body", "lower_body"]))
    """
    if not isinstance(name, str):
        raise bad_argument("name", name, "a name (text)")
    specs: list[ZoneSpec] = []
    seen: set[Zone] = set()
    for part in parts:
        plan, chosen = _part(part)
        picked = plan.zones if chosen is None else tuple(plan.spec(z) for z in chosen)
        for spec in picked:
            if spec.zone in seen:
                raise RulesError(
                    "zone_repeated", f"{spec.zone.value} given twice", zone=spec.zone.value
                )
            seen.add(spec.zone)
            specs.append(spec)
    if not specs:
        raise RulesError("no_zones", "a combined body needs at least one zone", body=name)
    first = parts[0]
    primary = (first[0] if isinstance(first, tuple) else first).body
    return BodyPlan(str(name), primary, tuple(specs))


_PART = "a BodyPlan or a (BodyPlan, list of zones or None) pair"
_MAX_ZONES = 100  # more zones than any body has; an endless generator must not hang the engine


def _part(part: object) -> tuple[BodyPlan, tuple[object, ...] | None]:
    if isinstance(part, BodyPlan):
        return _as_plan(part), None
    if not isinstance(part, tuple) or len(part) != 2:
        raise bad_argument("parts", part, _PART)
    plan, chosen = part
    if chosen is None:
        return _as_plan(plan, "parts"), None
    zones = items_of(chosen, _MAX_ZONES)
    if zones is None or len(zones) > _MAX_ZONES:
        raise bad_argument("parts", part, _PART)
    return _as_plan(plan, "parts"), zones


def _as_plan(plan: object, name: str = "plan") -> BodyPlan:
    """A body plan as the engine builds it (a hand-made one must hold zone specs)."""
    if (
        not isinstance(plan, BodyPlan)
        or not isinstance(plan.name, str)
        or not isinstance(plan.body, BodyType)
        or not isinstance(plan.zones, tuple)
        or not all(isinstance(spec, ZoneSpec) for spec in plan.zones)
    ):
        raise bad_argument(name, plan, "a BodyPlan (from body_plan or combine_bodies)")
    return plan


def _as_state(state: object) -> ZoneState:
    if not isinstance(state, ZoneState) or not isinstance(state.plan, BodyPlan):
        raise bad_argument("state", state, "a ZoneState (from new_zone_state)")
    return state


def _plan_of(body: BodyPlan | BodyType | str, optional: bool = False) -> BodyPlan:
    return _as_plan(body) if isinstance(body, BodyPlan) else body_plan(body, optional=optional)


def zone_max_hp(body: str, zone: str, max_hp: int) -> int:
    """Hit points a zone holds: ``round(share × max_hp)``, halves rounding up, at least 1.

    ``body`` is a body-type key, ``zone`` a zone key of that type (optional zones included:
    a humanoid's tail, an insect's wings, up to ``left_leg_5`` / ``left_wing_3``), ``max_hp``
    the creature's whole hit points (at least 1). Shares are the seed's (a 100-hp humanoid:
    head 15, chest 80, abdomen 60, each arm 20, each leg 25, tail 20, each wing 10), but a
    reptile's wings (30%), which is the reconstruction's."""
    b = _as_body(body)
    z = _as_zone(zone)
    hp = _whole(max_hp, "max_hp_invalid", "max hp", 1)
    # The largest variant holds every zone the type can have.
    plan = (
        body_plan(b, wings=6, legs=10) if b is BodyType.INSECTOID else body_plan(b, optional=True)
    )
    return plan.spec(z).max_hp(hp)


# --------------------------------------------------------------------------- location tables


@dataclass(frozen=True)
class LocationRow:
    zone: Zone
    low: int
    high: int
    weight: int


@dataclass(frozen=True)
class LocationTable:
    """The d100 table of one plan and direction (``subset`` ``"fatal"`` / ``"wounding"`` for
    the tables an ``A`` / ``W`` band reads)."""

    body: str
    direction: Direction
    rows: tuple[LocationRow, ...]
    subset: str = ""

    def zone_at(self, position: int) -> LocationRow:
        if not is_whole(position):
            raise RulesError(
                "die_not_integer", "a d100 position is a whole number", sides=100, value=position
            )
        for row in self.rows:
            if row.low <= position <= row.high:
                return row
        raise RulesError(
            "die_out_of_range",
            f"a d100 shows 1 to 100, not {shown(position)}",
            sides=100,
            value=position,
        )

    def as_tuples(self) -> list[tuple[str, int, int]]:
        return [(row.zone.value, row.low, row.high) for row in self.rows]

    @property
    def zones(self) -> tuple[Zone, ...]:
        return tuple(row.zone for row in self.rows)


def _apportion(weights: Sequence[int], total: int = 100) -> list[int]:
    """Largest-remainder split of ``total`` points by weight; ties go to the earlier entry."""
    whole = sum(weights)
    quotas = [Fraction(total * w, whole) for w in weights]
    counts = [math.floor(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda i: (counts[i] - quotas[i], i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _table(
    plan: BodyPlan, direction: Direction, specs: Sequence[ZoneSpec], subset: str = ""
) -> LocationTable:
    rows = []
    low = 1
    for spec, points in zip(specs, _apportion([s.weight for s in specs]), strict=True):
        if points:  # a zone too small for one point in a huge combination cannot be hit
            rows.append(LocationRow(spec.zone, low, low + points - 1, spec.weight))
            low += points
    return LocationTable(plan.name, direction, tuple(rows), subset)


def location_table_for(plan: BodyPlan, direction: Direction | str) -> LocationTable:
    """The location table of a plan from a direction: the zones reached from it, top to bottom,
    with d100 ranges proportional to their weights (largest remainder, earlier wins ties)."""
    return _location_table_for(_as_plan(plan), _as_direction(direction))


@lru_cache(maxsize=1024)  # arguments checked first: the cache hashes what it is given
def _location_table_for(plan: BodyPlan, d: Direction) -> LocationTable:
    reached = [spec for spec in plan.zones if d in spec.reach]
    if not reached:
        raise RulesError(
            "direction_not_available",
            f"a {plan.name} cannot be attacked from {d.value}",
            body=plan.name,
            direction=d.value,
        )
    return _table(plan, d, reached)


def location_table(body: str, direction: str, optional: bool = False) -> list[tuple[str, int, int]]:
    """``(zone, low, high)`` rows, top to bottom, covering 1..100 for a body type attacked from
    a direction. ``optional`` includes the type's optional zones (a humanoid's tail and wings,
    an insect's wings). Standard variants: a reptile has four legs and wings, a bird's wings are
    spread. A direction the body type does not have (``above`` / ``below`` for a humanoid or
    reptile) raises ``RulesError`` with code ``direction_not_available``.

    >>> location_table("humanoid", "front")[:2]
    [('head', 1, 10), ('chest', 11, 40)]
    """
    return location_table_for(body_plan(body, optional=optional), direction).as_tuples()


# --------------------------------------------------------------------------- height bands


class BandKind(StrEnum):
    AUTOMATIC = "automatic"  # A: a potentially fatal zone
    NORMAL = "normal"  # N: the whole table
    WOUNDING = "wounding"  # W: a wounding zone only
    TOP = "top"  # "X N": only the top X of the table
    BOTTOM = "bottom"  # "N X": not the top X


@dataclass(frozen=True)
class Band:
    """A height band; ``str(band)`` is its key (``"A"``, ``"N"``, ``"W"``, ``"40 N"``,
    ``"N 60"``)."""

    kind: BandKind
    value: int = 0

    def __str__(self) -> str:
        if self.kind is BandKind.TOP:
            return f"{self.value} N"
        if self.kind is BandKind.BOTTOM:
            return f"N {self.value}"
        return {BandKind.AUTOMATIC: "A", BandKind.NORMAL: "N", BandKind.WOUNDING: "W"}[self.kind]

    @property
    def span(self) -> tuple[int, int]:
        """The positions of the table this band can hit."""
        if self.kind is BandKind.TOP:
            return 1, self.value
        if self.kind is BandKind.BOTTOM:
            return self.value + 1, 100
        return 1, 100


def parse_band(band: Band | str) -> Band:
    """``"40 N"`` → ``Band(TOP, 40)``; X is 1..99. Bad text (or a hand-made ``Band`` that is
    none of these, or anything but text and bands) raises ``unknown_band``."""
    if isinstance(band, HeightBand):
        band = band.band
    if isinstance(band, Band):
        return _checked_band(band)
    if not isinstance(band, str):
        raise RulesError("unknown_band", f"not a height band: {shown(band)}", value=shown(band))
    text = " ".join(band.upper().split())
    simple = {"A": BandKind.AUTOMATIC, "N": BandKind.NORMAL, "W": BandKind.WOUNDING}
    if text in simple:
        return Band(simple[text])
    first, _, second = text.partition(" ")
    try:
        if second == "N" and first.isdigit() and 1 <= int(first) <= 99:
            return Band(BandKind.TOP, int(first))
        if first == "N" and second.isdigit() and 1 <= int(second) <= 99:
            return Band(BandKind.BOTTOM, int(second))
    except ValueError:
        pass
    raise RulesError("unknown_band", f"not a height band: {shown(band)}", value=str(band))


def _checked_band(band: Band) -> Band:
    edged = band.kind in (BandKind.TOP, BandKind.BOTTOM)
    ok = isinstance(band.kind, BandKind) and (
        (is_whole(band.value) and 1 <= band.value <= 99) if edged else band.value == 0
    )
    if not ok:
        raise RulesError("unknown_band", f"not a height band: {shown(band)}", value=shown(band))
    return band


FOOT_IN_METRES = Fraction("0.3048")


#: Heights and weapon lengths are at most this many feet (or metres): far beyond any creature,
#: and a bound keeps an absurd Decimal such as 1E+999999999 from costing unbounded work.
MAX_LENGTH = 10_000
_DECIMAL_PLACES = Decimal("1E-12")  # a Decimal is read to 12 places (1E-999999999 is 0)


def _length(value: Any, what: str, allow_zero: bool) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction | Decimal):
        raise RulesError("height_invalid", f"{what} must be a number", what=what, value=value)
    if isinstance(value, float | Decimal) and not (
        value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)
    ):
        raise RulesError("height_invalid", f"{what} must be finite", what=what, value=value)
    size = value.copy_abs() if isinstance(value, Decimal) else abs(value)  # no Overflow trap
    if size > MAX_LENGTH:
        raise RulesError(
            "height_invalid", f"{what} must be at most {MAX_LENGTH}", what=what, value=value
        )
    if isinstance(value, float):
        number = Fraction(repr(value))  # 5.7 means 57/10, not its binary neighbour
    elif isinstance(value, Decimal):
        number = Fraction(value.quantize(_DECIMAL_PLACES))
    else:
        number = Fraction(value)
    if number < 0 or (number == 0 and not allow_zero):
        raise RulesError("height_invalid", f"{what} must be above 0", what=what, value=value)
    return number


def feet_from_metres(metres: float | int | Fraction | Decimal) -> Fraction:
    """Metric input converted to the seed's feet (1 ft = 0.3048 m), exactly."""
    return _length(metres, "length", True) / FOOT_IN_METRES


@dataclass(frozen=True)
class HeightBand:
    """The band a pair of heights and a weapon give. ``effective_ft`` is the attacker's height
    after weapon rules 1 and 2; ``ratio`` = effective / defender; ``modifiers`` hold the band
    points a taller attacker gains from weapon length (rule 3, reason ``weapon_reach``);
    ``matrix_band`` is the matrix row before them."""

    attacker_ft: Fraction
    defender_ft: Fraction
    weapon_ft: Fraction
    effective_ft: Fraction
    ratio: Fraction
    matrix_band: Band
    modifiers: tuple[Modifier, ...]
    band: Band

    def __str__(self) -> str:
        return str(self.band)


def height_band_for(
    attacker: float | int | Fraction | Decimal,
    defender: float | int | Fraction | Decimal,
    weapon: float | int | Fraction | Decimal = 0,
    *,
    unit: str = "ft",
) -> HeightBand:
    """The height band with its working (see :class:`HeightBand`); ``unit`` ``"ft"`` or
    ``"m"`` (metres convert to feet first). Heights must be above 0, weapon length 0 or more."""
    if unit not in ("ft", "m"):
        raise RulesError("unknown_unit", f"unit is 'ft' or 'm', not {shown(unit)}", value=unit)
    a = _length(attacker, "attacker height", False)
    d = _length(defender, "defender height", False)
    w = _length(weapon, "weapon length", True)
    if unit == "m":
        a, d, w = a / FOOT_IN_METRES, d / FOOT_IN_METRES, w / FOOT_IN_METRES
    # Rules 1 and 2: a shorter attacker's weapon makes up the difference, and no more.
    effective = min(a + w, d) if a < d else a
    ratio = effective / d
    matrix = next(
        parse_band(key)
        for bound, inclusive, key in HEIGHT_MATRIX
        if ratio > bound or (inclusive and ratio == bound)
    )
    band = matrix
    modifiers: tuple[Modifier, ...] = ()
    extra_feet = math.floor(w - d) if a > d and w > d else 0
    if matrix.kind is BandKind.TOP and extra_feet > 0:
        # Rule 3: a taller attacker gains 5% per foot of weapon beyond the defender's height.
        modifiers = (Modifier(5 * extra_feet, "weapon_reach"),)
        top = matrix.value + 5 * extra_feet
        band = Band(BandKind.NORMAL) if top >= 100 else Band(BandKind.TOP, top)
    return HeightBand(a, d, w, effective, ratio, matrix, modifiers, band)


def height_band(attacker_ft: float, defender_ft: float, weapon_ft: float = 0) -> str:
    """The height band key for an attacker and defender height and the attacker's weapon
    length, all in feet: ``"A"``, ``"W"``, ``"N"``, ``"<X> N"`` or ``"N <X>"``.

    The matrix is the project's reconstruction (``hit-location.md`` B): 6 ft vs 3 ft gives
    ``"40 N"``, 4 ft vs 8 ft ``"N 60"``, 5 ft vs 9 ft ``"N 60"``, 5 ft with a 4-ft spear vs 9 ft
    ``"N"``. Bad numbers raise ``RulesError`` (``height_invalid``)."""
    return str(height_band_for(attacker_ft, defender_ft, weapon_ft).band)


# --------------------------------------------------------------------------- location roll


def band_position(band: Band | str, natural: int) -> int:
    """Where a d100 natural lands on the table in a band (see the module's decisions)."""
    b = parse_band(band)
    n = natural_roll(100, entered=natural)
    low, high = b.span
    span = high - low + 1
    return low - 1 + (n * span + 99) // 100


@lru_cache(maxsize=2048)
def _band_table(plan: BodyPlan, direction: Direction, band: Band) -> LocationTable:
    full = location_table_for(plan, direction)
    if band.kind not in (BandKind.AUTOMATIC, BandKind.WOUNDING):
        return full
    reached = [spec for spec in plan.zones if direction in spec.reach]
    if band.kind is BandKind.AUTOMATIC:
        picked = [s for s in reached if s.fatal]
        subset = "fatal"
    else:
        picked = [s for s in reached if s.wounding]
        subset = "wounding"
    return _table(plan, direction, picked, subset) if picked else full


def band_table(
    body: BodyPlan | str,
    direction: Direction | str,
    band: Band | str = "N",
    *,
    optional: bool = False,
) -> LocationTable:
    """The table a location roll in ``band`` reads: the full table, or for ``A`` / ``W`` the
    fatal / wounding zones reached from the direction, by weight (full table if none)."""
    return _band_table(_plan_of(body, optional), _as_direction(direction), parse_band(band))


def band_zones(
    body: BodyPlan | str,
    direction: Direction | str,
    band: Band | str = "N",
    *,
    optional: bool = False,
) -> frozenset[Zone]:
    """The zones a band can hit from a direction."""
    table = band_table(body, direction, band, optional=optional)
    low, high = parse_band(band).span
    return frozenset(row.zone for row in table.rows if row.low <= high and row.high >= low)


@dataclass(frozen=True)
class LocationRoll:
    """A location roll: the d100 ``natural``, the ``band``, the ``position`` it gives on the
    ``table`` read (``total``), and the zone hit (``outcome``) with its range ``low``..``high``.
    No modifiers apply to the roll itself; the band carries the height working."""

    natural: int
    band: Band
    position: int
    table: LocationTable
    zone: Zone
    low: int
    high: int
    modifiers: tuple[Modifier, ...] = ()

    @property
    def total(self) -> int:
        return self.position

    @property
    def outcome(self) -> Zone:
        return self.zone


def roll_location(
    body: BodyPlan | str,
    direction: Direction | str,
    band: Band | HeightBand | str = "N",
    *,
    rng: RandomSource | None = None,
    entered: int | None = None,
    optional: bool = False,
) -> LocationRoll:
    """Roll (or read an entered) d100 for the zone hit from ``direction`` in ``band``."""
    b = parse_band(band)
    table = band_table(body, direction, b, optional=optional)
    random_source(rng)
    natural = natural_roll(100, rng, entered)
    position = band_position(b, natural)
    row = table.zone_at(position)
    return LocationRoll(natural, b, position, table, row.zone, row.low, row.high)


def location_odds(
    body: BodyPlan | str,
    direction: Direction | str,
    band: Band | HeightBand | str = "N",
    *,
    optional: bool = False,
) -> dict[Zone, Fraction]:
    """Exact chance of each zone for a location roll, by enumerating the 100 naturals."""
    b = parse_band(band)
    return dict(_odds(_plan_of(body, optional), _as_direction(direction), b))


@lru_cache(maxsize=2048)
def _odds(plan: BodyPlan, direction: Direction, band: Band) -> tuple[tuple[Zone, Fraction], ...]:
    table = _band_table(plan, direction, band)
    counts: dict[Zone, int] = {}
    for n in range(1, 101):
        zone = table.zone_at(band_position(band, n)).zone
        counts[zone] = counts.get(zone, 0) + 1
    return tuple((z, Fraction(c, 100)) for z, c in counts.items())


# --------------------------------------------------------------------------- dice


@dataclass(frozen=True)
class DiceRoll:
    """Dice a wound called for: the spec, each natural, the total and what it was for."""

    purpose: str
    spec: DiceSpec
    naturals: tuple[int, ...]
    total: int


def roll_odds(spec: DiceSpec) -> dict[int, Fraction]:
    """Exact distribution of a dice spec's total (timers, the humanoid tail's DEX loss): up to
    :data:`MAX_SPEC_DICE` dice of 1..:data:`MAX_SPEC_SIDES` sides (none: the constant bias)."""
    _check_spec(spec)
    dist = {spec.bias: Fraction(1)}
    for _ in range(spec.count):
        step: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, spec.sides + 1):
                step[total + face] = step.get(total + face, 0) + p / spec.sides
        dist = step
    return dist


#: Bounds of a :class:`DiceSpec` given to :func:`roll_odds` (the tables use at most 2d8).
MAX_SPEC_DICE, MAX_SPEC_SIDES = 10, 100


def _check_spec(spec: object) -> DiceSpec:
    ok = (
        isinstance(spec, DiceSpec)
        and is_whole(spec.count)
        and is_whole(spec.sides)
        and is_whole(spec.bias)
        and 0 <= spec.count <= MAX_SPEC_DICE
        and (spec.count == 0 or 1 <= spec.sides <= MAX_SPEC_SIDES)
        and abs(spec.bias) <= MAX_SPEC_SIDES * MAX_SPEC_DICE
    )
    if not ok:
        raise bad_argument(
            "spec", spec, f"a DiceSpec of 0..{MAX_SPEC_DICE} dice of 1..{MAX_SPEC_SIDES} sides"
        )
    return spec  # type: ignore[return-value]


class _Dice:
    def __init__(self, rng: RandomSource | None, entered: Sequence[int] | None) -> None:
        if entered is None:
            entered = ()
        if not is_sequence(entered):
            raise bad_argument("entered", entered, "a list of die results (or None)")
        self.rng = random_source(rng)
        self.entered = list(entered)
        self.used = 0

    def roll(self, purpose: str, spec: DiceSpec) -> DiceRoll:
        naturals = []
        for _ in range(spec.count):
            if self.used < len(self.entered):
                naturals.append(natural_roll(spec.sides, entered=self.entered[self.used]))
                self.used += 1
            else:
                naturals.append(natural_roll(spec.sides, self.rng))
        return DiceRoll(purpose, spec, tuple(naturals), sum(naturals) + spec.bias)

    def finish(self) -> None:
        if self.used < len(self.entered):
            raise RulesError(
                "too_many_dice_entered",
                f"{len(self.entered)} dice entered, {self.used} needed",
                entered=len(self.entered),
                needed=self.used,
            )


class _Recorder:
    def __init__(self) -> None:
        self.sides: list[int] = []

    def randint(self, a: int, b: int) -> int:
        self.sides.append(b)
        return a


# --------------------------------------------------------------------------- zone state


class EffectKind(StrEnum):
    DAMAGED = "damaged"
    ZONE_LOST = "zone_lost"
    LIMB_SEVERED = "limb_severed"  # bleeding starts
    DEX_LOST = "dex_lost"
    DEX_HALVED = "dex_halved"
    CONDITION = "condition"
    DYING = "dying"
    KILLED = "killed"
    WRITHING = "writhing"
    WOUND_WILL_HEAL = "wound_will_heal"
    BLED = "bled"
    WOUND_TREATED = "wound_treated"
    HEALED = "healed"


class DeathCause(StrEnum):
    HEAD_DESTROYED = "head_destroyed"
    CHEST_DESTROYED = "chest_destroyed"
    BODY_DESTROYED = "body_destroyed"
    THORAX_DESTROYED = "thorax_destroyed"
    UPPER_BODY_DESTROYED = "upper_body_destroyed"
    TOTAL_DAMAGE = "total_damage"
    TWO_LIMBS_LOST = "two_limbs_lost"
    BOTH_WINGS_DESTROYED = "both_wings_destroyed"
    BOTH_LEGS_DESTROYED = "both_legs_destroyed"
    FIN_LOST = "fin_lost"
    TAIL_LOST = "tail_lost"


@dataclass(frozen=True)
class ZoneEffect:
    """One consequence of a wound or a round. ``amount``: points (damage, DEX, bleeding) or
    rounds (dying, writhing); ``cause`` for dying / killed; ``condition`` for ``condition``."""

    kind: EffectKind
    zone: Zone | None = None
    amount: int | None = None
    cause: DeathCause | None = None
    condition: Condition | None = None
    roll: DiceRoll | None = None


@dataclass(frozen=True)
class ZoneState:
    """A creature's body under the hit-location option; change it only through the functions
    here, which return a new state and the effects.

    ``damage``, ``zone_max`` and ``dex_loss`` are per zone in ``plan.zones`` order;
    ``tail_dex_loss`` the humanoid tail's 1d6; ``dex_halvings`` the reptile's; ``treated`` the
    severed limbs whose wound is treated; ``bleed_loss`` the hit points bled so far;
    ``dies_in`` the rounds left to live when dying; ``writhing_rounds`` a dead snake's."""

    plan: BodyPlan
    max_hp: int
    zone_max: tuple[int, ...]
    damage: tuple[int, ...]
    dex_loss: tuple[int, ...]
    tail_dex_loss: int = 0
    dex_halvings: int = 0
    treated: frozenset[Zone] = frozenset()
    bleed_loss: int = 0
    conditions: frozenset[Condition] = frozenset()
    dead: bool = False
    death_cause: DeathCause | None = None
    dies_in: int | None = None
    dying_cause: DeathCause | None = None
    writhing_rounds: int = 0
    fired: frozenset[str] = field(default=frozenset(), repr=False)

    def damage_to(self, zone: Zone | str) -> int:
        return self.damage[self.plan.index(zone)]

    def max_of(self, zone: Zone | str) -> int:
        return self.zone_max[self.plan.index(zone)]

    @property
    def lost(self) -> frozenset[Zone]:
        """Zones whose points are all used up."""
        return frozenset(
            s.zone
            for s, d, m in zip(self.plan.zones, self.damage, self.zone_max, strict=True)
            if d >= m
        )

    @property
    def bleeding(self) -> frozenset[Zone]:
        """Lost limbs whose wound is not treated: each costs 1 hp per round."""
        lost = self.lost
        return frozenset(
            s.zone
            for s in self.plan.zones
            if s.limb and s.zone in lost and s.zone not in self.treated
        )

    @property
    def total_damage(self) -> int:
        """Damage counting against total hit points: cumulative zones plus bleeding."""
        zone_damage = sum(
            d for s, d in zip(self.plan.zones, self.damage, strict=True) if s.cumulative
        )
        return zone_damage + self.bleed_loss

    @property
    def hp_left(self) -> int:
        return self.max_hp - self.total_damage

    @property
    def dex_penalty(self) -> int:
        """DEX points lost (maiming per point and the humanoid tail), before any halving."""
        return sum(self.dex_loss) + self.tail_dex_loss


def new_zone_state(
    body: BodyPlan | BodyType | str, max_hp: int, *, optional: bool = False
) -> ZoneState:
    """An unhurt creature of a plan (or standard body type) with ``max_hp`` hit points."""
    plan = _plan_of(body, optional)
    hp = _whole(max_hp, "max_hp_invalid", "max hp", 1)
    count = len(plan.zones)
    return ZoneState(plan, hp, tuple(s.max_hp(hp) for s in plan.zones), (0,) * count, (0,) * count)


class _Change:
    """Mutable working copy while one event is resolved; the public functions stay pure."""

    def __init__(self, state: ZoneState, dice: _Dice) -> None:
        self.s = state
        self.dice = dice
        self.effects: list[ZoneEffect] = []
        self.values: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        return self.values.get(name, getattr(self.s, name))

    def set(self, **values: Any) -> None:
        self.values.update(values)

    def emit(self, kind: EffectKind, **details: Any) -> None:
        self.effects.append(ZoneEffect(kind, **details))

    def once(self, key: str) -> bool:
        fired = self.get("fired")
        if key in fired:
            return False
        self.set(fired=fired | {key})
        return True

    def condition(self, condition: Condition) -> None:
        conditions = self.get("conditions")
        if condition not in conditions:
            self.set(conditions=conditions | {condition})
            self.emit(EffectKind.CONDITION, condition=condition)

    def kill(self, cause: DeathCause) -> None:
        if not self.get("dead"):
            self.set(dead=True, death_cause=cause, dies_in=None)
            self.emit(EffectKind.KILLED, cause=cause)

    def fate(self, fate: Fate, cause: DeathCause) -> None:
        # Dice are rolled even for the already dead, so that the dice a wound needs never
        # depend on the values rolled (dice_needed relies on it).
        alive = not self.get("dead")
        if alive:
            for condition in sorted(fate.conditions):
                self.condition(condition)
        if fate.writhes is not None:
            roll = self.dice.roll("writhing", fate.writhes)
            if alive:
                self.set(writhing_rounds=max(self.get("writhing_rounds"), roll.total))
                self.emit(EffectKind.WRITHING, amount=roll.total, roll=roll)
        if fate.dies_in is None:
            self.kill(cause)
            return
        roll = self.dice.roll("death_timer", fate.dies_in)
        if not alive:
            return
        self.emit(EffectKind.DYING, amount=max(0, roll.total), cause=cause, roll=roll)
        if roll.total <= 0:
            self.kill(cause)
            return
        current = self.get("dies_in")
        if current is None or roll.total < current:
            self.set(dies_in=roll.total, dying_cause=cause)

    def check_total(self) -> None:
        state = self.state()
        strictly, fate = TOTAL_DEATH[state.plan.body]
        total, hp = state.total_damage, state.max_hp
        if (total > hp or (total == hp and not strictly)) and self.once("total"):
            self.fate(fate, DeathCause.TOTAL_DAMAGE)

    def state(self) -> ZoneState:
        return replace(self.s, **self.values)


def apply_zone_damage(
    state: ZoneState,
    zone: Zone | str,
    damage: int,
    *,
    rng: RandomSource | None = None,
    entered: Sequence[int] | None = (),
) -> tuple[ZoneState, tuple[ZoneEffect, ...]]:
    """Damage one zone; return the new state and what followed, in order.

    Dice the wound calls for (the humanoid tail's 1d6 DEX, death timers, a snake's writhing)
    come from ``entered`` naturals in order (``None``: none entered), then from ``rng``;
    :func:`dice_needed` tells which dice a wound will need. A dead creature takes the damage
    with no further consequence."""
    i = _as_state(state).plan.index(zone)
    points = _whole(damage, "damage_invalid", "damage", 0)
    dice = _Dice(rng, entered)
    change = _Change(state, dice)
    spec = state.plan.zones[i]
    before = state.damage[i]
    after = before + points
    zmax = state.zone_max[i]
    change.set(damage=(*state.damage[:i], after, *state.damage[i + 1 :]))
    change.emit(EffectKind.DAMAGED, zone=spec.zone, amount=points)
    if not state.dead:
        newly_lost = before < zmax <= after
        if newly_lost:
            change.emit(EffectKind.ZONE_LOST, zone=spec.zone)
            if spec.limb and spec.zone not in state.treated:
                change.emit(EffectKind.LIMB_SEVERED, zone=spec.zone)
        _maiming(change, i, spec, after, zmax, newly_lost)
        if spec.body is BodyType.BIRD:
            _bird_over_maximum(change, spec, after, zmax)
        if newly_lost and spec.fatal:
            fate = FATAL_FATES[(spec.body, spec.part)]
            change.fate(fate, DeathCause(f"{spec.part.value}_destroyed"))
        change.check_total()
    dice.finish()
    return change.state(), tuple(change.effects)


def _maiming(
    change: _Change, i: int, spec: ZoneSpec, after: int, zmax: int, newly_lost: bool
) -> None:
    rule = MAIMING[spec.body]
    if spec.body is BodyType.HUMANOID and spec.part is Part.TAIL:
        if newly_lost:
            roll = change.dice.roll("tail_dex_loss", DiceSpec(1, 6))
            change.set(tail_dex_loss=change.get("tail_dex_loss") + roll.total)
            change.emit(EffectKind.DEX_LOST, zone=spec.zone, amount=roll.total, roll=roll)
        return
    if rule is MaimingRule.DEX_PER_POINT and spec.limb:
        loss = min(max(0, after - zmax), 2 * zmax)
        dex_loss = change.get("dex_loss")
        if loss > dex_loss[i]:
            change.set(dex_loss=(*dex_loss[:i], loss, *dex_loss[i + 1 :]))
            change.emit(EffectKind.DEX_LOST, zone=spec.zone, amount=loss - dex_loss[i])
    elif rule is MaimingRule.HALVE_DEX and spec.limb and newly_lost:
        change.set(dex_halvings=change.get("dex_halvings") + 1)
        change.emit(EffectKind.DEX_HALVED, zone=spec.zone)
        state = change.state()
        lost_limbs = [
            s
            for s in state.plan.zones
            if s.body is BodyType.REPTILE and s.limb and s.zone in state.lost
        ]
        if len(lost_limbs) >= 2 and any(s.part is not Part.WING for s in lost_limbs):
            change.kill(DeathCause.TWO_LIMBS_LOST)
    elif rule is MaimingRule.NEST_REPLACES and newly_lost:
        change.condition(Condition.MAIMED)
    elif rule is MaimingRule.DIES and spec.limb and newly_lost:
        cause = DeathCause.TAIL_LOST if spec.part is Part.TAIL else DeathCause.FIN_LOST
        change.fate(FIN_OR_TAIL_LOST_FATE, cause)
    elif rule is MaimingRule.HEALS_IF_LOWER and newly_lost and spec.part is Part.LOWER_BODY:
        change.emit(EffectKind.WOUND_WILL_HEAL, zone=spec.zone)


def _bird_over_maximum(change: _Change, spec: ZoneSpec, after: int, zmax: int) -> None:
    if spec.part not in (Part.WING, Part.LEG) or after <= zmax:
        return
    if spec.part is Part.WING and change.once(f"over:{spec.zone.value}"):
        change.condition(Condition.FLIGHTLESS_FOREVER)
    state = change.state()
    pair = [
        (s, d, m)
        for s, d, m in zip(state.plan.zones, state.damage, state.zone_max, strict=True)
        if s.body is BodyType.BIRD and s.part is spec.part
    ]
    if len(pair) >= 2 and all(d > m for _, d, m in pair):
        change.kill(
            DeathCause.BOTH_WINGS_DESTROYED
            if spec.part is Part.WING
            else DeathCause.BOTH_LEGS_DESTROYED
        )


def dice_needed(state: ZoneState, zone: Zone | str, damage: int) -> tuple[int, ...]:
    """The sides of each die :func:`apply_zone_damage` would roll for this wound, in order (so
    that players can be asked to roll them at the table and enter the naturals)."""
    _as_state(state)
    recorder = _Recorder()
    apply_zone_damage(state, zone, damage, rng=recorder)
    return tuple(recorder.sides)


def round_dice_needed(state: ZoneState) -> tuple[int, ...]:
    """The sides of each die :func:`end_round` would roll (bleeding can bring a reptile's or a
    snake's total-damage death timer)."""
    _as_state(state)
    recorder = _Recorder()
    end_round(state, rng=recorder)
    return tuple(recorder.sides)


def end_round(
    state: ZoneState, *, rng: RandomSource | None = None, entered: Sequence[int] | None = ()
) -> tuple[ZoneState, tuple[ZoneEffect, ...]]:
    """The end of a round: a dying creature's timer counts down (death at 0); then each
    untreated severed limb bleeds 1 hp, which can bring total-damage death (and its dice, from
    ``entered`` then ``rng``). A dead snake's writhing counts down."""
    _as_state(state)
    dice = _Dice(rng, entered)
    change = _Change(state, dice)
    if state.dead:
        if state.writhing_rounds > 0:
            change.set(writhing_rounds=state.writhing_rounds - 1)
    else:
        if state.dies_in is not None:
            left = state.dies_in - 1
            change.set(dies_in=left)
            if left <= 0:
                change.kill(state.dying_cause or DeathCause.TOTAL_DAMAGE)
        bleeding = len(state.bleeding)
        if bleeding and not change.get("dead"):
            change.set(bleed_loss=state.bleed_loss + bleeding)
            change.emit(EffectKind.BLED, amount=bleeding)
            change.check_total()
    dice.finish()
    return change.state(), tuple(change.effects)


def treat_wound(
    state: ZoneState, zone: Zone | str | None = None
) -> tuple[ZoneState, tuple[ZoneEffect, ...]]:
    """Treat a severed limb's wound (``zone``), or every bleeding one: the bleeding stops."""
    _as_state(state)
    targets = state.bleeding if zone is None else frozenset({state.plan.spec(zone).zone})
    targets = targets & state.bleeding
    effects = tuple(
        ZoneEffect(EffectKind.WOUND_TREATED, zone=z) for z in state.plan.zone_keys if z in targets
    )
    return replace(state, treated=state.treated | targets), effects


def heal_zone(
    state: ZoneState, zone: Zone | str, points: int
) -> tuple[ZoneState, tuple[ZoneEffect, ...]]:
    """Heal damage in a zone. A lost zone stays lost; a snake heals only its lower body (the
    seed: damage elsewhere kills it in the end), which heals even when lost. The dead don't
    heal. Maiming DEX and bleeding already suffered stay."""
    i = _as_state(state).plan.index(zone)
    amount = _whole(points, "heal_invalid", "healing", 0)
    spec = state.plan.zones[i]
    if spec.body is BodyType.SNAKE:
        heals = spec.part is Part.LOWER_BODY
    else:
        heals = state.damage[i] < state.zone_max[i]
    if state.dead or not heals:
        raise RulesError("zone_cannot_heal", f"{spec.zone.value} cannot heal", zone=spec.zone.value)
    healed = min(amount, state.damage[i])
    damage = (*state.damage[:i], state.damage[i] - healed, *state.damage[i + 1 :])
    return (
        replace(state, damage=damage),
        (ZoneEffect(EffectKind.HEALED, zone=spec.zone, amount=healed),),
    )


def effective_dex(state: ZoneState, dex: int) -> int:
    """DEX after maiming: points lost first, then a reptile's halvings (rounding down),
    never below 0."""
    _as_state(state)
    value = max(0, _whole(dex, "dex_invalid", "DEX", 0) - state.dex_penalty)
    return value >> state.dex_halvings


# --------------------------------------------------------------------------- movement


class Turning(StrEnum):
    FREE = "free"
    ONE_PER_MOVE = "one_per_move"  # a fish without a tail: one 22.5° turn per move
    NONE = "none"


@dataclass(frozen=True)
class Mobility:
    """Movement left, as fractions of the creature's normal speeds (``None``: the body has no
    such movement). ``crawling``: ground speed is a fraction of crawling speed."""

    ground: Fraction | None = None
    crawling: bool = False
    flight: Fraction | None = None
    flightless_forever: bool = False
    swim: Fraction | None = None
    turning: Turning | None = None
    no_turn_towards: frozenset[Side] = frozenset()
    can_dive: bool | None = None
    moves_randomly: bool = False


def _times(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    if a is None:
        return b
    if b is None:
        return a
    return a * b


def mobility(state: ZoneState) -> Mobility:
    """Movement limits from lost zones, conditions and (snake) total damage."""
    lost = _as_state(state).lost
    result = Mobility()
    for body in BodyType:
        specs = [s for s in state.plan.zones if s.body is body]
        if specs:
            part = _MOBILITY[body](specs, lost, state)
            result = Mobility(
                ground=_times(result.ground, part.ground),
                crawling=result.crawling or part.crawling,
                flight=_times(result.flight, part.flight),
                flightless_forever=Condition.FLIGHTLESS_FOREVER in state.conditions,
                swim=_times(result.swim, part.swim),
                turning=part.turning or result.turning,
                no_turn_towards=result.no_turn_towards | part.no_turn_towards,
                can_dive=part.can_dive if part.can_dive is not None else result.can_dive,
                moves_randomly=Condition.MOVES_RANDOMLY in state.conditions,
            )
    if state.dead or Condition.CANNOT_MOVE in state.conditions:
        zero = Fraction(0)
        result = replace(
            result,
            ground=None if result.ground is None else zero,
            flight=None if result.flight is None else zero,
            swim=None if result.swim is None else zero,
            can_dive=None if result.can_dive is None else False,
        )
    return result


def _lost_of(specs: list[ZoneSpec], lost: frozenset[Zone], part: Part) -> list[ZoneSpec]:
    return [s for s in specs if s.part is part and s.zone in lost]


def _has(specs: list[ZoneSpec], part: Part) -> bool:
    return any(s.part is part for s in specs)


def _wing_flight(specs: list[ZoneSpec], lost: frozenset[Zone]) -> Fraction | None:
    if not _has(specs, Part.WING):
        return None
    return Fraction(0) if _lost_of(specs, lost, Part.WING) else Fraction(1)


def _humanoid_mobility(specs, lost, state) -> Mobility:
    legs_lost = len(_lost_of(specs, lost, Part.LEG))
    arms_lost = len(_lost_of(specs, lost, Part.ARM))
    ground = Fraction(1, 2**arms_lost) if legs_lost else Fraction(1)
    return Mobility(ground=ground, crawling=legs_lost > 0, flight=_wing_flight(specs, lost))


def _bird_mobility(specs, lost, state) -> Mobility:
    ground = None
    if _has(specs, Part.LEG):
        ground = Fraction(0) if _lost_of(specs, lost, Part.LEG) else Fraction(1)
    return Mobility(ground=ground, flight=_wing_flight(specs, lost))


_FOUR_LEGGED = {0: Fraction(1), 1: Fraction(3, 4), 2: Fraction(1, 2)}


def _reptile_mobility(specs, lost, state) -> Mobility:
    legs = [s for s in specs if s.part in (Part.FORELEG, Part.HIND_LEG)]
    gone = [s for s in legs if s.zone in lost]
    ground: Fraction | None = None
    if len(legs) >= 4:
        ground = _FOUR_LEGGED.get(len(gone), Fraction(0))
        if len(gone) == 2 and gone[0].side is gone[1].side:
            ground = Fraction(0)
    elif legs:
        ground = Fraction(0) if gone else Fraction(1)
    return Mobility(ground=ground, flight=_wing_flight(specs, lost))


def _insect_mobility(specs, lost, state) -> Mobility:
    ground: Fraction | None = None
    legs = [s for s in specs if s.part is Part.LEG]
    if legs:
        left = [s for s in legs if s.side is Side.LEFT]
        right = [s for s in legs if s.side is Side.RIGHT]
        left_left = sum(1 for s in left if s.zone not in lost)
        right_left = sum(1 for s in right if s.zone not in lost)
        if (left and left_left == 0) or (right and right_left == 0):
            ground = Fraction(0)
        elif (left_left < len(left) and right_left < len(right)) or 1 in (left_left, right_left):
            ground = Fraction(1, 2)
        else:
            ground = Fraction(1)
    flight: Fraction | None = None
    wings = [s for s in specs if s.part is Part.WING]
    if wings:
        gone = [s for s in wings if s.zone in lost]
        side_gone = any(all(s.zone in lost for s in wings if s.side is side) for side in Side)
        flight = Fraction(0) if side_gone else Fraction(1, 2) if gone else Fraction(1)
    if _lost_of(specs, lost, Part.THORAX):
        ground = None if ground is None else Fraction(0)
        flight = None if flight is None else Fraction(0)
    return Mobility(ground=ground, flight=flight)


def _fish_mobility(specs, lost, state) -> Mobility:
    fins = [s for s in specs if s.part in (Part.DORSAL_FIN, Part.PECTORAL_FIN, Part.PELVIC_FIN)]
    fins_lost = sum(1 for s in fins if s.zone in lost)
    body_lost = bool(_lost_of(specs, lost, Part.BODY))
    base = Fraction(1, 2) if body_lost else Fraction(1)
    swim = max(Fraction(0), base * (1 - Fraction(fins_lost, 5)))
    if body_lost:
        turning = Turning.NONE
    elif _lost_of(specs, lost, Part.TAIL):
        turning = Turning.ONE_PER_MOVE
    else:
        turning = Turning.FREE
    barred: set[Side] = set()
    for side in Side:
        sided = [s for s in fins if s.side is side]
        if sided and all(s.zone in lost for s in sided):
            barred.add(Side.RIGHT if side is Side.LEFT else Side.LEFT)
    return Mobility(
        swim=swim, turning=turning, no_turn_towards=frozenset(barred), can_dive=swim > 0
    )


def _snake_mobility(specs, lost, state) -> Mobility:
    ground = Fraction(1, 2) if any(s.zone in lost for s in specs) else Fraction(1)
    if state.total_damage * 4 > state.max_hp * 3:
        ground = Fraction(0)
    return Mobility(ground=ground)


_MOBILITY: dict[BodyType, Callable[[list[ZoneSpec], frozenset[Zone], ZoneState], Mobility]] = {
    BodyType.HUMANOID: _humanoid_mobility,
    BodyType.BIRD: _bird_mobility,
    BodyType.REPTILE: _reptile_mobility,
    BodyType.INSECTOID: _insect_mobility,
    BodyType.FISH: _fish_mobility,
    BodyType.SNAKE: _snake_mobility,
}


# --------------------------------------------------------------------------- monster attacks


class SpecialAttack(StrEnum):
    CONSTRICTION = "constriction"
    SEIZE_AND_TEAR = "seize_and_tear"
    SWALLOW = "swallow"


class SpecialOutcome(StrEnum):
    NONE = "none"
    SEIZED_AND_TORN = "seized_and_torn"
    SWALLOWED = "swallowed"
    ESCAPED = "escaped"


_TRIGGER = {SpecialAttack.SEIZE_AND_TEAR: 19, SpecialAttack.SWALLOW: 18}
_ESCAPE_ON = 10  # d100 of 10 or less: not swallowed


def swallow_escape_allowed(damage_low: int, damage_high: int) -> bool:
    """The 10% chance not to be swallowed, unless the monster's damage is listed as 6-24."""
    _whole(damage_low, "damage_invalid", "damage", 0)
    _whole(damage_high, "damage_invalid", "damage", 0)
    return (damage_low, damage_high) != (6, 24)


@dataclass(frozen=True)
class SpecialAttackResult:
    """A seize-and-tear or swallow check on an attack: the d20 ``natural`` against ``needed``
    (19 or 18), whether the attack ``hit``, the d100 escape natural (swallow), the outcome."""

    attack: SpecialAttack
    natural: int
    needed: int
    hit: bool
    escape_natural: int | None
    escape_needed: int | None
    outcome: SpecialOutcome
    modifiers: tuple[Modifier, ...] = ()

    @property
    def total(self) -> int:
        return self.natural

    @property
    def triggered(self) -> bool:
        return self.outcome is not SpecialOutcome.NONE


def _as_special(attack: SpecialAttack | str) -> SpecialAttack:
    kind = _as_enum(SpecialAttack, attack, "unknown_special_attack", "special attack")
    if kind not in _TRIGGER:
        raise RulesError(
            "unknown_special_attack", f"{kind.value} has no trigger roll", value=kind.value
        )
    return kind


def resolve_special_attack(
    attack: SpecialAttack | str,
    hit: bool,
    *,
    natural: int | None = None,
    rng: RandomSource | None = None,
    escape_allowed: bool = True,
    escape_natural: int | None = None,
) -> SpecialAttackResult:
    """Seize-and-tear (natural 19+ that hits: the victim is seized and torn apart) or swallow
    (natural 18+ that hits: swallowed, unless the d100 escape roll is 10 or less and escape is
    allowed). ``natural`` is the attack's d20 (rolled from ``rng`` if not given)."""
    kind = _as_special(attack)
    random_source(rng)
    n = natural_roll(20, rng, natural)
    needed = _TRIGGER[kind]
    if not (hit and n >= needed):
        return SpecialAttackResult(kind, n, needed, bool(hit), None, None, SpecialOutcome.NONE)
    if kind is SpecialAttack.SEIZE_AND_TEAR:
        return SpecialAttackResult(
            kind, n, needed, True, None, None, SpecialOutcome.SEIZED_AND_TORN
        )
    if not escape_allowed:
        return SpecialAttackResult(kind, n, needed, True, None, None, SpecialOutcome.SWALLOWED)
    e = natural_roll(100, rng, escape_natural)
    outcome = SpecialOutcome.ESCAPED if e <= _ESCAPE_ON else SpecialOutcome.SWALLOWED
    return SpecialAttackResult(kind, n, needed, True, e, _ESCAPE_ON, outcome)


def special_attack_chance(
    attack: SpecialAttack | str,
    hits: Callable[[int], bool] | None = None,
    *,
    escape_allowed: bool = True,
) -> Fraction:
    """Exact chance that an attack seizes and tears / swallows its victim. ``hits`` says which
    d20 naturals hit (from the rules system's attack roll; default: every trigger roll hits)."""
    kind = _as_special(attack)
    if hits is not None and not callable(hits):
        raise bad_argument("hits", hits, "None or a function of the natural d20")
    needed = _TRIGGER[kind]
    p = chance(20, lambda n: n >= needed and (hits is None or hits(n)))
    if kind is SpecialAttack.SWALLOW and escape_allowed:
        p *= 1 - chance(100, lambda e: e <= _ESCAPE_ON)
    return p


@dataclass(frozen=True)
class ConstrictionDamage:
    """Damage of a constricting hold in a round: the rolled damage, +3 after the first round."""

    round_number: int
    rolled: int
    modifiers: tuple[Modifier, ...]
    total: int


def constriction_damage(round_number: int, rolled: int) -> ConstrictionDamage:
    """Round 1 of a hold deals the rolled damage; each later round the rolled damage +3."""
    r = _whole(round_number, "round_invalid", "round", 1)
    points = _whole(rolled, "damage_invalid", "damage", 0)
    modifiers = (Modifier(3, "constriction"),) if r > 1 else ()
    return ConstrictionDamage(r, points, modifiers, points + sum(m.value for m in modifiers))


# --------------------------------------------------------------------------- benchmarks


def _bench_wounds() -> ZoneState:
    state = new_zone_state("humanoid", 30, optional=True)
    for zone, points in (("left_arm", 7), ("tail", 6), ("left_leg", 9), ("abdomen", 5)):
        state, _ = apply_zone_damage(state, zone, points, entered=[3] if zone == "tail" else ())
    state, _ = end_round(state)
    return state


BENCH_CASES: list[tuple[str, Callable[[], object]]] = [
    ("hit_location.location_table", lambda: location_table("insectoid", "below", True)),
    ("hit_location.height_band", lambda: height_band(6, 3, 6)),
    ("hit_location.roll_location", lambda: roll_location("humanoid", "front", "40 N", entered=73)),
    (
        "hit_location.location_odds",
        lambda: location_odds(body_plan("reptile", upright=True), "left", "N 20"),
    ),
    (
        "hit_location.location_odds_uncached",
        lambda: _odds.__wrapped__(body_plan("fish"), Direction.BELOW, Band(BandKind.TOP, 60)),
    ),
    ("hit_location.apply_zone_damage", _bench_wounds),
]
