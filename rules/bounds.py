"""The range of every number the table stores, declared once.

The engine's validators, the models' field validators and check constraints, every form and
every importer take their limits from :data:`BOUNDS`, so a value one of them accepts the others
accept too, and anything stored can be drawn: no stored number makes the engine refuse the
page that shows it.

A range here is what the table *stores*; an engine function that computes (an AC with its
modifiers, a THAC0 looked up in a table) may accept wider arguments (±``NUMBER_LIMIT``), never
narrower ones. Each bound carries the engine's error code for a value outside it, so a refusal
reads the same whoever makes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .errors import RulesError

__all__ = ["BOUNDS", "Bound", "bound", "check"]

Number = int | Decimal


@dataclass(frozen=True)
class Bound:
    """A stored quantity's range, ``low`` to ``high`` inclusive, and the engine's error code
    for a value outside it (its params: ``name``, ``value``, ``low``, ``high``)."""

    name: str
    low: Number
    high: Number
    code: str = "out_of_range"

    @property
    def whole(self) -> bool:
        """Whether the quantity is a whole number (else a decimal, such as a height)."""
        return isinstance(self.low, int) and isinstance(self.high, int)

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool):
            return False
        kinds = (int,) if self.whole else (int, Decimal)
        if not isinstance(value, kinds):
            return False
        if isinstance(value, Decimal) and not value.is_finite():  # NaN compares by raising
            return False
        return bool(self.low <= value <= self.high)  # type: ignore[operator]

    def check(self, value: object, name: str | None = None) -> Number:
        """``value`` if it lies in the range, else ``RulesError`` with this bound's code (or
        ``not_an_integer`` for what is no whole number where one is needed)."""
        said = name or self.name
        if value in self:
            return value  # type: ignore[return-value]
        if self.whole and (isinstance(value, bool) or not isinstance(value, int)):
            raise RulesError(
                "not_an_integer", f"{said} must be a whole number", name=said, value=value
            )
        raise RulesError(
            self.code,
            f"{said} must be {self.low} to {self.high}, not {_shown(value)}",
            name=said,
            value=value,
            low=self.low,
            high=self.high,
        )


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int past Python's 4300 digits for str()
        return "<a very large number>"
    return text if len(text) <= 60 else text[:59] + "…"


# The ships' numbers: a fleet's crew and rowers stay in the thousands; 100,000 is past any
# vessel, yet small enough that a speed times a fraction and every sum stays exact and cheap.
_SHIP = 100_000
# A combatant's hit points: the most one may have, and the floor of the true total (OSE keeps
# it below 0), far below dead yet far inside any database column.
HP_LIMIT = 9999
HP_FLOOR = -1_000_000
# One million rounds is about 115 days of fighting: past it a count is a typing mistake.
ROUNDS = 1_000_000

BOUNDS: dict[str, Bound] = {
    b.name: b
    for b in (
        # A combatant (every system).
        Bound("ac", -20, 20, "ac_out_of_range"),
        Bound("hp_max", 1, HP_LIMIT),
        Bound("hp", HP_FLOOR, HP_LIMIT),
        Bound("thac0", -10, 25, "thac0_out_of_range"),
        Bound("attack_bonus", -20, 30),  # Dolmenwood's ascending attack bonus
        Bound("save", 1, 20, "save_value_out_of_range"),
        Bound("ability", 3, 18, "ability_out_of_range"),
        Bound("morale", 2, 12, "morale_out_of_range"),
        Bound("level", 1, 36, "level_out_of_range"),  # BECMI's human classes; OSE stops at 14
        Bound("xp", 0, 1_000_000),
        # Hit locations: heights and weapon lengths in feet, beyond any creature past these.
        Bound("height_ft", Decimal("0.1"), Decimal(1000), "height_invalid"),
        Bound("weapon_ft", Decimal(0), Decimal(1000), "height_invalid"),
        # A BECMI ship: base speed (any unit), crew, rowers, and hull points repaired for now
        # (at most half the damage taken, so never past the hull's hit points).
        Bound("speed", 0, _SHIP, "bad_speed"),
        Bound("crew", 0, _SHIP, "bad_crew"),
        Bound("rowers", 0, _SHIP, "bad_rowers"),
        Bound("rowers_lost", 0, _SHIP, "bad_rowers"),
        Bound("hull_repaired", 0, HP_LIMIT, "bad_repairs"),
        # The fight: the round it is in (0: none) and a condition's rounds left (0: over).
        Bound("round", 0, ROUNDS, "round_out_of_range"),
        Bound("rounds_left", 0, ROUNDS, "duration_out_of_range"),
    )
}


def bound(name: str) -> Bound:
    """The declared range of the quantity ``name`` (a key of :data:`BOUNDS`)."""
    return BOUNDS[name]


def check(name: str, value: object, what: str | None = None) -> Number:
    """``value`` if it lies in the range of the quantity ``name``, else ``RulesError``."""
    return BOUNDS[name].check(value, what)
