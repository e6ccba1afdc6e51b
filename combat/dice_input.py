"""Dice in forms: an expression as the viewer's language writes it, and dice typed in from the
table. Below the forms and the body fields, which both take them."""

from __future__ import annotations

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from rules import dice


def local_dice(expression: str) -> str:
    """A dice expression as the viewer's language writes it: 1k6 in Czech, 1к6 in Russian."""
    return dice.format_expression(expression, letter=dice.die_letter_for(get_language() or "en"))


class EnteredDiceField(forms.CharField):
    """Physical die results typed in, separated by spaces or commas."""

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        parts = value.replace(",", " ").split()
        try:
            results = [int(part) for part in parts]
        except ValueError:
            raise forms.ValidationError(_("Type the dice as whole numbers, e.g. 3 5.")) from None
        return results
