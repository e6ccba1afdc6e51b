"""The reason a rules system's roll gives for a modifier, in the viewer's language (the shared
reasons and each registered system's own)."""

from __future__ import annotations

from typing import Any

from django import template

from combat.systems.common import reason_label

register = template.Library()


@register.filter
def system_reason(key: str) -> Any:
    return reason_label(key)
