"""Forms of the group rolls: several attackers at once, and an area effect on several targets.

Who takes part is ticked in a list of the living (or picked by name: "every Goblin"), each
with fields of their own in the same row: a target of their own, the dice rolled for them at
the table. Like every roll form these only check and convert input; ``combat.group`` applies
it, and ``combat.odds`` tells each attack's or save's odds before the roll.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext_lazy as _

from combat import odds
from combat.access import Viewer
from combat.dice_input import EnteredDiceField, local_dice
from combat.errors import message_for
from combat.forms import (
    MODIFIER_LIMIT,
    SAVE_CHOICES,
    ActionForm,
    AttackForm,
    CombatantField,
    CombatantsField,
    DiceField,
    SaveForm,
    modifier_field,
    natural_field,
)
from combat.group import HALF, NONE, Exposed, Planned
from combat.models import Combatant, Side
from rules import dice
from rules.errors import RulesError

# "Goblin 3" is one of the Goblins: the names quick-add gives, and most referees write.
NUMBERED = re.compile(r"^(.*\S)\s+\d+$")


def kin_of(name: str) -> str:
    """The name a combatant shares with others of its kind: its own without a number."""
    match = NUMBERED.match(name)
    return match.group(1) if match else name


@dataclass(frozen=True)
class Row:
    """One combatant's line of the list: its tick box and its own fields."""

    combatant: Combatant
    box: Any  # the tick box (a BoundWidget)
    cells: list[forms.BoundField]


@dataclass(frozen=True)
class OddsLine:
    """The odds of one attack (who, on whom) or one target's save (who)."""

    who: str
    odds: odds.Odds | None
    target: str = ""


class GroupForm(ActionForm):
    """What both group forms share: the list of who takes part, picks by name, and a row of
    fields per combatant. Subclasses say who may be chosen and what each row holds."""

    members = "attackers"
    members_label: Any = ""
    members_refusal = ""  # the refusal a dead member meets (a code); not ActionForm.refusal()
    nobody: Any = ""  # the message when no one is chosen
    lists = ("picks",)  # fields holding several values, kept as lists

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        field = CombatantsField(self.candidates(), self.members_label, self.members_refusal)
        self.fields[self.members] = field
        self.living = field.offered
        counts = Counter(kin_of(c.name) for c in self.living)
        self.fields["picks"] = forms.MultipleChoiceField(
            label=self.members_label,
            choices=[
                (kin, _("every %(name)s (%(count)s)") % {"name": kin, "count": count})
                for kin, count in counts.items()
                if count > 1
            ],
            required=False,
            widget=forms.CheckboxSelectMultiple,
        )
        self._probe: GroupForm | None = None
        self.row_names: dict[int, list[str]] = {}
        for combatant in self.living:
            names = []
            for key, row_field in self.row_fields(combatant).items():
                name = f"{key}_{combatant.pk}"
                row_field.widget.attrs["aria-label"] = f"{row_field.label}: {combatant.name}"
                self.fields[name] = row_field
                names.append(name)
            self.row_names[combatant.pk] = names
        self.dice_fields = (*self.dice_fields, *self.row_dice_names())
        self.without_dice_fields()

    # --- what subclasses say ----------------------------------------------------------------

    def candidates(self) -> list[Combatant]:
        raise NotImplementedError

    def row_fields(self, combatant: Combatant) -> dict[str, forms.Field]:
        raise NotImplementedError

    row_dice: tuple[str, ...] = ()  # the row fields holding dice rolled at the table

    # --- the list ---------------------------------------------------------------------------

    def row_dice_names(self) -> list[str]:
        return [f"{key}_{c.pk}" for c in self.living for key in self.row_dice]

    @property
    def rows(self) -> list[Row]:
        boxes = {str(box.data["value"]): box for box in self[self.members].subwidgets}
        return [
            Row(
                combatant,
                boxes[str(combatant.pk)],
                [self[name] for name in self.row_names[combatant.pk] if name in self.fields],
            )
            for combatant in self.living
        ]

    @property
    def columns(self) -> list[Any]:
        """The labels of a row's own fields, as the list's column headings."""
        if not self.living:
            return []
        return [
            self.fields[name].label
            for name in self.row_names[self.living[0].pk]
            if name in self.fields
        ]

    @property
    def members_field(self) -> forms.BoundField:
        return self[self.members]

    @property
    def main_fields(self) -> list[forms.BoundField]:
        """The fields shared by the whole group, below the list."""
        shown = {self.members, "picks", *(n for names in self.row_names.values() for n in names)}
        return [field for field in self.visible_fields() if field.name not in shown]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        ticked = {c.pk for c in data.get(self.members) or []}
        picked = set(data.get("picks") or [])
        chosen = [c for c in self.living if c.pk in ticked or kin_of(c.name) in picked]
        data["chosen"] = chosen
        if not chosen and self.members not in self.errors:
            self.add_error(self.members, self.nobody)
        for combatant in self.living:
            if combatant in chosen:
                continue
            for key in self.row_dice:
                if data.get(f"{key}_{combatant.pk}") is not None:
                    self.add_error(
                        f"{key}_{combatant.pk}",
                        _("%(name)s is not chosen: tick it, or leave its dice empty.")
                        % {"name": combatant.name},
                    )
        return data

    def _checked_dice(
        self, expression: dice.DiceExpression | None, entered: list[int] | None, field: str
    ) -> None:
        """Dice typed in for ``expression``: as many as it rolls, each one a face of its die."""
        if entered is None or expression is None:
            return
        try:
            dice.roll(expression, entered=entered)
        except RulesError as error:
            self.add_error(field, message_for(error))

    def kept_values(self) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for name in self.kept:
            if name not in self.data:
                continue
            if name in self.lists and hasattr(self.data, "getlist"):
                kept[name] = self.data.getlist(name)
            else:
                kept[name] = self.data[name]
        return kept

    def values(self) -> dict[str, Any]:
        """The form's valid values so far, whether it was posted or only prefilled (as
        ``combat.odds`` reads a single roll's form); the probe is built once."""
        if self.is_bound:
            self.is_valid()
            return self.cleaned_data
        if self._probe is None:
            data = MultiValueDict()
            for name, field in self.fields.items():
                value = self.get_initial_for_field(field, name)
                if isinstance(value, list | tuple):
                    data.setlist(name, [str(getattr(v, "pk", v)) for v in value])
                elif value is not None:
                    data[name] = getattr(value, "pk", value)
            self._probe = type(self)(data, viewer=self.viewer)
            self._probe.is_valid()
        return self._probe.cleaned_data


MODE_CHOICES = AttackForm.base_fields["mode"].choices


class GroupAttackForm(GroupForm):
    """Several attackers, one target for all unless a row names its own; one attack mode,
    modifier and damage for all. Each attack is then resolved as a single attack is. A row's
    own target is never its attacker (the group's target may be one of the attackers: the
    form refuses that attacker's attack on itself)."""

    acts_in_round = True
    members = "attackers"
    members_label = _("Attackers")
    members_refusal = "dead_cannot_act"
    nobody = _("Choose at least one attacker.")
    lists = ("attackers", "picks")
    row_dice = ("natural", "damage_dice")
    kept = ("attackers", "picks", "target", "mode", "damage", "secret")

    mode = forms.ChoiceField(label=_("Attack"), choices=MODE_CHOICES, initial="melee")
    damage = DiceField(label=_("Damage"), max_length=40, required=False, initial="1d6")

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        target = CombatantField(self.viewer.visible_list(), _("Target"), "target_is_dead")
        target.required = False  # needed only by attackers without a target of their own
        self.fields["target"] = target
        self.fields["modifier"] = modifier_field(MODIFIER_LIMIT)
        self.fields["damage"].initial = local_dice("1d6")
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.order_fields(["target", "mode", "modifier", "damage", "secret"])
        if not self.is_bound and target.find(self.initial.get("target")) is None:
            # None named, or the one kept from the last roll has died of it.
            self.initial["target"] = self._first_opponent()

    def candidates(self) -> list[Combatant]:
        return self.viewer.controlled_list()

    def row_fields(self, combatant: Combatant) -> dict[str, forms.Field]:
        own = CombatantField(self.viewer.visible_list(), _("Target"), "target_is_dead")
        own.required = False
        others = [(pk, label) for pk, label in own.choices if pk != combatant.pk]
        own.choices = [("", _("the group's target")), *others]
        return {
            "target": own,
            "natural": natural_field(20),
            "damage_dice": EnteredDiceField(
                label=_("Damage dice rolled at the table"), max_length=200, required=False
            ),
        }

    def _first_opponent(self) -> int | None:
        """The first one standing on the other side of the first attacker kept from the last
        roll; with none kept, the first of the party standing (the referee's monsters
        attack the party), so the odds show at once."""
        kept = {str(pk) for pk in self.initial.get("attackers") or []}
        first = next((c for c in self.living if str(c.pk) in kept), None)
        side = first.side if first else Side.FOES
        standing = self.fields["target"].offered
        found = next((c for c in standing if c.side != side), None)
        return found.pk if found else None

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        attacks = []
        for attacker in data["chosen"]:
            pk = attacker.pk
            if f"target_{pk}" in self.errors:
                continue  # a dead target of its own: said on its row
            own = data.get(f"target_{pk}")
            target = own or data.get("target")
            if target is None:
                if "target" not in self.errors:
                    self.add_error("target", self.fields["target"].error_messages["required"])
                continue
            if target.pk == pk:
                self.add_error(
                    f"target_{pk}" if own else "target",
                    _("%(name)s cannot attack itself.") % {"name": attacker.name},
                )
                continue
            entered = data.get(f"damage_dice_{pk}")
            if entered is not None and data.get("damage") is None and "damage" not in self.errors:
                self.add_error("damage", _("Give the damage dice to enter their results."))
            self._checked_dice(data.get("damage"), entered, f"damage_dice_{pk}")
            attacks.append(Planned(attacker, target, data.get(f"natural_{pk}"), entered))
        data["attacks"] = attacks
        return data

    def action_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "attacks": data["attacks"],
            "mode": data["mode"],
            "modifier": data.get("modifier") or 0,
            "damage": data.get("damage"),
            "secret": bool(data.get("secret")),
            "once": data.get("once", ""),
            "despite_surprise": bool(data.get("despite_surprise")),
        }

    def odds_lines(self) -> list[OddsLine]:
        """Each attack's odds to hit, as the single attack form would show them."""
        values = self.values()
        mode = values.get("mode") or "melee"
        modifier = values.get("modifier") or 0
        lines = []
        for planned in values.get("attacks", []):
            single = AttackForm(
                viewer=self.viewer,
                initial={
                    "actor": planned.attacker.pk,
                    "target": planned.target.pk,
                    "mode": mode,
                    "modifier": modifier,
                    "despite_surprise": bool(values.get("despite_surprise")),
                },
            )
            lines.append(
                OddsLine(planned.attacker.name, odds.for_form(single), planned.target.name)
            )
        return lines


class AreaEffectForm(GroupForm):
    """One damage roll on several targets, each saving against it: a success halves the
    damage or negates it, as the effect says."""

    members = "targets"
    members_label = _("Targets")
    members_refusal = "target_is_dead"
    nobody = _("Choose at least one target.")
    lists = ("targets", "picks")
    dice_fields = ("damage_dice",)
    row_dice = ("natural",)
    kept = ("category", "on_save", "damage", "label", "secret", "players_roll")

    label = forms.CharField(label=_("What"), max_length=60, required=False)
    damage = DiceField(label=_("Damage"), max_length=40, required=False)
    damage_dice = EnteredDiceField(
        label=_("Damage dice rolled at the table"), max_length=200, required=False
    )
    category = forms.ChoiceField(label=_("Saving throw"), choices=SAVE_CHOICES)
    on_save = forms.ChoiceField(
        label=_("A successful save"),
        choices=[(HALF, _("halves the damage")), (NONE, _("negates the damage"))],
        initial=HALF,
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["modifier"] = modifier_field(MODIFIER_LIMIT)
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.fields["players_roll"] = forms.BooleanField(
            label=_("Players roll their characters' saves on their phones"),
            required=False,
            help_text=_("The damage is rolled now; each character takes it once its save is in."),
        )
        self.order_fields(
            [
                "label",
                "damage",
                "damage_dice",
                "category",
                "on_save",
                "modifier",
                "players_roll",
                "secret",
            ]
        )

    def candidates(self) -> list[Combatant]:
        return self.viewer.visible_list()

    def row_fields(self, combatant: Combatant) -> dict[str, forms.Field]:
        return {"natural": natural_field(20)}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("damage") is None and "damage" not in self.errors:
            self.add_error("damage", _("Give a dice expression, e.g. 2d6."))
        self._checked_dice(data.get("damage"), data.get("damage_dice"), "damage_dice")
        data["label"] = (data.get("label") or "").strip()
        data["targets"] = [Exposed(c, data.get(f"natural_{c.pk}")) for c in data["chosen"]]
        return data

    def action_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "targets": data["targets"],
            "damage": data["damage"],
            "damage_dice": data.get("damage_dice"),
            "category": data["category"],
            "on_save": data["on_save"],
            "modifier": data.get("modifier") or 0,
            "label": data["label"],
            "secret": bool(data.get("secret")),
            "players_roll": bool(data.get("players_roll")),
            "once": data.get("once", ""),
        }

    def odds_lines(self) -> list[OddsLine]:
        """Each target's odds to save, as the single saving-throw form would show them."""
        values = self.values()
        category = values.get("category")
        if category is None:
            return []
        modifier = values.get("modifier") or 0
        lines = []
        for exposed in values.get("targets", []):
            single = SaveForm(
                viewer=self.viewer,
                initial={"actor": exposed.target.pk, "category": category, "modifier": modifier},
            )
            lines.append(OddsLine(exposed.target.name, odds.for_form(single)))
        return lines

    def damage_odds(self) -> odds.DiceOdds | None:
        """The damage's range and average, before it is rolled."""
        expression = self.values().get("damage")
        if expression is None:
            return None
        try:
            return odds.DiceOdds.of(expression)
        except RulesError:
            return None
