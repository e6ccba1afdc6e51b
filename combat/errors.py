"""Errors said in the user's language: the rules engine's, and the table's own refusals."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from rules.errors import RulesError

# code -> message template; the engine's params fill the %(name)s slots.
MESSAGES = {
    "die_out_of_range": _("A d%(sides)s shows 1 to %(sides)s, not %(value)s."),
    "die_not_integer": _("A die result must be a whole number."),
    "not_an_integer": _("That must be a whole number."),
    "too_many_dice": _("At most %(limit)s dice in one roll, please."),
    "too_many_sides": _("A die may have at most %(limit)s sides."),
    "bad_expression": _("“%(expr)s” is not a dice expression. Try 1d8+1 or 2k6."),
    "expression_too_long": _("That dice expression is too long (at most %(limit)s characters)."),
    "wrong_number_of_dice": _("Enter %(expected)s die results, one for each die."),
    "bad_hit_dice": _("“%(value)s” is not a Hit Dice value. Try 1-1, 2, 2+1, 4* or ½."),
    "bad_die_letter": _("“%(letter)s” is not a die letter. Try 1d6."),
    "unknown_attack_method": _("That is not an attack method."),
    "unknown_attack_kind": _("That is not a kind of attack."),
    "unknown_save_category": _("That is not a saving throw."),
    "bad_hp": _("Hit points are a whole number, the maximum at least 1."),
    "current_and_max_hp_together": _("Give both current and maximum hit points, or neither."),
    "bad_rest_day": _("Days of rest are a whole number, 0 or more."),
    "bad_combatant_id": _("That is not a combatant of this encounter."),
    "duplicate_combatant": _("A combatant is listed twice."),
    "too_many_ties": _("The dice tied %(limit)s times in a row: roll initiative again."),
    "bad_morale_state": _("The side's morale record is not valid: check morale again."),
    "bad_condition_note": _("That note on the condition is too long."),
    "condition_note_required": _("Say what the other condition is."),
    "ability_out_of_range": _("An ability score runs from %(low)s to %(high)s."),
    "modifier_out_of_range": _("The modifier must be between %(low)s and %(high)s."),
    "bad_modifier": _("The modifier must be a whole number."),
    "save_value_out_of_range": _("A saving throw value runs from %(low)s to %(high)s."),
    "bad_damage": _("Damage must be a whole number, zero or more."),
    "cannot_heal_the_dead": _("The dead cannot be healed."),
    "too_many_days": _("At most %(limit)s days at once."),
    "constant_too_large": _("A number in a dice expression may be at most %(limit)s."),
    "thac0_out_of_range": _("THAC0 runs from %(low)s to %(high)s."),
    "ac_out_of_range": _("Armour class runs from %(low)s to %(high)s."),
    # Hit locations (rules.hit_location): keys are not shown, the form says which field.
    "unknown_body": _("That is not a body type."),
    "unknown_direction": _("That is not a direction of attack."),
    "unknown_zone": _("That is not a body zone."),
    "unknown_band": _("That is not a height band."),
    "zone_not_on_body": _("This body has no such zone."),
    "direction_not_available": _("This body cannot be attacked from that direction."),
    "variant_not_available": _("This body type has no such variant."),
    "bad_leg_count": _("This body type cannot have that many legs."),
    "bad_wing_count": _("This body type cannot have that many wings."),
    "no_zones": _("A body needs at least one zone."),
    "zone_repeated": _("A zone is given twice."),
    "max_hp_invalid": _("Maximum hit points must be a whole number of at least 1."),
    "damage_invalid": _("Damage must be a whole number, zero or more."),
    "height_invalid": _("Heights and weapon lengths are numbers above 0, at most 10,000."),
    "unknown_unit": _("Lengths are in feet or metres."),
    "too_many_dice_entered": _("More dice entered than the wound needs."),
    "zone_cannot_heal": _("That zone cannot heal: it is lost, or the creature is dead."),
    "heal_invalid": _("Healing must be a whole number, zero or more."),
    "dex_invalid": _("DEX must be a whole number, zero or more."),
    "round_invalid": _("The round must be a whole number of at least 1."),
    "unknown_special_attack": _("That is not a special attack."),
    "no_random_source": _("The server could not roll that die."),
    "bad_argument": _("That value is not valid."),
    "no_hit_locations": _("This encounter does not play hit locations."),
    "nothing_to_treat": _("%(name)s has no bleeding wound there to treat."),
    # An ascending-AC system's d6 checks, saves and attacks: the form says which field.
    "not_integer": _("That must be a whole number."),
    "out_of_range": _("That must be between %(low)s and %(high)s."),
    "unknown_key": _("That is not one of the choices."),
    "bad_key": _("That is not one of the choices."),
    "bad_skill_key": _("That is not a skill."),
    "bad_skill_sheet": _("That skill sheet cannot be read."),
    "bad_dice": _("“%(value)s” is not one kind of die, like 1d8 or 2d6."),
    "skill_not_available": _("“%(skill)s” is a class skill this character does not have."),
    "target_dead": _("The dead cannot be healed."),
    # The extended hit table, range, cover and its saves.
    "unknown_range": _("That is not a range: short, medium or long."),
    "unknown_cover": _("That is not a kind of cover."),
    "unknown_cover_material": _("Cover is soft or hard."),
    "save_target_out_of_range": _("A saving throw value runs from %(low)s to %(high)s."),
    "unknown_column": _("That is not a column of the hit table."),
    "level_out_of_range": _("A level runs from %(low)s to %(high)s."),
    "unknown_class": _("That is not one of the classes."),
    "bad_attack_rank": _("Attack ranks run from A to M."),
    # Unarmed striking, wrestling and naval combat.
    "striker_too_small": _(
        "A striker must be at least half the defender's size: throw a haymaker instead."
    ),
    "bad_size": _("Sizes are numbers above 0."),
    "constitution_out_of_range": _("CON runs from %(low)s to %(high)s."),
    "rating_out_of_range": _("A wrestling rating runs from %(low)s to %(high)s."),
    "unknown_hold": _("That is not a wrestling hold."),
    "bad_pinned_penalty": _("The pinned penalty runs from %(low)s to %(high)s."),
    "bad_hull_points": _("Hull points run from %(low)s to %(high)s."),
    "bad_rowers": _("Rowers run from %(low)s to %(high)s."),
    "bad_repairs": _("Repaired hull points run from %(low)s to %(high)s."),
    "bad_speed": _("A speed runs from %(low)s to %(high)s."),
    "bad_crew": _("The crew runs from %(low)s to %(high)s."),
    "bad_turns": _("Turns run from %(low)s to %(high)s."),
    "bad_distance": _("A distance runs from %(low)s to %(high)s feet."),
    "repair_crew_too_small": _("Repairs need at least %(needed)s crew."),
    "ship_sunk": _("A sinking ship cannot be repaired."),
    "unknown_vessel": _("That is not a ramming vessel."),
    "unknown_ram_target": _("That is not something a ship can ram."),
    "wrong_dice_count": _("Enter %(count)s dice."),
    "already_wrestling": _("%(name)s is already wrestling with them."),
    "wrestle_over": _("That wrestling has ended."),
    "not_a_ship": _("%(name)s is not a ship."),
    "undo_later_wrestling_first": _("Undo the later rounds of that wrestling first."),
    # The table's own refusals (see Refused).
    "dead_cannot_act": _("%(name)s is dead and cannot act."),
    "target_is_dead": _("%(name)s is already dead: choose another target."),
    "cannot_act_now": _("%(name)s is %(condition)s and cannot act."),
    "attacks_itself": _("%(name)s cannot attack itself: choose another target."),
    "surprised_cannot_act": _("%(name)s is surprised and cannot act in the first round."),
    "wounds_prevent_attack": _("%(name)s cannot attack: the wounds do not allow it."),
    "no_fight": _("No fight is running: start one first."),
    "fight_running": _("A fight is running already."),
    "round_over": _("Everyone has acted this round: end the round."),
    "condition_over": _("That condition of %(name)s has ended already."),
    "undo_later_turn_first": _("Undo the later turns of the fight first."),
    "round_moved_on": _("The round has moved on already: nothing changed."),
    "combatant_gone": _("%(name)s is no longer in the encounter."),
    "save_not_needed": _("That saving throw is no longer needed."),
    # A change of rules system converting armour class and attack values (rules.scales); the
    # table says whose (cannot_convert_*).
    "unknown_scale": _("That is not an armour class scale."),
    "converted_ac_out_of_range": _(
        "Armour class %(value)s would be %(converted)s on the other scale, outside %(low)s to "
        "%(high)s."
    ),
    "converted_attack_out_of_range": _(
        "Attack value %(value)s would be %(converted)s on the other scale, outside %(low)s to "
        "%(high)s."
    ),
    "cannot_convert_ac": _(
        "%(name)s's armour class %(value)s would be %(converted)s on the other scale, outside "
        "%(low)s to %(high)s: change it first, then the rules system."
    ),
    "cannot_convert_attack": _(
        "%(name)s's attack value %(value)s would be %(converted)s on the other scale, outside "
        "%(low)s to %(high)s: change it first, then the rules system."
    ),
    "entry_unreadable": _("That entry's stored data cannot be read, so it cannot be undone."),
    # A secret roll shown to players (table.show).
    "not_secret": _("That entry is not secret: players see it already."),
    "cannot_show": _("Only a roll can be shown to players."),
    "cannot_show_undone": _("That roll was undone: there is nothing to show."),
}
FALLBACK = _("That value is not valid.")


class Refused(Exception):
    """An action the table does not allow as things stand (the dead acting, say), with a
    code and the values its message needs, like the engine's own errors."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def message_for(error: RulesError | Refused) -> str:
    template = MESSAGES.get(error.code)
    if template is None:
        return str(FALLBACK)
    try:
        return str(template) % error.params
    except (KeyError, TypeError, ValueError):
        return str(FALLBACK)
