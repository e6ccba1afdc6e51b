"""Dolmenwood as the registry knows it: its panels, row buttons, tools and log entries, and the
rules that differ at the table (hit points stop at 0; its fields on the combatant form)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from combat.registry import Panel, System
from combat.systems.dolmenwood import actions
from combat.systems.dolmenwood import forms as dw_forms
from combat.systems.dolmenwood import payloads as dw_payloads
from rules import ose


def may_roll_chances(viewer: Any) -> bool:
    """The referee's X-in-6 and percentage chances, and the players' when the table allows."""
    return bool(viewer.is_referee or viewer.encounter.players_roll_chances)


def from_bx(stats: dict[str, Any]) -> dict[str, Any]:
    """A B/X stat block as Dolmenwood plays it. Its armour class ascends (``19 − AC``: a B/X
    AC 6 is 13, unarmoured 9 is 10), its attack bonus comes from the Hit Dice as any monster's
    there does (``19 − THAC0``), and its five saves keep their numbers in the same places under
    Dolmenwood's names (Doom, Ray, Hold, Blast and Spell for Death, Wands, Paralysis, Breath and
    Spells); what a block saves as is left out, Dolmenwood having no class tables here, with the
    numbers it gave kept."""
    converted = {k: v for k, v in stats.items() if k != "saves_as"}
    return converted | {"ac": ose.ascending_ac(stats["ac"])}


_ROLL = {
    "odds_route": "dw/odds/",
    "odds_name": "system_odds",
    "odds_template": "combat/_system_odds.html",
    "css": "system-dolmenwood",
}

SYSTEM = System(
    key="dolmenwood",
    label=_("Dolmenwood"),
    panels=(
        Panel(
            "dw_attack",
            dw_forms.DolmenwoodAttackForm,
            actions.attack,
            "dw/attack/",
            _("Attack"),
            **_ROLL,
        ),
        Panel(
            "dw_save",
            dw_forms.SaveForm,
            actions.saving_throw,
            "dw/save/",
            _("Saving throw"),
            **_ROLL,
        ),
        Panel(
            "dw_check",
            dw_forms.AbilityCheckForm,
            actions.ability_check,
            "dw/check/",
            _("Ability check"),
            **_ROLL,
        ),
        Panel(
            "dw_skill",
            dw_forms.SkillForm,
            actions.skill_check,
            "dw/skill/",
            _("Skill check"),
            **_ROLL,
        ),
        Panel(
            "chance",
            dw_forms.ChanceForm,
            actions.chance_roll,
            "dw/chance/",
            _("Chance roll"),
            may_open=may_roll_chances,
            **_ROLL,
        ),
    ),
    attack_panel="dw_attack",
    buttons="dolmenwood/_buttons.html",
    tools="dolmenwood/_tools.html",
    log="dolmenwood/_log.jinja",
    payloads=dw_payloads.KINDS,
    zero_floor=True,
    ascending_ac=True,
    adapt_combatant_form=dw_forms.adapt_combatant_form,
    clean_combatant=dw_forms.clean_dolmenwood_combatant,
    settings=("players_roll_chances",),
    from_bx=from_bx,
    bestiary_note=_(
        "Dolmenwood's own monsters are not published as open content: these are B/X's, "
        "converted. Armour class ascends (19 − AC), the attack bonus comes from the Hit Dice, "
        "and each save keeps its number under Dolmenwood's name (Doom for Death, Ray for "
        "Wands, Hold for Paralysis, Blast for Breath, Spell for Spells)."
    ),
    # Its checks add the modifier of any score; its classes are not the classic seven.
    ability_uses={
        "str": "melee",
        "int": "checks",
        "wis": "magic_saves",
        "dex": "missile",
        "con": "checks",
        "cha": "checks",
    },
    monster_thac0=ose.monster_thac0,  # read as 19 − THAC0 for its attack bonus
)
