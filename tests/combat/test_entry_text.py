"""A log entry's text drawn in Python (``combat.entry_text``): what players type is escaped,
and an entry stored by an older Fray, lacking what a newer one stores, still reads."""

from __future__ import annotations

import pytest

from combat.entry_text import body_html
from combat.models import LogEntry

HOSTILE = '<img src=x onerror="alert(1)">'


def _body(kind: str, data: dict, *, referee: bool = True, **fields) -> str:
    entry = LogEntry(seq=7, public_seq=3, kind=kind, actor=HOSTILE, data=data, **fields)
    return body_html(entry, undone=None, referee=referee, show_numbers=referee)


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (
            "attack",
            {"attacker": HOSTILE, "target": HOSTILE, "mode": "melee", "attack_name": HOSTILE},
        ),
        ("damage", {"who": HOSTILE, "applied": 2, "killed": True}),
        ("heal", {"who": HOSTILE, "applied": 2, "amount": 3, "side": "party"}),
        ("save", {"who": HOSTILE, "category": HOSTILE, "roll": {"natural": 3}}),
        ("check", {"who": HOSTILE, "ability": "str", "score": HOSTILE}),
        ("roll", {"label": HOSTILE, "expr": HOSTILE, "dice": [HOSTILE], "total": 3}),
        ("rest", {"who": HOSTILE, "days": 1, "healed": 1, "dice": [HOSTILE]}),
    ],
)
def test_what_players_type_is_escaped(kind, data) -> None:
    html = _body(kind, data)
    assert "<img" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


@pytest.mark.parametrize(
    "kind", ["attack", "damage", "heal", "correct", "save", "check", "rest", "roll", "undo"]
)
@pytest.mark.parametrize("referee", [True, False])
def test_an_entry_lacking_its_data_still_reads(kind, referee) -> None:
    html = _body(kind, {}, referee=referee)
    assert html.startswith('<div class="meta"> <span class="seq">#')
    assert "None" not in html


def test_players_see_their_own_number_and_no_secret_badge() -> None:
    secret = {"public": [{"who": "Zora", "hp": -2, "amount": 2, "killed": False}]}
    referee = _body("damage", secret | {"who": "Zora", "applied": 2}, secret=True)
    player = _body("damage", secret, referee=False, secret=True)
    assert "#7" in referee and "secret" in referee
    assert "#3" in player and "secret" not in player and HOSTILE not in player
    assert "Zora takes 2 points of damage" in player


# --- one attack line for every rules system ----------------------------------------------------

ROLL = {"natural": 17, "entered": False, "mods": [[2, "str"]], "total": 19, "needed": 14}
ROLL |= {"success": True, "hit_ac": 2}
DAMAGE = {"expr": "1d8", "dice": [5], "entered": True, "mods": [[1, "str"]], "total": 6}
ATTACK = {"attacker": "Vrk", "target": "Mirek", "mode": "melee", "attack_name": "", "roll": ROLL}
ATTACK |= {"damage": DAMAGE, "killed": True}


@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_an_attack_reads_alike_in_every_system_but_for_what_its_rules_add(language) -> None:
    from django.utils import translation

    from combat.labels import ATTACK_FORMS

    def said(data: dict) -> str:
        with translation.override(language):
            return _body("attack", data)

    ose = said(ATTACK)
    assert said(ATTACK | {"system": "becmi", "cover": "none", "range": ""}) == ose
    with translation.override(language):
        melee, weapon = translation.gettext("melee"), str(ATTACK_FORMS["silver"])
        dead = translation.gettext("%(target)s is dead.") % {"target": "Mirek"}
    # Dolmenwood's d20 says no armour class hit (its AC is ascending).
    roll = {key: value for key, value in ROLL.items() if key != "hit_ac"}
    dolmenwood = said(ATTACK | {"system": "dolmenwood", "weapon": "silver", "roll": roll})
    plain = said(ATTACK | {"roll": roll})
    assert dolmenwood == plain.replace(f"({melee})", f"({melee}, {weapon})")
    assert f'<div class="outcome failure">{dead}</div>' in ose
    assert ose.count('<div class="damage">') == 1 and ose.count('<div class="roll">') == 1
