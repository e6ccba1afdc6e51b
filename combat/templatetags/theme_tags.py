"""The theme a page is rendered in (combat.theme), for base.html's <html> and its switch."""

from __future__ import annotations

from django import template
from django.template.context import Context

from combat import theme

register = template.Library()


@register.simple_tag(takes_context=True)
def chosen_theme(context: Context) -> str:
    request = context.get("request")
    return theme.chosen(request) if request is not None else ""
