"""BECMI / Rules Cyclopedia wrestling: ratings, helpers, opposed rolls and the hold ladder.

Each round both sides roll ``1d20 + WR``; the higher total moves the hold one step:
``free → grabbed → thrown → pinned`` when the attacker wins, one step back when the defender
wins. A creature that ends a round pinned saves vs Death Ray or takes ``1 + STR adj`` damage,
and while pinned its WR is 3 lower (more at the referee's call: ``pinned_penalty``).

Reason keys: ``wrestling_rating`` (the side's WR, carried as a modifier so that
``total = natural + Σ modifiers``), ``helpers_small`` (+1 per helper with at most half the
opponent's HD), ``helpers_large`` (+5 per helper with more), ``pinned`` (the pinned creature's
WR penalty). Hold keys (``Hold``): ``free``, ``grabbed``, ``thrown``, ``pinned``. Winner keys
(``Winner``): ``attacker``, ``defender``, ``tie``.

Decisions where the seed is silent:
- A tie changes nothing (the seed moves the hold only for the higher total).
- Roles stay fixed: the attacker is the side that started the wrestling; the defender winning
  only breaks the hold back a step (free stays free), it never turns the hold around.
- A helper with exactly half the opponent's HD counts as the smaller kind (+1): the +5 needs
  "more than half". Bonus hit points count as on the seed's hit table, where "4+" is more than
  4 HD: a ``4+1`` helper is more than half of an 8 HD opponent (+5), a ``4-1`` one less (+1);
  against ``8+1`` (half: just above 4) a ``4`` helper is less, a ``4+1`` one more. Bonus hit
  points never make up a further half die (``4+3`` is less than half of 9). Asterisks do not
  count. Characters' HD is their level. Helpers on the defending side are counted the
  same way against the attacker's HD.
- The pin's damage and save come at the end of every round that ends with the defender pinned
  (the round it is pinned and each round it stays pinned). The damage uses the pinner's STR
  (``None`` for a monster: 1 damage), never below 0; the save has no modifiers unless given.
- A monster's WR uses whole dice (bonus hit points ignored; ½ HD counts as 1 after doubling).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .becmi_attack import SaveResult, _modifiers, resolve_save, save_chance
from .becmi_hit import _int, adjustment, parse_hit_dice
from .core import (
    Modifier,
    RandomSource,
    bad_argument,
    items_of,
    natural_roll,
    random_source,
    shown,
    total_of,
)
from .errors import RulesError

__all__ = [
    "PINNED_PENALTY",
    "Hold",
    "OpposedOdds",
    "Winner",
    "WrestlingRound",
    "helper_modifiers",
    "monster_wrestling_rating",
    "opposed_odds",
    "pin_damage",
    "pin_damage_chance",
    "resolve_wrestling_round",
    "wrestling_rating",
    "wrestling_round_odds",
]

PINNED_PENALTY = 3
_MAX_HD = 999  # as parse_hit_dice reads
_MAX_HELPERS = 100  # a pile-on beyond any table; an endless generator must not hang the engine
_LADDER = ("free", "grabbed", "thrown", "pinned")


class Hold(StrEnum):
    FREE = "free"
    GRABBED = "grabbed"
    THROWN = "thrown"
    PINNED = "pinned"

    def advanced(self) -> Hold:
        return Hold(_LADDER[min(_LADDER.index(self) + 1, len(_LADDER) - 1)])

    def broken(self) -> Hold:
        return Hold(_LADDER[max(_LADDER.index(self) - 1, 0)])


class Winner(StrEnum):
    ATTACKER = "attacker"
    DEFENDER = "defender"
    TIE = "tie"


def _ac(basic_ac: int) -> int:
    return _int(basic_ac, "ac_out_of_range", "basic AC", -50, 50)


def wrestling_rating(level: int, str_score: int, dex_score: int, basic_ac: int = 9) -> int:
    """A character's WR: ``⌈level / 2⌉ + STR adj + DEX adj + basic AC`` (armour's AC without
    magic or DEX; 9 unarmoured). ``level`` is 0..36."""
    level = _int(level, "level_out_of_range", "a level", 0, 36)
    return math.ceil(level / 2) + adjustment(str_score) + adjustment(dex_score) + _ac(basic_ac)


def monster_wrestling_rating(hd: str | int, basic_ac: int) -> int:
    """A monster's WR: ``2 × HD + basic AC``."""
    return int(2 * parse_hit_dice(hd).dice) + _ac(basic_ac)


def _hd_size(hd: str | int | float | Fraction) -> tuple[Fraction, Fraction]:
    """Where a Hit Dice value stands when sizes are compared: ``(dice, bonus)`` compared in that
    order, the bonus being the sign of the bonus hit points. The seed's tables count ``4+`` as
    more than 4 HD ("4+ to 5"), so ``4+1`` is just above 4 and ``1-1`` just below 1, and bonus
    hit points never reach the next half die; asterisks change nothing."""
    if isinstance(hd, str) or (isinstance(hd, int) and not isinstance(hd, bool)):
        parsed = parse_hit_dice(hd)
        return parsed.dice, Fraction(parsed.bonus)
    if isinstance(hd, float | Fraction) and math.isfinite(hd) and 0 < hd <= _MAX_HD:
        return Fraction(hd), Fraction(0)
    raise RulesError(
        "bad_hit_dice", f"hit dice must be a number above 0 up to {_MAX_HD}, or text", value=hd
    )


def helper_modifiers(
    helper_hds: Iterable[str | int | float | Fraction], opponent_hd: str | int | float | Fraction
) -> tuple[Modifier, ...]:
    """Bonuses for extra wrestlers on one side: +1 for each with at most half the opponent's
    HD, +5 for each with more (one modifier per kind, zero kinds left out). Bonus hit points
    count (``4+1`` is more than half of 8 HD, ``4`` exactly half); asterisks do not.
    ``helper_hds`` is a list of Hit Dice (never one string: ``"12"`` is not two helpers) of at
    most 100 helpers (``bad_argument`` otherwise)."""
    helpers = items_of(helper_hds, _MAX_HELPERS)
    if helpers is None or len(helpers) > _MAX_HELPERS:
        raise bad_argument(
            "helper_hds", helper_hds, f"a list of at most {_MAX_HELPERS} helpers' Hit Dice"
        )
    dice, bonus = _hd_size(opponent_hd)
    half = (dice / 2, bonus / 2)
    small = large = 0
    for hd in helpers:
        if _hd_size(hd) > half:
            large += 1
        else:
            small += 1
    mods = []
    if small:
        mods.append(Modifier(small, "helpers_small"))
    if large:
        mods.append(Modifier(5 * large, "helpers_large"))
    return tuple(mods)


def _sides(
    hold: Hold | str,
    attacker_rating: int,
    defender_rating: int,
    attacker_modifiers: Iterable[Modifier],
    defender_modifiers: Iterable[Modifier],
    pinned_penalty: int,
) -> tuple[Hold, tuple[Modifier, ...], tuple[Modifier, ...]]:
    try:
        hold = Hold(hold)
    except ValueError:
        raise RulesError("unknown_hold", f"no hold {shown(hold)}", value=hold) from None
    penalty = _int(pinned_penalty, "bad_pinned_penalty", "the pinned penalty", 0, 100)
    attacker = (
        Modifier(
            _int(attacker_rating, "rating_out_of_range", "a WR", -200, 200), "wrestling_rating"
        ),
        *_modifiers(attacker_modifiers),
    )
    defender = [
        Modifier(
            _int(defender_rating, "rating_out_of_range", "a WR", -200, 200), "wrestling_rating"
        ),
        *_modifiers(defender_modifiers),
    ]
    if hold is Hold.PINNED and penalty:
        defender.append(Modifier(-penalty, "pinned"))
    return hold, attacker, tuple(defender)


def _after(hold: Hold, winner: Winner) -> Hold:
    if winner is Winner.ATTACKER:
        return hold.advanced()
    if winner is Winner.DEFENDER:
        return hold.broken()
    return hold


@dataclass(frozen=True)
class OpposedOdds:
    """Exact chances of an opposed ``1d20 + bonus`` roll (they sum to 1)."""

    attacker: Fraction
    tie: Fraction
    defender: Fraction


def opposed_odds(attacker_bonus: int, defender_bonus: int) -> OpposedOdds:
    """Exact chances that ``1d20 + attacker_bonus`` beats, ties or loses to
    ``1d20 + defender_bonus`` (bonuses: the WR plus any modifiers)."""
    gap = _int(defender_bonus, "rating_out_of_range", "a bonus", -400, 400) - _int(
        attacker_bonus, "rating_out_of_range", "a bonus", -400, 400
    )
    # a − d = k happens in 20 − |k| of the 400 pairs
    wins = sum(20 - abs(k) for k in range(-19, 20) if k > gap)
    ties = 20 - abs(gap) if abs(gap) < 20 else 0
    return OpposedOdds(Fraction(wins, 400), Fraction(ties, 400), Fraction(400 - wins - ties, 400))


def wrestling_round_odds(
    hold: Hold | str,
    attacker_rating: int,
    defender_rating: int,
    *,
    attacker_modifiers: Iterable[Modifier] = (),
    defender_modifiers: Iterable[Modifier] = (),
    pinned_penalty: int = PINNED_PENALTY,
) -> dict[Hold, Fraction]:
    """Exact chance of each hold after one round from ``hold`` (holds that cannot follow are
    left out)."""
    hold, attacker, defender = _sides(
        hold,
        attacker_rating,
        defender_rating,
        attacker_modifiers,
        defender_modifiers,
        pinned_penalty,
    )
    odds = opposed_odds(total_of(attacker), total_of(defender))
    result: dict[Hold, Fraction] = {}
    for winner, p in (
        (Winner.ATTACKER, odds.attacker),
        (Winner.TIE, odds.tie),
        (Winner.DEFENDER, odds.defender),
    ):
        if p:
            after = _after(hold, winner)
            result[after] = result.get(after, Fraction(0)) + p
    return result


def pin_damage(pinner_str: int | None = None) -> int:
    """Damage to a pinned creature that fails its save: ``1 + STR adj`` of the pinner."""
    return max(0, 1 + adjustment(pinner_str))


def pin_damage_chance(defender_save: int, save_modifiers: Iterable[Modifier] = ()) -> Fraction:
    """Exact chance that a pinned creature fails its Death Ray save and takes damage."""
    return 1 - save_chance(defender_save, save_modifiers)


@dataclass(frozen=True)
class WrestlingRound:
    """One wrestling round: both opposed rolls, the winner, the hold before and after, and (if
    the defender ends it pinned) its save and the damage taken."""

    hold_before: Hold
    attacker_natural: int
    attacker_modifiers: tuple[Modifier, ...]
    attacker_total: int
    defender_natural: int
    defender_modifiers: tuple[Modifier, ...]
    defender_total: int
    winner: Winner
    hold: Hold
    pin_save: SaveResult | None
    damage: int


def resolve_wrestling_round(
    hold: Hold | str,
    attacker_rating: int,
    defender_rating: int,
    *,
    defender_save: int,
    attacker_modifiers: Iterable[Modifier] = (),
    defender_modifiers: Iterable[Modifier] = (),
    pinner_str: int | None = None,
    pinned_penalty: int = PINNED_PENALTY,
    save_modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    attacker_natural: int | None = None,
    defender_natural: int | None = None,
    save_natural: int | None = None,
) -> WrestlingRound:
    """Resolve one round from ``hold`` and return the new state. ``defender_save`` is the
    defender's save vs Death Ray (used if it ends the round pinned); ``pinner_str`` the
    attacker's STR score for the pin's damage. Dice come from ``rng`` or the entered
    ``attacker_natural`` / ``defender_natural`` / ``save_natural``."""
    hold, attacker, defender = _sides(
        hold,
        attacker_rating,
        defender_rating,
        attacker_modifiers,
        defender_modifiers,
        pinned_penalty,
    )
    save_mods = _modifiers(save_modifiers)
    damage_if_failed = pin_damage(pinner_str)
    random_source(rng)
    save_chance(defender_save, save_mods)  # refuse a bad save value before any die is rolled
    a_roll = natural_roll(20, rng, attacker_natural)
    d_roll = natural_roll(20, rng, defender_natural)
    a_total, d_total = a_roll + total_of(attacker), d_roll + total_of(defender)
    winner = (
        Winner.ATTACKER
        if a_total > d_total
        else Winner.DEFENDER
        if d_total > a_total
        else Winner.TIE
    )
    after = _after(hold, winner)
    save, damage = None, 0
    if after is Hold.PINNED:
        save = resolve_save(defender_save, save_mods, rng, save_natural)
        damage = 0 if save.saved else damage_if_failed
    return WrestlingRound(
        hold, a_roll, attacker, a_total, d_roll, defender, d_total, winner, after, save, damage
    )
