"""The payloads of the log entries BECMI writes itself (``combat.payloads``), given to the
registry as its ``System.payloads`` (by entry kind).

- ``attack`` and ``save`` (``combat.systems.becmi.actions``, their data ``"system": "becmi"``):
  :class:`BecmiAttack`, :class:`BecmiSave`.
- ``strike``, ``wrestle`` and ``naval`` (``combat.systems.becmi.special``, their data
  ``"becmi": <action>``): one class per action. The kind's class (:class:`Strike`,
  :class:`Wrestling`, :class:`Naval`) reads each entry as its action's subclass, by the
  ``becmi`` key (:meth:`Special.from_json`).

What a special action changed besides hit points (a knock-out, a hold, a ship's rowers and
repairs) is its :class:`Restore`, which the undo puts back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from combat.payloads import DamageRoll, Payload, Roll, omitted
from combat.payloads.table import Attack, AttackRoll

SYSTEM = "becmi"

# --- the attack and the saves ------------------------------------------------------------------


@dataclass(kw_only=True)
class BecmiRoll(Roll):
    """A d20 roll as BECMI's attack and saves keep it: with its die's ``sides`` and whether
    the natural alone decided it (``automatic``: a natural 1 misses)."""

    sides: int = 20
    automatic: bool = False


@dataclass(kw_only=True)
class BecmiHitRoll(BecmiRoll, AttackRoll):
    """The attack's d20 through the hit table: an attack's roll, as BECMI keeps it."""


@dataclass(kw_only=True)
class BecmiAttack(Attack):
    """An attack through BECMI's hit table (``combat.systems.becmi.actions.BecmiAttack``):
    the shared attack with its ``range`` band ("" for melee), the target's ``cover`` and its
    ``cover_material``, and the hit table's ``outcome`` ("impossible" behind full hard cover:
    then no roll); None until rolled."""

    system: str = SYSTEM
    range: str = ""
    cover: str = "none"
    cover_material: str = "soft"
    outcome: str | None = None
    roll: BecmiHitRoll | None = None


@dataclass(kw_only=True)
class BecmiSave(Payload):
    """A saving throw by its BECMI name (``category``); ``magical``: WIS counts."""

    system: str = SYSTEM
    who: str = ""
    category: str = ""
    magical: bool = False
    roll: BecmiRoll | None = None


# --- the special actions -----------------------------------------------------------------------


@dataclass(kw_only=True)
class HoldState(Payload):
    """A hold as it stood before an entry changed it (``combat.models.Wrestle``)."""

    hold: str = "free"
    ended: bool = False
    rounds: int = 0


@dataclass(kw_only=True)
class Restore(Payload):
    """What a special action changed besides hit points, for its undo to put back: the
    ``conditions`` it added (a knock-out), a hold (``wrestle``: its id) and its ``state``
    before, a ship (``ship``: its id) and its ``fields`` before (rowers lost, repairs)."""

    conditions: list[int] = omitted(factory=list)
    wrestle: int | None = omitted()
    state: HoldState | None = omitted()
    ship: int | None = omitted()
    fields: dict[str, int] = omitted(factory=dict)


@dataclass(kw_only=True)
class Special(Payload):
    """What every special action's entry carries: ``becmi`` names the action (and marks the
    entry as BECMI's), ``restore`` what an undo puts back besides hit points. ``system`` is
    not written by the actions; an entry that names it keeps it."""

    becmi: str = ""
    system: str = omitted("")
    restore: Restore | None = omitted()

    # The kind's actions, by their ``becmi`` key: each reads as its own subclass.
    actions: ClassVar[Mapping[str, type[Special]]] = {}

    @classmethod
    def from_json(cls, data: Any) -> Any:
        """The payload ``data`` holds, as its action's class (a subclass of this one) when the
        kind has several."""
        if isinstance(data, Mapping):
            found = cls.actions.get(data.get("becmi", ""))
            if found is not None and found is not cls and issubclass(found, cls):
                return found.from_json(data)
        return super().from_json(data)


@dataclass(kw_only=True)
class StunRoll(Payload):
    """A strike's stun roll: 1d20 − the target's CON gives ``t`` (``entered``: typed in;
    None, stored before that was recorded)."""

    natural: int | None = None
    entered: bool | None = None
    t: int | None = None


@dataclass(kw_only=True)
class Strike(Special):
    """An unarmed strike (``special.striking.strike``): the ``blow``, the hit ``roll``, its
    ``outcome``, the ``damage`` of a hit, the stun roll against the target's ``con``, the
    save vs death ray when stunned and the rounds it knocks out for."""

    becmi: str = "strike"

    attacker: str = ""
    target: str = ""
    blow: str = ""
    haymaker: bool = False
    pulled: bool = False
    outcome: str = ""
    roll: Roll | None = None
    damage: int | None = None
    con: int | None = None
    stun: StunRoll | None = None
    save: Roll | None = None
    knockout_rounds: int = 0
    killed: bool = False


@dataclass(kw_only=True)
class WrestleRoll(Roll):
    """A wrestler's opposed d20: no number it needs, no success of its own (the higher
    total wins the round)."""

    needed: int | None = omitted()
    success: bool = omitted(False)


@dataclass(kw_only=True)
class Wrestling(Special):
    """A wrestling entry (kind ``wrestle``): the two wrestlers and the ``hold`` after it; a
    round (:class:`WrestleRound`) or the referee parting them (:class:`WrestleEnd`)."""

    attacker: str = ""
    defender: str = ""
    hold: str = ""


@dataclass(kw_only=True)
class WrestleRound(Wrestling):
    """A round of a hold (``special.wrestling``): both opposed rolls, the ``winner``, the
    hold ``before``; a pinned defender's ``save`` and ``damage``. The first round is a grab
    (``start``, with each side's ``helpers``); a later one says whether the hold was
    ``broken`` (None on a grab)."""

    becmi: str = "wrestle"

    before: str = ""
    winner: str = ""
    attacker_roll: WrestleRoll | None = None
    defender_roll: WrestleRoll | None = None
    save: Roll | None = None
    damage: int = 0
    killed: bool = False
    start: bool = omitted(False)
    helpers: list[str] | None = omitted()
    defender_helpers: list[str] | None = omitted()
    broken: bool | None = omitted()


@dataclass(kw_only=True)
class WrestleEnd(Wrestling):
    """The referee parts the two wrestlers (``special.wrestling.end_wrestle``)."""

    becmi: str = "wrestle_end"


Wrestling.actions = {c.becmi: c for c in (WrestleRound, WrestleEnd)}


@dataclass(kw_only=True)
class ShipLine(Payload):
    """A ship's hull after a naval entry: hull points of its maximum, its ``side`` (players
    see their own ship's numbers), ``speed`` now (None when it has none), how it floats
    (``status``) and how it floated before (``status_before``, when the entry may change it)."""

    hull: int = 0
    hull_max: int = 0
    status: str = ""
    side: str = ""
    speed: int | None = None
    status_before: str = omitted("")


@dataclass(kw_only=True)
class RamDamage(Payload):
    """A ram's damage: its dice (``entered``: typed in, else the server's; None, stored
    before that was recorded) and their total."""

    dice: list[int] = field(default_factory=list)
    entered: bool | None = None
    total: int = 0


@dataclass(kw_only=True)
class Naval(Special):
    """A naval entry (kind ``naval``): one of the actions below, by its ``becmi`` key."""


@dataclass(kw_only=True)
class Ram(Naval):
    """A galley rams a ship or a creature (``against``): the hit roll, the ``damage``; the
    rammed ship's ``hull`` when it is one and was hit."""

    becmi: str = "ram"

    ship: str = ""
    target: str = ""
    vessel: str = ""
    against: str = ""
    roll: Roll | None = None
    damage: RamDamage | None = None
    killed: bool = False
    hull: ShipLine | None = omitted()


@dataclass(kw_only=True)
class Grapple(Naval):
    """Grappling hooks thrown over a ``distance`` (ft): by ``mutual`` agreement, or the d6
    (``natural``, None when none was rolled; ``entered``: typed in) and the ``outcome``."""

    becmi: str = "grapple"

    ship: str = ""
    target: str = ""
    distance: int = 0
    mutual: bool = False
    natural: int | None = None
    entered: bool | None = None
    outcome: str = ""
    grappled: bool = False


@dataclass(kw_only=True)
class Board(Naval):
    """A blow in the boarding round: who is ``boarding`` (−2 to hit) and whether the target
    is (``target_boarding``: its ``ac`` 2 worse), the hit roll, the classic damage."""

    becmi: str = "board"

    attacker: str = ""
    target: str = ""
    boarding: bool = False
    target_boarding: bool = False
    ac: int | None = None
    roll: Roll | None = None
    damage: DamageRoll | None = None
    killed: bool = False


@dataclass(kw_only=True)
class HullDamage(Naval):
    """A monster's ``hit_points`` of damage to a hull: 1 hull point (``hull_damage``) for
    each 5."""

    becmi: str = "hull_damage"

    ship: str = ""
    hit_points: int = 0
    hull_damage: int = 0
    killed: bool = False
    hull: ShipLine | None = None


@dataclass(kw_only=True)
class Repair(Naval):
    """Temporary repairs by ``crew`` over ``turns``: hull points ``repaired``, and the 5d6
    ``dice`` (``entered``: typed in) of the ``days`` they last."""

    becmi: str = "repair"

    ship: str = ""
    crew: int = 0
    turns: int = 0
    repaired: int = 0
    days: int = 0
    dice: list[int] = field(default_factory=list)
    entered: bool | None = None
    hull: ShipLine | None = None


@dataclass(kw_only=True)
class RepairsFail(Naval):
    """The temporary repairs give way: the hull points ``lost`` again."""

    becmi: str = "repairs_fail"

    ship: str = ""
    lost: int = 0
    killed: bool = False
    hull: ShipLine | None = None


@dataclass(kw_only=True)
class Rowers(Naval):
    """Rowers lost: ``count`` now, ``lost`` in all of the ship's ``rowers``."""

    becmi: str = "rowers"

    ship: str = ""
    count: int = 0
    lost: int = 0
    rowers: int = 0
    hull: ShipLine | None = None


Naval.actions = {c.becmi: c for c in (Ram, Grapple, Board, HullDamage, Repair, RepairsFail, Rowers)}

# The entry kinds BECMI writes itself, by kind (``System.payloads``).
PAYLOADS: dict[str, type[Payload]] = {
    "attack": BecmiAttack,
    "save": BecmiSave,
    "strike": Strike,
    "wrestle": Wrestling,
    "naval": Naval,
}
