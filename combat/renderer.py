"""The project's form renderer: Django's, reading the project's templates, and keeping the
widgets, labels and fields' boxes it drew.

A form (``{{ form }}``) draws as every panel shows it, ``combat/forms/form.html``, and each
field (``{{ field.as_field_group }}``) in its box, ``combat/forms/field.html``; widgets and
labels by Django's own templates.

An action's answer draws its form again after every roll, and drawing its widgets was the
largest part of that (a select list includes a template per option, and each include resolves
its variables anew). A widget's or a label's HTML depends on nothing but the values its
template is given, and in a panel those are mostly the same from one roll to the next (who
acts, the targets, the attack modes): so the renderer keeps what it drew, by those values (and
the language, which says their lazy labels and localizes their numbers), and draws only what it
has not drawn before. A field's box is drawn from its widget and label, drawn first, and kept
by them; a select list's options one by one (the project's ``django/forms/widgets/select.html``
is Django's but for that). Values it cannot compare safely (anything but plain data) are drawn
every time.

Most boxes are not even taken apart: a field of Django's plain widgets (text, number, select,
checkbox, textarea) draws from what the field, its widget and its form hold (name, label, help,
value, choices, attributes; ``_field_key``), so its box is kept by those, read without working
out the widget's and the label's contexts, which cost more than drawing what they say.

A hidden input with a plain-text value (every action form's one-time key, new with each form)
is kept drawn around a stand-in, its value written in as Django's template would write it.
"""

from __future__ import annotations

import io
import pickle
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models.enums import Choices
from django.forms import BoundField, widgets
from django.forms.models import ModelChoiceIteratorValue
from django.forms.renderers import TemplatesSetting
from django.http import HttpRequest
from django.template.loader import get_template
from django.utils.functional import Promise
from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from combat.lru import Lru

WIDGETS = "django/forms/widgets/"
# The values Django's label template reads (its context also holds the bound field, which
# it does not read).
LABEL, LABEL_VALUES = "django/forms/label.html", ("label", "attrs", "use_tag", "tag")
DRAWN = Lru(5_000)


class FormRenderer(TemplatesSetting):
    form_template_name = "combat/forms/form.html"
    field_template_name = "combat/forms/field.html"

    def render(
        self, template_name: str, context: dict[str, Any], request: HttpRequest | None = None
    ) -> SafeString:
        if template_name == self.field_template_name and context.keys() == {"field"}:
            field = context["field"]
            key = _field_key(field) if request is None else None
            if key is not None:
                return DRAWN.fetch(key, lambda: self.render(template_name, _box(field)))
            context = _box(field)
        if request is None and (value := _one_time(template_name, context)) is not None:
            # Drawn once with a stand-in for its value, which goes in as the template would
            # write it: a form's one-time key is new every time, the rest of the input is not.
            stand_in = {"widget": context["widget"] | {"value": ONE_TIME}}
            return SafeString(self.render(template_name, stand_in).replace(ONE_TIME, escape(value)))
        key = _key(template_name, context) if request is None else None
        if key is None:
            return super().render(template_name, context, request)
        return DRAWN.fetch(key, lambda: super(FormRenderer, self).render(template_name, context))


# Stands for a hidden input's value while it is drawn; nothing a form holds or a template
# writes contains it.
ONE_TIME = "\x00one-time\x00"


def _one_time(template_name: str, context: Any) -> str | None:
    """The value of a hidden input drawn from plain text (a form's one-time key), else None."""
    if not template_name.startswith(WIDGETS) or type(context) is not dict:
        return None
    widget = context.get("widget") if context.keys() == {"widget"} else None
    if type(widget) is not dict or not widget.get("is_hidden"):
        return None
    value = widget.get("value")
    return value if type(value) is str and ONE_TIME not in value else None


def option(option: Any) -> SafeString:
    """One option of a select list, as Django's ``select.html`` includes it (its template's
    text, closing newline and all), kept by its values: a list of fifty combatants is mostly
    the same options, however the one chosen changes (the project's ``select.html`` draws its
    options with this)."""
    name = option.get("template_name") if type(option) is dict else None
    context = {"widget": option}
    key = _key(name, context) if isinstance(name, str) else None
    if key is None:
        return _included(option)
    return DRAWN.fetch(("included", *key), lambda: _included(option))


def _included(option: Any) -> SafeString:
    return get_template(option["template_name"]).render({"widget": option})


def _box(field: BoundField) -> dict[str, Any]:
    """What ``combat/forms/field.html`` draws a field from: its widget and label, drawn (and
    kept) first, so that the box is kept by them."""
    return {
        "widget": str(field),
        "label": field.label_tag(),
        "help": field.help_text,
        "errors": str(field.errors) if field.errors else "",
        "kind": getattr(field.field.widget, "input_type", None),
    }


# Django's widgets whose drawing reads nothing but the widget's attributes, choices and
# templates, and the name, value and attributes it is drawn with (exactly these classes: a
# subclass may read more).
PLAIN_WIDGETS = frozenset(
    {
        widgets.TextInput,
        widgets.NumberInput,
        widgets.EmailInput,
        widgets.URLInput,
        widgets.Textarea,
        widgets.Select,
        widgets.CheckboxInput,
    }
)


def _field_key(field: Any) -> tuple[Any, ...] | None:
    """What a field's box depends on, read from the field, its widget and its form (None: draw
    it from its widget and label, ``_box``): all ``BoundField.as_widget`` and ``label_tag`` read
    of them. Only a plain bound field of a plain widget (``PLAIN_WIDGETS``) with no errors."""
    if type(field) is not BoundField:
        return None
    form, spec = field.form, field.field
    widget = spec.widget
    kind = type(widget)
    if kind not in PLAIN_WIDGETS or spec.show_hidden_initial or spec.localize:
        return None
    if kind is widgets.CheckboxInput and widget.check_test is not widgets.boolean_check:
        return None
    if field.errors:
        return None
    values = (
        f"{type(spec).__module__}.{type(spec).__qualname__}",
        kind.__name__,
        widget.template_name,
        getattr(widget, "option_template_name", None),
        getattr(widget, "input_type", None),
        widget.attrs,
        getattr(widget, "choices", None),
        widget.is_required,
        widget.is_localized,
        field.html_name,
        field.auto_id,
        field.label,
        field.help_text,
        field.value(),
        spec.label_suffix,
        spec.required,
        spec.disabled,
        form.label_suffix,
        form.use_required_attribute,
        hasattr(form, "required_css_class"),
        getattr(form, "required_css_class", None),
        form.template_name_label,
    )
    return _pickled(FormRenderer.field_template_name, ("field", values))


class _Unlike(Exception):
    """A value that two drawings could share only if it were compared by more than its data."""


def _key(template_name: str, context: Any) -> tuple[Any, ...] | None:
    """What a widget's or a label's drawing depends on, or None to draw it anew."""
    if type(context) is not dict:
        return None
    if template_name.startswith(WIDGETS) and context.keys() == {"widget"}:
        values: Any = context["widget"]
        hidden = type(values) is dict and values.get("is_hidden")
        if hidden and values.get("value") not in (None, ONE_TIME):
            return None  # a value that is no plain text: drawn anew (plain text: ``_one_time``)
    elif template_name == LABEL:
        values = tuple(context.get(name) for name in LABEL_VALUES)
    elif template_name == FormRenderer.field_template_name:
        values = context
    else:
        return None
    return _pickled(template_name, values)


def _pickled(template_name: str, values: Any) -> tuple[Any, ...] | None:
    """``template_name`` drawn with ``values``, as a key (None: not plain data)."""
    data = io.BytesIO()
    try:
        _Pickler(data, protocol=pickle.HIGHEST_PROTOCOL).dump(values)
    except Exception:  # anything but plain data (_Unlike): drawn anew
        return None
    # The language says lazy labels and, with the separator setting, localizes numbers.
    return (template_name, get_language(), settings.USE_THOUSAND_SEPARATOR, data.getvalue())


class _Pickler(pickle.Pickler):
    """Writes plain data (strings, numbers, lists, dicts) with its type, so that equal bytes
    are values a template draws alike (a safe string is not escaped, a float is not an
    integer, 1.50 is not 1.5); anything else is refused (``_Unlike``)."""

    def reducer_override(self, value: Any) -> Any:
        kind = type(value)
        if kind is SafeString:
            return (_said, ("safe", _plain(value)))
        if kind is Decimal:
            return (_said, ("decimal", str(value)))
        if isinstance(value, Promise):  # a lazy translation: as the active language says it
            return (_said, ("lazy", hasattr(value, "__html__"), _plain(str(value))))
        if kind is ModelChoiceIteratorValue:
            return (_said, ("choice", value.value))
        if isinstance(value, Choices):  # a model's choice (Side.PARTY): drawn as its value
            return (_said, ("choices", _plain(str(value))))
        if value is _said:
            return NotImplemented  # written by its name
        raise _Unlike


def _plain(text: str) -> str:
    return str.__str__(text)  # a str, whatever str subclass it was (its type said apart)


def _said(*values: Any) -> None:
    """Stands for a value as it is drawn, in a key (keys are never read back)."""
