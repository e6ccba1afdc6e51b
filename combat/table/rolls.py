"""The server's dice, and how a roll's modifiers and a damage roll are stored in a log entry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from combat.payloads import DamageRoll, Roll
from combat.table.dice import RNG as RNG
from rules import dice
from rules.core import Modifier

R = TypeVar("R", bound=Roll)


def modifiers(applied: Sequence[Modifier]) -> list[list[Any]]:
    """Modifiers as a log entry keeps them: ``[value, reason]`` pairs, the reason a key each
    viewer reads in their own language."""
    return [[m.value, m.reason] for m in applied]


def roll_data(
    result: Any,
    *,
    needed: int,
    success: bool,
    entered: bool,
    payload: type[R] = Roll,
) -> R:
    """A d20 roll (``result`` with its natural, modifiers and total) as an entry keeps it: a
    ``combat.payloads.Roll``, or the subclass ``payload`` asks for (an attack's
    ``AttackRoll``). ``entered`` says it was typed in from a die rolled at the table, not the
    server's roll."""
    return payload(
        natural=result.natural,
        entered=entered,
        mods=modifiers(result.modifiers),
        total=result.total,
        needed=needed,
        success=success,
    )


def damage_data(dealt: Any, entered: list[int] | None) -> DamageRoll:
    """A damage roll (``rules.ose.resolve_damage``'s result) as an entry's ``damage``;
    ``entered``: the dice typed in from the table, if any."""
    return DamageRoll(
        expr=dice.format_expression(dealt.roll.expression),
        dice=list(dealt.roll.naturals),
        entered=entered is not None,
        rolled=dealt.roll.total,
        mods=modifiers(dealt.modifiers),
        total=dealt.total,
    )
