"""A select list's options, as the project's ``django/forms/widgets/select.html`` draws them:
each by its own template, kept by its values (``combat.renderer.option``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from combat import renderer

register = template.Library()


@register.simple_tag
def option(option: Any) -> SafeString:
    return renderer.option(option)
