"""The fields hit locations add to the combatant and attack forms: a body with its parts,
heights, the direction of an attack and the location die. Shown only when the encounter
plays hit locations; checked against what ``rules.hit_location`` accepts."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat.dice_input import EnteredDiceField
from combat.models import LENGTH_LIMIT, BodyKind, Combatant, WingCount
from combat.zone_labels import DIRECTIONS, VARIANTS
from combat.zones import (
    DEFAULT_HEIGHT,
    LEGS_ALLOWED,
    POSTURES,
    TAIL_ALLOWED,
    WINGS_ALLOWED,
    plan_for,
)
from rules import hit_location as hl
from rules.errors import RulesError

BODY_FIELDS = ("body", "wings", "tail", "legs", "height_ft", "weapon_ft")
LEG_CHOICES = [
    ("", pgettext_lazy("legs", "as usual for the body")),
    *((n, str(n)) for n in (2, 4, 6, 8, 10)),
]
MIN_HEIGHT = Decimal("0.1")


def length_field(label: Any, minimum: Decimal, help_text: Any = "") -> forms.DecimalField:
    return localized_length(
        forms.DecimalField(
            label=label,
            required=False,
            min_value=minimum,
            max_value=LENGTH_LIMIT,
            max_digits=7,
            decimal_places=2,
            help_text=help_text,
        )
    )


def localized_length(field: forms.DecimalField) -> forms.DecimalField:
    """A length as its reader writes numbers: 1,8 in Czech, Russian and Ukrainian, 1.8 in
    English (a point is read in every language). A text field with the phone's decimal
    keypad: a number field would refuse the comma."""
    field.localize = True
    field.widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})
    field.widget.is_localized = True
    return field


def body_form_fields() -> dict[str, forms.Field]:
    """The body fields of a combatant, for a form that is not a model form (quick-add)."""
    return {
        "body": forms.ChoiceField(
            label=_("Body type"), choices=BodyKind.choices, initial=BodyKind.HUMANOID
        ),
        "wings": forms.TypedChoiceField(
            label=_("Wings"), choices=WingCount.choices, coerce=int, initial=0
        ),
        "tail": forms.BooleanField(label=_("Tail"), required=False),
        "legs": legs_field(),
        "height_ft": length_field(
            _("Height (ft)"), MIN_HEIGHT, _("Empty: as usual for the body type.")
        ),
        "weapon_ft": length_field(_("Weapon length (ft)"), Decimal(0)),
    }


def with_preview(form: forms.Form, slug: str) -> None:
    """A picture of the body chosen under its field, drawn anew as the choice changes
    (``combat.views.zones.body_preview``)."""
    triggers = ", ".join(f"change from:#id_{name}" for name in ("body", "wings", "tail", "legs"))
    context = {"url": reverse("body_preview", args=[slug]), "triggers": triggers}
    preview = render_to_string("combat/forms/_body_preview.html", context).strip()
    form.fields["body"].help_text = mark_safe(preview)  # drawn by the template


def preview_plan(values: Any) -> hl.BodyPlan | None:
    """The plan the combatant form's body fields describe so far (None: not one yet)."""
    body = values.get("body")
    if body not in BodyKind.values:
        return None
    try:
        wings = int(values.get("wings") or 0)
        legs = int(values["legs"]) if values.get("legs") else None
    except ValueError:
        return None
    if wings not in WINGS_ALLOWED.get(body, (0,)) or (
        legs and legs not in LEGS_ALLOWED.get(body, ())
    ):
        return None
    sketch = Combatant(body=body, wings=wings, tail=bool(values.get("tail")), legs=legs)
    try:
        return plan_for(sketch)
    except RulesError:
        return None


def legs_field() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        label=_("Legs"),
        choices=LEG_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("Reptiles 2 or 4, insectoids 6, 8 or 10."),
    )


def clean_body(form: forms.Form, data: dict[str, Any]) -> None:
    """The parts the chosen body type cannot have are refused; heights get their default."""
    body = data.get("body")
    if not body:
        return
    if data.get("wings") not in WINGS_ALLOWED.get(body, (0,)) and body != "bird":
        form.add_error("wings", _("This body type cannot have that many wings."))
    if data.get("tail") and body not in TAIL_ALLOWED:
        form.add_error("tail", _("Only a humanoid's tail is optional."))
    legs = data.get("legs")
    if legs is not None and legs not in LEGS_ALLOWED.get(body, ()):
        form.add_error("legs", _("This body type cannot have that many legs."))
    if body == "bird":
        data["wings"] = 0  # a bird always has its two wings
    if data.get("height_ft") is None and "height_ft" not in form.errors:
        data["height_ft"] = DEFAULT_HEIGHT[body]
    if data.get("weapon_ft") is None and "weapon_ft" not in form.errors:
        data["weapon_ft"] = Decimal(0)


def directions_for(target: Combatant | None) -> list[tuple[str, Any]]:
    """The directions the target's body can be attacked from (all, until a target is known)."""
    allowed = [d.value for d in hl.Direction]
    if target is not None:
        try:
            allowed = [d.value for d in plan_for(target).directions]
        except RulesError:
            pass
    return [(key, DIRECTIONS[key]) for key in allowed]


def location_field() -> forms.IntegerField:
    return forms.IntegerField(
        label=_("Location d100 rolled at the table"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=_("Percentile dice: 00 is 100. Leave empty and the server rolls."),
    )


SPECIAL_FIELDS = ("special", "hold_round", "escape")
WOUND_FIELDS = ("wound_dice",)


def special_attack_fields() -> dict[str, forms.Field]:
    """A monster's special attacks (``rules.hit_location.SpecialAttack``)."""
    return {
        "special": forms.ChoiceField(
            label=_("Special attack"),
            required=False,
            choices=[
                ("", pgettext_lazy("special attack", "none")),
                ("constriction", pgettext_lazy("special attack", "constriction")),
                ("seize_and_tear", pgettext_lazy("special attack", "seize and tear (19+)")),
                ("swallow", pgettext_lazy("special attack", "swallow (18+)")),
            ],
        ),
        "hold_round": forms.IntegerField(
            label=_("Round of the hold"),
            required=False,
            min_value=1,
            max_value=1000,
            initial=1,
            help_text=_("Constriction: +3 damage after the first round."),
        ),
        "escape": forms.IntegerField(
            label=_("Escape d100 rolled at the table"),
            required=False,
            min_value=1,
            max_value=100,
            help_text=_("Swallowed unless 10 or less (not for damage 6-24)."),
        ),
    }


def wound_dice_field() -> forms.Field:
    """Dice a wound calls for (a humanoid's lost tail: 1d6 DEX; death and writhing timers),
    typed in from the table in the order the wound needs them."""
    return EnteredDiceField(
        label=_("Wound dice rolled at the table"),
        max_length=60,
        required=False,
        help_text=_("Only if the wound calls for dice (a lost tail, a death timer); in order."),
    )


def posture_field() -> forms.ChoiceField:
    """The target's posture of the moment, which changes what each direction reaches."""
    return forms.ChoiceField(
        label=_("Target's posture"),
        required=False,
        choices=[
            ("", pgettext_lazy("posture", "as usual")),
            *((key, VARIANTS[key]) for key in POSTURES),
        ],
        help_text=_("Wings folded: birds; upright: reptiles; coiled: snakes."),
    )


def clean_posture(form: forms.Form, data: dict[str, Any]) -> None:
    posture, target = data.get("posture"), data.get("target")
    if posture and target is not None and POSTURES[posture][0] != target.body:
        form.add_error("posture", _("This body type has no such variant."))
