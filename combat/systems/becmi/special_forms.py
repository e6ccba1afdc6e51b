"""The forms of BECMI's special actions (``special``): a strike, a wrestle started
and its rounds, and the naval actions. Each form checks and converts input only; its
``special_odds()`` puts what it says so far to the rules engine for the odds before the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat import body_fields, bounded
from combat.access import Viewer
from combat.dice_input import EnteredDiceField, local_dice
from combat.errors import message_for
from combat.forms import (
    ActionForm,
    CombatantsField,
    DiceField,
    RollForm,
    combatant_field,
    form_values,
    natural_field,
)
from combat.models import AC_MAX, AC_MIN, Combatant, Kind, Side, Wrestle
from combat.systems.becmi import special as special
from rules import becmi_attack
from rules import becmi_naval as naval
from rules import becmi_striking as striking
from rules import becmi_wrestling as wrestling
from rules.becmi_hit import roll_needed
from rules.errors import RulesError

BLOWS = {
    "punch": pgettext_lazy("becmi strike", "punch"),
    "kick": pgettext_lazy("becmi strike", "kick"),
}
VESSELS = {
    "small_galley": pgettext_lazy("becmi vessel", "small galley"),
    "large_galley": pgettext_lazy("becmi vessel", "large galley"),
}


def _d20(label: Any) -> forms.IntegerField:
    field = natural_field(20)
    field.label = label
    return field


# --- striking ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrikeOdds:
    needed: int | None
    hit: Fraction
    stun: Fraction
    knockout: Fraction
    damage: int
    too_small: bool = False
    impossible: bool = False


class StrikeForm(RollForm):
    """A punch or a kick: the hit roll, the stun roll and the defender's save vs Death Ray."""

    acts_in_round = True
    field_order_extra = ("target", "blow", "haymaker", "pulled")
    dice_fields = ("natural", "stun_natural", "save_natural")
    kept = ("actor", "target", "blow", "haymaker", "pulled", "secret")
    blow = forms.ChoiceField(
        label=_("Blow"), choices=list(BLOWS.items()), initial="punch", required=False
    )
    haymaker = forms.BooleanField(
        label=_("Haymaker"),
        help_text=_("Loses initiative, −5 to hit; the defender saves at −4; no size limit."),
        required=False,
    )
    pulled = forms.BooleanField(label=_("Pull the blow (no damage)"), required=False)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        living = [c for c in viewer.visible_list() if c.kind != Kind.SHIP]
        self.fields["target"] = combatant_field(living, _("Target"), refusal="target_is_dead")
        for name, label in (
            ("attacker_ft", _("Striker's height (ft)")),
            ("defender_ft", _("Defender's height (ft)")),
        ):
            self.fields[name] = body_fields.length_field(
                label,
                body_fields.MIN_HEIGHT,
                _("A striker must be at least half the defender's size; empty: as stored."),
            )
        self.fields["natural"].label = _("Hit roll rolled at the table (d20)")
        self.fields["stun_natural"] = _d20(_("Stun roll rolled at the table (d20)"))
        self.fields["save_natural"] = _d20(_("Defender's save rolled at the table (d20)"))
        if not self.is_bound and "target" not in self.initial:
            actor = self.initial_actor()
            foe = next(
                (c for c in self.fields["target"].offered if actor and c.side != actor.side),
                None,
            )
            self.initial["target"] = foe.pk if foe else None
        self.order_fields(
            [
                "actor",
                "target",
                "blow",
                "haymaker",
                "pulled",
                "attacker_ft",
                "defender_ft",
                "modifier",
                "natural",
                "stun_natural",
                "save_natural",
            ]
        )
        self.without_dice_fields()
        self.apart_from("target")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["blow"] = data.get("blow") or "punch"
        actor, target = data.get("actor"), data.get("target")
        if actor is not None and target is not None and actor.pk == target.pk:
            self.add_error("target", _("Nobody strikes themselves: choose another target."))
        return data

    def special_odds(self) -> StrikeOdds | None:
        values = form_values(self)
        attacker, target = values.get("actor"), values.get("target")
        if attacker is None or target is None or attacker.pk == target.pk:
            return None
        haymaker = bool(values.get("haymaker"))
        modifier = values.get("modifier") or 0
        sizes = (values.get("attacker_ft"), values.get("defender_ft"))
        damage = striking.strike_damage(special.strength(attacker), bool(values.get("pulled")))
        inputs = special.strike_inputs(
            attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes
        )
        if not striking.can_strike(
            inputs["attacker_size"], inputs["defender_size"], haymaker=haymaker
        ):
            return StrikeOdds(None, Fraction(0), Fraction(0), Fraction(0), damage, too_small=True)
        odds = special.strike_odds(
            attacker, target, haymaker=haymaker, modifier=modifier, sizes=sizes
        )
        first = striking.resolve_strike(
            attacker.thac0, target.ac, natural=20, stun_natural=1, **inputs
        )
        needed = first.attack.needed
        if needed is not None:
            bonus = sum(m.value for m in first.attack.modifiers)
            needed = min(max(needed - bonus, 2), 21)
        return StrikeOdds(needed, odds.hit, odds.stun, odds.knockout, damage)


# --- wrestling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrestleOdds:
    attacker_rating: int
    defender_rating: int
    attacker_bonus: int
    defender_bonus: int
    hold: str
    after: tuple[tuple[str, Fraction], ...]
    pin: Fraction | None  # the chance a pinned defender is hurt, when a pin can follow


def _after(
    hold: str,
    a: special.Side,
    d: special.Side,
    defender: Combatant,
    penalty: int = wrestling.PINNED_PENALTY,
) -> WrestleOdds:
    odds = special.round_odds(hold, a, d, penalty)
    order = ("free", "grabbed", "thrown", "pinned")
    after = tuple((str(h), p) for h, p in sorted(odds.items(), key=lambda i: order.index(i[0])))
    pin = special.pin_chance(defender) if "pinned" in {h for h, _p in after} else None
    return WrestleOdds(
        a.rating,
        d.rating,
        sum(m.value for m in a.helpers),
        sum(m.value for m in d.helpers),
        hold,
        after,
        pin,
    )


def _ac_field(label: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=AC_MIN,
        max_value=AC_MAX,
        help_text=_("The armour's AC without magic or DEX (9 unarmoured); empty: from the AC."),
    )


class WrestleStartForm(ActionForm):
    """Grab someone: the first round of wrestling, from free. Neither wrestler is offered
    as a helper, and the one who grabs is not offered as the one grabbed."""

    acts_in_round = True
    dice_fields = ("attacker_natural", "defender_natural")
    kept = ("actor", "target", "secret")

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        bodies = [c for c in viewer.visible_list() if c.kind != Kind.SHIP]
        own = [c for c in viewer.controlled_list() if c.kind != Kind.SHIP]
        self.fields["actor"] = combatant_field(own, _("Who grabs"), refusal="dead_cannot_act")
        self.fields["target"] = combatant_field(bodies, _("Whom"), refusal="target_is_dead")
        self.fields["attacker_helpers"] = CombatantsField(
            bodies, _("Helping the one who grabs"), "dead_cannot_act"
        )
        self.fields["attacker_ac"] = _ac_field(_("Basic AC of the one who grabs"))
        self.fields["attacker_natural"] = _d20(_("Grabber's d20 rolled at the table"))
        if viewer.is_referee:
            self.fields["defender_helpers"] = CombatantsField(
                bodies, _("Helping the one grabbed"), "dead_cannot_act"
            )
            self.fields["defender_ac"] = _ac_field(_("Basic AC of the one grabbed"))
            self.fields["defender_natural"] = _d20(_("Defender's d20 rolled at the table"))
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        if not self.is_bound:
            actor = self.fields["actor"].find(self.initial.get("actor", ""))
            actor = actor or (self.fields["actor"].offered or [None])[0]
            self.initial["actor"] = actor.pk if actor else None
            if "target" not in self.initial:
                foe = next(
                    (c for c in self.fields["target"].offered if actor and c.side != actor.side),
                    None,
                )
                self.initial["target"] = foe.pk if foe else None
        self.without_dice_fields()
        self.apart_from("target")
        self.apart_from("attacker_helpers", "defender_helpers", besides=("actor", "target"))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        actor, target = data.get("actor"), data.get("target")
        data.setdefault("defender_helpers", [])
        data["defender_helpers"] = data.get("defender_helpers") or []
        data["attacker_helpers"] = data.get("attacker_helpers") or []
        data.setdefault("defender_natural", None)
        data["secret"] = bool(data.get("secret"))
        if actor is None or target is None:
            return data
        if actor.pk == target.pk:
            self.add_error("target", _("Nobody wrestles themselves: choose another."))
            return data
        pair = {actor.pk, target.pk}
        for name in ("attacker_helpers", "defender_helpers"):
            if any(c.pk in pair for c in data[name]):
                self.add_error(name, _("The two wrestlers cannot also help."))
        if data.get("attacker_ac") is None:
            data["attacker_ac"] = special.basic_ac(actor)
        if data.get("defender_ac") is None:
            data["defender_ac"] = special.basic_ac(target)
        for name, who in (("attacker_ac", actor), ("defender_ac", target)):
            try:
                special.rating(who, data[name])
            except RulesError as error:
                self.add_error(name if name in self.fields else None, message_for(error))
        return data

    def special_odds(self) -> WrestleOdds | None:
        values = form_values(self)
        actor, target = values.get("actor"), values.get("target")
        if actor is None or target is None or actor.pk == target.pk:
            return None
        by_pk = {c.pk: c for c in self.viewer.visible_list()}
        a, d = special.sides_of(
            actor,
            target,
            attacker_ac=values["attacker_ac"],
            defender_ac=values["defender_ac"],
            attacker_helpers=[c.pk for c in values.get("attacker_helpers") or []],
            defender_helpers=[c.pk for c in values.get("defender_helpers") or []],
            by_pk=by_pk,
        )
        return _after("free", a, d, target)


def wrestles_for(viewer: Viewer) -> list[Wrestle]:
    running = (
        Wrestle.objects.filter(
            encounter=viewer.encounter, ended=False, attacker__hp__gt=0, defender__hp__gt=0
        )
        .select_related("attacker", "defender")
        .order_by("pk")
    )
    return [
        w
        for w in running
        if viewer.is_referee or viewer.can_control(w.attacker) or viewer.can_control(w.defender)
    ]


def _wrestle_label(w: Wrestle, viewer: Viewer) -> str:
    """The two by name; one hidden from this player is someone unseen."""

    def name(c: Combatant) -> str:
        if c.hidden and not viewer.can_control(c):
            return str(_("someone unseen"))
        return c.name

    return f"{name(w.attacker)} — {name(w.defender)}"


class WrestleRoundForm(ActionForm):
    """Another round of a hold: both sides roll; a player types in only their own side's die."""

    dice_fields = ("attacker_natural", "defender_natural", "save_natural")
    kept = ("wrestle", "secret")

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.wrestles = wrestles_for(viewer)
        self.fields["wrestle"] = forms.ChoiceField(
            label=_("Wrestling"),
            choices=[(w.pk, _wrestle_label(w, viewer)) for w in self.wrestles],
            error_messages={"invalid_choice": _("That wrestling has ended.")},
        )
        wanted = self.data.get("wrestle") if self.is_bound else self.initial.get("wrestle")
        chosen = self.find(wanted) or (self.wrestles[0] if self.wrestles else None)
        if chosen is not None and not self.is_bound:
            self.initial["wrestle"] = chosen.pk
        referee = viewer.is_referee
        if chosen is None or referee or viewer.can_control(chosen.attacker):
            self.fields["attacker_natural"] = _d20(_("Holder's d20 rolled at the table"))
        if chosen is None or referee or viewer.can_control(chosen.defender):
            self.fields["defender_natural"] = _d20(_("Defender's d20 rolled at the table"))
            self.fields["save_natural"] = _d20(
                _("Pinned defender's save rolled at the table (d20)")
            )
        if referee:
            self.fields["penalty"] = forms.IntegerField(
                label=_("A pinned wrestler's WR penalty"),
                required=False,
                min_value=0,
                max_value=20,
                initial=wrestling.PINNED_PENALTY,
                help_text=_("3, or more at the referee's call."),
            )
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.without_dice_fields()

    def find(self, value: Any) -> Wrestle | None:
        return next((w for w in self.wrestles if str(w.pk) == str(value)), None)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        wrestle = self.find(data.get("wrestle"))
        if "wrestle" in data and wrestle is None:
            self.add_error("wrestle", _("That wrestling has ended."))
        data["wrestle"] = wrestle
        for name in ("attacker_natural", "defender_natural", "save_natural"):
            data.setdefault(name, None)
        data["secret"] = bool(data.get("secret"))
        if data.get("penalty") is None:
            data["penalty"] = wrestling.PINNED_PENALTY
        return data

    def special_odds(self) -> WrestleOdds | None:
        values = form_values(self)
        wrestle = values.get("wrestle")
        if wrestle is None:
            return None
        by_pk = {c.pk: c for c in self.viewer.encounter.combatants.all()}
        attacker, defender = by_pk[wrestle.attacker_id], by_pk[wrestle.defender_id]
        a, d = special.sides_of(
            attacker,
            defender,
            attacker_ac=wrestle.attacker_ac,
            defender_ac=wrestle.defender_ac,
            attacker_helpers=wrestle.attacker_helpers,
            defender_helpers=wrestle.defender_helpers,
            by_pk=by_pk,
        )
        penalty = values.get("penalty")
        return _after(
            wrestle.hold, a, d, defender, wrestling.PINNED_PENALTY if penalty is None else penalty
        )


class WrestleEndForm(ActionForm):
    """The referee parts two wrestlers."""

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.wrestles = wrestles_for(viewer)
        self.fields["wrestle"] = forms.ChoiceField(
            label=_("Wrestling"),
            choices=[(w.pk, _wrestle_label(w, viewer)) for w in self.wrestles],
            error_messages={"invalid_choice": _("That wrestling has ended.")},
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        found = next((w for w in self.wrestles if str(w.pk) == str(data.get("wrestle"))), None)
        if "wrestle" in data and found is None:
            self.add_error("wrestle", _("That wrestling has ended."))
        data["wrestle"] = found
        return data


# --- naval -------------------------------------------------------------------------------------


class ShipForm(ActionForm):
    """The referee puts a ship on the table: its hull points are its hit points."""

    name = forms.CharField(label=pgettext_lazy("ship", "Name"), max_length=60)
    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, initial=Side.FOES)
    # Each number in the range its field stores (rules.bounds), as the Edit combatant form.
    ac = bounded.form_field("ac", label=_("Armour class"), initial=8)
    hull_points = bounded.form_field("hp_max", label=_("Hull points"), initial=60)
    speed = bounded.form_field(
        "speed",
        label=_("Speed"),
        required=False,
        help_text=_("In any unit, e.g. feet per round; lost hull and rowers slow it."),
    )
    crew = bounded.form_field("crew", label=_("Crew"), required=False)
    rowers = bounded.form_field("rowers", label=_("Rowers"), required=False, initial=0)
    hidden = forms.BooleanField(label=_("Hidden from players"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["rowers"] = data.get("rowers") or 0
        name = (data.get("name") or "").strip()
        if "name" in data and not name:
            self.add_error("name", _("Please give a name."))
        data["name"] = name
        return data


def _ships(combatants: list[Combatant]) -> list[Combatant]:
    return [c for c in combatants if c.kind == Kind.SHIP]


@dataclass(frozen=True)
class RamOdds:
    needed: int | None
    hit: Fraction
    low: int
    high: int
    mean: Fraction
    against: str


class RamForm(ActionForm):
    """A galley rams a ship or a creature: THAC0 19 to hit, then the galley table's damage."""

    acts_in_round = True
    dice_fields = ("natural", "damage_dice")
    kept = ("actor", "target", "vessel", "secret")

    vessel = forms.ChoiceField(
        label=_("Ramming vessel"), choices=list(VESSELS.items()), initial="small_galley"
    )
    modifier = forms.IntegerField(
        label=_("Modifier"),
        required=False,
        min_value=-20,
        max_value=20,
        initial=0,
        help_text=_("The referee's, for weather, manoeuvrability and so on."),
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="dead_cannot_act"
        )
        self.fields["target"] = combatant_field(
            viewer.visible_list(), _("Target"), refusal="target_is_dead"
        )
        self.fields["natural"] = natural_field(20)
        self.fields["damage_dice"] = EnteredDiceField(
            label=_("Damage dice rolled at the table"), max_length=100, required=False
        )
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        if not self.is_bound:
            ship = self.fields["actor"].find(self.initial.get("actor", ""))
            ship = ship or (self.fields["actor"].offered or [None])[0]
            self.initial["actor"] = ship.pk if ship else None
            if "target" not in self.initial:
                foe = next(
                    (
                        c
                        for c in self.fields["target"].offered
                        if ship and c.side != ship.side and c.pk != ship.pk
                    ),
                    None,
                )
                self.initial["target"] = foe.pk if foe else None
        self.order_fields(["actor", "target", "vessel", "modifier", "natural", "damage_dice"])
        self.without_dice_fields()
        self.apart_from("target")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["modifier"] = data.get("modifier") or 0
        data["secret"] = bool(data.get("secret"))
        ship, target = data.get("actor"), data.get("target")
        if ship is not None and target is not None and ship.pk == target.pk:
            self.add_error("target", _("A ship cannot ram itself."))
        return data

    def special_odds(self) -> RamOdds | None:
        values = form_values(self)
        ship, target = values.get("actor"), values.get("target")
        if ship is None or target is None or ship.pk == target.pk:
            return None
        modifier = values.get("modifier") or 0
        hit = special.ram_odds(target, modifier)
        low, high, mean = special.ram_damage_range(values["vessel"], target)
        needed, _bonus = roll_needed(naval.RAM_THAC0, target.ac)
        against = str(special.ram_target(target))
        return RamOdds(min(max(needed - modifier, 2), 21), hit, low, high, mean, against)


@dataclass(frozen=True)
class GrappleOdds:
    chance: Fraction
    out_of_range: bool


class GrappleForm(ActionForm):
    """Grappling hooks: at 50 ft or less, 2 in 6 or by mutual agreement."""

    acts_in_round = True
    dice_fields = ("natural",)
    kept = ("actor", "target", "distance", "secret")

    distance = forms.IntegerField(
        label=_("Distance (ft)"), min_value=0, max_value=100_000, initial=30
    )
    mutual = forms.BooleanField(label=_("By mutual agreement"), required=False)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="dead_cannot_act"
        )
        self.fields["target"] = combatant_field(
            _ships(viewer.visible_list()), _("Ship grappled"), refusal="target_is_dead"
        )
        self.fields["natural"] = natural_field(6)
        self.fields["natural"].label = _("d6 rolled at the table")
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        if not self.is_bound:
            ship = self.fields["actor"].find(self.initial.get("actor", ""))
            ship = ship or (self.fields["actor"].offered or [None])[0]
            self.initial["actor"] = ship.pk if ship else None
            other = next(
                (c for c in self.fields["target"].offered if ship and c.pk != ship.pk), None
            )
            self.initial.setdefault("target", other.pk if other else None)
        self.order_fields(["actor", "target", "distance", "mutual", "natural"])
        self.without_dice_fields()
        self.apart_from("target")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["mutual"] = bool(data.get("mutual"))
        data["secret"] = bool(data.get("secret"))
        ship, target = data.get("actor"), data.get("target")
        if ship is not None and target is not None and ship.pk == target.pk:
            self.add_error("target", _("A ship cannot grapple itself."))
        return data

    def special_odds(self) -> GrappleOdds | None:
        values = form_values(self)
        if values.get("distance") is None:
            return None
        distance = values["distance"]
        return GrappleOdds(
            naval.grapple_odds(distance, bool(values.get("mutual"))),
            distance > naval.GRAPPLE_RANGE_FT,
        )


class HullDamageForm(ActionForm):
    """A magic or giant monster's damage to a hull, in hit points: 1 hull point per 5."""

    hit_points = forms.IntegerField(
        label=_("Damage in hit points"), min_value=0, max_value=1_000_000
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="target_is_dead"
        )
        self.order_fields(["actor", "hit_points"])

    def special_odds(self) -> int | None:
        values = form_values(self)
        if values.get("hit_points") is None:
            return None
        return naval.hull_damage_from_hit_points(values["hit_points"])


@dataclass(frozen=True)
class RepairOdds:
    repaired: int
    low: int  # the days the repairs hold: 5d6
    high: int
    mean: float


class RepairForm(ActionForm):
    """Temporary repairs by five crew or more: 1 hull point a turn up to half the damage."""

    dice_fields = ("life_dice",)
    kept = ("actor",)

    crew = forms.IntegerField(label=_("Crew repairing"), min_value=0, max_value=100_000, initial=5)
    turns = forms.IntegerField(
        label=_("Turns (10 minutes)"), min_value=1, max_value=1000, initial=1
    )
    life_dice = EnteredDiceField(
        label=_("5d6 rolled at the table: days the repairs hold"), max_length=60, required=False
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="target_is_dead"
        )
        self.order_fields(["actor", "crew", "turns", "life_dice"])
        self.without_dice_fields()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        crew = data.get("crew")
        if crew is not None and crew < naval.REPAIR_CREW:
            self.add_error("crew", _("Repairs need at least five crew."))
        return data

    def special_odds(self) -> RepairOdds | None:
        values = form_values(self)
        ship = values.get("actor")
        if ship is None:
            return None
        days = naval.repair_life_distribution()
        mean = sum(Fraction(d) * p for d, p in days.items())
        repaired = min(values.get("turns") or 1, special.ship_of(ship).repairable)
        return RepairOdds(repaired, min(days), max(days), float(mean))


class RowersForm(ActionForm):
    """Rowers lost: every full 10 % of them takes 10 % off the speed."""

    count = forms.IntegerField(label=_("Rowers lost"), min_value=0, max_value=100_000)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="target_is_dead"
        )
        self.order_fields(["actor", "count"])

    def special_odds(self) -> None:
        return None


@dataclass(frozen=True)
class BoardingOdds:
    needed: int | None
    hit: Fraction
    ac: int


class BoardingForm(RollForm):
    """A melee blow in the boarding round: the boarder is −2 to hit and its AC 2 worse."""

    acts_in_round = True
    field_order_extra = ("target", "boarding", "target_boarding")
    dice_fields = ("natural", "damage_dice")
    kept = ("actor", "target", "boarding", "target_boarding", "damage", "secret")
    boarding = forms.BooleanField(
        label=_("Attacker boarding"), help_text=_("−2 to hit."), required=False, initial=True
    )
    target_boarding = forms.BooleanField(
        label=_("Target boarding"), help_text=_("Its AC is 2 worse."), required=False
    )
    damage = DiceField(label=_("Damage"), max_length=40, required=False, initial="1d6")
    damage_dice = EnteredDiceField(
        label=_("Damage dice rolled at the table"), max_length=200, required=False
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        bodies = [c for c in viewer.visible_list() if c.kind != Kind.SHIP]
        self.fields["target"] = combatant_field(bodies, _("Target"), refusal="target_is_dead")
        self.fields["damage"].initial = local_dice("1d6")
        if not self.is_bound and "target" not in self.initial:
            actor = self.initial_actor()
            foe = next(
                (c for c in self.fields["target"].offered if actor and c.side != actor.side),
                None,
            )
            self.initial["target"] = foe.pk if foe else None
        self.order_fields(
            ["actor", "target", "boarding", "target_boarding", "modifier", "natural", "damage"]
        )
        self.without_dice_fields()
        self.apart_from("target")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["boarding"] = bool(data.get("boarding"))
        data["target_boarding"] = bool(data.get("target_boarding"))
        if data.get("damage_dice") and not data.get("damage"):
            self.add_error("damage", _("Give the damage dice to enter their results."))
        actor, target = data.get("actor"), data.get("target")
        if actor is not None and target is not None and actor.pk == target.pk:
            self.add_error("target", _("Nobody strikes themselves: choose another target."))
        return data

    def special_odds(self) -> BoardingOdds | None:
        values = form_values(self)
        attacker, target = values.get("actor"), values.get("target")
        if attacker is None or target is None or attacker.pk == target.pk:
            return None
        flags = {
            "boarding": bool(values.get("boarding")),
            "target_boarding": bool(values.get("target_boarding")),
        }
        modifier = values.get("modifier") or 0
        inputs = special.boarding_inputs(attacker, modifier=modifier, **flags)
        result = becmi_attack.resolve_attack(attacker.thac0, target.ac, natural=20, **inputs)
        needed = result.needed
        if needed is not None:
            needed = min(max(needed - sum(m.value for m in result.modifiers), 2), 21)
        return BoardingOdds(
            needed, special.boarding_odds(attacker, target, modifier=modifier, **flags), result.ac
        )


class RepairsFailForm(ActionForm):
    """The referee's: a ship's temporary repairs give way (their 5d6 days are up)."""

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            _ships(viewer.controlled_list()), _("Ship"), refusal="target_is_dead"
        )

    def special_odds(self) -> None:
        return None
