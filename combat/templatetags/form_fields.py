"""A form's fields as every panel shows them, each with its label, help and errors (drawn by
Django's form renderer from ``combat/forms/``: ``combat.renderer``); and the action panel
around a roll's form or the table's own (``{% action_panel %}``), written in Python: an
action's answer draws its panel again after every roll, and the panel's chain of
``{% elif %}`` and its URLs were a tenth of a change's server time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.forms import BaseForm, BoundField
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_lazy

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


# The panels drawn by ``action_panel``: the URL their form goes to (by name) and their
# heading; the rolls among them show their odds and roll.
PANELS = {
    "attack": ("attack", gettext_lazy("Attack")),
    "save": ("save", gettext_lazy("Saving throw")),
    "check": ("check", gettext_lazy("Ability check")),
    "hp": ("hit_points", gettext_lazy("Damage and healing")),
    "rest": ("rest", gettext_lazy("Rest: natural healing")),
    "roll": ("free_roll", gettext_lazy("Free roll")),
    "quick_add": ("quick_add", gettext_lazy("Add several monsters")),
}
WITH_ODDS = frozenset({"attack", "save", "check", "roll"})
ROLLING = WITH_ODDS | {"rest"}
ODDS_TRIGGER = "change from:closest form, input changed delay:250ms from:closest form"


@register.filter
def is_action_panel(panel: Any) -> bool:
    """Whether ``action_panel`` draws ``panel`` (the panel template asks it first)."""
    return panel == "combatant" or panel in PANELS


@register.simple_tag(takes_context=True)
def action_panel(context: template.Context) -> SafeString:
    """A panel's heading and form, as ``combat/_panel.html`` draws every panel it names no
    template of its own for: a roll's, damage and healing, adding combatants."""
    panel, encounter = context.get("panel"), context["encounter"]
    slug = encounter.slug
    if panel == "combatant":
        editing = context.get("editing")
        if editing:
            action = reverse("combatant_edit", args=[slug, editing.pk])
            heading = gettext("Edit combatant")
        else:
            action, heading = reverse("combatant_new", args=[slug]), gettext("Add combatant")
    elif panel in PANELS:
        name, heading = PANELS[panel]
        action = reverse(name, args=[slug])
    else:
        action, heading = "", ""
    action, page = escape(action), escape(reverse("encounter", args=[slug]))
    token = context.get("csrf_token")
    parts = [
        f"<h2>{escape(heading)}</h2>",
        f'<form method="post" action="{action}" hx-post="{action}" hx-target="#panel" '
        'class="stack roll-form" novalidate>',
    ]
    if token and token != "NOTPROVIDED":
        parts.append(f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(token)}">')
    parts.append(form_fields(context.get("form")))
    if panel in WITH_ODDS:
        odds = context.template.engine.get_template("combat/_odds.html").render(context)
        parts.append(
            f'<output class="odds" hx-get="{escape(reverse("odds", args=[slug, panel]))}" '
            'hx-target="this" hx-params="not csrfmiddlewaretoken" hx-include="closest form" '
            f'hx-trigger="{ODDS_TRIGGER}" hx-swap="innerHTML">{odds}</output>'
        )
    said = escape(gettext("Roll") if panel in ROLLING else gettext("Save"))
    close = escape(gettext("Close"))
    parts.append(
        f'<div class="buttons"> <button type="submit" class="primary">{said}</button> '
        f'<a href="{page}" class="button" hx-get="{page}" hx-select="#panel > *" '
        f'hx-target="#panel">{close}</a> </div>'
    )
    parts.append("</form>")
    return mark_safe("\n".join(parts))
