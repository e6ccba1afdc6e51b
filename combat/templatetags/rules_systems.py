"""The rules system a template's encounter plays, as the registry describes it
(``{{ encounter|rules_system }}``): which templates draw its row buttons, tools and rows."""

from __future__ import annotations

from typing import Any

from django import template

from combat import registry

register = template.Library()


@register.filter
def rules_system(encounter: Any) -> registry.System:
    return registry.of(encounter)
