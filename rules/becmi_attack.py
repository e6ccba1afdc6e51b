"""BECMI / Rules Cyclopedia hit rolls: range, cover, boarding, the attack roll and its odds.

Reason keys used in ``Modifier.reason`` here: ``range_short``, ``range_long`` (medium range adds
nothing and is not listed), ``cover_soft_quarter``, ``cover_soft_half``,
``cover_soft_three_quarters``, ``cover_soft_full``, ``cover_hard_quarter``, ``cover_hard_half``,
``cover_hard_three_quarters``, ``boarding`` (the attacker is boarding: −2 to hit; on the AC side,
the target is boarding: AC 2 worse). Caller-supplied modifiers keep their own reasons.
Outcome keys (``AttackOutcome``): ``hit``, ``miss``, ``impossible``.

Decisions where the seed is silent:
- A natural 1 always misses. A natural 20 does not always hit: the extended table (needed values
  above 20) only makes sense if bonuses are needed to reach them.
- Full hard cover makes the attack impossible: ``resolve_attack`` returns the outcome
  ``impossible`` without rolling, and ``attack_odds`` returns 0 (no error, so the odds can be
  shown on every keystroke).
- Boarding lowers the boarder's hit rolls by 2 and worsens its AC by 2 (descending AC + 2).
- Saves vs Death Ray (for striking and wrestling) are ``d20 + modifiers ≥ target`` with no
  natural-roll exceptions, since the seed gives none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .becmi_hit import _int, roll_needed
from .core import (
    Modifier,
    RandomSource,
    chance,
    modifiers_of,
    natural_roll,
    random_source,
    shown,
    total_of,
)
from .errors import RulesError

__all__ = [
    "BOARDING_PENALTY",
    "COVER_ADJUSTMENTS",
    "RANGE_ADJUSTMENTS",
    "AttackOutcome",
    "AttackResult",
    "Cover",
    "CoverMaterial",
    "RangeBand",
    "SaveResult",
    "attack_odds",
    "cover_adjustment",
    "range_adjustment",
    "resolve_attack",
    "resolve_save",
    "save_chance",
]


# --- range, cover and the attack roll -----------------------------------------------------------


class RangeBand(StrEnum):
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


class Cover(StrEnum):
    NONE = "none"
    QUARTER = "quarter"
    HALF = "half"
    THREE_QUARTERS = "three_quarters"
    FULL = "full"


class CoverMaterial(StrEnum):
    SOFT = "soft"
    HARD = "hard"


RANGE_ADJUSTMENTS = {RangeBand.SHORT: 1, RangeBand.MEDIUM: 0, RangeBand.LONG: -1}
# (soft, hard); None: the target cannot be hit at all
COVER_ADJUSTMENTS: dict[Cover, tuple[int, int | None]] = {
    Cover.NONE: (0, 0),
    Cover.QUARTER: (-1, -2),
    Cover.HALF: (-2, -4),
    Cover.THREE_QUARTERS: (-3, -6),
    Cover.FULL: (-4, None),
}
BOARDING_PENALTY = 2


def _enum(enum: type[StrEnum], value: object, code: str) -> StrEnum:
    try:
        return enum(value)
    except ValueError:
        raise RulesError(code, f"unknown {enum.__name__}: {shown(value)}", value=value) from None


def range_adjustment(band: RangeBand | str) -> int:
    """Hit-roll adjustment for a missile range band: short +1, medium 0, long −1."""
    return RANGE_ADJUSTMENTS[_enum(RangeBand, band, "unknown_range")]


def cover_adjustment(cover: Cover | str, material: CoverMaterial | str = "soft") -> int | None:
    """Hit-roll adjustment for cover; ``None`` for full hard cover (the attack is impossible)."""
    soft, hard = COVER_ADJUSTMENTS[_enum(Cover, cover, "unknown_cover")]
    return soft if _enum(CoverMaterial, material, "unknown_cover_material") == "soft" else hard


class AttackOutcome(StrEnum):
    HIT = "hit"
    MISS = "miss"
    IMPOSSIBLE = "impossible"


@dataclass(frozen=True)
class AttackResult:
    """One hit roll. ``ac`` is the AC attacked after ``ac_modifiers`` (``base_ac`` before);
    ``natural`` and ``total`` are ``None`` when the attack was impossible and not rolled."""

    thac0: int
    base_ac: int
    ac: int
    ac_modifiers: tuple[Modifier, ...]
    needed: int | None
    damage_bonus: int
    natural: int | None
    modifiers: tuple[Modifier, ...]
    total: int | None
    outcome: AttackOutcome

    @property
    def hit(self) -> bool:
        return self.outcome is AttackOutcome.HIT


@dataclass(frozen=True)
class _Setup:
    thac0: int
    base_ac: int
    ac: int
    ac_modifiers: tuple[Modifier, ...]
    modifiers: tuple[Modifier, ...]
    needed: int | None  # None: impossible
    damage_bonus: int


def _modifiers(modifiers: Iterable[Modifier]) -> tuple[Modifier, ...]:
    """Modifiers checked as :func:`rules.core.modifiers_of` says: a list of ``Modifier``, never
    one bare ``Modifier``, ``None`` or a number (``bad_modifier``)."""
    return modifiers_of(modifiers)


def _setup(
    thac0: int,
    ac: int,
    range_band: RangeBand | str | None,
    cover: Cover | str,
    cover_material: CoverMaterial | str,
    boarding: bool,
    target_boarding: bool,
    modifiers: Iterable[Modifier],
) -> _Setup:
    base_ac = _int(ac, "ac_out_of_range", "AC")
    mods = list(_modifiers(modifiers))
    if range_band is not None:
        band = _enum(RangeBand, range_band, "unknown_range")
        if RANGE_ADJUSTMENTS[band]:
            mods.append(Modifier(RANGE_ADJUSTMENTS[band], f"range_{band}"))
    cover_key = _enum(Cover, cover, "unknown_cover")
    material = _enum(CoverMaterial, cover_material, "unknown_cover_material")
    adjustment = cover_adjustment(cover_key, material)
    if adjustment:
        mods.append(Modifier(adjustment, f"cover_{material}_{cover_key}"))
    if boarding:
        mods.append(Modifier(-BOARDING_PENALTY, "boarding"))
    ac_mods = (Modifier(BOARDING_PENALTY, "boarding"),) if target_boarding else ()
    effective_ac = base_ac + total_of(ac_mods)
    if adjustment is None:
        _int(thac0, "thac0_out_of_range", "THAC0")
        return _Setup(thac0, base_ac, effective_ac, ac_mods, tuple(mods), None, 0)
    needed, bonus = roll_needed(thac0, effective_ac)
    return _Setup(thac0, base_ac, effective_ac, ac_mods, tuple(mods), needed, bonus)


def _hits(natural: int, modifier: int, needed: int) -> bool:
    return natural != 1 and natural + modifier >= needed


def resolve_attack(
    thac0: int,
    ac: int,
    *,
    range_band: RangeBand | str | None = None,
    cover: Cover | str = Cover.NONE,
    cover_material: CoverMaterial | str = CoverMaterial.SOFT,
    boarding: bool = False,
    target_boarding: bool = False,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> AttackResult:
    """Roll (or take the ``natural`` d20 entered at the table) to hit ``ac``.

    ``range_band`` is ``None`` for melee; ``boarding``: the attacker is boarding this round;
    ``target_boarding``: the target is, so its AC is 2 worse. Hits when the natural roll is not
    1 and ``natural + modifiers ≥ needed``. Full hard cover returns ``impossible`` unrolled.
    """
    s = _setup(thac0, ac, range_band, cover, cover_material, boarding, target_boarding, modifiers)
    random_source(rng)  # refused even when full hard cover leaves nothing to roll
    if s.needed is None:
        return AttackResult(
            s.thac0,
            s.base_ac,
            s.ac,
            s.ac_modifiers,
            None,
            0,
            None,
            s.modifiers,
            None,
            AttackOutcome.IMPOSSIBLE,
        )
    roll = natural_roll(20, rng, natural)
    total = roll + total_of(s.modifiers)
    outcome = (
        AttackOutcome.HIT if _hits(roll, total_of(s.modifiers), s.needed) else (AttackOutcome.MISS)
    )
    return AttackResult(
        s.thac0,
        s.base_ac,
        s.ac,
        s.ac_modifiers,
        s.needed,
        s.damage_bonus,
        roll,
        s.modifiers,
        total,
        outcome,
    )


def attack_odds(
    thac0: int,
    ac: int,
    *,
    range_band: RangeBand | str | None = None,
    cover: Cover | str = Cover.NONE,
    cover_material: CoverMaterial | str = CoverMaterial.SOFT,
    boarding: bool = False,
    target_boarding: bool = False,
    modifiers: Iterable[Modifier] = (),
) -> Fraction:
    """Exact chance that ``resolve_attack`` with the same arguments hits (0 if impossible)."""
    s = _setup(thac0, ac, range_band, cover, cover_material, boarding, target_boarding, modifiers)
    if s.needed is None:
        return Fraction(0)
    bonus, needed = total_of(s.modifiers), s.needed
    return chance(20, lambda n: _hits(n, bonus, needed))


# --- saving throws vs death ray (striking, wrestling) ---------------------------------------------


@dataclass(frozen=True)
class SaveResult:
    """A save: ``natural + modifiers = total``, saved when ``total ≥ target``."""

    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int
    saved: bool


def _save_target(target: int) -> int:
    return _int(target, "save_target_out_of_range", "a saving throw", 1, 30)


def resolve_save(
    target: int,
    modifiers: Iterable[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> SaveResult:
    """A d20 save against ``target`` (the defender's save value): no natural-roll exceptions,
    since the seed gives none."""
    target = _save_target(target)
    mods = _modifiers(modifiers)
    random_source(rng)
    roll = natural_roll(20, rng, natural)
    total = roll + total_of(mods)
    return SaveResult(roll, mods, total, target, total >= target)


def save_chance(target: int, modifiers: Iterable[Modifier] = ()) -> Fraction:
    """Exact chance that ``resolve_save`` succeeds."""
    target = _save_target(target)
    bonus = total_of(_modifiers(modifiers))
    return chance(20, lambda n: n + bonus >= target)
