"""What a hit-location change says in the log, in the viewer's language: the effects the
engine returned (``rules.hit_location.ZoneEffect``, stored as keys and numbers by
``combat.zones.effect_data``, read as ``combat.payloads.zones.ZoneEffect``), with the
conditions and causes of death they name. Zone, direction and body words come from
``combat.zone_labels``."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.template.defaultfilters import floatformat
from django.utils.translation import get_language, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext as _

from combat.payloads.zones import ZoneEffect, ZoneRoll
from combat.zone_labels import zone_label, zone_state_label
from rules import dice
from rules import hit_location as hl

CONDITIONS = {
    "cannot_defend": pgettext_lazy("zone condition", "cannot defend"),
    "cannot_move": pgettext_lazy("zone condition", "cannot move"),
    "cannot_attack": pgettext_lazy("zone condition", "cannot attack"),
    "moves_randomly": pgettext_lazy("zone condition", "moves at random"),
    "writhing": pgettext_lazy("zone condition", "writhing"),
    "defends_front_only": pgettext_lazy("zone condition", "defends only to the front"),
    "flightless_forever": pgettext_lazy("zone condition", "never flies again"),
    "maimed": pgettext_lazy("zone condition", "maimed"),
}

CAUSES = {
    "head_destroyed": pgettext_lazy("death cause", "head destroyed"),
    "chest_destroyed": pgettext_lazy("death cause", "chest destroyed"),
    "body_destroyed": pgettext_lazy("death cause", "body destroyed"),
    "thorax_destroyed": pgettext_lazy("death cause", "thorax destroyed"),
    "upper_body_destroyed": pgettext_lazy("death cause", "upper body destroyed"),
    "total_damage": pgettext_lazy("death cause", "total damage"),
    "two_limbs_lost": pgettext_lazy("death cause", "two limbs lost"),
    "both_wings_destroyed": pgettext_lazy("death cause", "both wings destroyed"),
    "both_legs_destroyed": pgettext_lazy("death cause", "both legs destroyed"),
    "fin_lost": pgettext_lazy("death cause", "a fin lost"),
    "tail_lost": pgettext_lazy("death cause", "the tail lost"),
}


def _label(table: dict[str, Any], key: str | None) -> str:
    return str(table.get(key or "", key or ""))


def _dice(roll: ZoneRoll | None) -> str:
    """The dice an effect rolled, as " (1d6: 4)" in the viewer's die letter."""
    if not roll or not roll.count:  # a fixed timer rolls no die
        return ""
    letter = dice.die_letter_for(get_language() or "en")
    bias = roll.bias or 0
    spec = f"{roll.count}{letter}{roll.sides}" + (f"{bias:+d}" if bias else "")
    source = pgettext("die", "typed in") if roll.entered else pgettext("die", "server roll")
    return f" ({spec}: {', '.join(str(n) for n in roll.dice)}, {source})"


def effect_text(
    effect: ZoneEffect | dict[str, Any], body: str | None = None, severed: bool = False
) -> str:
    """One effect (read, or as stored) in a few words; "" for the damage itself, which the
    line's head says. ``severed``: a lost zone that is a limb, said in the diagram's word for
    it."""
    effect = ZoneEffect.from_json(effect)
    kind = effect.kind
    zone = zone_label(effect.zone or "", body)
    amount = effect.amount or 0
    text = ""
    if kind == "zone_lost":
        text = zone_state_label(zone, "severed" if severed else "lost")
    elif kind == "limb_severed":
        text = _("bleeds 1 hp per round")
    elif kind == "dex_lost":
        text = ngettext("loses %(amount)s DEX", "loses %(amount)s DEX", amount) % {"amount": amount}
    elif kind == "dex_halved":
        text = _("DEX halved")
    elif kind == "condition":
        text = _label(CONDITIONS, effect.condition)
    elif kind == "dying" and amount:
        text = ngettext(
            "dies in %(amount)s round (%(cause)s)",
            "dies in %(amount)s rounds (%(cause)s)",
            amount,
        ) % {"amount": amount, "cause": _label(CAUSES, effect.cause)}
    elif kind == "killed":
        text = _("killed: %(cause)s") % {"cause": _label(CAUSES, effect.cause)}
    elif kind == "writhing":
        text = ngettext("writhes for %(amount)s round", "writhes for %(amount)s rounds", amount) % {
            "amount": amount
        }
    elif kind == "wound_will_heal":
        text = _("the wound will heal")
    elif kind == "bled":
        text = ngettext("bleeds %(amount)s hp", "bleeds %(amount)s hp", amount) % {"amount": amount}
    elif kind == "wound_treated":
        text = _("the wound of the %(zone)s is treated") % {"zone": zone}
    elif kind == "healed":
        text = ngettext(
            "the %(zone)s heals %(amount)s point", "the %(zone)s heals %(amount)s points", amount
        ) % {"zone": zone, "amount": amount}
    return text + _dice(effect.roll) if text else ""


def effects_text(effects: Sequence[ZoneEffect | dict[str, Any]], body: str | None = None) -> str:
    """Every effect of one hit or one round (read, or as stored), in order, as one list of
    clauses."""
    read = [ZoneEffect.from_json(e) for e in effects]
    # The engine follows a limb's loss with its severing (``rules.hit_location``): the same
    # ``ZoneSpec.limb`` that makes the diagram draw it severed, so stored entries say it too.
    severed = {e.zone for e in read if e.kind == "limb_severed"}
    said = (effect_text(e, body, severed=e.zone in severed) for e in read)
    return "; ".join(t for t in said if t)


def _percent(value: Fraction) -> str:
    return floatformat(Decimal(value.numerator * 100) / Decimal(value.denominator), -1)


def status_words(state: hl.ZoneState, dex: int | None = None) -> list[str]:
    """What a body's wounds mean now, for its row: conditions, a death timer, bleeding,
    movement left, and (``dex`` given: for those who see the numbers) DEX after maiming."""
    words = [_label(CONDITIONS, c.value) for c in sorted(state.conditions)]
    if state.dead:
        return words
    if state.dies_in is not None:
        words.append(
            ngettext("dies in %(amount)s round", "dies in %(amount)s rounds", state.dies_in)
            % {"amount": state.dies_in}
        )
    bleeding = len(state.bleeding)
    if bleeding:
        words.append(
            ngettext("bleeds %(amount)s hp per round", "bleeds %(amount)s hp per round", bleeding)
            % {"amount": bleeding}
        )
    moving = hl.mobility(state)
    for speed, none, part in (
        (moving.ground, _("cannot walk"), _("ground speed %(percent)s%%")),
        (moving.flight, _("cannot fly"), _("flight speed %(percent)s%%")),
        (moving.swim, _("cannot swim"), _("swimming speed %(percent)s%%")),
    ):
        if speed is not None and speed < 1:
            words.append(none if speed == 0 else part % {"percent": _percent(speed)})
    if moving.crawling and moving.ground:
        words.append(_("crawls"))
    if dex is not None:
        after = hl.effective_dex(state, dex)
        if after != dex:
            words.append(_("DEX %(before)s → %(after)s") % {"before": dex, "after": after})
    return words
