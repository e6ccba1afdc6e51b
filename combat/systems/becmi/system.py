"""BECMI / Rules Cyclopedia as the registry knows it: the hit-table attack and its saves, the
special actions (striking, wrestling, ships), row buttons, tools and log entries."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext_lazy as _

from combat import table
from combat.errors import Refused
from combat.forms import CheckForm
from combat.models import Wrestle
from combat.registry import ROLL, Panel, System, referee
from combat.systems.becmi import actions, classes, payloads, special, terms
from combat.systems.becmi import forms as becmi_forms
from combat.systems.becmi import special_forms as sf
from rules import becmi
from rules.errors import RulesError


def special_odds(form: Any) -> Any:
    """A special action's odds before the roll; None until its form says enough."""
    try:
        return form.special_odds()
    except (RulesError, Refused, KeyError, AttributeError, TypeError, ValueError):
        return None


def refuse_foreign_wrestle(request: Any, viewer: Any) -> None:
    """A round of a hold the player has no part in is refused outright (403)."""
    wanted = request.POST.get("wrestle", "")
    if viewer.is_referee or not wanted.isascii() or not wanted.isdigit() or len(wanted) > 18:
        return  # not an id at all ("²" is a digit to Python, not to int()): the form says so
    found = (
        Wrestle.objects.filter(pk=int(wanted), encounter=viewer.encounter)
        .select_related("attacker", "defender")
        .first()
    )
    if found is not None and not (
        viewer.can_control(found.attacker) or viewer.can_control(found.defender)
    ):
        raise PermissionDenied


def monster_thac0(hit_dice: str) -> int:
    return becmi.thac0("monster", hit_dice)


# The hit-table attack and the saves: their odds shown with notes under them.
_ROLL = {
    "odds_route": "dw/odds/",
    "odds_name": "system_odds",
    "odds_template": "combat/_system_odds.html",
    "css": "system-becmi",
}


def _special(
    key: str,
    form: type,
    act: Any,
    route: str,
    heading: Any,
    *,
    button: Any = ROLL,
    odds: bool = True,
    referee_only: bool = False,
) -> Panel:
    """One of the special actions: odds from its form's ``special_odds()``."""
    extra: dict[str, Any] = {"may_open": referee} if referee_only else {}
    return Panel(
        key,
        form,
        act,
        route,
        heading,
        button=button,
        odds=odds,
        odds_route="bx/odds/",
        odds_name="bx_odds",
        odds_template="becmi/_odds.html",
        odds_of=special_odds,
        guard=refuse_foreign_wrestle,
        css=f"becmi-special {key}",
        **extra,
    )


SYSTEM = System(
    key="becmi",
    label=_("BECMI / Rules Cyclopedia"),
    panels=(
        Panel(
            "becmi_attack",
            becmi_forms.BecmiAttackForm,
            actions.attack,
            "becmi/attack/",
            _("Attack"),
            **_ROLL,
        ),
        Panel(
            "becmi_save",
            becmi_forms.BecmiSaveForm,
            actions.saving_throw,
            "becmi/save/",
            _("Saving throw"),
            **_ROLL,
        ),
        # The Rules Cyclopedia's ability check is B/X's: a d20 at or under the score.
        Panel("becmi_check", CheckForm, table.ability_check, "becmi/check/", _("Ability check")),
        _special("bx_strike", sf.StrikeForm, special.strike, "bx/strike/", _("Unarmed strike")),
        _special(
            "bx_wrestle",
            sf.WrestleStartForm,
            special.start_wrestle,
            "bx/wrestle/",
            _("Wrestling: grab"),
        ),
        _special(
            "bx_wrestle_round",
            sf.WrestleRoundForm,
            special.wrestle_round,
            "bx/wrestle/round/",
            _("Wrestling round"),
        ),
        _special(
            "bx_wrestle_end",
            sf.WrestleEndForm,
            special.end_wrestle,
            "bx/wrestle/end/",
            _("End wrestling"),
            button=_("End wrestling"),
            odds=False,
            referee_only=True,
        ),
        _special(
            "bx_ship",
            sf.ShipForm,
            special.add_ship,
            "bx/ship/",
            _("Add a ship"),
            button=_("Add"),
            odds=False,
            referee_only=True,
        ),
        _special("bx_ram", sf.RamForm, special.ram, "bx/ram/", _("Ramming")),
        _special("bx_grapple", sf.GrappleForm, special.grapple, "bx/grapple/", _("Grappling")),
        _special("bx_board", sf.BoardingForm, special.board, "bx/board/", _("Boarding")),
        _special(
            "bx_hull",
            sf.HullDamageForm,
            special.hull_damage,
            "bx/hull/",
            _("Monster damage to the hull"),
            button=_("Apply"),
            referee_only=True,
        ),
        _special("bx_repair", sf.RepairForm, special.repair, "bx/repair/", _("Repairs")),
        _special(
            "bx_rowers",
            sf.RowersForm,
            special.lose_rowers,
            "bx/rowers/",
            _("Rowers lost"),
            button=_("Apply"),
            odds=False,
            referee_only=True,
        ),
        _special(
            "bx_repairs_fail",
            sf.RepairsFailForm,
            special.repairs_fail,
            "bx/repairs-fail/",
            _("Repairs give way"),
            button=_("Apply"),
            odds=False,
            referee_only=True,
        ),
    ),
    attack_panel="becmi_attack",
    buttons="becmi/_row_buttons.html",
    row="becmi/_row.html",
    tools="becmi/_tools.html",
    log="becmi/_log.jinja",
    logs={"becmi": "becmi/_special_log.jinja"},
    payloads=payloads.PAYLOADS,
    reasons=terms.REASONS,
    bestiary_note=_(
        "BECMI uses these B/X stat blocks, which the Rules Cyclopedia repeats for these "
        "monsters, with THAC0 from BECMI's own table."
    ),
    monster_thac0=monster_thac0,
    classes=classes.Classes(),
    ability_uses=classes.ABILITY_USES,
    normal_human_saves=classes.NORMAL_HUMAN_SAVES,
    holds=special.holds_by_combatant,
    undo=special.undo,
)
