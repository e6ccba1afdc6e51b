"""A roll's parts in the log (``combat.templatetags.roll_lines`` and their templates in
``templates/combat/log/``): values escaped, translations as the catalogue has them, the same
line for every rules system."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template
from django.utils import translation

from combat import payloads
from combat.templatetags.roll_lines import die_source, mods

ROLL = {"natural": 15, "entered": True, "mods": [[2, "str"]], "total": 17, "needed": 14}


def _drawn(tag: str, **context) -> str:
    """``{% tag %}`` as a log entry draws it, its indentation gone (``combat.entry_text``)."""
    html = Template("{% load roll_lines %}" + tag).render(Context(context))
    return re.sub(r">\s+<", "> <", html.strip())


def roll_line(roll, under=False) -> str:
    return _drawn("{% roll_line r under=under %}", r=roll, under=under)


def hit_outcome(roll) -> str:
    return _drawn("{% hit_outcome r %}", r=roll)


def test_a_roll_line_says_the_die_its_source_its_modifiers_and_what_it_needs() -> None:
    assert roll_line(ROLL) == (
        '<div class="roll">1d20: <span class="natural">15</span> <span class="die-source '
        'entered">typed in</span> <span class="mod">+\N{NO-BREAK SPACE}2 STR</span> = '
        "<strong>17</strong> · needs 14+</div>"
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
        html == ' <span class="mod">−\N{NO-BREAK SPACE}1 &lt;b&gt;odd&lt;/b&gt;</span> '
        '<span class="mod">+\N{NO-BREAK SPACE}0 STR</span>'
    )
    assert mods("") == "" and mods(None) == ""


def test_another_system_s_line_has_its_own_die_and_reasons() -> None:
    roll = {"sides": 6, "natural": 4, "entered": False, "mods": [[1, "attack_bonus"]]}
    roll |= {"total": 5, "needed": 3}
    html = _drawn("{% system_roll_line r %}", r=roll)
    assert html.startswith('<div class="roll">1d6: <span class="natural">4</span>')
    assert '<span class="mod">+\N{NO-BREAK SPACE}1 attack bonus</span>' in html
    assert html == roll_line(roll), "one line for every system"


@pytest.mark.parametrize(
    ("roll", "said"),
    [
        ({"success": True, "hit_ac": 2}, "Hit! · hits AC 2"),
        ({"success": True, "hit_ac": 0}, "Hit! · hits AC 0"),  # AC 0 is a real AC
        ({"success": True, "hit_ac": None}, "Hit!"),
        ({"success": True}, "Hit!"),  # an ascending-AC system says no AC
        (
            {"success": True, "hit_ac": -3, "automatic": True},
            "Hit! · hits AC −3 · a natural 20 always hits",
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
            '<div class="outcome failure">Vedle: potřeba 14, padlo 9.</div>'
        )


def test_a_damage_line_says_its_dice_and_when_a_hit_dealt_at_least_one() -> None:
    damage = {"expr": "1d6", "dice": ["<3>"], "entered": False, "mods": [[-2, "str"]]}
    damage |= {"total": 1, "outcome": "minimum"}
    assert _drawn("{% damage_line d %}", d=damage) == (
        '<div class="damage">Damage 1d6: [&lt;3&gt;] <span class="die-source server">server '
        'roll</span> <span class="mod">−\N{NO-BREAK SPACE}2 STR</span> = <strong>1</strong> '
        "<small>(a hit deals at least 1)</small></div>"
    )
    with translation.override("cs"):
        assert "Zranění 1k6: [" in _drawn("{% damage_line d %}", d=damage)


def test_a_typed_roll_and_damage_are_drawn_as_their_stored_data() -> None:
    """The tags take an entry's typed parts (``combat.payloads``) or, from a system not typed
    yet, the dicts it stores: the same line either way."""
    roll = ROLL | {"success": True}
    typed = payloads.Roll.from_json(roll)
    assert roll_line(typed) == roll_line(roll)
    assert roll_line(typed, under=True) == roll_line(roll, under=True)
    assert hit_outcome(typed) == hit_outcome(roll)
    damage = {"expr": "1d8", "dice": [5], "entered": True, "rolled": 5, "mods": [], "total": 5}
    drawn = _drawn("{% damage_line d %}", d=damage)
    assert _drawn("{% damage_line d %}", d=payloads.DamageRoll.from_json(damage)) == drawn


def test_a_line_is_drawn_once_and_kept_by_everything_it_shows(settings) -> None:
    """A roll's line is kept by the roll, how it is drawn (over or under), the language and
    the thousands separator: the same roll again is the same line, anything else its own."""
    from combat.templatetags.roll_lines import LINES

    LINES.clear()
    over = roll_line(ROLL)
    assert roll_line(dict(ROLL)) == over and len(LINES) == 1, "the same roll: kept"
    assert roll_line(payloads.Roll.from_json(ROLL)) == over, "its payload reads alike"
    under = roll_line(ROLL, under=True)
    assert under != over and "or less" in under
    with translation.override("cs"):
        czech = roll_line(ROLL)
    assert czech != over and "k20" in czech
    assert roll_line(ROLL | {"natural": 16, "total": 18}) != over
    settings.USE_THOUSAND_SEPARATOR = True
    big = ROLL | {"total": 1234, "needed": 1200}
    assert "1,234" in roll_line(big)
    settings.USE_THOUSAND_SEPARATOR = False
    assert "1234" in roll_line(big)
    assert hit_outcome(ROLL) != over and "Hit!" in hit_outcome(ROLL | {"success": True})


# --- every sum in the log writes its signs (issue 31) ----------------------------------------


def _text(html: str) -> str:
    """What a reader sees: tags gone, every run of spaces (a no-break one too) one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def test_a_term_writes_its_sign_apart_from_its_number_and_keeps_them_on_one_line() -> None:
    from combat.templatetags.fray import term

    assert term(2) == "+\N{NO-BREAK SPACE}2"
    assert term(0) == "+\N{NO-BREAK SPACE}0"
    assert term(-1) == "−\N{NO-BREAK SPACE}1"  # a real minus sign, not a hyphen
    assert term("3") == "+\N{NO-BREAK SPACE}3"


def test_dolmenwood_s_sum_has_a_sign_before_every_term() -> None:
    """The table's report: "16 typed in 0 attack bonus 0 STR = 16" read as a list, not a sum."""
    roll = {"natural": 16, "entered": True, "total": 16, "needed": 14}
    roll |= {"mods": [[0, "attack_bonus"], [0, "str"]]}
    said = _text(_drawn("{% system_roll_line r %}", r=roll))
    assert said == "1d20: 16 typed in + 0 attack bonus + 0 STR = 16 · needs 14+"
    roll |= {"mods": [[2, "attack_bonus"], [-1, "str"]], "total": 17}
    said = _text(_drawn("{% system_roll_line r %}", r=roll))
    assert "16 typed in + 2 attack bonus − 1 STR = 17" in said


def test_a_damage_sum_and_an_ability_check_sum_have_their_signs() -> None:
    damage = {"expr": "1d8", "dice": [5], "entered": False, "mods": [[1, "str"]], "total": 6}
    assert "[5] server roll + 1 STR = 6" in _text(_drawn("{% damage_line d %}", d=damage))
    check = {"natural": 9, "entered": True, "mods": [[-2, "str"]], "total": 7, "needed": 12}
    assert "9 typed in − 2 STR = 7" in _text(roll_line(check, under=True))


@pytest.mark.parametrize("language", ["cs", "ru", "uk"])
def test_the_signs_are_written_in_every_language(language) -> None:
    with translation.override(language):
        html = mods([[0, "str"], [-3, "str"]])
    assert _text(html).startswith("+ 0 ") and " − 3 " in _text(html)


def test_becmi_s_own_sums_have_their_signs() -> None:
    """BECMI draws its strikes, wrestling and holds with its own roll line (becmi/_roll.jinja):
    the same signs."""
    from combat.jinja import render

    roll = {"natural": 12, "entered": False, "mods": [[0, "str"], [-1, "str"]], "total": 11}
    said = _text(render("becmi/_roll.jinja", {"r": roll | {"needed": 10}}))
    assert said == "1d20: 12 server roll + 0 STR − 1 STR = 11 · needs 10+"
    wrestling = {
        "becmi": "wrestle",
        "attacker": "Bruno",
        "defender": "Ogre",
        "attacker_roll": {"natural": 14, "entered": True, "mods": [[3, "str"]], "total": 17},
        "defender_roll": {"natural": 6, "entered": True, "mods": [[-2, "str"]], "total": 4},
        "winner": "attacker",
        "before": "free",
        "hold": "held",
    }
    said = _text(render("becmi/_special_log.jinja", {"d": wrestling}))
    assert "Bruno: 1d20 14 typed in + 3 STR = 17" in said
    assert "Ogre: 1d20 6 typed in − 2 STR = 4" in said
