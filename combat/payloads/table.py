"""The payloads of the entries every system's actions write through the table's toolkit:
attacks, and (as OSE writes them: a system with its own gives them through its ``System``)
saving throws and ability checks; hit points damaged, healed or corrected by hand, rest, free
rolls (an area effect's among them: ``combat.group``) and undos."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combat.payloads.base import DamageRoll, Payload, Roll, kind, omitted
from combat.payloads.zones import Location, Special, ZoneEffect
from rules import dice


@dataclass(kw_only=True)
class AttackRoll(Roll):
    """An attack's d20 (B/X's says the armour class it hit: ``hit_ac``)."""


@dataclass(kw_only=True)
class Attack(Payload):
    """One attack (``combat.table.Attack``): who attacks whom (``attack_name``: a monster's
    named attack), ``mode`` melee or missile, the table's attack ``method``; either the
    ``helpless`` rule that decided it without a roll or the ``roll``; the ``damage`` of a hit;
    whether it ``killed`` (None until known); with hit locations on (``combat.zones``), where
    a hit landed (``location``), the damage in that zone (``zone_damage``) and what it did
    (``zone_effects``), and a monster's ``special`` attack; ``skipped``: why an attack of a
    group did not happen (``combat.group``: its attacker or its target killed by an earlier
    one). A system's own attack extends this class."""

    attacker: str = ""
    target: str = ""
    attack_name: str = ""
    mode: str = "melee"
    method: str = omitted("")
    helpless: str = omitted("")
    roll: AttackRoll | None = None
    damage: DamageRoll | None = None
    killed: bool | None = omitted()
    location: Location | None = omitted()
    special: Special | None = omitted()
    zone_damage: int | None = omitted()
    zone_effects: list[ZoneEffect] | None = omitted()
    skipped: str = omitted("")


kind("attack")(Attack)


@dataclass(kw_only=True)
class SaveDamage(Payload):
    """The damage a saving throw was against: the ``amount`` rolled, what was ``taken``,
    whether the save ``halved`` it; ``negated``: an area effect's whose save negates it
    (``combat.group``; a single save does not say)."""

    amount: int = 0
    taken: int = 0
    halved: bool = False
    negated: bool | None = omitted()


@kind("save")
@dataclass(kw_only=True)
class Save(Payload):
    """A saving throw (``combat.systems.ose.actions.saving_throw``; an area effect's,
    ``combat.group``): ``who`` saved, against which ``category``, the ``roll``, the
    ``damage`` it was against (None: none), and whether that ``killed`` (stored only with
    damage)."""

    who: str = ""
    category: str = ""
    roll: Roll | None = None
    damage: SaveDamage | None = None
    killed: bool | None = omitted()
    revived: bool = omitted(False)  # never: a save heals no one (combat/log/_fate.jinja asks)


@kind("check")
@dataclass(kw_only=True)
class Check(Payload):
    """An ability check (``combat.table.ability_check``, OSE's and BECMI's): ``who``, the
    ``ability`` and its ``score``, and the ``roll`` under it."""

    who: str = ""
    ability: str = ""
    score: int = 0
    roll: Roll | None = None


@kind("damage")
@kind("heal")
@dataclass(kw_only=True)
class HitPoints(Payload):
    """Damage or healing applied by hand (``combat.table.change_hit_points``): ``who`` and
    their ``side`` (players do not see how much of a foe's healing took), the ``amount``
    asked, the hit points ``applied``, and whether it ``killed``."""

    who: str = ""
    side: str = ""
    amount: int = 0
    applied: int = 0
    killed: bool = False
    revived: bool = omitted(False)  # not stored: healing says it in its own words


@kind("correct")
@dataclass(kw_only=True)
class Correction(Payload):
    """Hit points the referee set outright (``combat.table.correct_hit_points``): ``who``,
    their ``side``, the hit points ``before`` and ``after``, and whether that ``killed`` or
    ``revived`` them."""

    who: str = ""
    side: str = ""
    before: int = 0
    after: int = 0
    killed: bool = False
    revived: bool = False


@kind("rest")
@dataclass(kw_only=True)
class Rest(Payload):
    """Days of rest (``combat.table.rest``): ``who``, how many ``days``, how many of them
    ``interrupted``, the healing ``dice`` (``entered``: typed in from the table; None for an
    entry stored before that was recorded, which says neither) and the hit points
    ``healed``."""

    who: str = ""
    days: int = 0
    interrupted: int = 0
    dice: list[int] = field(default_factory=list)
    entered: bool | None = None
    healed: int = 0


@dataclass(kw_only=True)
class Area(Payload):
    """What an area effect's saves are against (``combat.group.area_effect``): the save's
    ``category``, what a success does (``on_save``: ``"half"`` or ``"none"``) and the
    ``damage`` every target is exposed to."""

    category: str = ""
    on_save: str = ""
    damage: int = 0


@kind("roll")
@dataclass(kw_only=True)
class FreeRoll(Payload):
    """Dice rolled for anything (``combat.table.free_roll``), or an area effect's damage
    (``combat.group.area_effect``): the ``label``, the dice expression, the ``dice``
    (``entered``: typed in; None, stored before that was recorded) and their ``total``; an
    area effect's adds its ``area`` and the names of the targets ``waiting`` for their
    players to roll their saves.

    A free roll stores its ``label`` even when empty (the envelope's is stored only when
    set), as it always has."""

    label: str = ""
    expr: str = ""
    dice: list[int] = field(default_factory=list)
    entered: bool | None = None
    total: int = 0
    area: Area | None = omitted()
    waiting: list[str] | None = omitted()

    @classmethod
    def of(cls, rolled: dice.DiceRoll, *, entered: bool, label: str, **more: Any) -> FreeRoll:
        """The entry of the dice ``rolled`` (``entered``: typed in)."""
        return cls(
            expr=dice.format_expression(rolled.expression),
            dice=list(rolled.naturals),
            entered=entered,
            total=rolled.total,
            label=label,
            **more,
        )


@kind("undo")
@dataclass(kw_only=True)
class Undo(Payload):
    """An undo (``combat.table.undo``): the undone entry's number (``entry_seq``), its
    players' number (``entry_public_seq``: None for an entry players never saw) and kind,
    and the names of those it ``revived``."""

    entry_seq: int = 0
    entry_public_seq: int | None = None
    entry_kind: str = ""
    revived: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class ScaleChange(Payload):
    """One combatant's values as a change of rules system converted them (``rules.scales``):
    its ``name`` and ``side``, its armour class before and after (``ac_before``, ``ac_after``)
    and its attack value (``attack_before``, ``attack_after``: THAC0 on the descending scale,
    the attack bonus on the ascending one)."""

    name: str = ""
    side: str = ""
    ac_before: int = 0
    ac_after: int = 0
    attack_before: int = 0
    attack_after: int = 0


@kind("convert")
@dataclass(kw_only=True)
class Converted(Payload):
    """A change of rules system that converted armour class and attack values between the
    descending and the ascending scale (``combat.systems.common.convert_scales``): the system
    played before (``from_system``) and now (``to_system``), the ``scale`` now, and each
    combatant's values. (Not ``"system"``: that key would make it the system's own entry.)"""

    from_system: str = ""
    to_system: str = ""
    scale: str = ""
    combatants: list[ScaleChange] = field(default_factory=list)
