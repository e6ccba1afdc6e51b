"""A Jinja template drawn inside a Django one: a fragment the log (Jinja's, ``combat.jinja``)
and a page share is written once, as the log's."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from combat.jinja import render

register = template.Library()


@register.simple_tag
def jinja(template_name: str, **context: Any) -> SafeString:
    """``{% jinja "combat/_acting.jinja" sides=... names=... %}``: the template drawn with
    those values only, as ``{% include ... with ... only %}`` would."""
    return mark_safe(render(template_name, context))
