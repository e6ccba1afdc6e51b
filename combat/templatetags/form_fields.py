"""A form's fields as every panel shows them: each with its label, help and errors; and what
the action panel around a roll's form says (``{% panel_drawing %}``, drawn by
``combat/_roll_panel.html``).

The fields are written in Python rather than as included templates: an action's answer draws
its panel again after every roll, and the templates' own steps (half of drawing the fields,
before Django drew a single label or widget) were a tenth of a change's server time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.forms import BaseForm, BoundField
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from combat.views import panels

register = template.Library()


@register.simple_tag
def fields(bound: Iterable[BoundField]) -> SafeString:
    """``bound`` fields, each in its box: a checkbox before its label, anything else after
    it; a number field narrow, the others wide."""
    return mark_safe("".join(_field(field) for field in bound))


def _field(field: BoundField) -> str:
    kind = getattr(field.field.widget, "input_type", None)
    classes = "field"
    if field.errors:
        classes += " invalid"
    if kind == "checkbox":
        classes += " check"
    elif kind != "number":
        classes += " wide"
    widget, label = conditional_escape(field), conditional_escape(field.label_tag())
    parts = [f"{widget} {label}" if kind == "checkbox" else f"{label} {widget}"]
    if field.help_text:
        parts.append(f'<small class="help">{conditional_escape(field.help_text)}</small>')
    if field.errors:
        parts.append(f'<div class="errors" role="alert">{conditional_escape(field.errors)}</div>')
    return f'<div class="{classes}"> {" ".join(parts)} </div>'


@register.simple_tag
def form_fields(form: BaseForm | Any) -> SafeString:
    """A whole form: its errors that are no field's, its visible fields, its hidden ones."""
    if not isinstance(form, BaseForm):
        return mark_safe("")  # no form in the context: nothing, as the template drew
    parts = []
    errors = form.non_field_errors()
    if errors:
        parts.append(f'<div class="errors" role="alert">{conditional_escape(errors)}</div>')
    parts.append(fields(form.visible_fields()))
    parts += [conditional_escape(field) for field in form.hidden_fields()]
    return mark_safe("".join(parts))


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
