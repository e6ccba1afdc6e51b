"""Dice notation: parsing with d/k/к, bounds, rolling (also with entered results) and exact
distributions."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import dice
from rules.dice import ConstantTerm, DiceExpression, DiceTerm
from rules.errors import RulesError


def _brute(expression: DiceExpression) -> dict[int, Fraction]:
    """Distribution by enumerating every outcome of every die."""
    faces = [
        [t.sign * v for v in range(1, t.sides + 1)]
        for t in expression.dice_terms
        for _ in range(t.count)
    ]
    counts: dict[int, int] = {}
    for outcome in product(*faces):
        total = sum(outcome) + expression.constant
        counts[total] = counts.get(total, 0) + 1
    n = sum(counts.values())
    return {k: Fraction(v, n) for k, v in sorted(counts.items())}


# ----- parsing -----

GOOD = [
    ("1d8+1", (DiceTerm(1, 8), ConstantTerm(1))),
    ("2k6", (DiceTerm(2, 6),)),
    ("2K6", (DiceTerm(2, 6),)),
    ("1к20", (DiceTerm(1, 20),)),
    ("1К20", (DiceTerm(1, 20),)),
    ("2D6", (DiceTerm(2, 6),)),
    ("d6", (DiceTerm(1, 6),)),
    ("к4", (DiceTerm(1, 4),)),
    ("3d6-2", (DiceTerm(3, 6), ConstantTerm(-2))),
    ("7", (ConstantTerm(7),)),
    ("-1d4+3", (DiceTerm(1, 4, -1), ConstantTerm(3))),
    ("+1d4", (DiceTerm(1, 4),)),
    ("1d6 + 2", (DiceTerm(1, 6), ConstantTerm(2))),
    ("  2d6  ", (DiceTerm(2, 6),)),
    ("1d6–1", (DiceTerm(1, 6), ConstantTerm(-1))),
    ("1d6−1", (DiceTerm(1, 6), ConstantTerm(-1))),
    ("d%", (DiceTerm(1, 100),)),
    (
        "2d6+1d4-1d3+2-1",
        (DiceTerm(2, 6), DiceTerm(1, 4), DiceTerm(1, 3, -1), ConstantTerm(2), ConstantTerm(-1)),
    ),
    ("100d1000", (DiceTerm(100, 1000),)),
    ("50d6+50d4", (DiceTerm(50, 6), DiceTerm(50, 4))),
    ("1d1", (DiceTerm(1, 1),)),
]


@pytest.mark.parametrize(("text", "terms"), GOOD)
def test_it_parses_dice_notation_with_any_die_letter(text, terms):
    assert dice.parse(text).terms == terms


BAD = [
    "",
    " ",
    "d",
    "1d",
    "2x6",
    "1d6+",
    "++1",
    "1d6 2",
    "1 d6",
    "0d6",
    "d0",
    "1d-6",
    "(1d6)",
    "1d6*2",
    "4d6k3",
    "1d6!",
    "1d6/2",
    "1.5",
    "1d6+-2",
    "d6d6",
    "1d%%",
    "½d6",
    "1d6 +",
]


@pytest.mark.parametrize("text", BAD)
def test_it_refuses_malformed_expressions(text):
    with pytest.raises(RulesError) as err:
        dice.parse(text)
    assert err.value.code == "bad_expression"
    assert err.value.params["expr"] == text


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("101d6", "too_many_dice", {"count": 101, "limit": 100}),
        ("60d6+41d4", "too_many_dice", {"count": 101, "limit": 100}),
        ("99999999999999999999d6", "too_many_dice", {"count": 99999999999999999999, "limit": 100}),
        ("1d1001", "too_many_sides", {"sides": 1001, "limit": 1000}),
        ("1" * 101, "expression_too_long", {"length": 101, "limit": 100}),
    ],
)
def test_it_refuses_expressions_over_the_limits(text, code, params):
    with pytest.raises(RulesError) as err:
        dice.parse(text)
    assert err.value.code == code
    assert err.value.params == params


def test_it_refuses_what_is_not_text():
    with pytest.raises(RulesError) as err:
        dice.parse(12)
    assert err.value.code == "bad_expression"


@pytest.mark.parametrize(
    ("text", "d", "k", "cyrillic"),
    [
        ("1d20", "1d20", "1k20", "1к20"),
        ("d8+1", "1d8+1", "1k8+1", "1к8+1"),
        ("-1d4 + 3", "-1d4+3", "-1k4+3", "-1к4+3"),
        ("2к6-1d4-1", "2d6-1d4-1", "2k6-1k4-1", "2к6-1к4-1"),
        ("5", "5", "5", "5"),
    ],
)
def test_it_formats_an_expression_in_each_languages_notation(text, d, k, cyrillic):
    parsed = dice.parse(text)
    assert dice.format_expression(parsed) == d
    assert dice.format_expression(parsed, "k") == k
    assert dice.format_expression(text, "к") == cyrillic


def test_it_refuses_an_unknown_die_letter():
    with pytest.raises(RulesError) as err:
        dice.format_expression("1d6", "w")
    assert err.value.code == "bad_die_letter"


@pytest.mark.parametrize(
    ("language", "letter"),
    [
        ("en", "d"),
        ("cs", "k"),
        ("ru", "к"),
        ("uk", "к"),
        ("cs-CZ", "k"),
        ("ru_RU", "к"),
        ("de", "d"),
    ],
)
def test_it_gives_each_language_its_die_letter(language, letter):
    assert dice.die_letter_for(language) == letter


# ----- rolling -----


def test_it_rolls_each_die_with_the_injected_generator():
    first = dice.roll("2d6+1d4+1", random.Random(7))
    again = dice.roll("2d6+1d4+1", random.Random(7))
    assert first == again
    assert [len(r.naturals) for r in first.rolls] == [2, 1]
    assert first.total == sum(first.naturals) + 1
    assert first.constant == 1


def test_it_takes_the_results_a_player_entered_in_order():
    result = dice.roll("2d6-1d4+1", entered=[6, 1, 4])
    assert [r.naturals for r in result.rolls] == [(6, 1), (4,)]
    assert [r.subtotal for r in result.rolls] == [7, -4]
    assert result.total == 4


def test_it_rolls_a_constant_without_any_generator():
    assert dice.roll("7").total == 7


@pytest.mark.parametrize(
    ("entered", "code"),
    [
        ([6], "wrong_number_of_dice"),
        ([1, 2, 3], "wrong_number_of_dice"),
        ("66", "wrong_number_of_dice"),
        ([7, 1], "die_out_of_range"),
        ([0, 1], "die_out_of_range"),
        ([1.5, 1], "die_not_integer"),
        ([True, 1], "die_not_integer"),
    ],
)
def test_it_refuses_entered_results_of_the_wrong_count_or_range(entered, code):
    with pytest.raises(RulesError) as err:
        dice.roll("2d6", entered=entered)
    assert err.value.code == code


def test_it_needs_a_generator_or_entered_results():
    with pytest.raises(RulesError) as err:
        dice.roll("1d6")
    assert err.value.code == "no_random_source"


# ----- distributions -----


def test_it_gives_the_exact_distribution_of_2d6():
    d = dice.distribution("2d6")
    assert (d.minimum, d.maximum, d.mean) == (2, 12, 7)
    assert d.probability(7) == Fraction(1, 6)
    assert d.probability(2) == d.probability(12) == Fraction(1, 36)
    assert d.probability(1) == d.probability(13) == 0
    assert d.at_least(10) == Fraction(6, 36)
    assert d.at_most(4) == Fraction(6, 36)
    assert d.at_least(-5) == d.at_most(99) == 1
    assert d.at_least(13) == d.at_most(1) == 0


def test_it_gives_the_distribution_of_10d10_plus_5():
    # Its speed is shown by `python -m rules.bench`, not asserted: tests don't time the machine.
    d = dice.distribution("10d10+5")
    assert (d.minimum, d.maximum, d.mean) == (15, 105, 60)
    assert sum(d.probabilities().values()) == 1


def test_it_gives_the_exact_distribution_of_the_largest_allowed_expression():
    d = dice.distribution("100d1000")
    assert (d.minimum, d.maximum, d.mean) == (100, 100_000, Fraction(100 * 1001, 2))
    assert d.denominator == 1000**100
    assert sum(d.counts) == d.denominator
    assert d.counts == d.counts[::-1]
    assert d.probability(100) == Fraction(1, 1000**100)


def test_it_subtracts_dice_as_mirrored_distributions():
    d = dice.distribution("1d6-1d6")
    assert (d.minimum, d.maximum, d.mean) == (-5, 5, 0)
    assert d.probability(0) == Fraction(1, 6)


def test_it_charts_the_distribution_as_floats_for_drawing():
    chart = dice.distribution("3d6").chart()
    assert chart[0] == (3, 1 / 216)
    assert len(chart) == 16
    assert sum(p for _, p in chart) == pytest.approx(1)


@pytest.mark.parametrize(
    "text",
    [
        "1d2+1d3+1d4+1d5+1d6+1d7",
        "2d2+2d3+1d5-1d4",
        "1d1+2d4-1d1",
        "3d6-2",
        "1d20+1d8-1d4-3",
        "d%-d%",
    ],
)
def test_it_matches_brute_force_on_mixed_expressions(text):
    expression = dice.parse(text)
    assert dice.distribution(expression).probabilities() == _brute(expression)


# ----- properties -----

small_terms = st.lists(
    st.one_of(
        st.builds(DiceTerm, st.integers(1, 3), st.integers(1, 8), st.sampled_from([1, -1])),
        st.builds(ConstantTerm, st.integers(-5, 5)),
    ),
    min_size=1,
    max_size=5,
).filter(lambda ts: sum(t.count for t in ts if isinstance(t, DiceTerm)) <= 6)


@given(small_terms)
@settings(max_examples=150, deadline=None)
def test_distribution_matches_brute_force_and_sums_to_one(terms):
    expression = DiceExpression(tuple(terms))
    d = dice.distribution(expression)
    brute = _brute(expression)
    assert sum(d.probabilities().values()) == 1
    assert d.probabilities() == brute
    assert d.mean == sum(k * p for k, p in brute.items())
    assert (d.minimum, d.maximum) == (min(brute), max(brute))


@given(small_terms, st.sampled_from(["d", "k", "к"]))
def test_formatting_then_parsing_gives_the_same_expression(terms, letter):
    expression = DiceExpression(tuple(terms))
    assert dice.parse(dice.format_expression(expression, letter)) == expression


@given(small_terms, st.randoms(use_true_random=False))
def test_every_roll_lands_on_a_possible_total(terms, rng):
    expression = DiceExpression(tuple(terms))
    result = dice.roll(expression, rng)
    assert dice.distribution(expression).probability(result.total) > 0
    assert dice.roll(expression, entered=list(result.naturals)) == result


notation = st.text(alphabet="0123456789dDkKкК+-–−% ", max_size=110)


@given(st.one_of(notation, st.text(max_size=110)))
@settings(max_examples=400)
def test_every_text_gives_an_expression_or_a_rules_error(text):
    try:
        expression = dice.parse(text)
    except RulesError as err:
        assert err.code in {
            "bad_expression",
            "too_many_dice",
            "too_many_sides",
            "expression_too_long",
            "constant_too_large",
        }
        return
    result = dice.roll(expression, random.Random(0))
    assert expression.minimum <= result.total <= expression.maximum
    if expression.dice_count * max((t.sides for t in expression.dice_terms), default=1) <= 2000:
        d = dice.distribution(expression)
        assert (d.minimum, d.maximum) == (expression.minimum, expression.maximum)
        assert sum(d.counts) == d.denominator


def test_observed_frequencies_stay_close_to_the_exact_distribution():
    rng = random.Random(1234)
    n = 20_000
    seen: dict[int, int] = {}
    for _ in range(n):
        total = dice.roll("2d6+1", rng).total
        seen[total] = seen.get(total, 0) + 1
    d = dice.distribution("2d6+1")
    for total, p in d.probabilities().items():
        # 5 standard deviations: a false alarm has odds below one in a million per total.
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(seen.get(total, 0) / n - float(p)) < 5 * sigma


@pytest.mark.parametrize(
    ("expression", "low", "high", "mean"),
    [
        ("1d6", 1, 6, Fraction(7, 2)),
        ("2d6+1", 3, 13, 8),
        ("1d20-1d4", -3, 19, 8),
        ("3", 3, 3, 3),
        ("100d1000", 100, 100_000, 50_050),
    ],
)
def test_the_summary_gives_the_exact_range_and_mean(expression, low, high, mean):
    result = dice.summary(expression)
    assert (result.minimum, result.maximum, result.mean) == (low, high, mean)


def test_the_summary_charts_small_expressions_exactly_and_skips_huge_ones():
    small = dice.summary("2d6", bars=24)
    assert [(low, high) for low, high, _ in small.bars] == [(t, t) for t in range(2, 13)]
    assert small.bars[5][2] == Fraction(6, 36)
    grouped = dice.summary("10d10+5", bars=10)
    assert len(grouped.bars) <= 10
    assert sum(p for *_, p in grouped.bars) == 1
    assert grouped.bars[0][0] == 15 and grouped.bars[-1][1] == 105
    assert dice.summary("100d1000").bars is None


@given(st.integers(1, 6), st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20]), st.integers(1, 30))
def test_the_summary_bars_cover_every_total_once(count, sides, bars):
    result = dice.summary(f"{count}d{sides}", bars=bars)
    covered = [t for low, high, _ in result.bars for t in range(low, high + 1)]
    assert covered == list(range(count, count * sides + 1))
    assert sum(p for *_, p in result.bars) == 1


def test_a_number_beyond_the_limit_is_the_librarys_error():
    assert dice.parse("1d6+10000").constant == 10_000
    with pytest.raises(RulesError) as caught:
        dice.parse("1d6+10001")
    assert caught.value.code == "constant_too_large"
    assert caught.value.params == {"value": 10_001, "limit": 10_000}
