"""Dolmenwood's core rolls: d6 skill and ability checks, the five saves, ascending-AC attacks,
damage and hit points, and the referee's chance rolls.

Source: ``shared/rules/dolmenwood.md`` digesting seed ``004_f9e28e7ae02254d2.txt`` (the
Ukrainian core rules); where the two differ the seed wins.

Every resolver takes either a random source (``rng``, anything with ``randint``) or the natural
die a player entered (``natural=``, or ``naturals=`` for damage dice), and returns a frozen
result carrying the natural roll(s), every modifier with its reason, the total, the target and
the outcome. Each roll type has an exact-odds function taking the same rule inputs:

=====================  ==========================  =====================================
roll                   resolver                    exact odds
=====================  ==========================  =====================================
skill check (d6)       ``resolve_skill_check``     ``skill_check_odds``,
                                                   ``skill_success_chance`` (API)
ability check (d6)     ``resolve_ability_check``   ``ability_check_odds``,
                                                   ``ability_check_chance`` (API)
saving throw (d20)     ``resolve_save``            ``save_odds``
attack roll (d20)      ``resolve_attack``          ``attack_odds``
damage (NdS)           ``resolve_damage``          ``damage_distribution``
X-in-6 chance (d6)     ``resolve_x_in_6``          ``x_in_6_odds``
percentage (d100)      ``resolve_percentage``      ``percentage_odds``
=====================  ==========================  =====================================

Keys the interface translates (nothing here is translated):

- Modifier reasons this module adds: ``attack_bonus``; the ability keys ``str``, ``int``,
  ``wis``, ``dex``, ``con``, ``cha`` (the ability's modifier on an ability check, ``str`` on
  melee attacks and melee damage, ``dex`` on missile attacks, ``wis`` on saves against magic).
  Callers pass their own modifiers with their own reason keys (lower-case identifiers); the
  suggested key for the referee's adjustment is ``situational`` (``SITUATIONAL``).
- Outcomes: ``success`` / ``failure`` (checks, saves, chance rolls); ``hit`` / ``miss``
  (attacks); ``dealt`` / ``minimum`` / ``immune`` (damage).
- Vocabularies: save categories ``doom``, ``ray``, ``hold``, ``blast``, ``spell``; skills
  ``listen``, ``search``, ``survival`` (plus any class skill key the caller names); attack kinds
  ``melee``, ``missile``; effect kinds (see ``EffectKind``).
- Error codes (``RulesError.code``): ``not_integer``, ``out_of_range`` (params ``field``,
  ``value``, ``low``, ``high``); ``unknown_key``, ``bad_key`` (``field``, ``value``);
  ``bad_modifier``, ``bad_skill_key``, ``bad_skill_sheet``, ``bad_dice`` (``value``);
  ``skill_not_available`` (``skill``); ``wrong_number_of_dice`` (``expected``, ``got``);
  ``target_dead``; plus ``die_not_integer``, ``die_out_of_range``, ``no_random_source`` from
  ``rules.core``.

Decisions where the rules leave things open:

- Ability modifiers use the B/X table (3: -3; 4-5: -2; 6-8: -1; 9-12: 0; 13-15: +1; 16-17: +2;
  18: +3); the seed gives no table of its own. Scores outside 3..18 are refused.
- A skill's target is 1..6: 6 by default, lower only when Kindred or class says so; when both
  give one the lower (more favourable) is used. Listen, Search and Survival are open to every
  adventurer (target 6 when the sheet names none); any other skill is a class skill, usable
  only by a combatant whose sheet lists it.
- ``automatic`` on a result means the natural die was the one that always fails (1) or always
  succeeds (6 on a d6, 20 on a d20); the outcome then follows the die whatever the modifiers.
- The Wisdom modifier is added to a save only when the effect is of magical origin and a Wisdom
  score is known (monsters have none). ``is_magical_effect`` says which effect kinds are magical
  by nature; the caller may still mark any effect magical.
- Choosing a save category: the first category, in the order Doom, Ray, Hold, Blast, Spell, to
  which any of the effect's kinds belongs; no kinds at all (a very unusual effect) gives Doom.
  Doom's catch-all role is that default, not an effect kind, or it would win every choice.
- STR modifies melee attacks and melee damage, DEX missile attacks only; a combatant without
  ability scores (a monster) passes none and gets only its attack bonus.
- Damage is the weapon's or natural attack's dice (1..20 dice of 2..20 sides) plus modifiers,
  at least 1 on a hit. An immune target takes nothing and no damage dice are rolled (the rng is
  not used and ``naturals`` must be empty or omitted). ``is_immune`` matches free-form attack
  form keys (``mundane``, ``silver``, ``fire`` ...) against the target's immunities.
- Hit points never go below 0; at 0 the target is dead. Healing is capped at the maximum and a
  dead target cannot be healed (``target_dead``): bringing one back is the referee's undo.
- Magic items of a character killed by a destructive effect may save vs Doom with the
  character's Doom target; no Wisdom modifier applies (the item has none).
- X-in-6 takes X in 1..6 and percentage chances 1..100 (a d100 shows 1..100, 00 being 100);
  both succeed on a natural at or under the chance and take no modifiers.
- Input bounds so no request can do unbounded work or log absurd numbers: save targets 1..30,
  armour class 0..50, attack bonus and each modifier -100..100, hit points 0..10000.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import accumulate
from typing import TypeVar

from .core import (
    NUMBER_LIMIT,
    Modifier,
    RandomSource,
    ability_modifier,
    chance,
    is_sequence,
    is_whole,
    modifiers_of,
    natural_roll,
    random_source,
    shown,
    total_of,
)
from .errors import RulesError

__all__ = [
    "BENCH_CASES",
    "SAVE_CATEGORIES",
    "SITUATIONAL",
    "UNIVERSAL_SKILLS",
    "Ability",
    "AbilityCheckResult",
    "AttackKind",
    "AttackOutcome",
    "AttackResult",
    "ChanceResult",
    "DamageDice",
    "DamageOutcome",
    "DamageResult",
    "EffectKind",
    "HitPointChange",
    "Outcome",
    "SaveCategory",
    "SaveResult",
    "Skill",
    "SkillCheckResult",
    "ability_check_chance",
    "ability_check_odds",
    "ability_modifier",
    "apply_damage",
    "attack_odds",
    "choose_save_category",
    "damage_distribution",
    "gear_is_destroyed",
    "heal",
    "is_immune",
    "is_magical_effect",
    "percentage_odds",
    "resolve_ability_check",
    "resolve_attack",
    "resolve_damage",
    "resolve_item_save",
    "resolve_percentage",
    "resolve_save",
    "resolve_skill_check",
    "resolve_x_in_6",
    "save_odds",
    "skill_check_odds",
    "skill_success_chance",
    "skill_target",
    "skill_target_for",
    "x_in_6_odds",
]

SAVE_CATEGORIES: tuple[str, ...] = ("doom", "ray", "hold", "blast", "spell")
SITUATIONAL = "situational"

_MODIFIER_LIMIT = NUMBER_LIMIT
_SAVE_TARGET = (1, 30)
_ARMOUR_CLASS = (0, 50)
_HIT_POINTS = (0, 10_000)
_DICE_COUNT = (1, 20)
_DICE_SIDES = (2, 20)
_DEFAULT_SKILL_TARGET = 6
_ABILITY_CHECK_TARGET = 4
_KEY = re.compile(r"[a-z][a-z0-9_]*\Z")
_NOTATION = re.compile(r"\s*([0-9]{0,3})\s*[dDkKкК]\s*([0-9]{1,3})\s*\Z")


class SaveCategory(StrEnum):
    """The five save categories, in the order used to choose one for an unlisted effect."""

    DOOM = "doom"
    RAY = "ray"
    HOLD = "hold"
    BLAST = "blast"
    SPELL = "spell"


class Skill(StrEnum):
    """The skills every adventurer has; class skills are free-form keys on top of these."""

    LISTEN = "listen"
    SEARCH = "search"
    SURVIVAL = "survival"


UNIVERSAL_SKILLS: frozenset[str] = frozenset(s.value for s in Skill)


class Ability(StrEnum):
    STR = "str"
    INT = "int"
    WIS = "wis"
    DEX = "dex"
    CON = "con"
    CHA = "cha"


class AttackKind(StrEnum):
    """Melee attacks add STR to hit and to damage; missile attacks add DEX to hit."""

    MELEE = "melee"
    MISSILE = "missile"


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"


class AttackOutcome(StrEnum):
    HIT = "hit"
    MISS = "miss"


class DamageOutcome(StrEnum):
    """``minimum``: the modifiers brought the damage under 1 and the 1-damage floor applied."""

    DEALT = "dealt"
    MINIMUM = "minimum"
    IMMUNE = "immune"


class EffectKind(StrEnum):
    """Kinds of harmful effect named by the seed, each belonging to one save category."""

    # Doom: instant death or lasting physical affliction
    INSTANT_DEATH = "instant_death"
    LASTING_AFFLICTION = "lasting_affliction"
    POISON = "poison"
    DISEASE = "disease"
    DEATH_MAGIC = "death_magic"
    # Ray: quick aimed effects that can be dodged
    DODGEABLE_AIMED = "dodgeable_aimed"
    ENERGY_RAY = "energy_ray"
    LIGHTNING = "lightning"
    # Hold: effects that hinder or prevent movement
    MOVEMENT_HINDERING = "movement_hindering"
    PARALYSIS = "paralysis"
    PETRIFICATION = "petrification"
    CRUSHING_ROCKS = "crushing_rocks"
    # Blast: deadly energy filling a large area
    AREA_ENERGY = "area_energy"
    WYRM_BREATH = "wyrm_breath"
    EXPLOSION = "explosion"
    # Spell: potent effects aimed straight at the target
    POTENT_TARGETED = "potent_targeted"
    ARCANE_SPELL = "arcane_spell"
    HOLY_SPELL = "holy_spell"
    FAIRY_GLAMOUR = "fairy_glamour"
    MAGIC_STAFF = "magic_staff"


_EFFECT_CATEGORY: dict[EffectKind, SaveCategory] = {
    EffectKind.INSTANT_DEATH: SaveCategory.DOOM,
    EffectKind.LASTING_AFFLICTION: SaveCategory.DOOM,
    EffectKind.POISON: SaveCategory.DOOM,
    EffectKind.DISEASE: SaveCategory.DOOM,
    EffectKind.DEATH_MAGIC: SaveCategory.DOOM,
    EffectKind.DODGEABLE_AIMED: SaveCategory.RAY,
    EffectKind.ENERGY_RAY: SaveCategory.RAY,
    EffectKind.LIGHTNING: SaveCategory.RAY,
    EffectKind.MOVEMENT_HINDERING: SaveCategory.HOLD,
    EffectKind.PARALYSIS: SaveCategory.HOLD,
    EffectKind.PETRIFICATION: SaveCategory.HOLD,
    EffectKind.CRUSHING_ROCKS: SaveCategory.HOLD,
    EffectKind.AREA_ENERGY: SaveCategory.BLAST,
    EffectKind.WYRM_BREATH: SaveCategory.BLAST,
    EffectKind.EXPLOSION: SaveCategory.BLAST,
    EffectKind.POTENT_TARGETED: SaveCategory.SPELL,
    EffectKind.ARCANE_SPELL: SaveCategory.SPELL,
    EffectKind.HOLY_SPELL: SaveCategory.SPELL,
    EffectKind.FAIRY_GLAMOUR: SaveCategory.SPELL,
    EffectKind.MAGIC_STAFF: SaveCategory.SPELL,
}

_MAGICAL_KINDS = frozenset(
    {
        EffectKind.DEATH_MAGIC,
        EffectKind.ARCANE_SPELL,
        EffectKind.HOLY_SPELL,
        EffectKind.FAIRY_GLAMOUR,
        EffectKind.MAGIC_STAFF,
    }
)


# --- results ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Check:
    """A single-die roll against a target: ``automatic`` when the natural was the face that
    always fails (1) or always succeeds (6 on a d6, 20 on a d20)."""

    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int
    outcome: Outcome
    automatic: bool

    @property
    def success(self) -> bool:
        return self.outcome is Outcome.SUCCESS


@dataclass(frozen=True)
class SkillCheckResult(_Check):
    skill: str


@dataclass(frozen=True)
class AbilityCheckResult(_Check):
    ability: Ability


@dataclass(frozen=True)
class SaveResult(_Check):
    category: SaveCategory
    magical: bool


@dataclass(frozen=True)
class AttackResult:
    """``target`` is the defender's armour class."""

    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int
    outcome: AttackOutcome
    automatic: bool
    kind: AttackKind

    @property
    def hit(self) -> bool:
        return self.outcome is AttackOutcome.HIT


@dataclass(frozen=True)
class DamageDice:
    """``count`` dice of ``sides`` sides, e.g. ``DamageDice(2, 6)`` for 2d6."""

    count: int
    sides: int

    def __post_init__(self) -> None:
        _whole("dice_count", self.count, *_DICE_COUNT)
        _whole("dice_sides", self.sides, *_DICE_SIDES)

    @classmethod
    def parse(cls, text: str) -> DamageDice:
        """``"d8"``, ``"1d8"``, ``"2d6"``; ``k`` and Cyrillic ``к`` mean ``d`` too."""
        match = _NOTATION.match(text) if isinstance(text, str) else None
        if match is None:
            raise RulesError(
                "bad_dice", f"not a dice expression like 2d6: {shown(text)}", value=text
            )
        count, sides = match.groups()
        return cls(int(count) if count else 1, int(sides))

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}"


@dataclass(frozen=True)
class DamageResult:
    """``rolled`` is the sum of the naturals; ``total`` the damage dealt (0 when immune)."""

    naturals: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    rolled: int
    total: int
    dice: DamageDice
    outcome: DamageOutcome


@dataclass(frozen=True)
class HitPointChange:
    """``change`` is the signed change actually applied (after the 0 floor or the cap)."""

    before: int
    after: int
    change: int
    dead: bool


@dataclass(frozen=True)
class ChanceResult:
    """An X-in-6 (``sides`` 6) or percentage (``sides`` 100) roll: success on a natural at or
    under ``target``. No modifiers apply, so ``total`` is the natural."""

    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int
    outcome: Outcome
    sides: int

    @property
    def success(self) -> bool:
        return self.outcome is Outcome.SUCCESS


# --- validation --------------------------------------------------------------------------


def _whole(field: str, value: object, low: int, high: int) -> int:
    if not is_whole(value):
        raise RulesError("not_integer", f"{field} must be a whole number", field=field, value=value)
    if not low <= value <= high:
        raise RulesError(
            "out_of_range",
            f"{field} must be {low} to {high}, not {shown(value)}",
            field=field,
            value=value,
            low=low,
            high=high,
        )
    return value


_E = TypeVar("_E", bound=StrEnum)


def _member(enum: type[_E], value: object, field: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        raise RulesError(
            "unknown_key", f"{shown(value)} is not a {field}", field=field, value=value
        ) from None


def _modifiers(modifiers: Iterable[Modifier]) -> tuple[Modifier, ...]:
    result = modifiers_of(modifiers)
    for m in result:
        if not _KEY.match(m.reason):
            raise RulesError(
                "bad_modifier", f"not a Modifier with a key reason: {shown(m)}", value=m
            )
        _whole("modifier", m.value, -_MODIFIER_LIMIT, _MODIFIER_LIMIT)
    return result


def _score(field: str, value: int | None) -> int | None:
    return None if value is None else _whole(field, value, 3, 18)


# --- the shared single-die check ---------------------------------------------------------


def _decide(sides: int, natural: int, total: int, target: int) -> tuple[bool, bool]:
    """(success, automatic): a natural 1 fails and a natural top face succeeds, whatever the
    modifiers; otherwise the total must reach the target."""
    if natural == 1:
        return False, True
    if natural == sides:
        return True, True
    return total >= target, False


def _odds(sides: int, modifier: int, target: int) -> Fraction:
    return chance(sides, lambda n: _decide(sides, n, n + modifier, target)[0])


def _roll_check(
    sides: int,
    target: int,
    mods: tuple[Modifier, ...],
    rng: RandomSource | None,
    natural: int | None,
) -> dict[str, object]:
    n = natural_roll(sides, rng, natural)
    total = n + total_of(mods)
    success, automatic = _decide(sides, n, total, target)
    return {
        "natural": n,
        "modifiers": mods,
        "total": total,
        "target": target,
        "outcome": Outcome.SUCCESS if success else Outcome.FAILURE,
        "automatic": automatic,
    }


# --- ability modifiers -------------------------------------------------------------------


def _ability_mod(ability: Ability, score: int | None) -> tuple[Modifier, ...]:
    if score is None:
        return ()
    return (Modifier(ability_modifier(score), ability.value),)


# --- skill checks ------------------------------------------------------------------------


def _skill_key(skill: Skill | str) -> str:
    if isinstance(skill, Skill):
        return skill.value
    if isinstance(skill, str) and _KEY.match(skill):
        return skill
    raise RulesError(
        "bad_skill_key", f"a skill is a lower-case key, not {shown(skill)}", value=skill
    )


def _skill_target_value(target: int) -> int:
    return _whole("skill_target", target, 1, _DEFAULT_SKILL_TARGET)


def skill_target(kindred: int | None = None, character_class: int | None = None) -> int:
    """A skill's target: 6, unless Kindred or class gives a lower one; when both give one the
    more favourable (lower) is used."""
    given = [_skill_target_value(t) for t in (kindred, character_class) if t is not None]
    return min([_DEFAULT_SKILL_TARGET, *given])


def skill_target_for(skill: Skill | str, skills: Mapping[str, int]) -> int:
    """The target for ``skill`` from a combatant's skill sheet (key -> target). Listen, Search
    and Survival are open to everyone (6 if the sheet names no better target); any other skill
    is a class skill that only a combatant listing it may use (``skill_not_available``)."""
    key = _skill_key(skill)
    if not isinstance(skills, Mapping):
        raise RulesError("bad_skill_sheet", "skills must map skill keys to targets", value=skills)
    if key in skills:
        return _skill_target_value(skills[key])
    if key in UNIVERSAL_SKILLS:
        return _DEFAULT_SKILL_TARGET
    raise RulesError(
        "skill_not_available", f"{key} is a class skill this character lacks", skill=key
    )


def skill_success_chance(target: int, modifier: int = 0) -> Fraction:
    """Exact chance that a d6 skill check succeeds: 1d6 + ``modifier`` ≥ ``target`` (1..6),
    a natural 1 always failing and a natural 6 always succeeding."""
    _skill_target_value(target)
    _whole("modifier", modifier, -_MODIFIER_LIMIT, _MODIFIER_LIMIT)
    return _odds(6, modifier, target)


def skill_check_odds(
    skill: Skill | str, target: int, modifiers: Iterable[Modifier] = ()
) -> Fraction:
    """Exact chance that ``resolve_skill_check`` with these inputs succeeds."""
    _skill_key(skill)
    _skill_target_value(target)
    return _odds(6, total_of(_modifiers(modifiers)), target)


def resolve_skill_check(
    skill: Skill | str,
    target: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> SkillCheckResult:
    """Roll 1d6 plus situational modifiers against the skill's target (1..6)."""
    key = _skill_key(skill)
    _skill_target_value(target)
    mods = _modifiers(modifiers)
    return SkillCheckResult(**_roll_check(6, target, mods, rng, natural), skill=key)


# --- ability checks ----------------------------------------------------------------------


def ability_check_chance(modifier: int) -> Fraction:
    """Exact chance that 1d6 + ``modifier`` ≥ 4 succeeds, a natural 1 always failing and a
    natural 6 always succeeding. ``modifier`` is the ability's plus any situational ones."""
    _whole("modifier", modifier, -_MODIFIER_LIMIT, _MODIFIER_LIMIT)
    return _odds(6, modifier, _ABILITY_CHECK_TARGET)


def _ability_check_mods(
    ability: Ability | str, score: int, modifiers: Iterable[Modifier]
) -> tuple[Ability, tuple[Modifier, ...]]:
    member = _member(Ability, ability, "ability")
    _whole("ability_score", score, 3, 18)
    return member, _ability_mod(member, score) + _modifiers(modifiers)


def ability_check_odds(
    ability: Ability | str, score: int, modifiers: Iterable[Modifier] = ()
) -> Fraction:
    """Exact chance that ``resolve_ability_check`` with these inputs succeeds."""
    _, mods = _ability_check_mods(ability, score, modifiers)
    return _odds(6, total_of(mods), _ABILITY_CHECK_TARGET)


def resolve_ability_check(
    ability: Ability | str,
    score: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> AbilityCheckResult:
    """Roll 1d6 plus the ability's modifier (from its score) and situational modifiers; 4 or
    more succeeds."""
    member, mods = _ability_check_mods(ability, score, modifiers)
    fields = _roll_check(6, _ABILITY_CHECK_TARGET, mods, rng, natural)
    return AbilityCheckResult(**fields, ability=member)


# --- saving throws -----------------------------------------------------------------------


def _effect_kinds(kinds: Iterable[EffectKind | str]) -> tuple[EffectKind, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    if not isinstance(kinds, Iterable):
        raise RulesError(
            "unknown_key",
            f"{shown(kinds)} is not a list of effect kinds",
            field="effect_kind",
            value=kinds,
        )
    return tuple(_member(EffectKind, k, "effect_kind") for k in kinds)


def choose_save_category(kinds: Iterable[EffectKind | str] = ()) -> SaveCategory:
    """The save category for an effect with these kinds: the first of Doom, Ray, Hold, Blast,
    Spell to which any kind belongs; Doom when no kind is given (a very unusual effect)."""
    categories = {_EFFECT_CATEGORY[k] for k in _effect_kinds(kinds)}
    return next((c for c in SaveCategory if c in categories), SaveCategory.DOOM)


def is_magical_effect(kinds: Iterable[EffectKind | str]) -> bool:
    """Whether any of the kinds is magical by nature (death magic, spells, Glamours, staves),
    so the Wisdom modifier applies to the save."""
    return any(k in _MAGICAL_KINDS for k in _effect_kinds(kinds))


def _save_inputs(
    category: SaveCategory | str,
    target: int,
    modifiers: Iterable[Modifier],
    magical: bool,
    wisdom: int | None,
) -> tuple[SaveCategory, tuple[Modifier, ...]]:
    member = _member(SaveCategory, category, "save_category")
    _whole("save_target", target, *_SAVE_TARGET)
    _score("wisdom", wisdom)
    wis = _ability_mod(Ability.WIS, wisdom) if magical else ()
    return member, wis + _modifiers(modifiers)


def save_odds(
    category: SaveCategory | str,
    target: int,
    modifiers: Iterable[Modifier] = (),
    *,
    magical: bool = False,
    wisdom: int | None = None,
) -> Fraction:
    """Exact chance that ``resolve_save`` with these inputs succeeds."""
    _, mods = _save_inputs(category, target, modifiers, magical, wisdom)
    return _odds(20, total_of(mods), target)


def resolve_save(
    category: SaveCategory | str,
    target: int,
    modifiers: Iterable[Modifier] = (),
    *,
    magical: bool = False,
    wisdom: int | None = None,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> SaveResult:
    """Roll 1d20 plus modifiers against the character's save ``target`` in ``category``;
    against a ``magical`` effect the Wisdom modifier (from the ``wisdom`` score) is added."""
    member, mods = _save_inputs(category, target, modifiers, magical, wisdom)
    fields = _roll_check(20, target, mods, rng, natural)
    return SaveResult(**fields, category=member, magical=bool(magical))


def gear_is_destroyed(killed: bool, destructive: bool) -> bool:
    """A character killed by a destructive effect (lightning, say) loses their gear; magic items
    among it may try ``resolve_item_save``."""
    return bool(killed and destructive)


def resolve_item_save(
    doom_target: int,
    modifiers: Iterable[Modifier] = (),
    *,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> SaveResult:
    """A magic item's save vs Doom with its dead owner's Doom target; success: it survives."""
    return resolve_save(SaveCategory.DOOM, doom_target, modifiers, rng=rng, natural=natural)


# --- attacks -----------------------------------------------------------------------------


def _attack_inputs(
    attack_bonus: int,
    armour_class: int,
    kind: AttackKind | str,
    modifiers: Iterable[Modifier],
    strength: int | None,
    dexterity: int | None,
) -> tuple[AttackKind, tuple[Modifier, ...]]:
    _whole("attack_bonus", attack_bonus, -_MODIFIER_LIMIT, _MODIFIER_LIMIT)
    _whole("armour_class", armour_class, *_ARMOUR_CLASS)
    member = _member(AttackKind, kind, "attack_kind")
    _score("strength", strength)
    _score("dexterity", dexterity)
    if member is AttackKind.MELEE:
        ability = _ability_mod(Ability.STR, strength)
    else:
        ability = _ability_mod(Ability.DEX, dexterity)
    bonus = (Modifier(attack_bonus, "attack_bonus"),)
    return member, bonus + ability + _modifiers(modifiers)


def attack_odds(
    attack_bonus: int,
    armour_class: int,
    kind: AttackKind | str = AttackKind.MELEE,
    modifiers: Iterable[Modifier] = (),
    *,
    strength: int | None = None,
    dexterity: int | None = None,
) -> Fraction:
    """Exact chance that ``resolve_attack`` with these inputs hits."""
    _, mods = _attack_inputs(attack_bonus, armour_class, kind, modifiers, strength, dexterity)
    return _odds(20, total_of(mods), armour_class)


def resolve_attack(
    attack_bonus: int,
    armour_class: int,
    kind: AttackKind | str = AttackKind.MELEE,
    modifiers: Iterable[Modifier] = (),
    *,
    strength: int | None = None,
    dexterity: int | None = None,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> AttackResult:
    """Roll 1d20 plus the attack bonus, STR (melee) or DEX (missile) modifier when the score is
    given, and situational modifiers; a total at or over the defender's ascending
    ``armour_class`` hits. A natural 1 always misses and a natural 20 always hits."""
    member, mods = _attack_inputs(attack_bonus, armour_class, kind, modifiers, strength, dexterity)
    fields = _roll_check(20, armour_class, mods, rng, natural)
    hit = fields.pop("outcome") is Outcome.SUCCESS
    return AttackResult(
        **fields, outcome=AttackOutcome.HIT if hit else AttackOutcome.MISS, kind=member
    )


# --- damage and hit points ---------------------------------------------------------------


def is_immune(attack_forms: Iterable[str], immunities: Iterable[str]) -> bool:
    """Whether a target with these immunities (keys such as ``mundane``, ``fire``) is immune
    to an attack of these forms: it is when any form is among the immunities."""
    return not _keys("attack_form", attack_forms).isdisjoint(_keys("immunity", immunities))


def _keys(field: str, values: Iterable[str]) -> frozenset[str]:
    if isinstance(values, str):
        values = (values,)
    if not isinstance(values, Iterable):
        values = (values,)
    values = tuple(values)
    for value in values:
        if not isinstance(value, str) or not _KEY.match(value):
            raise RulesError("bad_key", f"{shown(value)} is not a key", field=field, value=value)
    return frozenset(values)


def _dice(dice: DamageDice | str) -> DamageDice:
    if isinstance(dice, DamageDice):
        return dice
    return DamageDice.parse(dice)


def _damage_inputs(
    dice: DamageDice | str,
    kind: AttackKind | str,
    modifiers: Iterable[Modifier],
    strength: int | None,
) -> tuple[DamageDice, tuple[Modifier, ...]]:
    parsed = _dice(dice)
    member = _member(AttackKind, kind, "attack_kind")
    _score("strength", strength)
    strength_mod = _ability_mod(Ability.STR, strength) if member is AttackKind.MELEE else ()
    return parsed, strength_mod + _modifiers(modifiers)


def resolve_damage(
    dice: DamageDice | str,
    kind: AttackKind | str = AttackKind.MELEE,
    modifiers: Iterable[Modifier] = (),
    *,
    strength: int | None = None,
    immune: bool = False,
    rng: RandomSource | None = None,
    naturals: Sequence[int] | None = None,
) -> DamageResult:
    """Damage of a hit: the dice plus the STR modifier (melee, when the score is given) and
    other modifiers, at least 1. Against an ``immune`` target no dice are rolled and nothing
    is dealt."""
    parsed, mods = _damage_inputs(dice, kind, modifiers, strength)
    random_source(rng)
    if naturals is not None and not is_sequence(naturals):
        raise RulesError(
            "wrong_number_of_dice",
            "enter one result per die",
            expected=0 if immune else parsed.count,
            got=naturals,
        )
    if immune:
        if naturals:
            raise RulesError(
                "wrong_number_of_dice",
                "an immune target takes no damage roll",
                expected=0,
                got=len(naturals),
            )
        return DamageResult((), mods, 0, 0, parsed, DamageOutcome.IMMUNE)
    if naturals is None:
        rolled = tuple(natural_roll(parsed.sides, rng) for _ in range(parsed.count))
    else:
        if len(naturals) != parsed.count:
            raise RulesError(
                "wrong_number_of_dice",
                f"{parsed} needs {parsed.count} results",
                expected=parsed.count,
                got=len(naturals),
            )
        rolled = tuple(natural_roll(parsed.sides, entered=n) for n in naturals)
    raw = sum(rolled) + total_of(mods)
    outcome = DamageOutcome.MINIMUM if raw < 1 else DamageOutcome.DEALT
    return DamageResult(rolled, mods, sum(rolled), max(1, raw), parsed, outcome)


def _sum_ways(count: int, sides: int) -> list[int]:
    """Number of ways ``count`` dice of ``sides`` make each sum, index 0 being ``count``.
    Each die is a sliding-window sum over prefix sums (zero-padded on both sides), linear in
    the range, so even 20d20 stays cheap enough to recompute on every keystroke."""
    ways = [1]
    pad = [0] * (sides - 1)
    for _ in range(count):
        prefix = [0, *accumulate(pad + ways + pad)]
        ways = [high - low for low, high in zip(prefix, prefix[sides:], strict=False)]
    return ways


def damage_distribution(
    dice: DamageDice | str,
    kind: AttackKind | str = AttackKind.MELEE,
    modifiers: Iterable[Modifier] = (),
    *,
    strength: int | None = None,
    immune: bool = False,
) -> dict[int, Fraction]:
    """Exact chance of each damage total ``resolve_damage`` can give with these inputs (the
    1-damage floor included; ``{0: 1}`` against an immune target), ordered by damage."""
    parsed, mods = _damage_inputs(dice, kind, modifiers, strength)
    if immune:
        return {0: Fraction(1)}
    shift = total_of(mods)
    counts: dict[int, int] = {}
    for offset, n in enumerate(_sum_ways(parsed.count, parsed.sides)):
        damage = max(1, parsed.count + offset + shift)
        counts[damage] = counts.get(damage, 0) + n
    space = parsed.sides**parsed.count
    return {d: Fraction(n, space) for d, n in sorted(counts.items())}


def apply_damage(hit_points: int, damage: int) -> HitPointChange:
    """Subtract ``damage`` from ``hit_points``; they never drop below 0, and at 0 the target
    is dead."""
    _whole("hit_points", hit_points, *_HIT_POINTS)
    _whole("damage", damage, *_HIT_POINTS)
    after = max(0, hit_points - damage)
    return HitPointChange(hit_points, after, after - hit_points, after == 0)


def heal(hit_points: int, maximum: int, amount: int) -> HitPointChange:
    """Restore ``amount`` lost hit points, capped at ``maximum``; the dead (0 HP) do not heal."""
    _whole("maximum_hit_points", maximum, 1, _HIT_POINTS[1])
    _whole("hit_points", hit_points, 0, maximum)
    _whole("amount", amount, *_HIT_POINTS)
    if hit_points == 0:
        raise RulesError("target_dead", "a target at 0 hit points is dead and cannot heal")
    after = min(maximum, hit_points + amount)
    return HitPointChange(hit_points, after, after - hit_points, False)


# --- chance rolls ------------------------------------------------------------------------


def _chance_roll(
    sides: int, target: int, rng: RandomSource | None, natural: int | None
) -> ChanceResult:
    n = natural_roll(sides, rng, natural)
    outcome = Outcome.SUCCESS if n <= target else Outcome.FAILURE
    return ChanceResult(n, (), n, target, outcome, sides)


def x_in_6_odds(x: int) -> Fraction:
    """Exact chance of an X-in-6 roll (X in 1..6): X/6."""
    _whole("x_in_6", x, 1, 6)
    return chance(6, lambda n: n <= x)


def resolve_x_in_6(
    x: int, *, rng: RandomSource | None = None, natural: int | None = None
) -> ChanceResult:
    """The referee's X-in-6 chance: roll 1d6, success on X or less (3-in-6 even odds, 1-in-6
    very hard)."""
    _whole("x_in_6", x, 1, 6)
    return _chance_roll(6, x, rng, natural)


def percentage_odds(percent: int) -> Fraction:
    """Exact chance of a percentage roll (1..100): percent/100."""
    _whole("percent", percent, 1, 100)
    return chance(100, lambda n: n <= percent)


def resolve_percentage(
    percent: int, *, rng: RandomSource | None = None, natural: int | None = None
) -> ChanceResult:
    """The referee's percentage chance: roll d100 (00 counting as 100), success on the
    percentage or less (50% even odds, 10% very hard)."""
    _whole("percent", percent, 1, 100)
    return _chance_roll(100, percent, rng, natural)


# --- benchmark hooks ---------------------------------------------------------------------

BENCH_CASES: list[tuple[str, Callable[[], object]]] = [
    ("dolmenwood.skill_success_chance", lambda: skill_success_chance(5, 1)),
    ("dolmenwood.ability_check_chance", lambda: ability_check_chance(-1)),
    (
        "dolmenwood.save_odds magical",
        lambda: save_odds("spell", 14, (Modifier(2, SITUATIONAL),), magical=True, wisdom=16),
    ),
    (
        "dolmenwood.attack_odds melee",
        lambda: attack_odds(2, 15, "melee", (Modifier(-2, SITUATIONAL),), strength=17),
    ),
    (
        "dolmenwood.resolve_attack",
        lambda: resolve_attack(3, 14, "missile", dexterity=13, rng=random.Random(7)),
    ),
    (
        "dolmenwood.damage_distribution 3d6-1",
        lambda: damage_distribution("3d6", "melee", (Modifier(-1, SITUATIONAL),), strength=6),
    ),
    (
        "dolmenwood.choose_save_category",
        lambda: choose_save_category(("arcane_spell", "lightning", "paralysis")),
    ),
]
