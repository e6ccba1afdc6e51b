"""Old-School Essentials (B/X): the attack matrix and THAC0, monster rows by Hit Dice, saving
throws, ability checks, damage and healing.

Sources: the Czech OSE seeds ``000_ab6126ef0dc4f820.txt`` (attack matrix, monster THAC0 and
saves) and ``002_7de14cab95b48aa4.txt`` (ability checks, damage, healing, saves), digested in
``shared/rules/ose.md``.

Keys the interface translates
-----------------------------
* attack methods (:class:`AttackMethod`): ``matrix``, ``thac0``, ``ascending``;
* save categories (:class:`SaveCategory`), in the seed's order: ``death``, ``wands``,
  ``paralysis``, ``breath``, ``spells``;
* outcomes (:class:`Outcome`): ``hit``, ``miss``, ``success``, ``failure``, ``survived``,
  ``destroyed``;
* natural-roll rules (:class:`NaturalRule`): ``natural_1_succeeds``, ``natural_20_fails``;
* modifier reasons this module creates (:class:`Reason`): ``difficulty`` (the referee's
  ability-check modifier), ``item_bonus`` (a magic item's combat bonus on its save); callers
  are expected to use ``str`` (melee attack), ``dex`` (missile attack) and ``situational``;
* error codes (:class:`~rules.errors.RulesError`): ``bad_hit_dice`` (value),
  ``not_an_integer`` (name, value), ``thac0_out_of_range`` and ``ac_out_of_range`` (value,
  low, high), ``unknown_attack_method`` (value), ``unknown_attack_kind`` (value),
  ``unknown_save_category`` (value), ``bad_modifier`` (value), ``ability_out_of_range``
  (value, low, high), ``modifier_out_of_range`` (value, low, high),
  ``save_value_out_of_range`` (value, low, high), ``bad_damage`` (value), ``bad_hp`` (name,
  value), ``cannot_heal_the_dead`` (hp), ``too_many_days`` (days, limit), ``bad_rest_day``
  (value), ``wrong_number_of_dice`` (expected, given), ``current_and_max_hp_together``, and
  from :mod:`rules.core`: ``die_not_integer``, ``die_out_of_range``, ``no_random_source``
  (a random source that is none, or none given and no die entered).

Decisions where the rules leave something open
----------------------------------------------
* Natural 1 and 20 on attacks and saves: the seeds give no special rule, so only the total
  counts. With the matrix every cell lies in 2..20, so a total of 1 or less never hits and a
  total of 20 or more hits any AC; with direct THAC0 or ascending AC a natural 1 with a large
  bonus can hit and a natural 20 can miss a very low AC. Ability checks do have the rule
  (natural 1 succeeds, natural 20 fails), as the seed says.
* The matrix beyond its printed range: an AC below −3 or above 9, or a THAC0 outside 5..20,
  uses the same formula ``min(20, max(2, THAC0 − AC))`` that every printed cell satisfies.
* THAC0 and descending AC are whole numbers from −100 to 100, as in BECMI (beyond that they
  are typing mistakes, not creatures: ``thac0_out_of_range``, ``ac_out_of_range``); their
  ascending twins (the bracket bonus ``19 − THAC0`` and ``AAC = 19 − AC``) therefore run from
  −81 to 119. Modifiers are checked as :mod:`rules.core` says (a list of ``Modifier``).
* Ascending AC: ``d20 + bonus + modifiers ≥ AAC`` with ``bonus = 19 − THAC0`` and
  ``AAC = 19 − AC`` is exactly ``d20 + modifiers ≥ THAC0 − AC``, so the ascending method gives
  the direct-THAC0 result; :class:`AttackResult` carries ``needed`` in the d20 + modifiers
  scale for every method, and ``ascending_total`` / ``target_aac`` for display.
* ``AttackResult.hit_ac``: the best (lowest) AC on the printed table (−3..9) that the total
  hits under the chosen method. ``-3`` therefore means "hits every AC on the table", ``None``
  "hits no AC on the table" (it can still hit a target whose AC is off the table, e.g. AC 10).
* Hit Dice strings: ``N``, ``N+B``, ``N-B`` (hyphen, en dash or minus sign), ``1/2`` or ``½``,
  each optionally followed by asterisks (``3*``, ``4+1**``); ``N+`` with no number means "N
  dice and some bonus" (the table's own ``21+``), so it attacks one row up and saves at N.
  ``normal human`` (also ``BČ`` and the glossary's other names) is the normal-human row.
  Spaces are ignored. Anything else (``0``, ``1/4``, ``½+1``, ``2-``, ``3d8``) is
  ``bad_hit_dice``. Up to three digits of dice or bonus and nine asterisks.
* Monster THAC0: a monster with bonus hit points attacks as one more HD (seed); a negative bonus
  does not move the row (``1-1`` is "up to 1"). Monster saves use the whole HD (bonus ignored,
  ``½`` saves in the 1–3 row).
* Ability checks accept scores 3..18 (the range of the modifier table) and a referee modifier
  −4..+4 (the seed's "relatively easy" to "very hard").
* Save values must be 1..20.
* Halved damage rounds down (``7 → 3``, ``1 → 0``). A poison's damage is not changed by the
  save (``resolve_save(poison=True)``).
* Hit points may go below 0 (the record keeps the true total); dead at 0 or fewer. The dead
  cannot be healed (``cannot_heal_the_dead``); healing never raises hit points above the
  maximum, nor lowers hit points that are already above it.
* Natural healing: at most :data:`MAX_REST_DAYS` days per call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .bounds import BOUNDS
from .core import (
    ABILITY_MAX,
    ABILITY_MIN,
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
from .dice import (
    ConstantTerm,
    DiceExpression,
    DiceRoll,
    DiceTerm,
    Distribution,
    distribution,
    roll,
)
from .errors import RulesError

__all__ = [
    "MATRIX_AC",
    "MATRIX_MAX_ROLL",
    "MATRIX_MIN_ROLL",
    "MATRIX_THAC0",
    "MAX_REST_DAYS",
    "MONSTER_SAVE_ROWS",
    "MONSTER_THAC0_ROWS",
    "NORMAL_HUMAN_SAVES",
    "NORMAL_HUMAN_THAC0",
    "AbilityCheckResult",
    "AttackKind",
    "AttackMethod",
    "AttackOddsComparison",
    "AttackResult",
    "DamageResult",
    "HitDice",
    "HpChange",
    "ItemSaveResult",
    "NaturalHealingResult",
    "NaturalRule",
    "Outcome",
    "Reason",
    "SaveCategory",
    "SaveResult",
    "ability_check_odds",
    "ability_modifier",
    "apply_damage",
    "apply_healing",
    "ascending_ac",
    "attack_bonus",
    "attack_matrix",
    "attack_modifiers",
    "attack_odds",
    "attack_odds_compared",
    "descending_ac",
    "halve_damage",
    "item_save_odds",
    "monster_hit_points",
    "monster_hp_dice",
    "monster_saves",
    "monster_thac0",
    "natural_healing",
    "natural_healing_distribution",
    "parse_hd",
    "resolve_ability_check",
    "resolve_attack",
    "resolve_damage",
    "resolve_item_save",
    "resolve_save",
    "roll_needed",
    "save_odds",
    "thac0_from_bonus",
]


class SaveCategory(StrEnum):
    DEATH = "death"
    WANDS = "wands"
    PARALYSIS = "paralysis"
    BREATH = "breath"
    SPELLS = "spells"


class AttackMethod(StrEnum):
    MATRIX = "matrix"
    THAC0 = "thac0"
    ASCENDING = "ascending"


class Outcome(StrEnum):
    HIT = "hit"
    MISS = "miss"
    SUCCESS = "success"
    FAILURE = "failure"
    SURVIVED = "survived"
    DESTROYED = "destroyed"


class NaturalRule(StrEnum):
    NATURAL_1_SUCCEEDS = "natural_1_succeeds"
    NATURAL_20_FAILS = "natural_20_fails"


class AttackKind(StrEnum):
    """Melee attacks use STR (to hit and to damage), missile attacks DEX (to hit only)."""

    MELEE = "melee"
    MISSILE = "missile"


class Reason(StrEnum):
    STR = "str"
    DEX = "dex"
    DIFFICULTY = "difficulty"
    ITEM_BONUS = "item_bonus"
    SITUATIONAL = "situational"


#: Columns of the printed attack matrix, best AC first.
MATRIX_AC = range(-3, 10)
#: Rows of the printed attack matrix: THAC0 20 (normal humans) down to 5.
MATRIX_THAC0 = range(20, 4, -1)
MATRIX_MIN_ROLL = 2
MATRIX_MAX_ROLL = 20

NORMAL_HUMAN_THAC0 = 20
#: Monster THAC0 by Hit Dice: ``(up to this many HD, THAC0)``; above the last row, THAC0 5.
MONSTER_THAC0_ROWS: tuple[tuple[int, int], ...] = (
    (1, 19),
    (2, 18),
    (3, 17),
    (4, 16),
    (5, 15),
    (6, 14),
    (7, 13),
    (9, 12),
    (11, 11),
    (13, 10),
    (15, 9),
    (17, 8),
    (19, 7),
    (21, 6),
)
_TOP_MONSTER_THAC0 = 5

NORMAL_HUMAN_SAVES: tuple[int, ...] = (14, 15, 16, 17, 18)
#: Monster saves (death, wands, paralysis, breath, spells) by whole HD: ``(up to this many HD,
#: values)``; the last row (``None``) is 22 HD and up.
MONSTER_SAVE_ROWS: tuple[tuple[int | None, tuple[int, ...]], ...] = (
    (3, (12, 13, 14, 15, 16)),
    (6, (10, 11, 12, 13, 14)),
    (9, (8, 9, 10, 10, 12)),
    (12, (6, 7, 8, 8, 10)),
    (15, (4, 5, 6, 5, 8)),
    (18, (2, 3, 4, 3, 6)),
    (21, (2, 2, 2, 2, 4)),
    (None, (2, 2, 2, 2, 2)),
)

CHECK_MODIFIER_MIN, CHECK_MODIFIER_MAX = -4, 4
SAVE_VALUE_MIN, SAVE_VALUE_MAX = BOUNDS["save"].low, BOUNDS["save"].high
MAX_REST_DAYS = 1000


# ----- validation helpers -----


def _int(name: str, value: object) -> int:
    if not is_whole(value):
        raise RulesError("not_an_integer", f"{name} must be a whole number", name=name, value=value)
    return value


def _within(name: str, value: object, code: str, low: int, high: int) -> int:
    value = _int(name, value)
    if not low <= value <= high:
        raise RulesError(
            code,
            f"{name} must be {low} to {high}, not {shown(value)}",
            value=value,
            low=low,
            high=high,
        )
    return value


def _thac0(value: object) -> int:
    return _within("thac0", value, "thac0_out_of_range", -NUMBER_LIMIT, NUMBER_LIMIT)


def _ac(name: str, value: object) -> int:
    return _within(name, value, "ac_out_of_range", -NUMBER_LIMIT, NUMBER_LIMIT)


# The ascending twins of THAC0 and AC (19 − x) cover exactly the same creatures.
_ASCENDING_LOW, _ASCENDING_HIGH = 19 - NUMBER_LIMIT, 19 + NUMBER_LIMIT


def _method(method: AttackMethod | str) -> AttackMethod:
    try:
        return AttackMethod(method)
    except ValueError:
        raise RulesError(
            "unknown_attack_method", f"no attack method {shown(method)}", value=method
        ) from None


def _category(category: SaveCategory | str) -> SaveCategory:
    try:
        return SaveCategory(category)
    except ValueError:
        raise RulesError(
            "unknown_save_category", f"no save category {shown(category)}", value=category
        ) from None


_modifiers = modifiers_of


def _save_value(value: object) -> int:
    return _within("save_value", value, "save_value_out_of_range", SAVE_VALUE_MIN, SAVE_VALUE_MAX)


def _damage(value: object) -> int:
    if not is_whole(value) or value < 0:
        raise RulesError(
            "bad_damage", f"damage must be a whole number ≥ 0, not {shown(value)}", value=value
        )
    return value


# ----- Hit Dice -----


@dataclass(frozen=True)
class HitDice:
    """A monster's Hit Dice as written: ``2+1*`` is ``HitDice(2, 1, 1)``; ``½`` has
    ``dice == Fraction(1, 2)``; ``21+`` has ``open_bonus`` (some bonus, number not given);
    normal humans have ``normal_human`` and no dice."""

    dice: int | Fraction = 0
    bonus: int = 0
    asterisks: int = 0
    normal_human: bool = False
    open_bonus: bool = False

    @property
    def attack_hd(self) -> int | Fraction:
        """The HD whose row of the THAC0 table applies: bonus hit points count one HD more."""
        return self.dice + 1 if self.bonus > 0 or self.open_bonus else self.dice

    def __str__(self) -> str:
        if self.normal_human:
            return "normal human"
        text = "½" if self.dice == Fraction(1, 2) else str(self.dice)
        if self.open_bonus:
            text += "+"
        elif self.bonus:
            text += f"{self.bonus:+d}"
        return text + "*" * self.asterisks


_NORMAL_HUMAN_NAMES = {
    "normal human",
    "bč",
    "běžný člověk",
    "оч",
    "обычный человек",
    "зл",
    "звичайна людина",
}
_HD = re.compile(
    r"(?:(?P<half>1/2|½)|(?P<dice>[1-9][0-9]{0,2}))"
    r"(?:(?P<sign>[+\-–−])(?P<bonus>[1-9][0-9]{0,2})?)?"
    r"(?P<stars>\*{0,9})"
)


def parse_hd(hd: str) -> HitDice:
    """Read a Hit Dice string (see the module docstring for what is accepted).

    >>> parse_hd("2+1*")
    HitDice(dice=2, bonus=1, asterisks=1, normal_human=False, open_bonus=False)
    """
    if not isinstance(hd, str):
        raise RulesError("bad_hit_dice", f"Hit Dice must be text, not {shown(hd)}", value=hd)
    words = " ".join(hd.replace("-", " ").replace("_", " ").split()).casefold()
    if words in _NORMAL_HUMAN_NAMES:
        return HitDice(normal_human=True)
    m = _HD.fullmatch("".join(hd.split()))
    open_bonus = bool(m and m["sign"] == "+" and not m["bonus"])
    if m is None or (m["half"] and m["sign"]) or (m["sign"] and not m["bonus"] and not open_bonus):
        raise RulesError("bad_hit_dice", f"cannot read Hit Dice {hd!r}", value=hd)
    dice: int | Fraction = Fraction(1, 2) if m["half"] else int(m["dice"])
    bonus = int(m["bonus"]) if m["bonus"] else 0
    if m["sign"] and m["sign"] != "+":
        bonus = -bonus
    return HitDice(
        dice=dice,
        bonus=bonus,
        asterisks=len(m["stars"]),
        open_bonus=open_bonus,
    )


def monster_thac0(hd: str) -> int:
    """THAC0 from a Hit Dice string (``"1/2"``, ``"½"``, ``"1-1"``, ``"2"``, ``"2+1"``, ``"7*"``,
    ``"21+"`` …); ``"normal human"`` gives 20. A monster with bonus hit points attacks as one
    more HD (``2`` → 18, ``2+1`` → 17); asterisks do not change the row. Bad input raises
    :class:`RulesError` ``bad_hit_dice``."""
    parsed = parse_hd(hd)
    if parsed.normal_human:
        return NORMAL_HUMAN_THAC0
    for upper, thac0 in MONSTER_THAC0_ROWS:
        if parsed.attack_hd <= upper:
            return thac0
    return _TOP_MONSTER_THAC0


def monster_saves(hd: str) -> dict[str, int]:
    """A monster's save values by Hit Dice, keys ``death``, ``wands``, ``paralysis``,
    ``breath``, ``spells`` in that order. The whole HD picks the row (bonus hit points do not
    move it; below 1 HD saves as 1–3); ``"normal human"`` gives the normal-human row."""
    parsed = parse_hd(hd)
    if parsed.normal_human:
        values = NORMAL_HUMAN_SAVES
    else:
        values = next(v for upper, v in MONSTER_SAVE_ROWS if upper is None or parsed.dice <= upper)
    return {c.value: v for c, v in zip(SaveCategory, values, strict=True)}


def monster_hp_dice(hd: str) -> str:
    """The dice a monster's hit points are rolled with: a d8 per Hit Die plus or minus the
    bonus (``2+1`` → ``2d8+1``, ``1-1`` → ``1d8-1``); ``½`` HD rolls ``1d4``, and so does a
    normal human (B/X convention, not printed in the seeds). An open bonus (``21+``) adds
    nothing; asterisks change nothing."""
    parsed = parse_hd(hd)
    if parsed.normal_human or parsed.dice == Fraction(1, 2):
        return "1d4"
    bonus = f"{parsed.bonus:+d}" if parsed.bonus else ""
    return f"{parsed.dice}d8{bonus}"


def monster_hit_points(
    dice_expression: str | DiceExpression,
    rng: RandomSource | None = None,
    entered: Sequence[int] | None = None,
) -> int:
    """Roll a monster's hit points; a result below 1 counts as 1 (a ``1-1`` goblin rolling 1
    still stands, the usual B/X reading: the seeds say nothing)."""
    random_source(rng)
    return max(1, roll(dice_expression, rng=rng, entered=entered).total)


# ----- ability scores -----


def _ability(score: object) -> int:
    score = _int("score", score)
    if not ABILITY_MIN <= score <= ABILITY_MAX:
        raise RulesError(
            "ability_out_of_range",
            f"an ability score is {ABILITY_MIN} to {ABILITY_MAX}, not {shown(score)}",
            value=score,
            low=ABILITY_MIN,
            high=ABILITY_MAX,
        )
    return score


# ----- attacks -----


def attack_bonus(thac0: int) -> int:
    """The ascending-AC attack bonus written in brackets after a THAC0: ``19 − THAC0``."""
    return 19 - _thac0(thac0)


def thac0_from_bonus(bonus: int) -> int:
    """The THAC0 of an ascending attack bonus: ``19 − bonus`` (a bonus −81..119 gives a
    THAC0 within the bound, ``thac0_out_of_range`` otherwise)."""
    return 19 - _within("bonus", bonus, "thac0_out_of_range", _ASCENDING_LOW, _ASCENDING_HIGH)


def ascending_ac(ac: int) -> int:
    """Ascending AC of a descending AC: ``19 − AC`` (AC 9 → 10, AC 2 → 17)."""
    return 19 - _ac("ac", ac)


def descending_ac(aac: int) -> int:
    """Descending AC of an ascending AC: ``19 − AAC`` (an AAC −81..119)."""
    return 19 - _within("aac", aac, "ac_out_of_range", _ASCENDING_LOW, _ASCENDING_HIGH)


def roll_needed(thac0: int, ac: int, method: str = "matrix") -> int:
    """The d20 total (natural roll plus modifiers) needed to hit descending ``ac``.

    ``method`` is ``"matrix"`` (the attack matrix: ``min(20, max(2, THAC0 − AC))``, every cell
    of the seed's table) or ``"thac0"`` (the optional direct rule ``THAC0 − AC``, unclamped);
    ``"ascending"`` gives the same number as ``"thac0"`` (see the module docstring). THAC0 and
    AC are whole numbers from −100 to 100 (``thac0_out_of_range``, ``ac_out_of_range``).
    """
    thac0, ac, method = _thac0(thac0), _ac("ac", ac), _method(method)
    needed = thac0 - ac
    if method is AttackMethod.MATRIX:
        return min(MATRIX_MAX_ROLL, max(MATRIX_MIN_ROLL, needed))
    return needed


def attack_matrix() -> dict[int, dict[int, int]]:
    """The printed attack matrix: ``{THAC0: {AC: roll needed}}``, rows 20..5, columns −3..9."""
    return {t: {ac: roll_needed(t, ac) for ac in MATRIX_AC} for t in MATRIX_THAC0}


@dataclass(frozen=True)
class AttackResult:
    """One resolved attack roll. ``total`` is the natural d20 plus ``modifiers``; ``needed`` is
    the total needed under ``method``; ``hit_ac`` the best AC on the printed table the total
    hits (``-3``: all of it, ``None``: none of it)."""

    method: AttackMethod
    thac0: int
    target_ac: int
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    needed: int
    hit_ac: int | None
    hit: bool

    @property
    def outcome(self) -> Outcome:
        return Outcome.HIT if self.hit else Outcome.MISS

    @property
    def attack_bonus(self) -> int:
        return 19 - self.thac0

    @property
    def target_aac(self) -> int:
        return 19 - self.target_ac

    @property
    def ascending_total(self) -> int:
        """The total written the ascending way (d20 + attack bonus + modifiers), compared with
        ``target_aac``."""
        return self.total + self.attack_bonus


def resolve_attack(
    *,
    thac0: int,
    target_ac: int,
    method: AttackMethod | str = AttackMethod.MATRIX,
    modifiers: Sequence[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> AttackResult:
    """Roll (or take the ``natural`` d20 a player entered) and resolve an attack.

    The seed's example: THAC0 17, STR 13 (``Modifier(1, "str")``), natural 14 against AC 4:
    total 15, which hits AC 2 on the matrix, so it hits.
    """
    method = _method(method)
    needed = roll_needed(thac0, target_ac, method)
    mods = _modifiers(modifiers)
    random_source(rng)
    rolled = natural_roll(20, rng, natural)
    total = rolled + total_of(mods)
    hit_ac = next((ac for ac in MATRIX_AC if total >= roll_needed(thac0, ac, method)), None)
    return AttackResult(
        method=method,
        thac0=thac0,
        target_ac=target_ac,
        natural=rolled,
        modifiers=mods,
        total=total,
        needed=needed,
        hit_ac=hit_ac,
        hit=total >= needed,
    )


def attack_odds(
    *, thac0: int, target_ac: int, method: AttackMethod | str = "matrix", modifier: int = 0
) -> Fraction:
    """Exact chance that an attack with total modifier ``modifier`` hits (no natural-roll
    exceptions; see the module docstring)."""
    needed = roll_needed(thac0, target_ac, method)
    modifier = _int("modifier", modifier)
    return chance(20, lambda n: n + modifier >= needed)


@dataclass(frozen=True)
class AttackOddsComparison:
    """The chance to hit under each method, so the interface can show what the referee's
    choice changes (``differs``)."""

    matrix: Fraction
    thac0: Fraction
    ascending: Fraction

    @property
    def differs(self) -> bool:
        return self.matrix != self.thac0

    def for_method(self, method: AttackMethod | str) -> Fraction:
        return getattr(self, _method(method).value)


def attack_odds_compared(*, thac0: int, target_ac: int, modifier: int = 0) -> AttackOddsComparison:
    """The exact chance to hit under the matrix, direct THAC0 and ascending AC. They differ only
    where ``THAC0 − AC`` falls outside the matrix's 2..20 and the d20 can reach the
    difference."""
    odds = {
        m: attack_odds(thac0=thac0, target_ac=target_ac, method=m, modifier=modifier)
        for m in AttackMethod
    }
    return AttackOddsComparison(
        matrix=odds[AttackMethod.MATRIX],
        thac0=odds[AttackMethod.THAC0],
        ascending=odds[AttackMethod.ASCENDING],
    )


def attack_modifiers(
    kind: AttackKind | str, *, strength: int, dexterity: int, situational: int = 0
) -> tuple[Modifier, ...]:
    """The modifiers of an attack roll: STR for melee, DEX for missile (the seed's example:
    STR 13 gives +1 to melee attack rolls), and the referee's situational modifier. Modifiers
    of 0 are left out, so the log lists only what changed the roll. Both scores must be valid
    whichever the attack uses."""
    kind = _attack_kind(kind)
    str_mod, dex_mod = ability_modifier(strength), ability_modifier(dexterity)
    if kind is AttackKind.MELEE:
        ability = Modifier(str_mod, Reason.STR.value)
    else:
        ability = Modifier(dex_mod, Reason.DEX.value)
    situational_mod = Modifier(_int("modifier", situational), Reason.SITUATIONAL.value)
    return tuple(m for m in (ability, situational_mod) if m.value)


@dataclass(frozen=True)
class DamageResult:
    """Rolled damage: the dice, the modifiers (STR on a melee hit) and the total dealt."""

    roll: DiceRoll
    modifiers: tuple[Modifier, ...]
    total: int


def resolve_damage(
    expression: str | DiceExpression,
    kind: AttackKind | str,
    *,
    strength: int,
    rng: RandomSource | None = None,
    entered: Sequence[int] | None = None,
) -> DamageResult:
    """Roll an attack's damage (or take the dice a player ``entered``). STR adjusts melee
    damage, not missile damage. A negative total deals nothing: damage never heals (the seeds
    give no minimum; Dolmenwood's minimum of 1 is its own rule). ``strength`` must be a valid
    score even for a missile attack."""
    kind = _attack_kind(kind)
    str_mod = ability_modifier(strength)
    rolled = roll(expression, rng=rng, entered=entered)
    modifiers: tuple[Modifier, ...] = ()
    if kind is AttackKind.MELEE and str_mod:
        modifiers = (Modifier(str_mod, Reason.STR.value),)
    return DamageResult(rolled, modifiers, max(0, rolled.total + total_of(modifiers)))


def _attack_kind(kind: object) -> AttackKind:
    try:
        return AttackKind(kind)
    except ValueError:
        raise RulesError(
            "unknown_attack_kind", f"no attack kind {shown(kind)}", value=kind
        ) from None


# ----- saving throws -----


def halve_damage(n: int) -> int:
    """Damage after a successful save: half, rounded down (the seeds do not say how to round;
    round down is the B/X convention)."""
    return _damage(n) // 2


@dataclass(frozen=True)
class SaveResult:
    """One saving throw: success when ``total >= needed`` (the save value). With ``damage``,
    ``damage_taken`` is half of it (rounded down) on a success and all of it on a failure,
    except a ``poison`` whose damage the save does not change."""

    category: SaveCategory
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    needed: int
    success: bool
    damage: int | None = None
    damage_taken: int | None = None
    poison: bool = False

    @property
    def outcome(self) -> Outcome:
        return Outcome.SUCCESS if self.success else Outcome.FAILURE


def resolve_save(
    *,
    save_value: int,
    category: SaveCategory | str,
    modifiers: Sequence[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
    damage: int | None = None,
    poison: bool = False,
) -> SaveResult:
    """Roll (or take the entered ``natural``) a saving throw against ``save_value``: d20 plus
    modifiers ≥ the value succeeds (no natural-roll exceptions: the seed gives none)."""
    needed = _save_value(save_value)
    cat = _category(category)
    mods = _modifiers(modifiers)
    if damage is not None:
        damage = _damage(damage)
    random_source(rng)
    rolled = natural_roll(20, rng, natural)
    total = rolled + total_of(mods)
    success = total >= needed
    taken = None
    if damage is not None:
        taken = damage // 2 if success and not poison else damage
    return SaveResult(cat, rolled, mods, total, needed, success, damage, taken, bool(poison))


def save_odds(save_value: int, modifier: int = 0) -> Fraction:
    """Exact chance that a save against ``save_value`` with total ``modifier`` succeeds."""
    needed = _save_value(save_value)
    modifier = _int("modifier", modifier)
    return chance(20, lambda n: n + modifier >= needed)


@dataclass(frozen=True)
class ItemSaveResult:
    """A magic item's save against destruction when its owner is killed by a destructive spell
    or special attack: the owner's save value, the item's combat bonus among ``modifiers``
    (reason ``item_bonus``)."""

    category: SaveCategory
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    needed: int
    survived: bool

    @property
    def outcome(self) -> Outcome:
        return Outcome.SURVIVED if self.survived else Outcome.DESTROYED


def _item_modifiers(item_bonus: int, modifiers: Sequence[Modifier]) -> tuple[Modifier, ...]:
    item_bonus = _int("item_bonus", item_bonus)
    extra = (Modifier(item_bonus, Reason.ITEM_BONUS.value),) if item_bonus else ()
    return extra + _modifiers(modifiers)


def resolve_item_save(
    *,
    save_value: int,
    category: SaveCategory | str,
    item_bonus: int = 0,
    modifiers: Sequence[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> ItemSaveResult:
    """Save one magic item: ``save_value`` is the owner's value in the attack's ``category``;
    an item that gives a combat bonus (a +1 sword, +2 armour) adds it."""
    needed = _save_value(save_value)
    cat = _category(category)
    mods = _item_modifiers(item_bonus, modifiers)
    random_source(rng)
    rolled = natural_roll(20, rng, natural)
    total = rolled + total_of(mods)
    return ItemSaveResult(cat, rolled, mods, total, needed, total >= needed)


def item_save_odds(save_value: int, item_bonus: int = 0, modifier: int = 0) -> Fraction:
    """Exact chance that a magic item survives (see :func:`resolve_item_save`)."""
    return save_odds(save_value, _int("item_bonus", item_bonus) + _int("modifier", modifier))


# ----- ability checks -----


@dataclass(frozen=True)
class AbilityCheckResult:
    """A d20 roll-under ability check: success when ``total <= score``, except that a natural 1
    always succeeds and a natural 20 always fails (``natural_rule`` says when one applied)."""

    score: int
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    success: bool
    natural_rule: NaturalRule | None

    @property
    def needed(self) -> int:
        """The highest total that succeeds."""
        return self.score

    @property
    def outcome(self) -> Outcome:
        return Outcome.SUCCESS if self.success else Outcome.FAILURE


def _check_modifier(modifier: object) -> int:
    modifier = _int("modifier", modifier)
    if not CHECK_MODIFIER_MIN <= modifier <= CHECK_MODIFIER_MAX:
        raise RulesError(
            "modifier_out_of_range",
            f"an ability-check modifier is {CHECK_MODIFIER_MIN} to {CHECK_MODIFIER_MAX}",
            value=modifier,
            low=CHECK_MODIFIER_MIN,
            high=CHECK_MODIFIER_MAX,
        )
    return modifier


def _check_succeeds(natural: int, modifier: int, score: int) -> bool:
    if natural == 1:
        return True
    if natural == 20:
        return False
    return natural + modifier <= score


def resolve_ability_check(
    *,
    score: int,
    modifier: int = 0,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> AbilityCheckResult:
    """Roll (or take the entered ``natural``) an ability check against ``score`` with the
    referee's ``modifier`` (−4 relatively easy … +4 very hard, added to the roll)."""
    score = _ability(score)
    modifier = _check_modifier(modifier)
    random_source(rng)
    rolled = natural_roll(20, rng, natural)
    rule = {1: NaturalRule.NATURAL_1_SUCCEEDS, 20: NaturalRule.NATURAL_20_FAILS}.get(rolled)
    mods = (Modifier(modifier, Reason.DIFFICULTY.value),) if modifier else ()
    return AbilityCheckResult(
        score=score,
        natural=rolled,
        modifiers=mods,
        total=rolled + modifier,
        success=_check_succeeds(rolled, modifier, score),
        natural_rule=rule,
    )


def ability_check_odds(score: int, modifier: int = 0) -> Fraction:
    """Exact chance that an ability check succeeds (natural 1 succeeds, natural 20 fails)."""
    score, modifier = _ability(score), _check_modifier(modifier)
    return chance(20, lambda n: _check_succeeds(n, modifier, score))


# ----- hit points -----


@dataclass(frozen=True)
class HpChange:
    """Hit points before and after damage or healing; ``dead`` at 0 or fewer."""

    before: int
    after: int
    dead: bool
    max_hp: int | None = None

    @property
    def change(self) -> int:
        return self.after - self.before


def _hp(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError("bad_hp", f"{name} must be a whole number", name=name, value=value)
    return value


def apply_damage(current_hp: int, damage: int) -> HpChange:
    """Subtract ``damage`` (≥ 0). Hit points may go below 0; at 0 or fewer the creature dies."""
    current_hp = _hp("current_hp", current_hp)
    after = current_hp - _damage(damage)
    return HpChange(current_hp, after, after <= 0)


def apply_healing(current_hp: int, max_hp: int, amount: int) -> HpChange:
    """Add ``amount`` (≥ 0) hit points, never above ``max_hp``. The dead (0 or fewer) cannot be
    healed: :class:`RulesError` ``cannot_heal_the_dead``."""
    current_hp, max_hp = _hp("current_hp", current_hp), _hp("max_hp", max_hp)
    if max_hp < 1:
        raise RulesError("bad_hp", "max_hp must be at least 1", name="max_hp", value=max_hp)
    amount = _damage(amount)
    if current_hp <= 0:
        raise RulesError("cannot_heal_the_dead", "the dead cannot be healed", hp=current_hp)
    after = max(current_hp, min(max_hp, current_hp + amount))
    return HpChange(current_hp, after, False, max_hp)


@dataclass(frozen=True)
class NaturalHealingResult:
    """Natural healing over some days: ``naturals[i]`` is day i's 1d3 (``None`` when that day's
    rest was interrupted); ``rolled`` their sum; ``healed`` what was actually restored (capped
    at the maximum when hit points were given, then ``hp`` has the change)."""

    days: tuple[bool, ...]
    naturals: tuple[int | None, ...]
    rolled: int
    healed: int
    hp: HpChange | None = None


def _rest_days(days: Sequence[bool] | int) -> tuple[bool, ...]:
    if isinstance(days, bool) or not isinstance(days, (int, Sequence)) or isinstance(days, str):
        raise RulesError(
            "bad_rest_day", "days must be a number or a list of true/false", value=days
        )
    if isinstance(days, int):
        if days < 0:
            raise RulesError("bad_rest_day", "days cannot be negative", value=days)
        count = days
    else:
        count = len(days)
    if count > MAX_REST_DAYS:
        raise RulesError(
            "too_many_days",
            f"at most {MAX_REST_DAYS} days at once",
            days=count,
            limit=MAX_REST_DAYS,
        )
    if isinstance(days, int):
        return (True,) * days
    for d in days:
        if not isinstance(d, bool):
            raise RulesError("bad_rest_day", f"a day is rested or not, not {shown(d)}", value=d)
    return tuple(days)


def natural_healing(
    days: Sequence[bool] | int,
    rng: RandomSource | None = None,
    naturals: Sequence[int] | None = None,
    *,
    current_hp: int | None = None,
    max_hp: int | None = None,
) -> NaturalHealingResult:
    """Heal 1d3 per full day of complete rest; a day whose rest was interrupted heals nothing.

    ``days`` is a number of full rest days or one true/false per day (true: rested all day).
    ``naturals`` are the d3 results a player entered, one per rested day. With ``current_hp``
    and ``max_hp`` (given together) the healing is applied and capped at the maximum.
    """
    rest = _rest_days(days)
    random_source(rng)
    rested = sum(rest)
    if naturals is not None:
        if not is_sequence(naturals):
            raise RulesError(
                "wrong_number_of_dice",
                "entered results must be a list",
                expected=rested,
                given=None,
            )
        if len(naturals) != rested:
            raise RulesError(
                "wrong_number_of_dice",
                f"{rested} d3 results needed, {len(naturals)} given",
                expected=rested,
                given=len(naturals),
            )
    if (current_hp is None) != (max_hp is None):
        raise RulesError(
            "current_and_max_hp_together", "give both current and maximum hit points, or neither"
        )
    entered = iter(naturals or ())
    rolls = tuple(
        natural_roll(3, rng, next(entered) if naturals is not None else None) if day else None
        for day in rest
    )
    rolled = sum(r for r in rolls if r is not None)
    if current_hp is None:
        return NaturalHealingResult(rest, rolls, rolled, rolled)
    change = apply_healing(current_hp, max_hp, rolled)
    return NaturalHealingResult(rest, rolls, rolled, change.change, change)


def natural_healing_distribution(days: Sequence[bool] | int) -> Distribution:
    """Exact distribution of the hit points natural healing restores over ``days`` (before any
    cap at the maximum): ``Nd3`` for N rested days."""
    rested = sum(_rest_days(days))
    term = DiceTerm(rested, 3) if rested else ConstantTerm(0)
    return distribution(DiceExpression((term,), f"{rested}d3"))
