"""A form's fields as every panel shows them: each with its label, help and errors.

Written in Python rather than as an included template: an action's answer draws its form
again after every roll, and the template's own steps (half of drawing the fields, before
Django drew a single label or widget) were a tenth of a change's server time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.forms import BaseForm, BoundField
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

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
