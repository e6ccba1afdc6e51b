"""What BECMI's special actions share: the referee's modifier, whose STR counts, and how a
d20 roll is logged."""

from __future__ import annotations

from typing import Any

from combat import table
from combat.models import Combatant, Kind
from combat.payloads import Roll
from rules.core import Modifier


def situational(value: int) -> tuple[Modifier, ...]:
    """The referee's modifier, as a roll's modifiers (none when 0)."""
    return (Modifier(value, "situational"),) if value else ()


def strength(combatant: Combatant) -> int | None:
    """The STR score whose adjustment counts: a monster's is its own strength (None: 0)."""
    return None if combatant.kind == Kind.MONSTER else combatant.str_score


def hit_roll(attack: Any, entered: bool) -> Roll:
    """A hit roll (``rules.becmi`` attack result) as the entry keeps it."""
    return table.roll_data(attack, needed=attack.needed, success=attack.hit, entered=entered)


def save_roll(save: Any, entered: bool) -> Roll:
    """A saving throw (``rules.becmi`` save result) as the entry keeps it."""
    return table.roll_data(save, needed=save.target, success=save.saved, entered=entered)
