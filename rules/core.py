"""Shared building blocks of every rules system: modifiers, natural rolls and exact chances."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from .errors import RulesError

__all__ = [
    "ABILITY_MAX",
    "ABILITY_MIN",
    "Modifier",
    "RandomSource",
    "ability_modifier",
    "chance",
    "natural_roll",
    "total_of",
]


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


def total_of(modifiers: Iterable[Modifier]) -> int:
    return sum(m.value for m in modifiers)


def natural_roll(sides: int, rng: RandomSource | None = None, entered: int | None = None) -> int:
    """One die's natural result: the physical result someone ``entered`` at the table, or a
    roll from ``rng``. An entered value outside 1..sides is the library's error."""
    if entered is not None:
        if isinstance(entered, bool) or not isinstance(entered, int):
            raise RulesError(
                "die_not_integer",
                f"a d{sides} result must be a whole number",
                sides=sides,
                value=entered,
            )
        if not 1 <= entered <= sides:
            raise RulesError(
                "die_out_of_range",
                f"a d{sides} shows 1 to {sides}, not {entered}",
                sides=sides,
                value=entered,
            )
        return entered
    if rng is None:
        raise RulesError("no_random_source", "pass a random source or an entered die result")
    return rng.randint(1, sides)


def chance(sides: int, succeeds: Callable[[int], bool]) -> Fraction:
    """Exact chance that one die of ``sides`` gives a natural result for which ``succeeds``
    holds: every rule with natural-roll exceptions reduces to this enumeration."""
    return Fraction(sum(1 for n in range(1, sides + 1) if succeeds(n)), sides)


ABILITY_MIN, ABILITY_MAX = 3, 18
# The B/X table every system here uses (OSE, BECMI, Dolmenwood): (highest score, modifier).
_ABILITY_MODIFIERS = ((3, -3), (5, -2), (8, -1), (12, 0), (15, 1), (17, 2), (18, 3))


def ability_modifier(score: int) -> int:
    """The B/X ability score modifier: 3 → −3, 4–5 → −2, 6–8 → −1, 9–12 → 0, 13–15 → +1,
    16–17 → +2, 18 → +3. Anything but a whole number 3..18 is ``ability_out_of_range``."""
    if (
        isinstance(score, bool)
        or not isinstance(score, int)
        or not (ABILITY_MIN <= score <= ABILITY_MAX)
    ):
        raise RulesError(
            "ability_out_of_range",
            f"an ability score is {ABILITY_MIN} to {ABILITY_MAX}, not {score!r}",
            value=score,
            low=ABILITY_MIN,
            high=ABILITY_MAX,
        )
    return next(mod for top, mod in _ABILITY_MODIFIERS if score <= top)
