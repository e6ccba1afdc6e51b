"""A form renderer that writes the common widgets' HTML in Python.

Rendering widgets through Django's templates is the largest CPU cost of an action POST: a
``<select>`` includes one template per ``<option>``, and each include resolves variables,
runs filters and builds contexts, about 1.5 ms per widget. ``FormRenderer`` builds the same
HTML, byte for byte, with string operations for the templates that make up nearly all of our
forms: the ``<input>`` family, ``<select>`` with its options, ``<textarea>`` and the label.

Every other template, and any context that is not the plain one Django's widgets build (an
option with its own template, a value the template language would call, a mapping where a
dict is expected), goes to Django's templates as before: only the output of the templates
is reproduced here, never guessed at. The rules followed are the template language's:

* ``{{ x }}`` is ``render_value_in_context``: local time, localisation, ``str()``, then
  ``conditional_escape`` (a SafeString stays as it is);
* ``{{ x|stringformat:'s' }}`` is ``"%s" % x`` (a tuple first made a string), kept unescaped
  when ``x`` was safe, since the filter is ``is_safe``;
* an attribute is left out when its value ``is False`` and written bare when it ``is True``;
* an ``<input>`` has a value when ``widget.value != None``;
* the renderer strips the rendered text, so the templates' trailing newlines never show.

``DjangoTemplates`` looks for these templates in Django's own folder first, so neither an
app nor the project can override them: reproducing the built-in ones is enough.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from django.forms.renderers import DjangoTemplates
from django.http import HttpRequest
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.timezone import template_localtime

WIDGETS = "django/forms/widgets/"
SELECT_OPTION = WIDGETS + "select_option.html"
LABEL = "django/forms/label.html"

# Django's widget templates that are nothing but ``{% include ".../input.html" %}`` (a test
# checks this list against the templates of the installed Django).
INPUT_TEMPLATES = frozenset(
    WIDGETS + name + ".html"
    for name in (
        "input",
        "checkbox",
        "color",
        "date",
        "datetime",
        "email",
        "file",
        "hidden",
        "number",
        "password",
        "search",
        "tel",
        "text",
        "time",
        "url",
    )
)


class Fallback(Exception):
    """The context is not one this module reproduces: let the template render it."""


def _text(value: Any) -> str:
    """``{{ value }}`` with autoescaping, as ``render_value_in_context`` writes it."""
    if type(value) is str:
        return html.escape(value)
    if callable(value):  # the template language would call it
        raise Fallback
    value = localize(template_localtime(value))
    if not issubclass(type(value), str):
        value = str(value)
    return conditional_escape(value)


def _formatted(value: Any) -> str:
    """``{{ value|stringformat:'s' }}`` with autoescaping."""
    if type(value) is str:
        return html.escape(value)
    if callable(value):
        raise Fallback
    try:
        text = "%s" % (str(value) if isinstance(value, tuple) else value)
    except (ValueError, TypeError):
        text = ""
    # ``stringformat`` is ``is_safe``: a safe value stays unescaped; else ``conditional_escape``.
    if isinstance(value, SafeData) or hasattr(text, "__html__"):
        return text
    return html.escape(text)


def _attrs(attrs: Any) -> str:
    """``django/forms/widgets/attrs.html`` (and ``django/forms/attrs.html``, the same)."""
    if attrs is None:  # ``attrs.items`` does not resolve: the loop runs over nothing
        return ""
    if type(attrs) is not dict or "items" in attrs:  # ``attrs.items`` would be that key
        raise Fallback
    parts = []
    for name, value in attrs.items():
        if value is True:
            parts.append(" " + _text(name))
        elif value is not False:
            if callable(value):
                raise Fallback
            parts.append(" " + _text(name) + '="' + _formatted(value) + '"')
    return "".join(parts)


def _fields(mapping: Any, *keys: str) -> Mapping[str, Any]:
    """``mapping`` if it is a dict holding every one of ``keys``."""
    if type(mapping) is not dict or not all(key in mapping for key in keys):
        raise Fallback
    return mapping


def _not_none(value: Any) -> bool:
    """``{% if value != None %}``: the template's comparison, an error counting as False."""
    try:
        return bool(value != None)  # noqa: E711  (the template compares with !=, not `is`)
    except Exception:
        return False


def _input(context: dict[str, Any]) -> str:
    """``django/forms/widgets/input.html``."""
    widget = _fields(context.get("widget"), "type", "name", "value", "attrs")
    value = widget["value"]
    if callable(value):
        raise Fallback
    shown = ' value="' + _formatted(value) + '"' if _not_none(value) else ""
    return (
        '<input type="'
        + _text(widget["type"])
        + '" name="'
        + _text(widget["name"])
        + '"'
        + shown
        + _attrs(widget["attrs"])
        + ">"
    )


def _option(option: Any) -> str:
    """``django/forms/widgets/select_option.html``, without its trailing newline."""
    option = _fields(option, "template_name", "value", "label", "attrs")
    if option["template_name"] != SELECT_OPTION:
        raise Fallback
    return (
        '<option value="'
        + _formatted(option["value"])
        + '"'
        + _attrs(option["attrs"])
        + ">"
        + _text(option["label"])
        + "</option>"
    )


def _select(context: dict[str, Any]) -> str:
    """``django/forms/widgets/select.html``: each option is an include, and so brings the
    newline that ends ``select_option.html``."""
    widget = _fields(context.get("widget"), "name", "attrs", "optgroups")
    groups = widget["optgroups"]
    if not isinstance(groups, list | tuple):
        raise Fallback
    parts = ['<select name="', _text(widget["name"]), '"', _attrs(widget["attrs"]), ">"]
    for group in groups:
        if not isinstance(group, list | tuple) or len(group) != 3:
            raise Fallback
        group_name, options, _index = group
        if callable(group_name) or not isinstance(options, list | tuple):
            raise Fallback
        if group_name:
            parts.append('\n  <optgroup label="' + _text(group_name) + '">')
        for option in options:
            parts.append("\n  " + _option(option) + "\n")
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>")
    return "".join(parts)


def _textarea(context: dict[str, Any]) -> str:
    """``django/forms/widgets/textarea.html``."""
    widget = _fields(context.get("widget"), "name", "value", "attrs")
    value = widget["value"]
    if callable(value):
        raise Fallback
    return (
        '<textarea name="'
        + _text(widget["name"])
        + '"'
        + _attrs(widget["attrs"])
        + ">\n"
        + (_text(value) if value else "")
        + "</textarea>"
    )


def _label(context: dict[str, Any]) -> str:
    """``django/forms/label.html`` (``label_tag`` and ``legend_tag``)."""
    context = _fields(context, "use_tag", "tag", "label", "attrs")
    use_tag = context["use_tag"]
    if callable(use_tag):
        raise Fallback
    label = _text(context["label"])
    if not use_tag:
        return label.strip()  # the renderer strips what the template wrote
    tag = _text(context["tag"])
    return "<" + tag + _attrs(context["attrs"]) + ">" + label + "</" + tag + ">"


HANDLERS: dict[str, Callable[[dict[str, Any]], str]] = {
    **dict.fromkeys(INPUT_TEMPLATES, _input),
    WIDGETS + "select.html": _select,
    WIDGETS + "textarea.html": _textarea,
    LABEL: _label,
}


class FormRenderer(DjangoTemplates):
    """Django's template renderer, with the common widgets and the label written in Python
    (see the module's docstring); the output is the templates' own, byte for byte."""

    def render(
        self, template_name: str, context: dict[str, Any], request: HttpRequest | None = None
    ) -> SafeString:
        handler = HANDLERS.get(template_name)
        if handler is not None and type(context) is dict:
            try:
                return mark_safe(handler(context))
            except Fallback:
                pass
        return mark_safe(super().render(template_name, context, request=request))
