"""The payloads of the log entries Dolmenwood writes itself (``combat.payloads``), given to the
registry as its ``System.payloads`` (by entry kind).

Every one of them says ``system``: ``"dolmenwood"``, which is how the registry knows its entries
are read by these classes (``combat.registry.entry_system``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from combat import payloads
from combat.payloads import table

SYSTEM = "dolmenwood"


@dataclass(kw_only=True)
class DolmenwoodEntry(payloads.Payload):
    """What every Dolmenwood entry says: its ``system``."""

    system: str = SYSTEM


@dataclass(kw_only=True)
class DolmenwoodRoll(payloads.Roll):
    """A roll against a number (``rules.dolmenwood``): its die's ``sides`` (a d6 for checks and
    skills, a d20 for saves and attacks) and whether a natural roll decided it
    (``automatic``: a 1 always fails, a 6 or a 20 always succeeds)."""

    sides: int = 20
    automatic: bool = False


@dataclass(kw_only=True)
class DolmenwoodDamage(payloads.DamageRoll):
    """A hit's damage: the dice, their modifiers, the total, and its ``outcome``: ``normal``,
    ``minimum`` (a hit deals at least 1) or ``immune`` (the target is immune to the weapon:
    none lands). It stores no sum of the dice (``rolled``)."""

    rolled: int | None = payloads.omitted()
    outcome: str = ""


@dataclass(kw_only=True)
class DolmenwoodAttack(table.Attack, DolmenwoodEntry):
    """An attack against ascending AC (``actions.DolmenwoodAttack``), as every system's, with
    the ``weapon``'s form (mundane, silver, magic...) and whether the target is ``immune`` to
    it; its roll and its damage are Dolmenwood's."""

    weapon: str = ""
    immune: bool = False
    # Its d20 always says its sides and whether a natural roll decided it; it hits no AC.
    roll: DolmenwoodRoll | None = None  # type: ignore[assignment]
    damage: DolmenwoodDamage | None = None


@dataclass(kw_only=True)
class DolmenwoodSave(DolmenwoodEntry):
    """A saving throw (``actions.saving_throw``): ``who`` saves against which ``category``
    (doom, ray, hold, blast, spell), the ``effect`` saved against if one was named, whether it
    is ``magical`` (WIS counts), the ``roll``. ``damage`` is always None: stored as every
    system's save stores it, though Dolmenwood's deals none."""

    who: str = ""
    category: str = ""
    effect: str = ""
    magical: bool = False
    roll: DolmenwoodRoll | None = None
    damage: payloads.DamageRoll | None = None


@dataclass(kw_only=True)
class DolmenwoodCheck(DolmenwoodEntry):
    """An ability check (``actions.ability_check``): ``who`` checks which ``ability`` with which
    ``score``, and the d6 ``roll``."""

    who: str = ""
    ability: str = ""
    score: int = 0
    roll: DolmenwoodRoll | None = None


@dataclass(kw_only=True)
class DolmenwoodSkill(DolmenwoodEntry):
    """A skill check (``actions.skill_check``): ``who`` checks a universal ``skill`` (its key) or
    a class's skill by its ``name``; the ``targets`` it was read from (a kindred's and a class's:
    the better counts) and the d6 ``roll``."""

    who: str = ""
    skill: str = ""
    name: str = ""
    targets: list[int] = field(default_factory=list)
    roll: DolmenwoodRoll | None = None


@dataclass(kw_only=True)
class DolmenwoodChance(DolmenwoodEntry):
    """The referee's chance roll (``actions.chance_roll``): its ``kind`` (``x_in_6`` or a
    percentage), the ``chance``, its ``label`` (stored even when empty), the ``natural`` die
    (``entered``: typed in from a die rolled at the table) and whether it succeeded."""

    label: str = ""
    kind: str = ""
    chance: int = 0
    natural: int | None = None
    entered: bool = False
    success: bool = False


KINDS: dict[str, type[payloads.Payload]] = {
    "attack": DolmenwoodAttack,
    "save": DolmenwoodSave,
    "check": DolmenwoodCheck,
    "skill": DolmenwoodSkill,
    "chance": DolmenwoodChance,
}
"""Each kind of entry Dolmenwood writes, and its payload (``System.payloads``)."""
