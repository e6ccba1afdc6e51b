"""The payloads of hit locations (``combat.zones``): where a hit landed, a monster's special
attack, the effects the engine returned (``rules.hit_location.ZoneEffect``, as keys and
numbers), the referee's zone changes (kind ``zone``) and a round's end for one body.

An attack's entry carries the hit's part (``location``, ``special``, ``zone_damage``,
``zone_effects``: fields of ``combat.payloads.table.Attack``); a round's end carries its
lines (``combat.payloads.rounds.Turn.zones``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from combat.payloads.base import Payload, kind, omitted


@dataclass(kw_only=True)
class ZoneRoll(Payload):
    """The dice an effect rolled (a tail's DEX, a death timer): what they were for
    (``purpose``), ``count`` d ``sides`` + ``bias``, the dice, their total, and whether they
    were typed in from the table."""

    purpose: str = ""
    count: int = 0
    sides: int = 0
    bias: int = 0
    dice: list[int] = field(default_factory=list)
    total: int = 0
    entered: bool = False


@dataclass(kw_only=True)
class ZoneEffect(Payload):
    """One effect of a wound, a treatment, a healing or a round's end
    (``combat.zones.effect_data``): its ``kind`` and, as the kind has them, the ``zone``, an
    ``amount``, a ``cause`` of death, a ``condition`` and the dice it ``roll``-ed. Each is
    stored only when the engine gave it."""

    kind: str = ""
    zone: str | None = omitted()
    amount: int | None = omitted()
    cause: str | None = omitted()
    condition: str | None = omitted()
    roll: ZoneRoll | None = omitted()


@dataclass(kw_only=True)
class Location(Payload):
    """Where a hit landed (``combat.zones.locate``): the target's ``body`` and ``posture``,
    the ``direction`` of the blow, the height ``band`` from the attacker's, its weapon's and
    the defender's heights (feet, as text without trailing zeros), the d100 (``natural``,
    ``entered``: typed in), its ``position`` on the table and the ``zone`` it gives."""

    body: str = ""
    posture: str = ""
    direction: str = ""
    band: str = ""
    attacker_ft: str = ""
    weapon_ft: str = ""
    defender_ft: str = ""
    natural: int | None = None
    entered: bool = False
    position: int | None = None
    zone: str = ""


@dataclass(kw_only=True)
class Special(Payload):
    """A monster's special attack as a hit lands (``combat.zones.land``): constriction's
    ``round`` of the hold and its ``bonus`` damage; seize-and-tear's or swallow's natural
    ``needed``, the d100 ``escape`` roll (``escape_entered``: typed in) and the ``outcome``.
    Only the keys its kind has are stored."""

    kind: str = ""
    round: int | None = omitted()
    bonus: int | None = omitted()
    needed: int | None = omitted()
    escape: int | None = omitted()
    escape_entered: bool | None = omitted()
    outcome: str | None = omitted()


@dataclass(kw_only=True)
class ZoneChange(Payload):
    """The referee's change to one zone (kind ``zone``: ``combat.zones.damage_zone``,
    ``treat``, ``heal``): the ``event`` (damage, treat, heal), whose body (``who``, its
    ``side`` and ``body``), the ``zone``, the engine's ``effects``, whether it ``killed``;
    damage and healing say the ``amount`` (damage its ``label``: the envelope's)."""

    event: str = ""
    who: str = ""
    side: str = ""
    body: str = ""
    zone: str = ""
    effects: list[ZoneEffect] = field(default_factory=list)
    killed: bool = False
    amount: int | None = omitted()


kind("zone")(ZoneChange)


@dataclass(kw_only=True)
class ZoneTick(Payload):
    """What a round's end did to one body (``combat.zones.tick_round``): whose (``who``,
    ``side``, ``body``, ``hidden`` from players), the effects (bleeding, timers) and whether
    it ``killed``."""

    who: str = ""
    side: str = ""
    body: str = ""
    hidden: bool = False
    effects: list[ZoneEffect] = field(default_factory=list)
    killed: bool = False
