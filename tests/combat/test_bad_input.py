"""No input, however wrong, gives a server error: every form answers with a message.

Every field of every roll form gets every bad value; what the form accepts goes on to the
action, which may refuse it only with the engine's own error (shown as a form message). The
referee's table forms are posted through the views.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from combat import registry
from combat.access import Viewer
from combat.views.panels import COMMON
from rules.errors import RulesError

from .conftest import character, monster

pytestmark = pytest.mark.django_db

BAD_VALUES = [
    "",
    " ",
    "x",
    "-1",
    "0",
    "1e5",
    "99999999999999999999",
    "-99999999999999999999",
    "1.5",
    "½",
    "NaN",
    "<script>",
    "1d6" * 50,
    "ž" * 500,
    "\x00",
    "[]",
    "1d6+99999",
    "100d1000",
]
VALID = {
    "attack": lambda f, g: {"actor": f.pk, "target": g.pk, "mode": "melee", "damage": "1d6"},
    "save": lambda f, g: {"actor": f.pk, "category": "death", "damage": 3},
    "check": lambda f, g: {"actor": f.pk, "ability": "str"},
    "hp": lambda f, g: {"actor": f.pk, "action": "damage", "amount": 1},
    "rest": lambda f, g: {"actor": f.pk, "days": 1},
    "roll": lambda f, g: {"expression": "1d6"},
    # Dolmenwood (combat.systems.dolmenwood.forms)
    "dw_attack": lambda f, g: {
        "actor": f.pk,
        "target": g.pk,
        "mode": "melee",
        "weapon": "mundane",
        "damage": "1d6",
    },
    "dw_save": lambda f, g: {"actor": f.pk, "category": "doom", "effect": "poison"},
    "dw_check": lambda f, g: {"actor": f.pk, "ability": "str"},
    "dw_skill": lambda f, g: {"actor": f.pk, "skill": "listen"},
    "chance": lambda f, g: {"kind": "x_in_6", "chance": 3},
    # BECMI (combat.systems.becmi.forms)
    "becmi_attack": lambda f, g: {
        "actor": f.pk,
        "target": g.pk,
        "mode": "missile",
        "range_band": "long",
        "cover": "half",
        "damage": "1d6",
    },
    "becmi_save": lambda f, g: {"actor": f.pk, "category": "death"},
}
EXTRA_FIELDS = {
    "attack": ["natural", "modifier", "damage_dice", "secret"],
    "save": ["natural", "modifier", "secret"],
    "check": ["natural", "modifier", "score", "secret"],
    "hp": [],
    "rest": ["interrupted", "day_dice"],
    "roll": ["label", "entered", "secret"],
    "dw_attack": ["natural", "modifier", "damage_dice", "secret"],
    "dw_save": ["natural", "modifier", "magical", "secret"],
    "dw_check": ["natural", "modifier", "score", "secret"],
    "dw_skill": ["natural", "modifier", "secret"],
    "chance": ["natural", "label", "secret"],
    "becmi_attack": ["natural", "modifier", "damage_dice", "cover_material", "secret"],
    "becmi_save": ["natural", "modifier", "magical", "secret"],
}


# Every roll panel's form and action: the ones every table has and each rules system's.
ROLLS = {key: (p.form, p.act) for key, p in COMMON.items()} | {
    p.key: (p.form, p.act) for s in registry.systems() for p in s.panels if p.key in VALID
}


@pytest.mark.parametrize("kind", sorted(ROLLS))
def test_no_bad_value_in_any_roll_field_gives_a_server_error(encounter, kind):
    hero, goblin = character(encounter, "Hero"), monster(encounter, "Goblin")
    viewer = Viewer(encounter, is_referee=True, seat=None)
    form_class, act = ROLLS[kind]
    valid = VALID[kind](hero, goblin)
    for field in [*valid, *EXTRA_FIELDS[kind]]:
        for value in BAD_VALUES:
            form = form_class(valid | {field: value}, viewer=viewer)
            if form.is_valid():
                try:
                    act(viewer, **form.cleaned_data)
                except RulesError:
                    pass  # said to the user as a form message


TABLE_FORMS = {
    "combatant_new": {
        "name": "Orc",
        "side": "foes",
        "kind": "monster",
        "ac": 6,
        "hp_max": 5,
        "hit_dice": "1",
        "str_score": 10,
        "dex_score": 10,
    },
    "quick_add": {"count": 2, "name": "Orc", "ac": 6, "hit_dice": "1", "side": "foes"},
}
TABLE_BAD = ["x", "99999999999999999999", "1d6" * 50, "100d1000"]


@pytest.mark.parametrize("view", sorted(TABLE_FORMS))
def test_no_bad_value_on_the_referees_table_gives_a_server_error(referee, encounter, view):
    url = reverse(view, args=[encounter.slug])
    fields = [
        f
        for f in (*TABLE_FORMS[view], "hp", "thac0", "save_death", "hp_dice", "seat")
        if f not in ("name", "side", "kind")  # free text and choices: covered by the forms
    ]
    for field in fields:
        for value in TABLE_BAD:
            response = referee.post(url, TABLE_FORMS[view] | {field: value})
            assert response.status_code < 500, (view, field, value)


def test_bad_odds_queries_answer_without_odds(referee, encounter):
    hero, goblin = character(encounter, "Hero"), monster(encounter, "Goblin")
    for kind in ("attack", "save", "check", "roll"):
        for value in ("x", "99999999999999999999", ""):
            response = referee.get(
                reverse("odds", args=[encounter.slug, kind]),
                {
                    "actor": value,
                    "target": goblin.pk,
                    "modifier": value,
                    "expression": value,
                    "score": value,
                    "category": value,
                },
            )
            assert response.status_code == 200
    assert hero.pk


def test_an_unknown_odds_kind_is_not_found(referee, encounter):
    assert referee.get(reverse("odds", args=[encounter.slug, "nope"])).status_code == 404


def test_settings_with_bad_values_re_render_with_messages(referee, encounter):
    response = referee.post(
        reverse("encounter_settings", args=[encounter.slug]),
        {"settings-name": "", "settings-attack_method": "telepathy"},
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    encounter.refresh_from_db()
    assert encounter.attack_method == "matrix"
