"""BECMI / Rules Cyclopedia's special actions at the table: unarmed striking, wrestling (a hold
between two combatants that lasts across rounds) and naval combat (ships as combatants whose
hit points are hull points: ramming, grappling, boarding, monster damage to hulls, repairs).

As ``combat.table`` says: one transaction each, the rows locked, one log entry of keys and
numbers (its payload: ``combat.systems.becmi.payloads``, whose ``becmi`` names the action),
announced after commit. What an entry changed besides hit points (a knock-out, a hold, a
ship's rowers and repairs) is its payload's ``restore``, which ``undo`` puts back; hit points
come back through the entry's effects as for any other entry.
"""

from __future__ import annotations

from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, Condition, EntryKind, LogEntry, Wrestle
from combat.systems.becmi.payloads import HoldState, Restore
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
    """Put back what ``entry`` changed besides hit points (its payload's ``restore``: a
    ``payloads.Restore``), inside the undo's transaction."""
    restore = entry.payload.get("restore")
    if not isinstance(restore, Restore):
        return
    for pk in restore.conditions:
        Condition.objects.filter(pk=pk, combatant__encounter=viewer.encounter).update(rounds_left=0)
    if restore.wrestle is not None:
        _restore_hold(viewer, entry, restore.wrestle, restore.state or HoldState())
    if restore.ship is not None:
        fields = {k: v for k, v in restore.fields.items() if k in SHIP_FIELDS}
        Combatant.objects.filter(pk=restore.ship, encounter=viewer.encounter).update(**fields)


def _restore_hold(viewer: Viewer, entry: LogEntry, pk: int, state: HoldState) -> None:
    """A hold back as it stood before ``entry``; refused while a later round of it stands."""
    later = LogEntry.objects.filter(
        encounter=viewer.encounter,
        kind=EntryKind.WRESTLE,
        seq__gt=entry.seq,
        undone_by__isnull=True,
        data__restore__wrestle=pk,
    ).exists()
    if later:
        raise Refused("undo_later_wrestling_first")
    Wrestle.objects.filter(pk=pk, encounter=viewer.encounter).update(
        hold=state.hold, ended=state.ended, rounds=state.rounds
    )


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
