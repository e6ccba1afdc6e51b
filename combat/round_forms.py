"""The forms of the round: starting a fight, initiative, morale, conditions and the
fight's end (the referee's), each with its one-time key and, where a die is rolled, a
field for the die rolled at the table."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat.bounded import limits
from combat.dice_input import EnteredDiceField
from combat.forms import ActionForm, CombatantField
from combat.models import MORALE_MAX, MORALE_MIN, Combatant, ConditionKind, InitiativeMode, Side
from combat.rounds import FightSummary, SlainFoe, shares_of
from rules import rounds as rules

ROUNDS_PER_TURN = rules.ROUNDS_PER_TURN  # a turn is ten minutes; a round, ten seconds


def _d6(label: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=1,
        max_value=6,
        help_text=_("Leave empty and the server rolls."),
    )


class StartFightForm(ActionForm):
    dice_fields = ("party_die", "foes_die")

    surprise = forms.BooleanField(label=_("Roll for surprise"), required=False, initial=True)
    party_die = _d6(_("Party's surprise die (d6)"))
    foes_die = _d6(_("Foes' surprise die (d6)"))


class InitiativeForm(ActionForm):
    """Group initiative: a d6 per side. Individual: a d6 per combatant still in the fight,
    each field named after its combatant."""

    def __init__(self, *args: Any, viewer: Any, combatants: list[Combatant], **kwargs: Any):
        super().__init__(*args, viewer=viewer, **kwargs)
        self.individual = viewer.encounter.initiative_mode == InitiativeMode.INDIVIDUAL
        self.combatants = [c for c in combatants if not c.dead and not c.fled]
        if self.individual:
            for c in self.combatants:
                self.fields[f"die_{c.pk}"] = forms.IntegerField(
                    label=c.name, required=False, min_value=1, max_value=6
                )
        else:
            self.fields["party_die"] = _d6(_("Party's initiative die (d6)"))
            self.fields["foes_die"] = _d6(_("Foes' initiative die (d6)"))
        self.dice_fields = tuple(name for name in self.fields if name != "once")
        self.without_dice_fields()

    def action_values(self) -> dict[str, Any]:
        data = self.cleaned_data
        if self.individual:
            typed = {c.pk: data.get(f"die_{c.pk}") for c in self.combatants}
            return {"dice": {pk: die for pk, die in typed.items() if die is not None}}
        return {"party_die": data.get("party_die"), "foes_die": data.get("foes_die")}


class MoraleForm(ActionForm):
    dice_fields = ("dice",)
    kept = ()

    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, initial=Side.FOES)
    score = forms.IntegerField(
        label=_("Morale"),
        min_value=MORALE_MIN,
        max_value=MORALE_MAX,
        help_text=_("The side's morale score: the lowest of its living members."),
    )
    dice = EnteredDiceField(label=_("2d6 rolled at the table"), max_length=20, required=False)
    why = forms.CharField(widget=forms.HiddenInput, required=False, max_length=16)
    flee = forms.BooleanField(
        label=_("On a failure, mark them as fled"), required=False, initial=True
    )

    def clean_dice(self) -> list[int] | None:
        dice = self.cleaned_data.get("dice")
        if dice is not None and len(dice) != 2:
            raise forms.ValidationError(_("Enter both dice, e.g. 3 5."))
        return dice

    def clean_why(self) -> str:
        why = self.cleaned_data.get("why", "")
        return why if why in ("first_death", "half") else ""


class ConditionForm(ActionForm):
    UNITS = [
        ("rounds", pgettext_lazy("duration", "rounds")),
        ("turns", pgettext_lazy("duration", "turns (10 minutes)")),
        ("until_removed", pgettext_lazy("duration", "until removed")),
    ]

    kind = forms.ChoiceField(label=_("Condition"), choices=ConditionKind.choices)
    note = forms.CharField(label=_("Note"), max_length=60, required=False)
    duration = forms.IntegerField(
        label=_("Duration"), min_value=1, max_value=999, required=False, initial=1
    )
    unit = forms.ChoiceField(label=_("Counted in"), choices=UNITS, initial="rounds")

    def __init__(self, *args: Any, viewer: Any, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["combatant"] = CombatantField(viewer.visible_list(), _("Who"))
        self.order_fields(["combatant", "kind", "note", "duration", "unit"])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        unit, duration = data.get("unit"), data.get("duration")
        if unit in ("rounds", "turns") and not duration:
            self.add_error("duration", _("How long does it last?"))
        if data.get("kind") == ConditionKind.OTHER and not data.get("note"):
            self.add_error("note", _("Say what the condition is."))
        return data

    @property
    def rounds(self) -> int | None:
        data = self.cleaned_data
        if data.get("unit") == "until_removed":
            return None
        factor = ROUNDS_PER_TURN if data.get("unit") == "turns" else 1
        return data["duration"] * factor


MAX_XP = limits("xp")[1]  # for one foe, as a monster's XP is stored (rules.bounds)
MAX_SHARES = 100
SUMMARY_CHANGED = _(
    "Who was slain has changed since this summary was opened: check it and share again."
)


class EndFightForm(ActionForm):
    """The fight's end as it will be shared: the experience for each slain foe (the table's
    figure to start with, the referee's to keep), an extra line, and how many share it.
    ``at`` is the round's state the summary was drawn in."""

    at = forms.CharField(widget=forms.HiddenInput, max_length=40)
    extra = forms.CharField(
        label=_("Extra line"),
        max_length=200,
        required=False,
        help_text=_("Shared with the summary, e.g. treasure: 300 gp."),
    )
    shares = forms.IntegerField(
        label=_("Shared by how many"),
        min_value=1,
        max_value=MAX_SHARES,
        required=False,
        help_text=_("Optional: what each gets, rounded down, and what is left over."),
    )

    def __init__(self, *args: Any, viewer: Any, summary: FightSummary, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.summary = summary
        for foe in summary.slain:
            self.fields[f"xp_{foe.pk}"] = forms.IntegerField(
                label=foe.name, min_value=0, max_value=MAX_XP, initial=foe.xp
            )
        self.order_fields(["at", *self.xp_names, "extra", "shares"])

    @property
    def xp_names(self) -> list[str]:
        return [f"xp_{foe.pk}" for foe in self.summary.slain]

    @property
    def rows(self) -> list[tuple[SlainFoe, forms.BoundField]]:
        """Each slain foe with its field, for the panel's table."""
        return [(foe, self[f"xp_{foe.pk}"]) for foe in self.summary.slain]

    @property
    def preview(self) -> dict[str, Any]:
        """The head of the summary as the log will show it (rounds, who fell and fled)."""
        return {"kind": "combat", "data": self.summary.summary_part()}

    def xp_values(self) -> dict[int, int]:
        return {foe.pk: self.cleaned_data[f"xp_{foe.pk}"] for foe in self.summary.slain}

    def totals(self) -> dict[str, Any] | None:
        """The total and its shares as the form stands (typed, or as it opened); None while
        a number is missing or wrong."""
        if self.is_bound:
            if not self.is_valid():
                return None
            figures = list(self.xp_values().values())
            shares = self.cleaned_data.get("shares")
        else:
            try:
                opened = {name: self[name].field.clean(self[name].value()) for name in self.fields}
            except forms.ValidationError:
                return None
            figures = [opened[name] for name in self.xp_names]
            shares = opened["shares"]
        total = sum(figures)
        each = shares_of(total, shares)
        return {
            "total": total,
            "shares": shares,
            "each": each[0] if each else None,
            "remainder": each[1] if each else None,
        }
