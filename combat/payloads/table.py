"""The payloads of the entries every system's actions write through the table's toolkit."""

from __future__ import annotations

from dataclasses import dataclass

from combat.payloads.base import DamageRoll, Payload, Roll, kind, omitted


@dataclass(kw_only=True)
class AttackRoll(Roll):
    """An attack's d20: B/X's adds the armour class it hit (``hit_ac``)."""

    hit_ac: int | None = omitted()


@dataclass(kw_only=True)
class Attack(Payload):
    """One attack (``combat.table.Attack``): who attacks whom (``attack_name``: a monster's
    named attack), ``mode`` melee or missile, the table's attack ``method``; either the
    ``helpless`` rule that decided it without a roll or the ``roll``; the ``damage`` of a hit;
    whether it ``killed`` (None until known); ``location``: where a hit landed, with hit
    locations on (``combat.zones``). A system's own attack extends this class."""

    attacker: str = ""
    target: str = ""
    attack_name: str = ""
    mode: str = "melee"
    method: str = omitted("")
    helpless: str = omitted("")
    roll: AttackRoll | None = None
    damage: DamageRoll | None = None
    killed: bool | None = omitted()
    location: dict | None = omitted()


kind("attack")(Attack)
