"""One attack for every system: lock, check, locate, the helpless rule, roll, damage, record.

A system's attack is a subclass of :class:`Attack` that fills in its own rules (what its entry
says, its hit roll, its damage, what damage does to hit points); :meth:`Attack.run` does the
rest, in the same order for every system. What the classic systems share (B/X's damage roll
and the entry of a helpless target hit without a roll) is the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, EntryKind, HelplessRule, LogEntry
from combat.payloads import DamageRoll
from combat.payloads import table as entries
from combat.table import hooks
from combat.table.life import able, alive, armed, helpless_outcome, hurt, set_hp, unsurprised
from combat.table.locks import attack_pair
from combat.table.record import kept_secret, record
from combat.table.rolls import RNG, damage_data
from rules import dice, ose

# The attack form's fields for hit locations (``combat.body_fields``): how the hit is located.
LOCATION_FIELDS = (
    "direction",
    "attacker_ft",
    "weapon_ft",
    "location",
    "special",
    "hold_round",
    "escape",
    "wound_dice",
    "posture",
)


class Attack:
    """One attack of ``actor`` on ``target``, as a system makes it.

    :meth:`run`, in one transaction: locks the pair (:func:`attack_pair`); refuses an
    attacker that is dead, cannot act, is surprised in the fight's first round (unless the
    referee rules ``despite_surprise``, which the entry then says) or is too wounded to
    attack, and an attack on itself; locates the hit when the encounter plays hit locations
    (:func:`where`, from ``location``: the form's fields); refuses a dead target; then
    either applies the helpless rule (hit without a roll, or slain outright:
    :func:`helpless_outcome`) or rolls to hit (:meth:`roll`); on a hit with ``damage`` dice,
    rolls the damage (:meth:`damage`) and lands it in a zone or takes it from the hit points
    (:meth:`after_damage`); and records one attack entry (:func:`record`), secret when asked
    or when a hidden combatant takes part, whose effects are the hit points (and zones) it
    changed.

    A subclass gives :meth:`entry` and :meth:`roll`, and whatever else its rules change.
    """

    def __init__(
        self,
        viewer: Viewer,
        *,
        actor: Combatant,
        target: Combatant,
        mode: str,
        damage: dice.DiceExpression | None,
        damage_dice: list[int] | None,
        secret: bool = False,
        once: str = "",
        attack_name: str = "",
        location: Mapping[str, Any] | None = None,
        despite_surprise: bool = False,
    ) -> None:
        self.viewer = viewer
        self.actor, self.target, self.mode = actor, target, mode
        self.dice, self.damage_dice = damage, damage_dice
        self.secret, self.once = secret, once
        self.attack_name = attack_name  # a monster's attack from its button (combat.monsters)
        self.location = location or {}
        self.despite_surprise = despite_surprise  # the referee's ruling (table.unsurprised)

    # --- what a system fills in -----------------------------------------------------------

    def entry(self, attacker: Combatant, target: Combatant) -> entries.Attack:
        """The entry's payload before the roll (its ``roll`` and ``damage`` None until they
        are known): a ``combat.payloads.table.Attack``, or the system's own subclass."""
        raise NotImplementedError

    def helpless_entry(self, attacker: Combatant, target: Combatant, rule: str) -> entries.Attack:
        """The entry's payload when the helpless rule ``rule`` decides the attack: by default
        the classic one, whatever the system (no roll; ``killed`` unless damage says
        otherwise)."""
        return entries.Attack(
            attacker=attacker.name,
            target=target.name,
            attack_name=self.attack_name,
            mode=self.mode,
            method=self.viewer.encounter.attack_method,
            helpless=rule,
            killed=False,
        )

    def roll(self, attacker: Combatant, target: Combatant, data: entries.Attack) -> bool:
        """Roll to hit, set ``data.roll``; whether it hit."""
        raise NotImplementedError

    def damage(self, attacker: Combatant, target: Combatant, data: entries.Attack) -> int | None:
        """Roll a hit's damage, set ``data.damage``; the damage the target takes, or None when
        none lands at all (an immune target). By default the classic roll: OSE's dice with STR
        for melee (:func:`classic_damage`)."""
        assert self.dice is not None
        return classic_damage(attacker, self.mode, self.dice, self.damage_dice, data)

    def after_damage(self, hp: int, taken: int) -> int:
        """The hit points ``hp`` leave after ``taken`` damage: by default they may go below 0
        (down to ``HP_FLOOR``)."""
        return ose.apply_damage(hp, taken).after

    # --- the skeleton ----------------------------------------------------------------------

    @transaction.atomic
    def run(self) -> LogEntry:
        viewer = self.viewer
        attacker, target = attack_pair(viewer, self.actor, self.target)
        secret = kept_secret(viewer, self.secret, attacker, target)  # before any die is cast
        able(alive(attacker))
        overruled = unsurprised(viewer, attacker, despite_surprise=self.despite_surprise)
        armed(viewer, attacker)
        if attacker.pk == target.pk:
            raise Refused("attacks_itself", name=attacker.name)
        # Hit locations: where a hit lands (combat.zones); off, None and nothing changes.
        located = where(viewer, attacker, self.location)
        if target.dead:
            raise Refused("target_is_dead", name=target.name)
        rule = helpless_outcome(viewer.encounter, target)
        if rule:
            data = self.helpless_entry(attacker, target, rule)
            hit = rule != HelplessRule.SLAIN
        else:
            data = self.entry(attacker, target)
            hit = self.roll(attacker, target, data)
        data.despite_surprise = overruled
        effects = []
        if rule == HelplessRule.SLAIN:
            effect, data.killed = set_hp(target, min(target.hp, 0))
            effects.append(effect)
        elif hit and self.dice is not None:
            effect = self._land(attacker, target, data, located)
            if effect is not None:
                effects.append(effect)
        return record(
            viewer,
            EntryKind.ATTACK,
            data,
            secret=secret,
            effects=[e for e in effects if e["hp"] or "zones" in e],
            once=self.once,
        )

    def _land(
        self,
        attacker: Combatant,
        target: Combatant,
        data: entries.Attack,
        located: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        taken = self.damage(attacker, target, data)
        if taken is None:
            data.killed = False
            return None
        if located is not None:
            return hooks.hit_locations().land(located, attacker, target, self.dice, taken, data)
        effect, data.killed = set_hp(target, self.after_damage(target.hp, taken))
        return effect


def classic_damage(
    attacker: Combatant,
    mode: str,
    damage: dice.DiceExpression,
    damage_dice: list[int] | None,
    data: Any,
) -> int:
    """A hit's damage by B/X's rules: the dice (``damage_dice`` typed in, else
    the server's), STR for melee; set as ``data.damage`` (any payload with a ``damage``).
    Returns the total."""
    dealt = ose.resolve_damage(
        damage, mode, strength=attacker.str_score, rng=RNG, entered=damage_dice
    )
    data.damage = DamageRoll.from_json(damage_data(dealt, damage_dice))
    return dealt.total


def deal_damage(
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression,
    damage_dice: list[int] | None,
    data: Any,
) -> dict[str, int]:
    """A classic hit's damage (:func:`classic_damage`) taken from the locked ``target``, for
    an action that hits outside an :class:`Attack` (a boarding party's); its ``damage`` and
    whether it ``killed`` are set on ``data`` (a payload). Returns the effect an undo
    reverses."""
    effect, data.killed = hurt(target, classic_damage(attacker, mode, damage, damage_dice, data))
    return effect


def where(viewer: Viewer, attacker: Combatant, fields: Mapping[str, Any]) -> dict[str, Any] | None:
    """How a hit is located when the encounter plays hit locations, from the attack form's
    fields (``LOCATION_FIELDS``: the direction, the attacker's height and weapon, remembered
    on the attacker when the form changed them, the d100 typed in, a monster's special attack,
    wound dice, the target's posture); None when it does not."""
    if not viewer.encounter.hit_locations:
        return None
    hooks.hit_locations().remember(attacker, fields.get("attacker_ft"), fields.get("weapon_ft"))
    return {
        "encounter": viewer.encounter,
        "roll": {
            "direction": fields.get("direction"),
            "natural": fields.get("location"),
            "posture": fields.get("posture") or "",
        },
        "special": {
            "kind": fields.get("special") or "",
            "round": fields.get("hold_round"),
            "escape": fields.get("escape"),
        },
        "wound_dice": fields.get("wound_dice"),
    }
