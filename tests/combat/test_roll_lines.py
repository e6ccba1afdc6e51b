"""A roll's parts in the log (``combat.templatetags.roll_lines``), drawn in Python for speed:
the HTML the templates drew, values escaped, translations as the catalogue has them."""

from __future__ import annotations

import pytest
from django.utils import translation

from combat.templatetags.roll_lines import (
    die_source,
    hit_outcome,
    mods,
    roll_line,
    system_roll_line,
)

ROLL = {"natural": 15, "entered": True, "mods": [[2, "str"]], "total": 17, "needed": 14}


def test_a_roll_line_says_the_die_its_source_its_modifiers_and_what_it_needs() -> None:
    assert roll_line(ROLL) == (
        '<div class="roll">1d20: <span class="natural">15</span> <span class="die-source '
        'entered">typed in</span> <span class="mod">+2 STR</span> = <strong>17</strong> · '
        "needs 14+</div>"
    )
    assert roll_line(ROLL | {"entered": False, "mods": []}, under=True).endswith(
        '<span class="die-source server">server roll</span> = <strong>17</strong> · '
        "needs 14 or less</div>"
    )


def test_a_roll_stored_before_its_source_was_recorded_says_none() -> None:
    assert die_source(None) == ""
    assert "die-source" not in roll_line({k: v for k, v in ROLL.items() if k != "entered"})


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("cs", "1k20: <span"),
        ("ru", "1к20: <span"),
        ("uk", "1к20: <span"),
    ],
)
def test_a_roll_line_is_written_the_way_the_language_writes_dice(language, expected) -> None:
    with translation.override(language):
        html = roll_line(ROLL)
    assert expected in html
    assert "typed in" not in html and "needs" not in html


def test_names_and_reasons_are_escaped_and_minus_is_a_real_minus() -> None:
    html = mods([[-1, "<b>odd</b>"], [0, "str"]])
    assert (
        html == ' <span class="mod">−1 &lt;b&gt;odd&lt;/b&gt;</span> <span class="mod">0 STR</span>'
    )
    assert mods("") == "" and mods(None) == ""


def test_another_system_s_line_has_its_own_die_and_reasons() -> None:
    roll = {"sides": 6, "natural": 4, "entered": False, "mods": [], "total": 4, "needed": 3}
    assert system_roll_line(roll).startswith(
        '<div class="roll">1d6: <span class="natural">4</span>'
    )


@pytest.mark.parametrize(
    ("roll", "said"),
    [
        ({"success": True, "hit_ac": 2}, "Hit! · hits AC 2"),
        ({"success": True, "hit_ac": 0}, "Hit! · hits AC 0"),  # AC 0 is a real AC
        ({"success": True, "hit_ac": None}, "Hit!"),
        ({"success": True}, "Hit!"),  # an ascending-AC system says no AC
        (
            {"success": True, "hit_ac": -3, "automatic": True},
            "Hit! · hits AC -3 · a natural 20 always hits",
        ),
        ({"success": False, "automatic": True}, "Miss. · a natural 1 always misses"),
        ({"success": False, "needed": 14, "total": 9}, "Miss: needed 14, rolled 9."),
        ({"success": False, "needed": 14, "total": 15}, "Miss."),  # lost to something else
        ({"success": False}, "Miss."),
    ],
)
def test_an_attack_s_outcome(roll, said) -> None:
    kind = "success" if roll["success"] else "failure"
    assert hit_outcome(roll) == f'<div class="outcome {kind}">{said}</div>'


def test_an_outcome_reads_in_czech() -> None:
    with translation.override("cs"):
        assert hit_outcome({"success": False, "needed": 14, "total": 9}) == (
            '<div class="outcome failure">Vedle: cíl 14, padlo 9.</div>'
        )
