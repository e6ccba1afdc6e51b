"""Numbers and units in the reader's language (issue 32): the decimal separator, the space
before a per cent sign, and feet that agree with their number."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import translation

from combat.templatetags.fray import chance, feet, minus, number


@pytest.mark.parametrize(
    ("language", "value", "shown"),
    [
        ("en", 5.5, "5.5"),
        ("cs", 5.5, "5,5"),
        ("ru", Decimal("5.75"), "5,75"),
        ("uk", Fraction(7, 4), "1,75"),
        ("cs", 6.0, "6"),
        ("ru", 12, "12"),
    ],
)
def test_a_number_is_written_with_the_language_s_decimal_separator(language, value, shown):
    with translation.override(language):
        assert number(value) == shown


@pytest.mark.parametrize(
    ("language", "value", "shown"),
    [
        ("en", 22, "22 ft"),
        ("cs", 22, "22 ft"),
        ("cs", 5.5, "5,5 ft"),
        ("ru", 1, "1 фут"),
        ("ru", 21, "21 фут"),
        ("ru", 22, "22 фута"),
        ("ru", 5, "5 футов"),
        ("ru", 11, "11 футов"),
        ("ru", 5.5, "5,5 фута"),
        ("uk", 1, "1 фут"),
        ("uk", 3, "3 фути"),
        ("uk", 25, "25 футів"),
        ("uk", 2.5, "2,5 фута"),
        # As heights are stored: Decimals and their text.
        ("ru", Decimal("6.00"), "6 футов"),
        ("uk", "6.00", "6 футів"),
        ("ru", "5.50", "5,5 фута"),
        ("cs", Decimal("0"), "0 ft"),
    ],
)
def test_feet_agree_with_their_number(language, value, shown):
    with translation.override(language):
        assert feet(value) == shown


@pytest.mark.parametrize(
    ("language", "shown"), [("en", "45%"), ("cs", "45 %"), ("ru", "45 %"), ("uk", "45 %")]
)
def test_a_chance_has_the_language_s_per_cent_sign(language, shown):
    with translation.override(language):
        assert chance(Fraction(9, 20)) == shown
        assert chance(Fraction(1, 12)).replace("8,3", "8.3") in {"8.3%", "8.3 %"}


def test_a_negative_figure_has_a_true_minus_sign():
    """Print's minus (−2), not a hyphen: a native read of every language stumbled on "AC -2"
    beside the catalogues' own "−"."""
    assert minus(-2) == "−2" and minus(0) == 0 and minus(3) == 3 and minus("x") == "x"
