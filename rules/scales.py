"""Armour class and attack values between the two scales the old-school systems use.

B/X (OSE) and BECMI count armour class downwards and attack with THAC0; Dolmenwood counts
armour class upwards and attacks with an attack bonus. Both scales meet at 19, as OSE writes
every THAC0 with its ascending twin in brackets (``THAC0 17 [+2]``):

* ascending AC = 19 − descending AC (AC 9 unarmoured is 10, AC 2 plate and shield is 17);
* attack bonus = 19 − THAC0 (THAC0 19 is +0, THAC0 17 is +2).

So the roll a hit needs stays the same on either scale: ``d20 ≥ THAC0 − AC`` is
``d20 + bonus ≥ AAC``. Converting there and back gives what was there. A value whose converted
twin the table cannot store (``rules.bounds``: AC −20..20 on either scale, THAC0 −10..25, an
attack bonus −20..30) is refused with ``converted_ac_out_of_range`` or
``converted_attack_out_of_range``, naming the value, what it would be and the range.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .bounds import bound
from .errors import RulesError

__all__ = ["TWIN", "Fighting", "Scale", "convert", "twin"]

TWIN = 19  # where the scales meet: x on one is 19 − x on the other


class Scale(StrEnum):
    DESCENDING = "descending"  # armour class downwards, THAC0 (B/X, BECMI)
    ASCENDING = "ascending"  # armour class upwards, an attack bonus (Dolmenwood)


@dataclass(frozen=True)
class Fighting:
    """A combatant's armour class and attack value on one scale: ``attack`` is its THAC0 on
    the descending scale, its attack bonus on the ascending one."""

    ac: int
    attack: int


def twin(value: int) -> int:
    """The same value on the other scale: ``19 − value`` (either way)."""
    return TWIN - value


def _attack_bound(scale: Scale) -> str:
    return "thac0" if scale is Scale.DESCENDING else "attack_bonus"


def _checked(quantity: str, value: int, converted: int, code: str) -> int:
    limit = bound(quantity)
    if not isinstance(converted, int) or not limit.low <= converted <= limit.high:
        raise RulesError(
            code,
            f"{value} converts to {converted}, outside {limit.low}..{limit.high}",
            value=value,
            converted=converted,
            low=limit.low,
            high=limit.high,
        )
    return converted


def convert(values: Fighting, source: Scale | str, target: Scale | str) -> Fighting:
    """``values`` on scale ``source`` as they read on scale ``target`` (themselves when the
    scales are the same). Each value must lie in its own bound on ``source``, and its twin in
    the bound on ``target``; else ``RulesError``."""
    source, target = _scale(source), _scale(target)
    bound("ac").check(values.ac)
    bound(_attack_bound(source)).check(values.attack)
    if source is target:
        return values
    ac = _checked("ac", values.ac, twin(values.ac), "converted_ac_out_of_range")
    attack = _checked(
        _attack_bound(target), values.attack, twin(values.attack), "converted_attack_out_of_range"
    )
    return Fighting(ac=ac, attack=attack)


def _scale(value: Scale | str) -> Scale:
    try:
        return Scale(value)
    except ValueError:
        raise RulesError("unknown_scale", f"no armour class scale {value!r}", value=value) from None
