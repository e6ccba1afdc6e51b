"""The referee's zone form: damage to a zone (a fall, a trap, a spell), a severed limb's wound
treated, a zone healed. The zones offered are the combatant's body's; the engine decides."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat.body_fields import wound_dice_field
from combat.forms import ActionForm
from combat.models import HP_LIMIT, Combatant
from combat.zone_labels import zone_label
from combat.zones import plan_for, state_of


class ZoneForm(ActionForm):
    ACTIONS = [
        ("damage", pgettext_lazy("zone action", "Damage")),
        ("treat", pgettext_lazy("zone action", "Treat the wound")),
        ("heal", pgettext_lazy("zone action", "Heal")),
    ]
    kept = ("action", "zone")

    action = forms.ChoiceField(label=_("What"), choices=ACTIONS, initial="damage")
    zone = forms.ChoiceField(label=_("Body zone"))
    amount = forms.IntegerField(
        label=_("How many hit points"), min_value=0, max_value=HP_LIMIT, required=False
    )
    label = forms.CharField(
        label=_("What for"),
        max_length=60,
        required=False,
        help_text=_("A fall, a trap, a spell…"),
    )

    dice_fields = ("wound_dice",)

    def __init__(self, *args: Any, viewer: Any, combatant: Combatant, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.combatant = combatant
        self.fields["wound_dice"] = wound_dice_field()
        state = state_of(combatant)
        plan = state.plan if state is not None else plan_for(combatant)
        self.fields["zone"].choices = [
            (spec.zone.value, zone_label(spec.zone, spec.body)) for spec in plan.zones
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("action") in ("damage", "heal") and data.get("amount") is None:
            if "amount" not in self.errors:
                self.add_error("amount", _("How many hit points?"))
        return data
