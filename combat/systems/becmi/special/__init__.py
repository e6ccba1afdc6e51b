"""BECMI / Rules Cyclopedia's special actions at the table: unarmed striking, wrestling (a hold
between two combatants that lasts across rounds) and naval combat (ships as combatants whose
hit points are hull points: ramming, grappling, boarding, monster damage to hulls, repairs).

As ``combat.table`` says: one transaction each, the rows locked, one log entry of keys and
numbers (``data["becmi"]`` names the action), announced after commit. What an entry changed
besides hit points (a knock-out, a hold, a ship's rowers and repairs) is in
``data["restore"]``, which ``undo`` puts back; hit points come back through the entry's
effects as for any other entry.
"""

from __future__ import annotations

from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, Condition, EntryKind, Hold, LogEntry, Wrestle
from combat.systems.becmi.special.common import strength
from combat.systems.becmi.special.naval import (
    ShipView,
    add_ship,
    board,
    boarding_inputs,
    boarding_odds,
    grapple,
    hull_damage,
    lose_rowers,
    ram,
    ram_damage_range,
    ram_odds,
    ram_target,
    repair,
    repairs_fail,
    ship_of,
    ship_view,
)
from combat.systems.becmi.special.striking import constitution, strike, strike_inputs, strike_odds
from combat.systems.becmi.special.wrestling import (
    HoldView,
    Side,
    active_between,
    basic_ac,
    end_wrestle,
    hit_dice_of,
    holds_by_combatant,
    holds_of,
    pin_chance,
    rating,
    round_odds,
    sides_of,
    start_wrestle,
    wrestle_round,
)

# --- undo --------------------------------------------------------------------------------------


def undo(viewer: Viewer, entry: LogEntry) -> None:
    """Put back what ``entry`` changed besides hit points (inside the undo's transaction)."""
    restore = entry.data.get("restore") if isinstance(entry.data, dict) else None
    if not restore:
        return
    for pk in restore.get("conditions", []):
        Condition.objects.filter(pk=pk, combatant__encounter=viewer.encounter).update(rounds_left=0)
    if "wrestle" in restore:
        pk = restore["wrestle"]
        later = LogEntry.objects.filter(
            encounter=viewer.encounter,
            kind=EntryKind.WRESTLE,
            seq__gt=entry.seq,
            undone_by__isnull=True,
            data__restore__wrestle=pk,
        ).exists()
        if later:
            raise Refused("undo_later_wrestling_first")
        state = restore.get("state", {})
        Wrestle.objects.filter(pk=pk, encounter=viewer.encounter).update(
            hold=state.get("hold", Hold.FREE),
            ended=bool(state.get("ended")),
            rounds=state.get("rounds", 0),
        )
    if "ship" in restore:
        fields = {k: v for k, v in restore.get("fields", {}).items() if k in SHIP_FIELDS}
        Combatant.objects.filter(pk=restore["ship"], encounter=viewer.encounter).update(**fields)


SHIP_FIELDS = ("rowers_lost", "hull_repaired")

__all__ = [
    "HoldView",
    "ShipView",
    "Side",
    "active_between",
    "add_ship",
    "basic_ac",
    "board",
    "boarding_inputs",
    "boarding_odds",
    "constitution",
    "end_wrestle",
    "grapple",
    "hit_dice_of",
    "holds_by_combatant",
    "holds_of",
    "hull_damage",
    "lose_rowers",
    "pin_chance",
    "ram",
    "ram_damage_range",
    "ram_odds",
    "ram_target",
    "rating",
    "repair",
    "repairs_fail",
    "round_odds",
    "ship_of",
    "ship_view",
    "sides_of",
    "start_wrestle",
    "strength",
    "strike",
    "strike_inputs",
    "strike_odds",
    "undo",
    "wrestle_round",
]
