"""The odds shown before a roll: what the form describes so far, put to the rules engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django import forms

from combat import classes, table, zones
from combat.errors import message_for
from combat.forms import AttackForm, CheckForm, FreeRollForm, SaveForm, form_values
from combat.models import HelplessRule
from rules import dice, ose
from rules import hit_location as hl
from rules.core import total_of
from rules.errors import RulesError


@dataclass(frozen=True)
class LocationOdds:
    """Hit locations: where a hit lands, each zone's exact chance (``zones``, in the
    body's order) after the height band; the diagram draws them on the body."""

    plan: hl.BodyPlan
    state: hl.ZoneState | None
    band: str
    zones: tuple[tuple[str, Fraction], ...]
    special: tuple[str, Fraction] | None = None  # a monster's seize-and-tear or swallow

    @property
    def chances(self) -> dict[str, Fraction]:
        return dict(self.zones)


@dataclass(frozen=True)
class Odds:
    # The total needed: at least (attacks, saves) or at most (ability checks); None when
    # nothing is rolled (a helpless target).
    needed: int | None
    chance: Fraction
    under: bool = False  # roll-under (ability checks)
    matrix: Odds | None = None  # the attack matrix's answer, where the chosen method differs
    location: LocationOdds | None = None  # hit locations: the zones a hit may land in
    helpless: str | None = None  # the helpless rule the attack applies instead of a roll
    notes: tuple[str, ...] = ()  # what the form's user needs besides (a system's odds)


@dataclass(frozen=True)
class Refusal:
    """No odds: the action would be refused before anything is rolled (a surprised side in
    the fight's first round), and ``refused`` says why, in the user's language."""

    refused: str


def refused(form: forms.Form) -> Refusal | None:
    """What the odds say instead when ``form``'s action would be refused as it stands
    (``ActionForm.refusal``, the action's own check): the preview never shows odds of a
    roll the action will not make."""
    refusal = getattr(form, "refusal", None)
    found = refusal() if refusal is not None else None
    return Refusal(message_for(found)) if found is not None else None


TENTH_OF_A_PERCENT = Fraction(1, 1000)


@dataclass(frozen=True)
class Bar:
    """One bar of the chart: the totals it stands for, their chance, where it is drawn, and
    where its two labels go (the chance above it, the totals under it)."""

    low: int
    high: int
    chance: Fraction
    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> float:
        return self.x + self.width / 2

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}–{self.high}"

    @property
    def tiny(self) -> bool:
        """A chance that one decimal would round to 0 %: shown as "<0.1 %", never as none."""
        return self.chance < TENTH_OF_A_PERCENT / 2

    @property
    def shown_chance(self) -> Fraction:
        return TENTH_OF_A_PERCENT if self.tiny else self.chance

    @property
    def chance_y(self) -> float:
        return self.y - 3


@dataclass(frozen=True)
class DiceOdds:
    """A free roll's range and mean, and the chart of its totals when it is cheap to draw:
    every bar says its totals and its chance, upright when there is room for them, turned
    on their side when there are many bars (the chart keeps one width: a phone's)."""

    summary: dice.Summary
    bars: tuple[Bar, ...]

    CHART_WIDTH = 320
    BARS_HEIGHT = 70
    FONT_SIZE = 11
    # A bar this wide (in the chart's units, about pixels) has room for "16.7%" written across.
    UPRIGHT_MIN_WIDTH = 36

    @property
    def upright(self) -> bool:
        return bool(self.bars) and self.CHART_WIDTH / len(self.bars) >= self.UPRIGHT_MIN_WIDTH

    @property
    def top(self) -> int:
        """Room above the tallest bar for its chance."""
        return 16 if self.upright else 44

    @property
    def axis_y(self) -> int:
        return self.top + self.BARS_HEIGHT

    @property
    def total_y(self) -> int:
        """Where the totals are written: under the bars, read across or turned."""
        return self.axis_y + (13 if self.upright else 4)

    @property
    def chart_height(self) -> int:
        if self.upright:
            return self.axis_y + 17
        # Totals written downwards: room for the longest ("98–100"), about 0.6 em a character.
        longest = max(len(bar.label) for bar in self.bars)
        return self.axis_y + 8 + round(longest * self.FONT_SIZE * 0.62)

    @classmethod
    def of(cls, expression: dice.DiceExpression) -> DiceOdds:
        summary = dice.summary(expression)
        bars: list[Bar] = []
        if summary.bars and len(summary.bars) > 1:
            top = max(chance for *_, chance in summary.bars)
            width = cls.CHART_WIDTH / len(summary.bars)
            upright = width >= cls.UPRIGHT_MIN_WIDTH
            axis = (16 if upright else 44) + cls.BARS_HEIGHT
            for index, (low, high, chance) in enumerate(summary.bars):
                height = float(chance / top) * cls.BARS_HEIGHT
                bars.append(
                    Bar(low, high, chance, index * width, axis - height, width * 0.85, height)
                )
        return cls(summary, tuple(bars))


def for_form(form: forms.Form) -> Odds | DiceOdds | Refusal | None:
    """Odds for an attack, save, check or free-roll form; None until it says enough, and for
    any other form (hit points, rest: no probe of it is built). An action that would be
    refused says so instead (:func:`refused`)."""
    found = refused(form)
    if found is not None:
        return found
    try:
        if isinstance(form, AttackForm):  # every system's attack: a helpless target first
            helpless = _helpless(form, form_values(form))
            if helpless is not None:
                return helpless
        if hasattr(form, "system_odds"):  # another rules system's form (its package's forms)
            return form.system_odds()
        for kind, odds_of in _ODDS:
            if isinstance(form, kind):
                return odds_of(form, form_values(form))
    except (RulesError, KeyError, AttributeError, TypeError):
        return None
    return None


def _helpless(form: AttackForm, values: dict[str, Any]) -> Odds | None:
    """Against a helpless target, in any system: no roll, but the table's rule, as the attack
    applies it (``table.helpless_outcome``). A hit still lands in a zone, with the chances
    the direction gives; no special attack, which a natural d20 would trigger."""
    rule = table.helpless_outcome(form.viewer.encounter, values["target"])
    if rule is None:
        return None
    location, notes = None, ()
    if rule == HelplessRule.HIT:
        notes = form.hit_notes(values)
        if form.viewer.encounter.hit_locations:
            location = location_odds(values)
    return Odds(None, Fraction(1), location=location, helpless=rule, notes=notes)


def _attack(form: AttackForm, values: dict[str, Any]) -> Odds:
    odds = _hit(form, values)
    if form.viewer.encounter.hit_locations:
        location = location_odds(values)
        if location is not None and values.get("special") in ("seize_and_tear", "swallow"):
            special = (values["special"], _special(form, values))
            location = dataclasses.replace(location, special=special)
        odds = dataclasses.replace(odds, location=location)
    return odds


def _special(form: AttackForm, values: dict[str, Any]) -> Fraction:
    """The exact chance that the attack seizes and tears, or swallows, its target: the
    natural d20s that trigger it and hit, and for a swallow the escape roll."""
    attacker, target = values["actor"], values["target"]
    modifiers = ose.attack_modifiers(
        values["mode"],
        strength=attacker.str_score,
        dexterity=attacker.dex_score,
        situational=values.get("modifier") or 0,
    )

    def hits(natural: int) -> bool:
        return ose.resolve_attack(
            thac0=attacker.thac0,
            target_ac=target.ac,
            method=form.viewer.encounter.attack_method,
            modifiers=modifiers,
            natural=natural,
        ).hit

    damage = values.get("damage")
    allowed = damage is None or hl.swallow_escape_allowed(damage.minimum, damage.maximum)
    return hl.special_attack_chance(values["special"], hits, escape_allowed=allowed)


def location_odds(values: dict[str, Any]) -> LocationOdds | None:
    """Each zone's chance for a hit from the form's direction, heights and weapon."""
    attacker, target = values["actor"], values["target"]
    height = values.get("attacker_ft") or attacker.height_ft
    weapon = values.get("weapon_ft")
    weapon = attacker.weapon_ft if weapon is None else weapon
    try:
        state = zones.state_of(target)
        plan = state.plan if state else zones.plan_for(target)
        options = target.zones["plan"] if state else zones.plan_options(target)
        plan = zones.postured(plan, options, values.get("posture"))
        band = hl.height_band_for(height, target.height_ft, weapon).band
        chances = hl.location_odds(plan, values["direction"], band)
    except (RulesError, KeyError, ValueError):
        return None
    ordered = tuple((z.value, chances[z]) for z in plan.zone_keys if z in chances)
    return LocationOdds(plan, state, str(band), ordered)


def _hit(form: AttackForm, values: dict[str, Any]) -> Odds:
    attacker, target = values["actor"], values["target"]
    modifier = total_of(
        ose.attack_modifiers(
            values["mode"],
            strength=attacker.str_score,
            dexterity=attacker.dex_score,
            situational=values.get("modifier") or 0,
        )
    )
    method = form.viewer.encounter.attack_method

    def odds_by(chosen: str) -> Odds:
        needed = ose.roll_needed(attacker.thac0, target.ac, chosen)
        chance = ose.attack_odds(
            thac0=attacker.thac0, target_ac=target.ac, method=chosen, modifier=modifier
        )
        return Odds(needed=needed, chance=chance)

    chosen = odds_by(method)
    if method != ose.AttackMethod.MATRIX:
        matrix = odds_by(ose.AttackMethod.MATRIX)
        if matrix != chosen:
            return Odds(chosen.needed, chosen.chance, matrix=matrix)
    return chosen


def _save(values: dict[str, Any]) -> Odds:
    actor = values["actor"]
    needed = actor.save_value(values["category"])
    modifier = values.get("modifier") or 0
    if values.get("magical"):  # WIS against magic (combat.classes)
        modifier += classes.magic_save_modifier(actor.encounter.system, actor.wis_score)
    return Odds(needed=needed, chance=ose.save_odds(needed, modifier))


def _check(values: dict[str, Any]) -> Odds:
    score = values["score"]  # the form fills in STR and DEX from the combatant
    chance = ose.ability_check_odds(score, values.get("modifier") or 0)
    return Odds(needed=score, chance=chance, under=True)


# Each kind of form with odds, and how they are worked out from its valid values.
_ODDS: tuple[tuple[type[forms.Form], Callable[[Any, dict[str, Any]], Odds | DiceOdds]], ...] = (
    (AttackForm, _attack),
    (SaveForm, lambda _form, values: _save(values)),
    (CheckForm, lambda _form, values: _check(values)),
    (FreeRollForm, lambda _form, values: DiceOdds.of(values["expression"])),
)
