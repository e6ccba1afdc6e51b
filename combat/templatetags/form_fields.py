"""A form's fields as every panel shows them, each with its label, help and errors (drawn by
Django's form renderer from ``combat/forms/``: ``combat.renderer``); and what the action panel
around a roll's form says (``{% panel_drawing %}``, drawn by ``combat/_roll_panel.html``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.forms import BaseForm, BoundField
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from combat.views import panels

register = template.Library()


@register.simple_tag
def fields(bound: Iterable[BoundField]) -> SafeString:
    """``bound`` fields, each as every panel shows it (``combat/forms/field.html``)."""
    return mark_safe("".join(field.as_field_group() for field in bound))


@register.simple_tag
def form_fields(form: BaseForm | Any) -> SafeString:
    """A whole form (``combat/forms/form.html``): its errors that are no field's, its visible
    fields, its hidden ones."""
    if not isinstance(form, BaseForm):
        return mark_safe("")  # no form in the context: nothing, as the template drew
    return form.render()


ODDS_TRIGGER = "change from:closest form, input changed delay:250ms from:closest form"


@register.simple_tag(takes_context=True)
def panel_drawing(context: template.Context) -> dict[str, Any] | None:
    """What ``combat/_roll_panel.html`` needs to draw the panel in context: its template,
    heading, where its form posts, the odds it shows and what its button says; None for a
    panel drawn otherwise. The panels of every rules system come from the registry
    (``combat.views.panels.find``); adding or editing a combatant and adding several
    monsters are the table's own."""
    panel, slug = context.get("panel"), context["encounter"].slug
    if panel == "combatant":
        editing = context.get("editing")
        if editing:
            action = reverse("combatant_edit", args=[slug, editing.pk])
            return _drawing(action, gettext("Edit combatant"), gettext("Save"))
        return _drawing(
            reverse("combatant_new", args=[slug]), gettext("Add combatant"), gettext("Save")
        )
    if panel == "quick_add":
        action = reverse("quick_add", args=[slug])
        return _drawing(action, gettext("Add several monsters"), gettext("Save"))
    found = panels.find(panel) if panel else None
    if found is None:
        return None
    spec = found[1]
    drawing = _drawing(reverse(spec.name, args=[slug]), spec.heading, spec.button)
    drawing |= {"template": spec.template, "css": spec.css}
    if spec.odds:
        drawing["odds_url"] = reverse(spec.odds_name, args=[slug, spec.key])
        drawing["odds_template"] = spec.odds_template
    return drawing


def _drawing(action: str, heading: Any, button: Any) -> dict[str, Any]:
    return {
        "template": "combat/_roll_panel.html",
        "action": action,
        "heading": heading,
        "button": button,
    }
