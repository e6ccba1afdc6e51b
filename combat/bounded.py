"""The stored numbers' ranges (``rules.bounds``) put to work on Django's side: a model field's
validators, the model's check constraints and the forms' fields all come from here, so a form,
an importer (the model's ``full_clean``), the database and the engine agree on every limit.

A model says which of its fields hold which quantity in a class attribute ``bounded``
(field name → the quantity's name in ``rules.bounds.BOUNDS``); its fields take
``validators=within(quantity)`` and its ``Meta.constraints`` :func:`checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from rules.bounds import BOUNDS, Bound

__all__ = ["apply_to_form", "bound_of", "checks", "form_field", "limits", "within"]


def limits(quantity: str) -> tuple[Any, Any]:
    """The lowest and highest value the quantity may be stored as."""
    found = BOUNDS[quantity]
    return found.low, found.high


def within(quantity: str) -> list[Any]:
    """A model field's validators for the quantity's range (``full_clean``: every importer)."""
    low, high = limits(quantity)
    return [MinValueValidator(low), MaxValueValidator(high)]


def checks(prefix: str, bounded: Mapping[str, str]) -> list[models.CheckConstraint]:
    """The check constraints that hold each bounded field of a model in its range, whatever
    writes the row (NULL passes: an empty optional field is in no range to break)."""
    return [
        models.CheckConstraint(
            condition=Q(**{f"{field}__gte": low, f"{field}__lte": high}),
            name=f"{prefix}_{field}_bounds",
        )
        for field, (low, high) in ((f, limits(q)) for f, q in bounded.items())
    ]


def bound_of(model: type[models.Model], field: str) -> Bound | None:
    """The declared range of ``model``'s field, if it has one."""
    quantity = getattr(model, "bounded", {}).get(field)
    return None if quantity is None else BOUNDS[quantity]


def _limit(field: forms.Field, found: Bound, *, check: bool = True) -> None:
    """Give a form's number field the range: its own check (a message in the user's
    language, before the model's), and the browser's min and max."""
    if check:
        field.min_value, field.max_value = found.low, found.high
        field.validators = [
            v for v in field.validators if not isinstance(v, MinValueValidator | MaxValueValidator)
        ] + [MinValueValidator(found.low), MaxValueValidator(found.high)]
    if not getattr(field, "localize", False):  # a localized decimal is typed as text
        field.widget.attrs.update(min=found.low, max=found.high)


def apply_to_form(
    form: forms.BaseForm,
    model: type[models.Model] | None = None,
    *,
    said_better: Iterable[str] = (),
) -> None:
    """Every number field of ``form`` that edits a bounded field of ``model`` (a model form's
    own model by default) takes the field's range. A field in ``said_better`` is checked by
    the form itself in words closer to the case (a level, by the class's own top level): it
    takes the browser's min and max only, and the model's validators hold the range."""
    model = model or form._meta.model  # type: ignore[attr-defined]
    said_better = set(said_better)
    for name, field in form.fields.items():
        found = bound_of(model, name)
        if found is not None and isinstance(field, forms.IntegerField | forms.DecimalField):
            _limit(field, found, check=name not in said_better)


def form_field(quantity: str, **kwargs: Any) -> forms.IntegerField:
    """A plain form's field for a whole number stored as the quantity (a ship's speed)."""
    found = BOUNDS[quantity]
    if not found.whole:
        raise ValueError(f"{quantity} is not a whole number")  # a programming mistake
    field = forms.IntegerField(**kwargs)
    _limit(field, found)
    return field
