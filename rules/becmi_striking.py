"""BECMI / Rules Cyclopedia striking: unarmed blows, stuns, knock-outs and the haymaker.

A strike is a hit roll (``rules.becmi_attack``) followed, on a hit, by damage ``1 + STR adj``
(0 if pulled) and a stun roll ``t = 1d20 − C``; a stunned defender saves vs Death Ray at
``+4 − attacker's STR adj`` (haymaker: ``−4 − STR adj``) or is knocked out for ``t`` rounds.

Reason keys: ``str`` (attacker's STR adjustment on the hit roll), ``haymaker`` (−5 to hit; −4 on
the defender's save), ``stun_save`` (+4 on the defender's save), ``attacker_str`` (minus the
attacker's STR adjustment on the defender's save), plus the hit-roll keys of
``rules.becmi_attack``. Outcome keys (``StrikeOutcome``): ``impossible``, ``miss``, ``hit``
(no stun), ``stunned`` (stunned, save made), ``knocked_out``.

Decisions where the seed is silent:
- The attacker's STR adjustment applies to the hit roll, as for any melee attack in B/X.
- Damage is never below 0 (``1 + STR adj`` with STR 3 is 0, not −2).
- A pulled blow does no damage but can still stun and knock out.
- The stun roll and the save are rolled only on a hit; the save has no natural-roll exceptions.
- Sizes are any positive numbers in one unit (height, length …); leave them ``None`` to skip
  the half-size check. An attacker under half the defender's size raises ``RulesError``
  (``striker_too_small``) unless the blow is a haymaker.
- The seed gives no duration or effect for a stun that is saved against; the result reports
  ``stunned`` with ``t`` and leaves the rest to the referee. A monster's C is ``2 × HD`` with
  whole dice (bonus hit points ignored; ½ HD gives 1).
- ``loses_initiative`` is set on a haymaker for the interface to apply to the round's order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .becmi_attack import (
    AttackResult,
    Cover,
    CoverMaterial,
    SaveResult,
    _modifiers,
    attack_odds,
    resolve_attack,
    resolve_save,
    save_chance,
)
from .becmi_hit import _int, adjustment, parse_hit_dice
from .core import Modifier, RandomSource, chance, is_whole, natural_roll, random_source
from .errors import RulesError

__all__ = [
    "HAYMAKER_TO_HIT",
    "StrikeOdds",
    "StrikeOutcome",
    "StrikeResult",
    "can_strike",
    "knockout_chance",
    "monster_constitution",
    "resolve_strike",
    "strike_damage",
    "strike_odds",
    "stun_chance",
]

HAYMAKER_TO_HIT = -5
STUN_SAVE_BONUS = 4
HAYMAKER_SAVE = -4


class StrikeOutcome(StrEnum):
    IMPOSSIBLE = "impossible"
    MISS = "miss"
    HIT = "hit"
    STUNNED = "stunned"
    KNOCKED_OUT = "knocked_out"


def monster_constitution(hd: str | int) -> int:
    """A monster's C for the stun roll: ``2 × HD`` (whole dice, fractions count: ½ HD → 1)."""
    return int(2 * parse_hit_dice(hd).dice)


def can_strike(attacker_size: float, defender_size: float, haymaker: bool = False) -> bool:
    """Whether the attacker is at least half the defender's size (always true for a haymaker)."""
    for size in (attacker_size, defender_size):
        _size(size)
    return bool(haymaker) or 2 * attacker_size >= defender_size


def _size(size: object) -> float:
    number = is_whole(size) or (isinstance(size, float) and math.isfinite(size))
    if not number or not size > 0:
        raise RulesError("bad_size", "a size is a positive number", value=size)
    return size


def strike_damage(attacker_str: int | None = None, pulled: bool = False) -> int:
    """Damage of a striking hit: ``1 + STR adj`` (never below 0), or 0 if pulled."""
    damage = max(0, 1 + adjustment(attacker_str))  # the score is checked even for a pulled blow
    return 0 if pulled else damage


def _con(defender_con: int) -> int:
    return _int(defender_con, "constitution_out_of_range", "C", 0, 999)


def _save_modifiers(attacker_str: int | None, haymaker: bool) -> tuple[Modifier, ...]:
    mods = [
        Modifier(HAYMAKER_SAVE, "haymaker") if haymaker else Modifier(STUN_SAVE_BONUS, "stun_save")
    ]
    if adjustment(attacker_str):
        mods.append(Modifier(-adjustment(attacker_str), "attacker_str"))
    return tuple(mods)


def _hit_modifiers(
    attacker_str: int | None, haymaker: bool, modifiers: Iterable[Modifier]
) -> tuple[Modifier, ...]:
    mods = list(_modifiers(modifiers))
    if adjustment(attacker_str):
        mods.append(Modifier(adjustment(attacker_str), "str"))
    if haymaker:
        mods.append(Modifier(HAYMAKER_TO_HIT, "haymaker"))
    return tuple(mods)


def stun_chance(defender_con: int) -> Fraction:
    """Exact chance, given a hit, that ``1d20 − C > 0``."""
    con = _con(defender_con)
    return chance(20, lambda n: n - con > 0)


def knockout_chance(
    defender_con: int, defender_save: int, attacker_str: int | None = None, haymaker: bool = False
) -> Fraction:
    """Exact chance, given a hit, of a knock-out: stunned, then the Death Ray save fails."""
    fail = 1 - save_chance(defender_save, _save_modifiers(attacker_str, haymaker))
    return stun_chance(defender_con) * fail


@dataclass(frozen=True)
class StrikeOdds:
    """Exact chances of a strike, each counted from before the hit roll."""

    hit: Fraction
    stun: Fraction
    knockout: Fraction


@dataclass(frozen=True)
class StrikeResult:
    """A strike: the hit roll, then on a hit the damage, the stun roll ``stun_natural`` with
    ``t = stun_natural − defender_con``, and if stunned the save (``None`` where not rolled).
    ``knockout_rounds`` is ``t`` when knocked out, else 0."""

    attack: AttackResult
    haymaker: bool
    pulled: bool
    loses_initiative: bool
    damage: int
    defender_con: int
    stun_natural: int | None
    t: int | None
    save: SaveResult | None
    knockout_rounds: int
    outcome: StrikeOutcome

    @property
    def stunned(self) -> bool:
        return self.outcome in (StrikeOutcome.STUNNED, StrikeOutcome.KNOCKED_OUT)

    @property
    def knocked_out(self) -> bool:
        return self.outcome is StrikeOutcome.KNOCKED_OUT


def _check_size(attacker_size: float | None, defender_size: float | None, haymaker: bool) -> None:
    if attacker_size is None or defender_size is None:
        for size in (attacker_size, defender_size):
            if size is not None:
                _size(size)
        return
    if not can_strike(attacker_size, defender_size, haymaker):
        raise RulesError(
            "striker_too_small",
            "a striker must be at least half the defender's size (or throw a haymaker)",
            attacker_size=attacker_size,
            defender_size=defender_size,
        )


def resolve_strike(
    thac0: int,
    ac: int,
    *,
    defender_con: int,
    defender_save: int,
    attacker_str: int | None = None,
    haymaker: bool = False,
    pulled: bool = False,
    attacker_size: float | None = None,
    defender_size: float | None = None,
    cover: Cover | str = Cover.NONE,
    cover_material: CoverMaterial | str = CoverMaterial.SOFT,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
    stun_natural: int | None = None,
    save_natural: int | None = None,
) -> StrikeResult:
    """Resolve an unarmed blow. ``defender_con`` is the defender's CON score (a monster's:
    ``monster_constitution(hd)``); ``defender_save`` its save vs Death Ray; ``attacker_str``
    the attacker's STR score (``None`` for a monster: adjustment 0). Each d20 is rolled from
    ``rng`` or taken from ``natural`` / ``stun_natural`` / ``save_natural``."""
    _check_size(attacker_size, defender_size, haymaker)
    haymaker, pulled = bool(haymaker), bool(pulled)
    con = _con(defender_con)
    save_mods = _save_modifiers(attacker_str, haymaker)
    save_chance(defender_save, save_mods)  # refuse a bad save value before any die is rolled
    random_source(rng)
    attack = resolve_attack(
        thac0,
        ac,
        cover=cover,
        cover_material=cover_material,
        modifiers=_hit_modifiers(attacker_str, haymaker, modifiers),
        rng=rng,
        natural=natural,
    )
    common = {
        "haymaker": haymaker,
        "pulled": pulled,
        "loses_initiative": haymaker,
        "defender_con": con,
    }
    if not attack.hit:
        outcome = StrikeOutcome.MISS if attack.natural is not None else StrikeOutcome.IMPOSSIBLE
        return StrikeResult(
            attack,
            damage=0,
            stun_natural=None,
            t=None,
            save=None,
            knockout_rounds=0,
            outcome=outcome,
            **common,
        )
    damage = strike_damage(attacker_str, pulled)
    stun_roll = natural_roll(20, rng, stun_natural)
    t = stun_roll - con
    if t <= 0:
        return StrikeResult(
            attack,
            damage=damage,
            stun_natural=stun_roll,
            t=t,
            save=None,
            knockout_rounds=0,
            outcome=StrikeOutcome.HIT,
            **common,
        )
    save = resolve_save(defender_save, save_mods, rng, save_natural)
    if save.saved:
        return StrikeResult(
            attack,
            damage=damage,
            stun_natural=stun_roll,
            t=t,
            save=save,
            knockout_rounds=0,
            outcome=StrikeOutcome.STUNNED,
            **common,
        )
    return StrikeResult(
        attack,
        damage=damage,
        stun_natural=stun_roll,
        t=t,
        save=save,
        knockout_rounds=t,
        outcome=StrikeOutcome.KNOCKED_OUT,
        **common,
    )


def strike_odds(
    thac0: int,
    ac: int,
    *,
    defender_con: int,
    defender_save: int,
    attacker_str: int | None = None,
    haymaker: bool = False,
    attacker_size: float | None = None,
    defender_size: float | None = None,
    cover: Cover | str = Cover.NONE,
    cover_material: CoverMaterial | str = CoverMaterial.SOFT,
    modifiers: Iterable[Modifier] = (),
) -> StrikeOdds:
    """Exact chances that ``resolve_strike`` with the same arguments hits, stuns and knocks
    out (each from before the hit roll)."""
    _check_size(attacker_size, defender_size, haymaker)
    hit = attack_odds(
        thac0,
        ac,
        cover=cover,
        cover_material=cover_material,
        modifiers=_hit_modifiers(attacker_str, haymaker, modifiers),
    )
    return StrikeOdds(
        hit=hit,
        stun=hit * stun_chance(defender_con),
        knockout=hit * knockout_chance(defender_con, defender_save, attacker_str, haymaker),
    )
