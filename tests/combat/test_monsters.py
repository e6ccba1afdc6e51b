"""Monster entries: attacks typed as a stat block writes them, movement, XP and special notes
(the referee's only), and attack buttons that open each system's attack form with that
attack's damage filled in and name it in the log."""

from __future__ import annotations

import re

import pytest
from django import forms
from django.test import Client
from django.urls import reverse
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.access import Viewer
from combat.live.state import render_snapshot
from combat.models import Combatant, Encounter, LogEntry
from combat.monsters import format_attacks, parse_attacks

from .conftest import character, form_values, monster

HX = {"HTTP_HX_REQUEST": "true"}
CLUB = [{"name": "club", "count": 1, "damage": "2d4"}]
CLAWS = [
    {"name": "claws", "count": 2, "damage": "1d4"},
    {"name": "bite", "count": 1, "damage": "1d8"},
]
ATTACK_PANELS = {
    "ose": "attack",
    "dolmenwood": "dw_attack",
    "becmi": "becmi_attack",
}


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


# --- the parser ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "attacks"),
    [
        ("", []),
        ("2 claws 1d4, bite 1d8", CLAWS),
        ("claws 1d4, claws 1d4, bite 1d8", CLAWS),  # the same attack twice is one ×2
        ("2× claws 1d4; bite 1d8", CLAWS),
        ("2 x claws 1d4, bite (1d8)", CLAWS),
        ("2 claws 1k4, bite 1к8", CLAWS),  # Czech and Russian/Ukrainian dice letters
        ("weapon 1d6", [{"name": "weapon", "count": 1, "damage": "1d6"}]),
        ("  war hammer 1d6+1 ,", [{"name": "war hammer", "count": 1, "damage": "1d6+1"}]),
        ("tail sting 1d6, bite 2d4", [
            {"name": "tail sting", "count": 1, "damage": "1d6"},
            {"name": "bite", "count": 1, "damage": "2d4"},
        ]),
        ("claw 1d4, Claw 1d4, claw 1d6", [
            {"name": "claw", "count": 2, "damage": "1d4"},
            {"name": "claw", "count": 1, "damage": "1d6"},
        ]),
    ],
)  # fmt: skip
def test_it_reads_attacks_as_a_stat_block_writes_them(text, attacks):
    assert parse_attacks(text) == attacks


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bite", "“bite”: give a name and its damage"),
        ("1d8", "“1d8”: give a name and its damage"),
        ("2 1d8", "“2 1d8”: give a name and its damage"),
        ("bite one-d-eight", "“bite one-d-eight”:"),
        ("bite 1d8, claw 1x4", "“claw 1x4”:"),
        ("0 claws 1d4", "“0 claws 1d4”: from 1 to 12 of one attack"),
        ("99 claws 1d4", "“99 claws 1d4”: from 1 to 12 of one attack"),
        ("a" * 31 + " 1d4", "an attack's name takes at most 30 characters"),
        ("x" * 401, "at most 200 characters"),
        # 199 characters typed, 214 written back ("d8" is "1d8", ", " between): too long.
        (",".join(f"{chr(97 + n) * 21} d8" for n in range(8)), "at most 200 characters"),
        (", ".join(f"attack{n} 1d4" for n in range(9)), "At most 8 different attacks"),
        ("bite 1000d1000", "“bite 1000d1000”:"),
    ],
)
def test_bad_attacks_say_which_part_is_wrong(text, message):
    with pytest.raises(forms.ValidationError) as raised:
        parse_attacks(text)
    assert message in " ".join(raised.value.messages)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=220)
    | st.lists(
        st.sampled_from(
            [
                "2",
                "claw",
                "1d4",
                "1к8",
                ",",
                " ",
                "×",
                "(1d6)",
                ";",
                "-1",
                "99",
                "d8",
                "x",
                "×",
                "bite",
            ]
        )
    ).map(" ".join)
)
def test_any_text_gives_attacks_or_a_form_error(text):
    try:
        attacks = parse_attacks(text)
    except forms.ValidationError:
        return
    assert len(attacks) <= 8
    assert parse_attacks(format_attacks(attacks)) == attacks  # written back, read back the same
    assert len(format_attacks(attacks)) <= 200
    for attack in attacks:
        assert 1 <= attack["count"] <= 12 and 0 < len(attack["name"]) <= 30


def test_bad_attacks_are_explained_in_each_language():
    with translation.override("cs"), pytest.raises(forms.ValidationError) as raised:
        parse_attacks("bite")
    assert raised.value.messages[0].startswith("„bite“: uveďte název a zranění")


def test_attacks_are_written_back_with_the_language_s_die_letter():
    assert format_attacks(CLAWS) == "2 claws 1d4, bite 1d8"
    assert format_attacks(CLAWS, letter="k") == "2 claws 1k4, bite 1k8"
    assert parse_attacks(format_attacks(CLAWS, letter="к")) == CLAWS


# --- entering them ----------------------------------------------------------------------------


def _new_monster(referee: Client, encounter: Encounter, **values: str):
    url = _url("combatant_new", encounter)
    data = form_values(referee.get(url, **HX).content.decode(), url) | {
        "name": "Ogre",
        "side": "foes",
        "kind": "monster",
        "ac": "5",
        "hp_max": "19",
        "hit_dice": "4+1",
    }
    return referee.post(url, data | values, **HX)


@pytest.mark.django_db
def test_the_referee_enters_a_monster_s_stat_block(referee, encounter):
    response = _new_monster(
        referee,
        encounter,
        attacks="club 2d4",
        movement="90' (30')",
        xp="125",
        special_notes="Hates dwarves.",
    )
    assert response.status_code == 200
    ogre = Combatant.objects.get(name="Ogre")
    assert (ogre.attacks, ogre.movement, ogre.xp, ogre.special_notes) == (
        CLUB,
        "90' (30')",
        125,
        "Hates dwarves.",
    )
    # Edited as written, in the referee's language's dice.
    edit = _url("combatant_edit", encounter, ogre.pk)
    with translation.override("cs"):
        page = referee.get(edit, HTTP_ACCEPT_LANGUAGE="cs", **HX).content.decode()
    # "club" is a starter bestiary's attack: the Czech referee reads it in Czech (issue 32).
    assert 'value="kyj 2k4"' in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"attacks": "club"}, "give a name and its damage"),
        ({"xp": "-5"}, "greater than or equal to 0"),
        ({"xp": "many"}, "Enter a whole number"),
        ({"movement": "9" * 41}, "at most 40 characters"),
        ({"special_notes": "x" * 501}, "at most 500 characters"),
    ],
)
def test_a_bad_stat_block_is_refused_and_adds_nothing(referee, encounter, values, message):
    response = _new_monster(referee, encounter, **values)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Combatant.objects.filter(name="Ogre").exists()


@pytest.mark.django_db
def test_an_edit_changes_the_attacks_and_keeps_what_it_left_alone(referee, encounter):
    ogre = monster(encounter, "Ogre", attacks=CLUB, movement="90'")
    url = _url("combatant_edit", encounter, ogre.pk)
    data = form_values(referee.get(url, **HX).content.decode(), url)
    assert data["attacks"] == "club 2d4"
    referee.post(url, data | {"attacks": "2 claws 1d4, bite 1d8"}, **HX)
    ogre.refresh_from_db()
    assert (ogre.attacks, ogre.movement) == (CLAWS, "90'")


@pytest.mark.django_db
def test_quick_add_gives_every_monster_the_stat_block(referee, encounter):
    values = {"count": "3", "name": "Hobgoblin", "ac": "6", "hit_dice": "1+1", "side": "foes"}
    values |= {"attacks": "weapon 1к8", "movement": "90' (30')", "xp": "15"}
    values |= {"special_notes": "Leader nearby"}
    response = referee.post(_url("quick_add", encounter), values, **HX)
    assert response.status_code == 200
    added = Combatant.objects.filter(name__startswith="Hobgoblin")
    assert added.count() == 3
    for hobgoblin in added:
        assert hobgoblin.attacks == [{"name": "weapon", "count": 1, "damage": "1d8"}]
        assert (hobgoblin.movement, hobgoblin.xp) == ("90' (30')", 15)
        assert hobgoblin.special_notes == "Leader nearby"


@pytest.mark.django_db
def test_quick_add_with_bad_attacks_adds_no_one(referee, encounter):
    values = {"count": "3", "name": "Hobgoblin", "ac": "6", "hit_dice": "1+1", "side": "foes"}
    response = referee.post(_url("quick_add", encounter), values | {"attacks": "weapon d"}, **HX)
    assert response.status_code == 200 and "“weapon d”" in response.content.decode()
    assert not Combatant.objects.filter(name__startswith="Hobgoblin").exists()


# --- who sees what ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_special_notes_and_xp_reach_the_referee_only(player, encounter):
    monster(encounter, "Ogre", attacks=CLUB, movement="90'", xp=125, special_notes="Hates elves")
    encounter.refresh_from_db()
    referee = Viewer(encounter, is_referee=True, seat=None)
    seated = Viewer(encounter, is_referee=False, seat=player.seat)
    for_referee = render_snapshot(referee, "en")[1]
    for_player = render_snapshot(seated, "en")[1]
    assert "Hates elves" in for_referee and "XP 125" in for_referee
    assert "Hates elves" not in for_player and "125" not in for_player
    assert "attack=0" in for_referee and "attack=0" not in for_player  # no buttons either


@pytest.mark.django_db
def test_a_player_controlling_a_monster_has_its_attack_buttons_but_not_its_secrets(
    player, encounter
):
    monster(encounter, "Pet wolf", attacks=CLUB, seat=player.seat, special_notes="Will betray")
    encounter.refresh_from_db()
    page = render_snapshot(Viewer(encounter, is_referee=False, seat=player.seat), "en")[1]
    assert "attack=0" in page and ">club<" in page
    assert "Will betray" not in page


# --- the buttons, in every rules system -------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("system", list(ATTACK_PANELS))
def test_an_attack_button_opens_its_system_s_form_with_the_damage(referee, encounter, system):
    encounter.system = system
    encounter.save()
    ogre = monster(encounter, "Ogre", attacks=CLAWS)
    page = render_snapshot(Viewer(encounter, is_referee=True, seat=None), "en")[1]
    panel = _url(ATTACK_PANELS[system], encounter)
    link = f"{panel}?actor={ogre.pk}&amp;attack=1"
    assert link in page and ">claws ×2<" in page
    form = referee.get(link.replace("&amp;", "&"), **HX).content.decode()
    values = form_values(form, panel)
    assert values["damage"] == "1d8" and values["attack"] == "1"
    assert "Damage (bite)" in form


@pytest.mark.django_db
@pytest.mark.parametrize("system", list(ATTACK_PANELS))
def test_the_log_names_the_attack_rolled(referee, encounter, system):
    encounter.system = system
    encounter.save()
    ogre = monster(encounter, "Ogre", attacks=CLUB)
    bara = character(encounter, "Bára", ac=5)
    panel = _url(ATTACK_PANELS[system], encounter)
    values = form_values(
        referee.get(f"{panel}?actor={ogre.pk}&attack=0&target={bara.pk}", **HX).content.decode(),
        panel,
    )
    response = referee.post(panel, values | {"natural": "20"}, **HX)
    assert response.status_code == 200
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["attack_name"] == "club"
    log = referee.get(_url("log", encounter)).content.decode()
    assert re.search(r"Ogre attacks Bára\s*\(club, melee", log)
    # The next form keeps the attack: the second claw is one more tap.
    again = form_values(response.content.decode(), panel)
    assert again["attack"] == "0" and again["damage"] == "2d4"


@pytest.mark.django_db
@pytest.mark.parametrize("forged", ["7", "-1", "x", "0" * 300, "¹"])
def test_an_attack_that_is_not_the_actor_s_names_nothing_and_breaks_nothing(
    referee, encounter, forged
):
    ogre = monster(encounter, "Ogre", attacks=CLUB)
    goblin = monster(encounter, "Goblin")  # no attacks of its own
    bara = character(encounter, "Bára")
    url = _url("attack", encounter)
    assert referee.get(f"{url}?actor={ogre.pk}&attack={forged}", **HX).status_code == 200
    for actor in (ogre, goblin):
        values = {"actor": actor.pk, "target": bara.pk, "mode": "melee", "damage": "1d6"}
        response = referee.post(url, values | {"attack": forged, "natural": "2"}, **HX)
        assert response.status_code == 200
    assert (
        referee.post(
            url, {"actor": goblin.pk, "target": bara.pk, "mode": "melee", "attack": "0"}, **HX
        ).status_code
        == 200
    )
    assert all(
        not entry.data.get("attack_name")
        for entry in LogEntry.objects.filter(encounter=encounter, kind="attack")
    )


@pytest.mark.django_db
def test_a_player_cannot_attack_with_a_monster_they_do_not_control(player, encounter):
    ogre = monster(encounter, "Ogre", attacks=CLUB)
    bara = character(encounter, "Bára", seat=player.seat)
    url = _url("attack", encounter)
    values = {"actor": ogre.pk, "target": bara.pk, "mode": "melee", "attack": "0"}
    assert player.post(url, values | {"damage": "2d4"}, **HX).status_code == 403
    assert not LogEntry.objects.filter(encounter=encounter, kind="attack").exists()


@pytest.mark.django_db
def test_damage_the_referee_changed_stays_for_the_next_roll_of_that_attack(referee, encounter):
    ogre = monster(encounter, "Ogre", attacks=CLUB)
    bara = character(encounter, "Bára", ac=5, hp_max=40, hp=40)
    url = _url("attack", encounter)
    values = form_values(
        referee.get(f"{url}?actor={ogre.pk}&attack=0&target={bara.pk}", **HX).content.decode(),
        url,
    )
    response = referee.post(url, values | {"damage": "2d4+2", "natural": "3"}, **HX)
    again = form_values(response.content.decode(), url)
    assert (again["attack"], again["damage"]) == ("0", "2d4+2")


@pytest.mark.django_db
def test_a_changed_stat_block_reaches_the_row_at_once(referee, encounter):
    ogre = monster(encounter, "Ogre", attacks=CLUB, special_notes="Hates elves")
    as_referee = Viewer(encounter, is_referee=True, seat=None)
    assert ">club<" in render_snapshot(as_referee, "en")[1]
    url = _url("combatant_edit", encounter, ogre.pk)
    data = form_values(referee.get(url, **HX).content.decode(), url)
    changes = {"attacks": "2 claws 1d4", "special_notes": "Fears fire", "xp": "75"}
    referee.post(url, data | changes | {"movement": "60'"}, **HX)
    encounter.refresh_from_db()
    page = render_snapshot(Viewer(encounter, is_referee=True, seat=None), "en")[1]
    assert ">claws ×2<" in page and ">club<" not in page
    assert "Fears fire" in page and "XP 75" in page and "MV 60&#x27;" in page


@pytest.mark.django_db
def test_a_czech_referee_sees_the_attack_s_damage_in_czech_dice(encounter):
    ogre = monster(encounter, "Ogre", attacks=CLUB)
    czech = Client(headers={"accept-language": "cs"})
    czech.get(reverse("referee_link", args=[encounter.referee_key]))
    url = _url("attack", encounter)
    page = czech.get(f"{url}?actor={ogre.pk}&attack=0", **HX).content.decode()
    assert form_values(page, url)["damage"] == "2k4"
    assert "Zranění (kyj)" in page
