"""The referee's forms for the party going on (``combat.party``): the next encounter, and a
party file to add to this one."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from combat.access import Viewer
from combat.forms import CombatantsField, OnceMixin
from combat.models import Combatant, Encounter, Side
from combat.systems import common as systems


def _choice_label(combatant: Combatant) -> str:
    """A party member as the referee picks who goes on: with the hit points it goes on with."""
    if combatant.dead:
        label = gettext("%(name)s (dead)") % {"name": combatant.name}
    else:
        label = gettext("%(name)s (%(hp)s/%(max)s hit points)") % {
            "name": combatant.name,
            "hp": combatant.hp,
            "max": combatant.hp_max,
        }
    if combatant.hidden:
        label = gettext("%(label)s, hidden from players") % {"label": label}
    return label


class MoveOnForm(OnceMixin, forms.Form):
    """The next encounter with this party: its name, its rules system (this one's unless the
    referee picks another: armour class and attack values are then converted to its scale),
    and who of the party goes on (the living, unless the referee ticks otherwise)."""

    name = forms.CharField(
        label=_("Name of the next encounter"),
        max_length=Encounter._meta.get_field("name").max_length,
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        party = [c for c in viewer.combatants if c.side == Side.PARTY]
        carried = CombatantsField(party, _("Who goes on"), refusal="")
        carried.choices = [(c.pk, _choice_label(c)) for c in party]
        carried.help_text = _(
            "With their hit points, abilities, notes and wounds as they stand. Each player "
            "seated with one of them gets a seat there, and a button to follow."
        )
        self.fields["carried"] = carried
        self.initial.setdefault("carried", [c.pk for c in party if not c.dead])
        self.fields["system"] = forms.ChoiceField(
            label=_("Rules system"),
            choices=systems.system_choices(),
            initial=viewer.encounter.system,
            required=False,  # not sent (an older page): this encounter's
            help_text=_(
                "Another system converts armour class and attack values to its scale "
                "(19 − AC, 19 − THAC0) and says so in the log."
            ),
        )
        self.order_fields(["name", "system", "carried"])

    def plain_fields(self) -> list[forms.BoundField]:
        """The fields drawn one under another; who goes on is a list of its own."""
        return [self["name"], self["system"]]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Please give a name."))
        return name

    def clean_system(self) -> str:
        return self.cleaned_data["system"] or self.viewer.encounter.system

    def clean_carried(self) -> list[Combatant]:
        carried = self.cleaned_data["carried"]
        if not carried:
            raise forms.ValidationError(_("Tick at least one of the party to go on."))
        return carried


class PartyFileForm(OnceMixin, forms.Form):
    """A party file to add to this encounter's party side."""

    file = forms.FileField(
        label=_("Party file (.json, at most 1 MB)"),
        required=False,  # said by the view, in the file kind's own words
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
    )
