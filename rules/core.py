"""Shared building blocks of every rules system: modifiers, rolls, chances, argument checks.

Argument validation, the same in every system
---------------------------------------------
Every public function of the engine answers bad arguments with :class:`RulesError`, never with
``TypeError`` and the like, and never does unbounded work for them. The shared rules:

* A whole number is an ``int`` but not a ``bool`` (``True`` is no die result): :func:`is_whole`.
* THAC0 and descending AC (OSE, BECMI) and attack bonuses and modifiers (Dolmenwood) lie within
  ±:data:`NUMBER_LIMIT` (100). The printed tables run from THAC0 20 down to 5 (OSE) or −3
  (BECMI); anything past ±100 is a typing mistake, not a creature.
* Modifiers are a list-like (list, tuple, generator …) of at most :data:`MAX_MODIFIERS`
  :class:`Modifier` with a whole-number value and a text reason (:func:`modifiers_of`); a lone
  ``Modifier``, ``None``, a number or text is ``bad_modifier``.
* A random source is ``None`` or has a ``randint`` method (:func:`random_source`); anything else
  is ``no_random_source`` (params: ``value``). A source whose ``randint`` fails or answers
  outside the die is refused the same way (or ``die_out_of_range`` / ``die_not_integer``).
* A die has 1 to :data:`MAX_SIDES` sides.
* An argument of the wrong kind that no rule-specific code describes (a programming mistake
  rather than a typing one: a ``ZoneState`` that is not one, a callback that is not callable,
  a list that is text) is ``bad_argument`` (params: ``name``, ``value``, ``expected``, the last
  an English description for developers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import Protocol

from .bounds import BOUNDS
from .errors import RulesError

__all__ = [
    "ABILITY_MAX",
    "ABILITY_MIN",
    "MAX_MODIFIERS",
    "MAX_SIDES",
    "NUMBER_LIMIT",
    "Modifier",
    "RandomSource",
    "ability_modifier",
    "chance",
    "natural_roll",
    "total_of",
]

#: THAC0, descending AC, attack bonuses and modifiers lie within ±NUMBER_LIMIT in every system.
NUMBER_LIMIT = 100
#: The most sides a die may have (d100 is the largest a rule rolls; dice notation allows more).
MAX_SIDES = 1000
#: The most modifiers one roll takes (more is a programming mistake, and an endless generator
#: must not hang the engine).
MAX_MODIFIERS = 100


class RandomSource(Protocol):
    """What the engine needs from a random generator (``random.Random`` and
    ``secrets.SystemRandom`` both qualify)."""

    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True)
class Modifier:
    """A signed adjustment to a roll with the reason for it (a key such as ``"str"``,
    ``"situational"``, ``"cover"``; the interface translates it)."""

    value: int
    reason: str


# ----- shared validators (not in ``__all__``: the building blocks of the public functions) -----


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number: an ``int`` but not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def class_level(level: object, top: int) -> int:
    """``level`` as a level of a class that goes up to ``top``: ``not_an_integer``, or
    ``level_out_of_range`` (with ``low`` and ``high``)."""
    if not is_whole(level):
        raise RulesError("not_an_integer", "a level must be a whole number", value=level)
    if not 1 <= level <= top:  # type: ignore[operator]
        raise RulesError(
            "level_out_of_range", f"a level is 1 to {top}", value=level, low=1, high=top
        )
    return level  # type: ignore[return-value]


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, cut short; an int too long for ``str`` (Python
    refuses past 4300 digits) is named by its size instead of breaking the message."""
    try:
        text = repr(value)
    except ValueError:
        return f"<int of {value.bit_length()} bits>" if isinstance(value, int) else "<value>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bad_argument(name: str, value: object, expected: str) -> RulesError:
    """The error for an argument of a kind no rule-specific code describes (a programming
    mistake; the interface shows its generic message)."""
    return RulesError(
        "bad_argument",
        f"{name} must be {expected}, not {shown(value)}",
        name=name,
        value=value,
        expected=expected,
    )


def is_sequence(value: object) -> bool:
    """Whether ``value`` is a list-like with a length (list, tuple, range …) and not text."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def items_of(value: object, limit: int) -> tuple[object, ...] | None:
    """The items of a list-like argument (list, tuple, set, generator …; not text, bytes, a
    mapping or a lone object), at most ``limit + 1`` of them read so that an endless generator
    cannot hang the engine; ``None`` when ``value`` is not list-like."""
    if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(value, Iterable):
        return None
    return tuple(islice(value, limit + 1))


def modifiers_of(modifiers: object) -> tuple[Modifier, ...]:
    """Validated modifiers (see the module docstring); ``bad_modifier`` (value) otherwise."""
    items = items_of(modifiers, MAX_MODIFIERS)
    if items is None:
        raise RulesError(
            "bad_modifier",
            f"modifiers must be a list of Modifier, not {shown(modifiers)}",
            value=modifiers,
        )
    if len(items) > MAX_MODIFIERS:
        raise RulesError(
            "bad_modifier", f"at most {MAX_MODIFIERS} modifiers on one roll", value=modifiers
        )
    for m in items:
        if not isinstance(m, Modifier) or not is_whole(m.value) or not isinstance(m.reason, str):
            raise RulesError("bad_modifier", f"not a Modifier(int, str): {shown(m)}", value=m)
    return items  # type: ignore[return-value]


def random_source(rng: object) -> RandomSource | None:
    """``rng`` if it is ``None`` or has a ``randint`` method; ``no_random_source`` otherwise."""
    if rng is not None and not callable(getattr(rng, "randint", None)):
        raise RulesError(
            "no_random_source",
            f"a random source needs a randint(a, b) method: {shown(rng)}",
            value=rng,
        )
    return rng  # type: ignore[return-value]


def die_sides(sides: object) -> int:
    """``sides`` if it is a whole number 1..MAX_SIDES; ``bad_argument`` otherwise."""
    if not is_whole(sides) or not 1 <= sides <= MAX_SIDES:
        raise bad_argument("sides", sides, f"a whole number from 1 to {MAX_SIDES}")
    return sides  # type: ignore[return-value]


# ----- modifiers, natural rolls and exact chances -----


def total_of(modifiers: Iterable[Modifier]) -> int:
    """The sum of the modifiers' values (``bad_modifier`` for anything but modifiers)."""
    return sum(m.value for m in modifiers_of(modifiers))


def _die_result(sides: int, value: object) -> int:
    if not is_whole(value):
        raise RulesError(
            "die_not_integer",
            f"a d{sides} result must be a whole number",
            sides=sides,
            value=value,
        )
    if not 1 <= value <= sides:  # type: ignore[operator]
        raise RulesError(
            "die_out_of_range",
            f"a d{sides} shows 1 to {sides}, not {shown(value)}",
            sides=sides,
            value=value,
        )
    return value  # type: ignore[return-value]


def natural_roll(sides: int, rng: RandomSource | None = None, entered: int | None = None) -> int:
    """One die's natural result: the physical result someone ``entered`` at the table, or a
    roll from ``rng``. An entered value outside 1..sides is the library's error, and so is a
    random source that is none or answers outside the die."""
    sides = die_sides(sides)
    random_source(rng)
    if entered is not None:
        return _die_result(sides, entered)
    if rng is None:
        raise RulesError("no_random_source", "pass a random source or an entered die result")
    try:
        rolled = rng.randint(1, sides)
    except RulesError:
        raise
    except (TypeError, ValueError, AttributeError) as error:
        raise RulesError(
            "no_random_source", f"the random source failed: {error}", value=rng
        ) from error
    return _die_result(sides, rolled)


def chance(sides: int, succeeds: Callable[[int], bool]) -> Fraction:
    """Exact chance that one die of ``sides`` gives a natural result for which ``succeeds``
    holds: every rule with natural-roll exceptions reduces to this enumeration."""
    sides = die_sides(sides)
    if not callable(succeeds):
        raise bad_argument("succeeds", succeeds, "a function of the natural result")
    return Fraction(sum(1 for n in range(1, sides + 1) if succeeds(n)), sides)


ABILITY_MIN, ABILITY_MAX = BOUNDS["ability"].low, BOUNDS["ability"].high
# The B/X table every system here uses (OSE, BECMI, Dolmenwood): (highest score, modifier).
_ABILITY_MODIFIERS = ((3, -3), (5, -2), (8, -1), (12, 0), (15, 1), (17, 2), (18, 3))


def ability_score(score: object) -> int:
    """``score`` if it is an ability score (a whole number 3..18), else ``ability_out_of_range``."""
    if (
        isinstance(score, bool)
        or not isinstance(score, int)
        or not (ABILITY_MIN <= score <= ABILITY_MAX)
    ):
        raise RulesError(
            "ability_out_of_range",
            f"an ability score is {ABILITY_MIN} to {ABILITY_MAX}, not {shown(score)}",
            value=score,
            low=ABILITY_MIN,
            high=ABILITY_MAX,
        )
    return score


def ability_modifier(score: int) -> int:
    """The B/X ability score modifier: 3 → −3, 4–5 → −2, 6–8 → −1, 9–12 → 0, 13–15 → +1,
    16–17 → +2, 18 → +3. Anything but a whole number 3..18 is ``ability_out_of_range``."""
    ability_score(score)
    return next(mod for top, mod in _ABILITY_MODIFIERS if score <= top)
