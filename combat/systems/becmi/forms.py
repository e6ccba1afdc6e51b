"""BECMI's roll forms at the table: the hit roll through the extended to-hit table with range and
cover, and the saves of the Rules Cyclopedia's five categories."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from combat.access import Viewer
from combat.forms import AttackForm, RollForm, SystemOdds, form_values, situational
from combat.models import Combatant
from combat.odds import location_odds
from combat.systems.becmi import terms as systems
from rules import becmi, ose
from rules.core import Modifier, ability_modifier


class BecmiAttackForm(AttackForm):
    """A hit roll through the BECMI hit table: the attacker's THAC0 against descending AC,
    with range and cover as choices; a natural 1 misses, a needed roll beyond 20 takes
    bonuses to reach, and one under 2 turns into a damage bonus."""

    kept = (*AttackForm.kept, "range_band", "cover", "cover_material")
    location_extras = True  # posture and wound dice reach the action (table.where)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["range_band"] = forms.ChoiceField(
            label=_("Range"), choices=list(systems.RANGES.items()), required=False
        )
        self.fields["cover"] = forms.ChoiceField(
            label=_("Cover"), choices=list(systems.COVERS.items()), initial="none", required=False
        )
        self.fields["cover_material"] = forms.ChoiceField(
            label=_("Cover is"),
            choices=list(systems.COVER_MATERIALS.items()),
            initial="soft",
            required=False,
        )
        order = [n for n in self.fields if n not in ("range_band", "cover", "cover_material")]
        at = order.index("mode") + 1
        order[at:at] = ["range_band", "cover", "cover_material"]
        self.order_fields(order)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["range_band"] = data.get("range_band") or None
        data["cover"] = data.get("cover") or "none"
        data["cover_material"] = data.get("cover_material") or "soft"
        if data["range_band"] and data.get("mode") == "melee":
            self.add_error("range_band", _("Range is for missile attacks."))
        return data

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        attacker: Combatant = values["actor"]
        target: Combatant = values["target"]
        inputs = becmi_attack_inputs(attacker, values)
        chance = becmi.attack_odds(attacker.thac0, target.ac, **inputs)
        result = becmi.resolve_attack(attacker.thac0, target.ac, natural=20, **inputs)
        notes = []
        if result.needed is None:
            notes.append(str(_("Behind full hard cover: the attack is impossible.")))
            return SystemOdds(20, chance, notes=tuple(notes))
        if result.damage_bonus:
            notes.append(
                str(
                    _("An AC this easy to hit adds %(bonus)s to the damage (the hit table).")
                    % {"bonus": result.damage_bonus}
                )
            )
        notes.append(str(_("A natural 1 always misses.")))
        odds = SystemOdds(result.needed, chance, notes=tuple(notes))
        if self.viewer.encounter.hit_locations:
            odds = SystemOdds(odds.needed, chance, notes=odds.notes, location=location_odds(values))
        return odds


def becmi_attack_inputs(attacker: Combatant, values: dict[str, Any]) -> dict[str, Any]:
    """The hit roll's choices: range (missiles), cover, and STR or DEX with the referee's
    modifier (the B/X adjustments, as ``rules.becmi_hit`` uses them)."""
    return {
        "range_band": values.get("range_band") or None,
        "cover": values.get("cover") or "none",
        "cover_material": values.get("cover_material") or "soft",
        "modifiers": ose.attack_modifiers(
            values["mode"],
            strength=attacker.str_score,
            dexterity=attacker.dex_score,
            situational=values.get("modifier") or 0,
        ),
    }


class BecmiSaveForm(RollForm):
    """A d20 save in one of the Rules Cyclopedia's five categories."""

    field_order_extra = ("category", "magical")
    kept = ("actor", "category", "magical", "secret")
    category = forms.ChoiceField(label=_("Saving throw"), choices=list(systems.BECMI_SAVES.items()))
    magical = forms.BooleanField(label=_("The effect is magical (WIS counts)"), required=False)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        actor: Combatant = values["actor"]
        target = actor.save_value(values["category"])
        mods = becmi_save_modifiers(actor, values)
        chance = becmi.save_chance(target, mods)
        return SystemOdds(target, chance)


def becmi_save_modifiers(actor: Combatant, values: dict[str, Any]) -> tuple[Modifier, ...]:
    mods = list(situational(values.get("modifier") or 0))
    if values.get("magical") and actor.wis_score is not None:
        wis = ability_modifier(actor.wis_score)  # the B/X adjustments
        if wis:
            mods.insert(0, Modifier(wis, "wis"))
    return tuple(mods)
