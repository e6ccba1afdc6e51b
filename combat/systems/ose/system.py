"""OSE as the registry knows it: its panels, its row buttons and tools, its monsters' THAC0."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from combat import group, table
from combat.forms import AttackForm, CheckForm, SaveForm
from combat.group_forms import AreaEffectForm, GroupAttackForm
from combat.registry import Panel, System, referee
from combat.systems.ose import actions, classes
from rules import ose

# Group rolls: referee only, served by their own view (the whole group's entries as the
# result) and their own odds (one line per attack or target).
_GROUP = {
    "may_open": referee,
    "view": "combat.views.group.panel",
    "odds_view": "combat.views.group.odds",
    "odds_route": "group-odds/",
    "odds_name": "group_odds",
}


SYSTEM = System(
    key="ose",
    label=_("Old-School Essentials (B/X)"),
    default=True,
    panels=(
        Panel("attack", AttackForm, actions.attack, "attack/", _("Attack")),
        Panel("save", SaveForm, actions.saving_throw, "save/", _("Saving throw")),
        Panel("check", CheckForm, table.ability_check, "check/", _("Ability check")),
        Panel(
            "group_attack",
            GroupAttackForm,
            group.attack_together,
            "group-attack/",
            _("Group attack"),
            template="combat/_group_attack.html",
            **_GROUP,
        ),
        Panel(
            "area",
            AreaEffectForm,
            group.area_effect,
            "area/",
            _("Area effect"),
            url_name="area_effect",
            template="combat/_area_effect.html",
            **_GROUP,
        ),
    ),
    attack_panel="attack",
    buttons="ose/_buttons.html",
    tools="ose/_tools.html",
    monster_thac0=ose.monster_thac0,
    classes=classes.Classes(),
    ability_uses=classes.ABILITY_USES,
    normal_human_saves=classes.NORMAL_HUMAN_SAVES,
)
