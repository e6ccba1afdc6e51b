"""Unarmed striking at a BECMI table: a punch or a kick, the stun roll, the save vs death ray
and the knock-out, the haymaker."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, Condition, ConditionKind, EntryKind, Kind, LogEntry
from combat.systems.becmi.payloads import Restore, Strike, StunRoll
from combat.systems.becmi.special.common import hit_roll, save_roll, situational, strength
from rules import becmi_striking as striking

DEFAULT_CON = 10  # a character whose CON is not given: the average score, no adjustment


def constitution(combatant: Combatant) -> int:
    """C for the stun roll: a monster's ``2 × HD``, a character's CON score."""
    if combatant.kind == Kind.MONSTER:
        return striking.monster_constitution(combatant.hit_dice or "1")
    return combatant.con_score or DEFAULT_CON


# --- unarmed striking --------------------------------------------------------------------------


def strike_inputs(
    attacker: Combatant,
    target: Combatant,
    *,
    haymaker: bool,
    modifier: int,
    sizes: tuple[Any, Any] = (None, None),
) -> dict[str, Any]:
    """What ``rules.becmi_striking`` needs of the two, for the roll and for its odds alike;
    ``sizes`` the two heights given in the form (None: each one's stored height)."""
    attacker_ft, defender_ft = sizes
    return {
        "defender_con": constitution(target),
        "defender_save": target.save_death,
        "attacker_str": strength(attacker),
        "haymaker": haymaker,
        "attacker_size": float(attacker_ft or attacker.height_ft),
        "defender_size": float(defender_ft or target.height_ft),
        "modifiers": situational(modifier),
    }


def strike_odds(
    attacker: Combatant,
    target: Combatant,
    *,
    haymaker: bool,
    modifier: int,
    sizes: tuple[Any, Any] = (None, None),
) -> striking.StrikeOdds:
    inputs = strike_inputs(attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes)
    return striking.strike_odds(attacker.thac0, target.ac, **inputs)


@transaction.atomic
def strike(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    blow: str,
    haymaker: bool,
    pulled: bool,
    modifier: int,
    natural: int | None,
    stun_natural: int | None,
    save_natural: int | None,
    attacker_ft: Any = None,
    defender_ft: Any = None,
    secret: bool = False,
    once: str = "",
    despite_surprise: bool = False,
) -> LogEntry:
    """A punch or a kick: the hit roll, then on a hit ``1 + STR adj`` damage (0 pulled), the
    stun roll and, if stunned, the save vs Death Ray; a failed save knocks out for t rounds."""
    attacker, target = table.locked_pair(viewer, actor, target)
    secret = table.kept_secret(viewer, secret, attacker, target)  # before any die is cast
    table.able(table.alive(attacker))
    overruled = table.unsurprised(viewer, attacker, despite_surprise=despite_surprise)
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    sizes = (attacker_ft, defender_ft)
    inputs = strike_inputs(attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes)
    result = striking.resolve_strike(
        attacker.thac0,
        target.ac,
        pulled=pulled,
        rng=table.RNG,
        natural=natural,
        stun_natural=stun_natural,
        save_natural=save_natural,
        **inputs,
    )
    data = Strike(
        attacker=attacker.name,
        target=target.name,
        blow=blow,
        haymaker=result.haymaker,
        pulled=result.pulled,
        outcome=str(result.outcome),
        roll=hit_roll(result.attack, natural is not None),
        damage=result.damage if result.attack.hit else None,
        con=result.defender_con,
        knockout_rounds=result.knockout_rounds,
        despite_surprise=overruled,
    )
    if result.stun_natural is not None:
        data.stun = StunRoll(
            natural=result.stun_natural, entered=stun_natural is not None, t=result.t
        )
    if result.save is not None:
        data.save = save_roll(result.save, save_natural is not None)
    effects = []
    if result.attack.hit and result.damage:
        effect, data.killed = table.hurt(target, result.damage)
        effects.append(effect)
    if result.knocked_out and not target.dead:
        condition = Condition.objects.create(
            combatant=target, kind=ConditionKind.KNOCKED_OUT, rounds_left=result.knockout_rounds
        )
        data.restore = Restore(conditions=[condition.pk])
    return table.record(
        viewer,
        EntryKind.STRIKE,
        data,
        secret=secret,
        effects=effects,
        once=once,
    )
