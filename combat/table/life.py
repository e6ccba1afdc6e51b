"""Life and death at the table: who may act, the helpless rule, hit points and the death rule."""

from __future__ import annotations

from combat.access import Viewer
from combat.db.prepared import save_fields
from combat.errors import Refused
from combat.models import HP_FLOOR, Combatant, ConditionKind, Encounter
from combat.table import hooks
from combat.table.locks import conditions_in_force
from rules import ose
from rules.rounds import HELPLESS, PREVENTS_ACTION


def alive(combatant: Combatant) -> Combatant:
    """The dead do not act: refused with a message naming them."""
    if combatant.dead:
        raise Refused("dead_cannot_act", name=combatant.name)
    return combatant


def able(combatant: Combatant) -> Combatant:
    """Paralysed, asleep or held: no attack, check or rest until it ends."""
    for kind in conditions_in_force(combatant):
        if kind in PREVENTS_ACTION:
            raise Refused(
                "cannot_act_now", name=combatant.name, condition=ConditionKind(kind).label
            )
    return combatant


def caught(encounter: Encounter) -> str:
    """Who is surprised now: the side the fight's start found surprised ("party", "foes" or
    "both", from the encounter's ``turn``) while the first round lasts; "" otherwise."""
    turn = encounter.turn if isinstance(encounter.turn, dict) else {}
    found = turn.get("surprised") or ""
    return found if encounter.round == 1 and isinstance(found, str) else ""


def surprised(encounter: Encounter, combatant: Combatant) -> bool:
    """Whether ``combatant``'s side was surprised and the fight is in its first round: the
    round it loses."""
    side = caught(encounter)
    return bool(side) and side in (combatant.side, "both")


def unsurprised(viewer: Viewer, combatant: Combatant, *, despite_surprise: bool = False) -> bool:
    """A surprised side does not act in the fight's first round, in any system: its attacks
    and other actions are refused with a message naming the one who tried, unless the
    referee rules otherwise (``despite_surprise``, the referee's only). Returns whether it
    acts by that ruling, which its entry then says (the payload's ``despite_surprise``)."""
    if not surprised(viewer.encounter, combatant):
        return False
    if despite_surprise and viewer.is_referee:
        return True
    raise Refused("surprised_cannot_act", name=combatant.name)


def armed(viewer: Viewer, attacker: Combatant) -> Combatant:
    """Hit locations: wounds that leave their bearer unable to attack (a reptile in its death
    throes, a swallowed or seized victim's state as the engine says) refuse its attacks."""
    if viewer.encounter.hit_locations and hooks.hit_locations().cannot_attack(attacker):
        raise Refused("wounds_prevent_attack", name=attacker.name)
    return attacker


def helpless(combatant: Combatant) -> bool:
    """Whether a condition in force leaves ``combatant`` helpless (paralysed, asleep, held)."""
    return any(kind in HELPLESS for kind in conditions_in_force(combatant))


def helpless_outcome(encounter: Encounter, target: Combatant) -> str | None:
    """What an attack on ``target`` does without a roll: the table's helpless rule
    (``HelplessRule.HIT``, hit automatically, or ``SLAIN``, slain outright) while a
    condition leaves it helpless (paralysed, asleep, held), else None and the attack is
    rolled. Every system's attack and the odds shown before it ask this one question, so
    the preview never promises a roll the attack will not make."""
    return encounter.helpless_rule if helpless(target) else None


def set_hp(combatant: Combatant, hp: int) -> tuple[dict[str, int], bool]:
    """Store new hit points (never below ``HP_FLOOR``) on the locked ``combatant``; the
    effect an undo reverses, and whether this change killed (from above 0 to 0 or below)."""
    before = combatant.hp
    combatant.hp = max(hp, HP_FLOOR)
    save_fields(combatant, "hp")
    return {"combatant": combatant.pk, "hp": combatant.hp - before}, before > 0 >= combatant.hp


def hurt(target: Combatant, amount: int) -> tuple[dict[str, int], bool]:
    """``amount`` of damage taken from ``target``'s hit points (which may go below 0, down to
    ``HP_FLOOR``), as :func:`set_hp` stores it."""
    return set_hp(target, ose.apply_damage(target.hp, amount).after)
