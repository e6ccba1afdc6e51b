"""Characters by class and level (THAC0 and saves from the class's table, what the referee
typed over kept), all six ability scores used by checks, and notes only the referee and the
combatant's player see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from combat import classes, transfer
from combat.access import Viewer
from combat.character_forms import fill_form
from combat.live.state import render_snapshot
from combat.models import NOTES_LIMIT, Combatant, Encounter
from rules import becmi

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
TABLE = json.loads((Path(__file__).parents[1] / "rules" / "data" / "ose_classes.json").read_text())[
    "classes"
]
SAVES = classes.SAVE_FIELDS
EMPTY = dict.fromkeys(classes.FILLED_FIELDS, "")


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _new_form(referee: Client, encounter: Encounter) -> dict[str, str]:
    url = _url("combatant_new", encounter)
    return form_values(referee.get(url, **HX).content.decode(), url)


def _add(referee: Client, encounter: Encounter, **values: str):
    data = _new_form(referee, encounter) | {
        "name": "Aldric",
        "side": "party",
        "kind": "character",
        "ac": "4",
        "hp_max": "9",
    }
    return referee.post(_url("combatant_new", encounter), data | values, **HX)


def _edit(referee: Client, encounter: Encounter, who: Combatant, **values: str):
    url = _url("combatant_edit", encounter, who.pk)
    data = form_values(referee.get(url, **HX).content.decode(), url)
    return referee.post(url, data | values, **HX)


def _row(combatant: Combatant) -> tuple[int, ...]:
    return (combatant.thac0, *(getattr(combatant, name) for name in SAVES))


# --- the tables ----------------------------------------------------------------------------


@pytest.mark.parametrize("klass", sorted(TABLE))
def test_every_level_of_every_class_is_the_ose_table(klass):
    table = TABLE[klass]
    assert classes.max_level("ose", klass) == table["max_level"]
    for level, thac0, *saves in table["levels"]:
        filled = classes.filled("ose", klass, level)
        assert filled == {"thac0": thac0} | dict(zip(SAVES, saves, strict=True)), level
    assert len(table["levels"]) == table["max_level"]


def test_the_seven_classic_classes_are_the_table_s():
    assert set(classes.CharacterClass.values) == set(TABLE)


@pytest.mark.parametrize(
    ("klass", "level", "thac0", "saves"),
    [
        ("cleric", 1, 19, (11, 12, 14, 16, 15)),
        ("cleric", 4, 19, (11, 12, 14, 16, 15)),
        ("cleric", 5, 17, (9, 10, 12, 14, 12)),
        ("cleric", 14, 12, (3, 5, 7, 8, 7)),
        ("dwarf", 3, 19, (8, 9, 10, 13, 12)),
        ("dwarf", 4, 17, (6, 7, 8, 10, 10)),
        ("dwarf", 12, 12, (2, 3, 4, 4, 6)),
        ("elf", 9, 14, (8, 9, 9, 10, 10)),
        ("elf", 10, 12, (6, 7, 8, 8, 8)),
        ("fighter", 3, 19, (12, 13, 14, 15, 16)),
        ("fighter", 4, 17, (10, 11, 12, 13, 14)),
        ("fighter", 13, 10, (4, 5, 6, 5, 8)),
        ("fighter", 14, 10, (4, 5, 6, 5, 8)),
        ("halfling", 6, 17, (6, 7, 8, 10, 10)),
        ("halfling", 7, 14, (4, 5, 6, 7, 8)),
        ("halfling", 8, 14, (4, 5, 6, 7, 8)),
        ("magic-user", 5, 19, (13, 14, 13, 16, 15)),
        ("magic-user", 6, 17, (11, 12, 11, 14, 12)),
        ("magic-user", 11, 14, (8, 9, 8, 11, 8)),
        ("magic-user", 14, 14, (8, 9, 8, 11, 8)),
        ("thief", 4, 19, (13, 14, 13, 16, 15)),
        ("thief", 5, 17, (12, 13, 11, 14, 13)),
        ("thief", 12, 14, (10, 11, 9, 12, 10)),
        ("thief", 13, 12, (8, 9, 7, 10, 8)),
    ],
)
def test_the_levels_where_thac0_and_saves_change(klass, level, thac0, saves):
    assert classes.filled("ose", klass, level) == {"thac0": thac0} | dict(
        zip(SAVES, saves, strict=True)
    )


@pytest.mark.parametrize(
    ("klass", "top"),
    [("dwarf", 12), ("elf", 10), ("halfling", 8)]
    + [(k, 14) for k in ("cleric", "fighter", "magic-user", "thief")],
)
def test_each_class_stops_at_its_maximum_level(klass, top):
    assert classes.max_level("ose", klass) == top
    assert classes.filled("ose", klass, top)
    assert classes.filled("ose", klass, top + 1) == {}
    assert classes.filled("ose", klass, 0) == {}


def test_becmi_fills_thac0_from_the_hit_table_and_the_saves_from_the_rules_cyclopedia():
    def saves(*values: int) -> dict[str, int]:
        return dict(zip(SAVES, values, strict=True))

    assert classes.filled("becmi", "fighter", 4) == {"thac0": becmi.thac0("fighter", 4)} | saves(
        10, 11, 12, 13, 14
    )
    assert classes.filled("becmi", "magic-user", 36) == {
        "thac0": becmi.thac0("magic-user", 36)
    } | saves(2, 2, 2, 2, 2)
    assert classes.filled("becmi", "thief", 5) == {"thac0": becmi.thac0("thief", 5)} | saves(
        11, 12, 11, 14, 13
    )
    # Demi-humans: the demi-human column by level (the Fighter's), to their maximum level.
    assert classes.filled("becmi", "dwarf", 12) == {"thac0": becmi.thac0("demi-human", 12)} | (
        saves(2, 3, 4, 4, 3)
    )
    assert classes.filled("becmi", "elf", 4)["save_death"] == 8  # not OSE's 10
    assert classes.filled("becmi", "halfling", 9) == {}
    assert classes.max_level("becmi", "cleric") == 36


def test_dolmenwood_fills_nothing():
    assert classes.filled("dolmenwood", "fighter", 3) == {}
    assert classes.max_level("dolmenwood", "fighter") is None


def test_what_a_form_was_filled_from_is_read_strictly():
    assert classes.parse_filled_from("fighter:3") == ("fighter", 3)
    for text in ("fighter:²", "fighter:", "wizard:3", "fighter:123", None, "fighter3"):
        assert classes.parse_filled_from(text) is None


def test_a_changed_level_refills_what_was_filled_and_keeps_what_was_typed_over():
    fighter3 = classes.filled("ose", "fighter", 3)
    typed = fighter3 | {"save_breath": 9}
    after = classes.refill("ose", ("fighter", 3), ("fighter", 4), typed)
    assert after == classes.filled("ose", "fighter", 4) | {"save_breath": 9}
    # Empty fields are filled whatever came before; a class change is the same as a level's.
    empty = dict.fromkeys(classes.FILLED_FIELDS)
    assert classes.refill("ose", None, ("thief", 1), empty) == classes.filled("ose", "thief", 1)
    assert classes.refill("ose", ("fighter", 3), ("thief", 5), fighter3) == classes.filled(
        "ose", "thief", 5
    )


# --- the combatant form ----------------------------------------------------------------------


def test_the_referee_adds_a_character_by_class_and_level(referee, encounter):
    response = _add(referee, encounter, char_class="dwarf", level="4", **EMPTY)
    assert response.status_code == 200, response.content.decode()
    aldric = encounter.combatants.get(name="Aldric")
    assert (aldric.char_class, aldric.level) == ("dwarf", 4)
    assert _row(aldric) == (17, 6, 7, 8, 10, 10)


def test_a_changed_level_updates_the_values_filled_and_not_those_typed_over(referee, encounter):
    _add(referee, encounter, char_class="fighter", level="3", **EMPTY)
    aldric = encounter.combatants.get(name="Aldric")
    _edit(referee, encounter, aldric, save_spells="11")  # the referee's own value
    _edit(referee, encounter, aldric, level="4")
    aldric.refresh_from_db()
    assert _row(aldric) == (17, 10, 11, 12, 13, 11)
    _edit(referee, encounter, aldric, char_class="thief", level="13")
    aldric.refresh_from_db()
    assert _row(aldric) == (12, 8, 9, 7, 10, 11)
    # Every filled value stays editable.
    _edit(referee, encounter, aldric, thac0="15")
    aldric.refresh_from_db()
    assert aldric.thac0 == 15


def test_a_form_posted_without_what_it_was_filled_from_compares_with_the_stored_level(
    referee, encounter
):
    _add(referee, encounter, char_class="cleric", level="4", **EMPTY)
    aldric = encounter.combatants.get(name="Aldric")
    url = _url("combatant_edit", encounter, aldric.pk)
    data = form_values(referee.get(url, **HX).content.decode(), url)
    data.pop("filled_from")
    referee.post(url, data | {"level": "5"}, **HX)
    aldric.refresh_from_db()
    assert _row(aldric) == (17, 9, 10, 12, 14, 12)


def test_typed_values_win_over_a_class_chosen_with_them(referee, encounter):
    _add(referee, encounter, char_class="fighter", level="1", **EMPTY | {"thac0": "18"})
    assert encounter.combatants.get(name="Aldric").thac0 == 18


def test_a_becmi_character_gets_its_thac0_and_saves_from_its_class_and_level(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    response = _add(referee, encounter, char_class="cleric", level="17", **EMPTY)
    assert response.status_code == 200, response.content.decode()
    aldric = encounter.combatants.get(name="Aldric")
    assert _row(aldric) == (becmi.thac0("cleric", 17), 5, 6, 6, 8, 7)


def test_a_becmi_level_changed_refills_only_what_the_class_gave(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    _add(referee, encounter, char_class="fighter", level="20", **EMPTY)
    aldric = encounter.combatants.get(name="Aldric")
    assert _row(aldric) == (becmi.thac0("fighter", 20), 5, 5, 6, 6, 7)
    _edit(referee, encounter, aldric, save_breath="3")  # a ring of protection, say
    _edit(referee, encounter, aldric, level="25")
    aldric.refresh_from_db()
    assert _row(aldric) == (becmi.thac0("fighter", 25), 4, 4, 5, 3, 5)


def test_a_becmi_form_fills_the_saves_as_class_and_level_are_chosen(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    page = _fill(referee, encounter, char_class="halfling", level="5", **EMPTY).content.decode()
    assert page.count('hx-swap-oob="true"') == 7
    assert 'name="save_death" value="5"' in page and 'name="save_breath" value="9"' in page
    assert _fill(referee, encounter, char_class="halfling", level="9").status_code == 204


def test_a_dolmenwood_combatant_form_has_no_classic_classes(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="dolmenwood")
    page = referee.get(_url("combatant_new", encounter), **HX).content.decode()
    assert 'name="char_class"' not in page
    assert 'name="wis_score"' in page and 'name="cha_score"' in page


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"level": "0"}, "level", "Levels of this class: 1 to 14."),
        ({"level": "99"}, "level", "Levels of this class: 1 to 14."),
        ({"level": "three"}, "level", "Enter a whole number."),
        ({"level": "13", "char_class": "dwarf"}, "level", "Levels of this class: 1 to 12."),
        ({"char_class": "paladin"}, "char_class", "Select a valid choice."),
        ({"char_class": ""}, "char_class", "Choose the class for this level."),
        ({"level": ""}, "level", "Give the level for this class."),
        ({"kind": "monster", "hit_dice": "1"}, "char_class", "Only a character has a class"),
        ({"int_score": "19"}, "int_score", "less than or equal to 18"),
        ({"notes": "x" * (NOTES_LIMIT + 1)}, "notes", "at most 2000 characters"),
        ({"notes": "torch\x00"}, "notes", "Null characters are not allowed."),
    ],
)
def test_bad_class_input_is_a_form_error_and_adds_nothing(
    referee, encounter, values, field, message
):
    base = {"char_class": "fighter", "level": "2", **EMPTY}
    response = _add(referee, encounter, **base | values)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not encounter.combatants.exists()


def test_a_class_error_is_said_in_the_referee_s_language(referee, encounter):
    referee.cookies["django_language"] = "cs"
    response = _add(referee, encounter, char_class="elf", level="11", **EMPTY)
    page = response.content.decode()
    assert "Úrovně tohoto povolání: 1 až 10." in page
    assert not encounter.combatants.exists()


# --- filling the form as class and level are chosen (htmx) -----------------------------------


def _fill(client: Client, encounter: Encounter, **query: str):
    return client.get(_url("combatant_fill", encounter), {"kind": "character"} | query)


def test_choosing_class_and_level_fills_thac0_and_saves_in_the_form(referee, encounter):
    response = _fill(referee, encounter, char_class="elf", level="4", **EMPTY)
    page = response.content.decode()
    assert response.status_code == 200
    assert page.count('hx-swap-oob="true"') == 7
    assert 'id="id_thac0"' in page and 'value="17"' in page
    assert 'id="id_save_spells"' in page and 'value="12"' in page
    assert 'name="filled_from" value="elf:4"' in page


def test_a_level_chosen_anew_keeps_what_the_referee_typed_in_the_form(referee, encounter):
    filled = {k: str(v) for k, v in classes.filled("ose", "thief", 4).items()}
    query = filled | {"save_death": "5", "filled_from": "thief:4"}
    page = _fill(referee, encounter, char_class="thief", level="5", **query).content.decode()
    assert 'name="save_death" value="5"' in page
    assert 'name="save_wands" value="13"' in page


@pytest.mark.parametrize(
    "query",
    [
        {"char_class": "fighter", "level": ""},
        {"char_class": "fighter", "level": "15"},
        {"char_class": "wizard", "level": "3"},
        {"char_class": "fighter", "level": "3", "kind": "monster"},
        {"char_class": "fighter", "level": "99999999999999999999"},
        {"char_class": "fighter", "level": "²"},
    ],
)
def test_nothing_is_filled_for_an_incomplete_or_impossible_choice(referee, encounter, query):
    assert _fill(referee, encounter, **query).status_code == 204


def test_only_the_referee_fills_a_combatant_form(player, outsider, encounter):
    assert _fill(player, encounter, char_class="fighter", level="3").status_code == 403
    assert _fill(outsider, encounter, char_class="fighter", level="3").status_code == 404


# --- six ability scores ----------------------------------------------------------------------


def test_all_six_ability_scores_are_stored_and_checks_use_them_without_typing(referee, encounter):
    _add(
        referee, encounter, char_class="cleric", level="1", int_score="8", wis_score="17",
        con_score="13", cha_score="4", **EMPTY,
    )  # fmt: skip
    aldric = encounter.combatants.get(name="Aldric")
    scores = (aldric.int_score, aldric.wis_score, aldric.con_score, aldric.cha_score)
    assert scores == (8, 17, 13, 4)
    for ability, score in (("wis", 17), ("con", 13), ("int", 8), ("cha", 4)):
        response = referee.post(
            _url("check", encounter),
            {"actor": aldric.pk, "ability": ability, "natural": "3"},
            **HX,
        )
        assert response.status_code == 200
        entry = encounter.log.first()
        assert (entry.kind, entry.data["score"]) == ("check", score)


def test_a_check_of_a_score_not_stored_asks_for_it(referee, encounter):
    aldric = character(encounter, "Aldric")
    response = referee.post(
        _url("check", encounter), {"actor": aldric.pk, "ability": "cha", "natural": "3"}, **HX
    )
    assert "Enter the ability score." in response.content.decode()
    assert not encounter.log.exists()


def test_the_row_shows_the_scores_with_their_modifiers_in_ose_terms(referee, encounter):
    character(
        encounter, "Aldric", char_class="fighter", level=3, str_score=16, int_score=9,
        cha_score=18, dex_score=6,
    )  # fmt: skip
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert "Fighter 3" in page
    assert "16&nbsp;(+2)" in page  # STR: melee attacks and damage
    assert "6&nbsp;(−1)" in page  # DEX: armour class and missile attacks
    assert "18&nbsp;(+2)" in page  # CHA: reactions, −2 to +2 in OSE
    assert ">INT</abbr>&nbsp;9<" in page  # INT gives languages, no modifier
    assert 'title="reactions of NPCs"' in page


# --- notes -----------------------------------------------------------------------------------


def _notes(client: Client, encounter: Encounter, who: Combatant, text: str):
    url = _url("combatant_notes", encounter, who.pk)
    data = form_values(client.get(url, **HX).content.decode(), url)
    return client.post(url, data | {"notes": text}, **HX)


def test_a_player_edits_their_character_s_notes_and_only_they_and_the_referee_see_them(
    referee, player, other_player, encounter
):
    anna = character(encounter, "Anna the thief", seat=player.seat)
    encounter.refresh_from_db()
    seq = encounter.seq
    response = _notes(player, encounter, anna, "Arrows: 14\nTorches: 2")
    assert response.status_code == 200
    anna.refresh_from_db()
    assert anna.notes == "Arrows: 14\nTorches: 2"
    encounter.refresh_from_db()
    assert encounter.seq == seq + 1
    assert "Arrows: 14" in referee.get(_url("encounter", encounter)).content.decode()
    assert "Arrows: 14" in player.get(_url("encounter", encounter)).content.decode()
    assert "Arrows: 14" not in other_player.get(_url("encounter", encounter)).content.decode()


def test_notes_go_live_to_the_referee_and_the_player_and_never_to_other_players(
    player, other_player, encounter
):
    anna = character(encounter, "Anna the thief", seat=player.seat, notes="Spells left: sleep")
    encounter.refresh_from_db()
    referee = Viewer(encounter, is_referee=True, seat=None)
    own = Viewer(encounter, is_referee=False, seat=player.seat)
    other = Viewer(encounter, is_referee=False, seat=other_player.seat)
    assert "Spells left: sleep" in render_snapshot(referee, "en")[1]
    assert "Spells left: sleep" in render_snapshot(own, "en")[1]
    assert "Spells left: sleep" not in render_snapshot(other, "cs")[1]
    assert anna.name in render_snapshot(other, "en")[1]


def test_a_player_cannot_read_or_write_another_s_notes(referee, player, other_player, encounter):
    anna = character(encounter, "Anna the thief", seat=player.seat, notes="secret stash")
    goblin = monster(encounter, "Goblin", notes="carries the key")
    url = _url("combatant_notes", encounter, anna.pk)
    assert other_player.get(url, **HX).status_code == 404
    assert other_player.post(url, {"notes": "stolen"}, **HX).status_code == 404
    foes = _url("combatant_notes", encounter, goblin.pk)
    assert player.post(foes, {"notes": "x"}).status_code == 404
    assert Client().post(url, {"notes": "x"}).status_code == 404
    anna.refresh_from_db()
    goblin.refresh_from_db()
    assert (anna.notes, goblin.notes) == ("secret stash", "carries the key")
    # The referee edits anyone's.
    _notes(referee, encounter, goblin, "dropped the key")
    goblin.refresh_from_db()
    assert goblin.notes == "dropped the key"


@pytest.mark.parametrize(
    ("text", "message"),
    [("x" * (NOTES_LIMIT + 1), "at most 2000 characters"), ("a\x00b", "Null characters")],
)
def test_bad_notes_are_refused_and_change_nothing(player, encounter, text, message):
    anna = character(encounter, "Anna the thief", seat=player.seat, notes="kept")
    response = _notes(player, encounter, anna, text)
    assert response.status_code == 200 and message in response.content.decode()
    anna.refresh_from_db()
    assert anna.notes == "kept"


def test_notes_changed_meanwhile_by_the_referee_are_not_overwritten(referee, player, encounter):
    anna = character(encounter, "Anna the thief", seat=player.seat, notes="Torches: 3")
    url = _url("combatant_notes", encounter, anna.pk)
    mine = form_values(player.get(url, **HX).content.decode(), url)
    _notes(referee, encounter, anna, "Torches: 2")
    response = player.post(url, mine | {"notes": "Torches: 3, rope"}, **HX)
    assert "Someone changed this while you were editing" in response.content.decode()
    anna.refresh_from_db()
    assert anna.notes == "Torches: 2"


def test_long_notes_are_folded_on_the_row(referee, encounter):
    character(encounter, "Aldric", notes="Spells: " + "sleep, " * 20)
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert "<details><summary>Spells: sleep" in page


# --- properties ------------------------------------------------------------------------------

CLASS_LEVELS = st.sampled_from(sorted(TABLE)).flatmap(
    lambda k: st.tuples(st.just(k), st.integers(1, TABLE[k]["max_level"]))
)


@settings(max_examples=200, deadline=None)
@given(before=CLASS_LEVELS, after=CLASS_LEVELS, typed=st.dictionaries(
    st.sampled_from(classes.FILLED_FIELDS), st.integers(1, 25)
))  # fmt: skip
def test_a_refill_follows_the_table_except_where_the_referee_typed_over(before, after, typed):
    """Whatever the classes and levels, a field still as the previous choice filled it takes
    the new choice's value, and a field typed over keeps what was typed."""
    values = classes.filled("ose", *before) | typed
    result = classes.refill("ose", before, after, values)
    overridden = {k for k, v in typed.items() if v != classes.filled("ose", *before)[k]}
    for name in classes.FILLED_FIELDS:
        wanted = values[name] if name in overridden else classes.filled("ose", *after)[name]
        assert result[name] == wanted


@settings(max_examples=200, deadline=None)
@given(query=st.dictionaries(
    st.sampled_from(["kind", "char_class", "level", "filled_from", *classes.FILLED_FIELDS]),
    st.text(max_size=30),
))  # fmt: skip
def test_no_query_makes_the_fill_fail(query):
    encounter, _new = Encounter.objects.get_or_create(name="Fuzz")
    query = {"kind": "character", "char_class": "elf", "level": "3"} | query
    fields = fill_form(encounter, query)
    assert fields == [] or len(fields) == 7


def test_the_row_reads_in_the_viewer_s_language(referee, encounter):
    character(encounter, "Aldric", char_class="fighter", level=3, str_score=16)
    referee.cookies["django_language"] = "cs"
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert "Bojovník 3" in page
    assert ">SIL</abbr>&nbsp;16&nbsp;(+2)" in page
    assert 'title="útoky zblízka a zranění"' in page


def test_a_save_against_magic_adds_the_stored_wis_and_says_so(referee, encounter):
    sage = character(encounter, "Sage", wis_score=17, save_spells=15)
    plain = character(encounter, "Plain", save_spells=15)  # no WIS stored: nothing added
    odds = referee.get(
        _url("odds", encounter, "save"),
        {"actor": sage.pk, "category": "spells", "magical": "on"},
    ).content.decode()
    assert "needs 15+ · 40%" in odds  # 13 or more on the die: 8 faces of 20
    for who, mods in ((sage, [[2, "wis"]]), (plain, [])):
        referee.post(
            _url("save", encounter),
            {"actor": who.pk, "category": "spells", "magical": "on", "natural": "13"},
            **HX,
        )
        entry = encounter.log.first()
        assert entry.data["roll"]["mods"] == mods
        assert entry.data["roll"]["success"] is (who == sage)
    page = referee.get(_url("log", encounter)).content.decode()
    assert "+\N{NO-BREAK SPACE}2 WIS" in page  # a term of the sum, signed


# --- monsters that save as a class ("Save As: F3") -------------------------------------------


def _add_monster(referee: Client, encounter: Encounter, **values: str):
    """A bandit with 1 Hit Die through "Add combatant", its saves left empty."""
    bandit = {"name": "Bandit", "side": "foes", "kind": "monster", "ac": "6", "hp_max": "5"}
    return _add(referee, encounter, **bandit | {"hit_dice": "1"} | EMPTY | values)


def _saves(combatant: Combatant) -> tuple[int, ...]:
    return tuple(getattr(combatant, name) for name in SAVES)


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("F3", "fighter:3"),
        ("Fighter 3", "fighter:3"),
        ("as Dwarf 2", "dwarf:2"),
        ("MU 5", "magic-user:5"),
        ("M-U 5", "magic-user:5"),
        ("3rd level thief", "thief:3"),
        ("e1", "elf:1"),
        ("Bojovník 3", "fighter:3"),
        ("3. úroveň kouzelník", "magic-user:3"),
        ("как воин 3-го уровня", "fighter:3"),
        ("напіврослик 4", "halfling:4"),
        ("Normal human", "normal-human"),
        ("NH", "normal-human"),
        ("běžný člověk", "normal-human"),
        ("ОЧ", "normal-human"),
    ],
)
def test_what_a_monster_saves_as_is_read_as_stat_blocks_write_it(typed, key):
    assert classes.saves_as_key(*classes.parse_saves_as(typed)) == key


@pytest.mark.parametrize("typed", ["F", "Fighter", "F3 4", "wizard 3", "H²", "NH 2", "x" * 41])
def test_what_no_stat_block_writes_is_refused(typed):
    with pytest.raises(classes.SavesAsError):
        classes.parse_saves_as(typed)


def test_a_monster_saving_as_fighter_3_gets_that_row_of_the_ose_table(referee, encounter):
    response = _add_monster(referee, encounter, saves_as="F3")
    assert response.status_code == 200, response.content.decode()
    bandit = encounter.combatants.get(name="Bandit")
    assert bandit.saves_as == "fighter:3"
    assert _saves(bandit) == (12, 13, 14, 15, 16)
    assert bandit.thac0 == 19  # THAC0 still from its Hit Dice


def test_a_becmi_monster_saves_from_the_rules_cyclopedia_row(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    _add_monster(referee, encounter, saves_as="Thief 5")
    assert _saves(encounter.combatants.get(name="Bandit")) == (11, 12, 11, 14, 13)
    _add_monster(referee, encounter, name="Farmer", saves_as="Normal human")
    assert _saves(encounter.combatants.get(name="Farmer")) == (14, 15, 16, 17, 17)


def test_the_edit_form_shows_it_in_the_referee_s_language_and_keeps_it(referee, encounter):
    _add_monster(referee, encounter, saves_as="dwarf 2")
    bandit = encounter.combatants.get(name="Bandit")
    referee.cookies["django_language"] = "cs"
    url = _url("combatant_edit", encounter, bandit.pk)
    data = form_values(referee.get(url, **HX).content.decode(), url)
    assert data["saves_as"] == "Trpaslík 2"
    referee.post(url, data | {"name": "Bandit chief"}, **HX)
    bandit.refresh_from_db()
    assert (bandit.name, bandit.saves_as, _saves(bandit)) == (
        "Bandit chief",
        "dwarf:2",
        (8, 9, 10, 13, 12),
    )


def test_a_changed_saves_as_refills_only_what_it_gave(referee, encounter):
    _add_monster(referee, encounter, saves_as="F1")
    bandit = encounter.combatants.get(name="Bandit")
    _edit(referee, encounter, bandit, save_spells="9")  # an amulet, say
    _edit(referee, encounter, bandit, saves_as="F7")
    bandit.refresh_from_db()
    assert _saves(bandit) == (8, 9, 10, 10, 9)
    _edit(referee, encounter, bandit, saves_as="")  # back to its Hit Dice
    bandit.refresh_from_db()
    assert (bandit.saves_as, _saves(bandit)) == ("", (12, 13, 14, 15, 9))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"saves_as": "wizard 3"}, "A class and level as a stat block writes them"),
        ({"saves_as": "Fighter"}, "Give the level too, as in Fighter 3."),
        ({"saves_as": "NH 3"}, "A normal human has no level."),
        ({"saves_as": "F15"}, "Levels of this class: 1 to 14."),
        ({"saves_as": "Halfling 9"}, "Levels of this class: 1 to 8."),
        ({"saves_as": "F0"}, "Levels of this class: 1 to 14."),
        ({"saves_as": "Fighter 100000"}, "Levels of this class: 1 to 14."),
        ({"saves_as": "F3", "kind": "character"}, "Only a monster or a normal human saves as"),
        ({"saves_as": "F" * 41}, "A class and level as a stat block writes them"),
        ({"saves_as": "F\x003"}, "Null characters are not allowed."),
    ],
)
def test_a_bad_saves_as_is_a_form_error_and_adds_nothing(referee, encounter, values, message):
    response = _add_monster(referee, encounter, **values)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not encounter.combatants.exists()


def test_a_bad_saves_as_is_said_in_the_referee_s_language(referee, encounter):
    referee.cookies["django_language"] = "ru"
    page = _add_monster(referee, encounter, saves_as="воин").content.decode()
    assert "Укажите и уровень, например «Воин 3»." in page
    assert not encounter.combatants.exists()


def test_quick_add_saves_every_monster_as_the_class_given(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    values = {"count": "2", "name": "Brigand", "ac": "7", "hit_dice": "1", "side": "foes"}
    response = referee.post(_url("quick_add", encounter), values | {"saves_as": "C2"}, **HX)
    assert response.status_code == 200
    added = encounter.combatants.filter(name__startswith="Brigand")
    assert added.count() == 2
    for brigand in added:
        assert (brigand.saves_as, _saves(brigand)) == ("cleric:2", (11, 12, 14, 16, 15))


@pytest.mark.parametrize(("typed", "message"), [("elf 11", "1 to 10"), ("F", "Give the level")])
def test_quick_add_with_a_bad_saves_as_adds_no_one(referee, encounter, typed, message):
    values = {"count": "2", "name": "Brigand", "ac": "7", "hit_dice": "1", "side": "foes"}
    response = referee.post(_url("quick_add", encounter), values | {"saves_as": typed}, **HX)
    assert message in response.content.decode()
    assert not encounter.combatants.exists()


def test_dolmenwood_forms_ask_for_no_saves_as(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="dolmenwood")
    assert (
        'name="saves_as"'
        not in referee.get(_url("combatant_new", encounter), **HX).content.decode()
    )
    assert 'name="saves_as"' not in referee.get(_url("quick_add", encounter), **HX).content.decode()


def test_what_a_monster_saves_as_travels_in_an_encounter_file(encounter):
    monster(encounter, "Bandit", saves_as="fighter:3", save_death=12)
    exported = transfer.export_encounter(encounter)
    assert exported["combatants"][0]["saves_as"] == "fighter:3"
    copy_ = transfer.import_encounter(json.dumps(exported).encode())
    assert copy_.combatants.get().saves_as == "fighter:3"


@pytest.mark.parametrize("stored", ["paladin:3", "halfling:9", "fighter:0", "F3", "fighter:3x"])
def test_an_encounter_file_with_an_impossible_saves_as_is_refused(encounter, stored):
    monster(encounter, "Bandit")
    exported = transfer.export_encounter(encounter)
    exported["combatants"][0]["saves_as"] = stored
    with pytest.raises(transfer.Refused):
        transfer.import_encounter(json.dumps(exported).encode())


def _fill_monster(client: Client, encounter: Encounter, **query: str):
    return client.get(_url("combatant_fill", encounter), {"kind": "monster"} | query)


def test_typing_what_a_monster_saves_as_fills_its_saves_in_the_form(referee, encounter):
    page = _fill_monster(referee, encounter, hit_dice="1", saves_as="D2").content.decode()
    assert page.count('hx-swap-oob="true"') == 6
    assert 'name="save_death" value="8"' in page and 'name="save_spells" value="12"' in page
    assert 'name="saves_filled_from" value="dwarf:2"' in page


def test_a_saves_as_typed_anew_keeps_the_saves_typed_over_in_the_form(referee, encounter):
    dwarf2 = {f"save_{k}": str(v) for k, v in classes.saves_as_saves("ose", "dwarf:2").items()}
    query = dwarf2 | {"save_spells": "3", "saves_filled_from": "dwarf:2", "hit_dice": "1"}
    page = _fill_monster(referee, encounter, saves_as="Dwarf 7", **query).content.decode()
    assert 'name="save_death" value="4"' in page
    assert 'name="save_spells" value="3"' in page
    # Cleared: back to the Hit Dice row, the typed-over save still kept.
    query = {"hit_dice": "1", "saves_filled_from": "dwarf:7", "save_death": "4", "save_spells": "3"}
    page = _fill_monster(referee, encounter, saves_as="", **query).content.decode()
    assert 'name="save_death" value="12"' in page and 'name="save_spells" value="3"' in page
    assert 'name="saves_filled_from" hx-swap-oob="true"' in page  # filled from nothing now


@pytest.mark.parametrize(
    "query",
    [
        {"saves_as": "F", "hit_dice": "1"},
        {"saves_as": "wizard 3", "hit_dice": "1"},
        {"saves_as": "F15", "hit_dice": "1"},
        {"saves_as": "", "hit_dice": ""},
        {"saves_as": "F3", "hit_dice": "1", "kind": "ship"},
    ],
)
def test_nothing_is_filled_for_a_saves_as_no_table_has(referee, encounter, query):
    assert _fill_monster(referee, encounter, **query).status_code == 204


def test_a_becmi_normal_human_saves_as_the_rules_cyclopedia_s_normal_man(referee, encounter):
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")
    _add_monster(referee, encounter, kind="normal_human", hit_dice="")
    assert _saves(encounter.combatants.get(name="Bandit")) == (14, 15, 16, 17, 17)


def test_ose_and_becmi_forms_ask_for_saves_as(referee, encounter):
    for system in ("ose", "becmi"):
        Encounter.objects.filter(pk=encounter.pk).update(system=system)
        for name in ("combatant_new", "quick_add"):
            page = referee.get(_url(name, encounter), **HX).content.decode()
            assert 'name="saves_as"' in page


def test_the_referee_s_row_says_what_a_monster_saves_as_in_their_language(referee, encounter):
    _add_monster(referee, encounter, saves_as="MU 5")
    bandit = encounter.combatants.get(name="Bandit")
    encounter.refresh_from_db()
    viewer = Viewer(encounter, is_referee=True, seat=None)
    assert "saves as Magic-User 5" in render_snapshot(viewer, "en")[1]
    assert "záchranné hody jako Kouzelník 5" in render_snapshot(viewer, "cs")[1]
    _edit(referee, encounter, bandit, saves_as="T5")  # the row follows a change at once
    encounter.refresh_from_db()
    viewer = Viewer(encounter, is_referee=True, seat=None)
    assert "saves as Thief 5" in render_snapshot(viewer, "en")[1]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_typed_as_saves_as_is_read_or_refused_with_a_message(text):
    try:
        klass, level = classes.parse_saves_as(text)
    except classes.SavesAsError as error:
        assert str(error.message)
    else:
        key = classes.saves_as_key(klass, level)
        assert classes.split_saves_as(key) == (klass, level)  # stored as read
        shown = classes.format_saves_as(key)  # as the edit form shows it back
        assert classes.saves_as_key(*classes.parse_saves_as(shown)) == key


@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_what_the_edit_form_shows_back_reads_back_in_every_language(language):
    from django.utils import translation

    with translation.override(language):
        for key in ("magic-user:3", "halfling:2", "thief:36", classes.NORMAL_HUMAN):
            shown = classes.format_saves_as(key)
            assert classes.saves_as_key(*classes.parse_saves_as(shown)) == key
