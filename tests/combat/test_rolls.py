"""Rolls through the views, as a player or the referee would make them."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from combat.models import LogEntry

from .conftest import character, monster

pytestmark = pytest.mark.django_db


def _post(client, encounter, name, data, htmx=True):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse(name, args=[encounter.slug]), data, **headers)


def test_the_seeds_worked_example_hits_ac_2_and_so_the_monster(player, fighter, encounter):
    # A 5th-level fighter, THAC0 17, STR 13 (+1), rolls 14 against AC 4: total 15 hits AC 2.
    ogre = monster(encounter, "Ogre", ac=4, hp_max=20, hp=20)
    response = _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": ogre.pk,
            "mode": "melee",
            "natural": 14,
            "damage": "1d8",
            "damage_dice": "5",
        },
    )
    assert response.status_code == 200
    entry = LogEntry.objects.get(encounter=encounter)
    roll = entry.data["roll"]
    assert (roll["natural"], roll["total"], roll["hit_ac"], roll["success"]) == (14, 15, 2, True)
    assert roll["mods"] == [[1, "str"]]
    # Damage 5, +1 for STR in melee.
    assert entry.data["damage"]["total"] == 6
    ogre.refresh_from_db()
    assert ogre.hp == 14
    assert "Hit!" in response.content.decode()


def test_a_missile_attack_uses_dex_and_adds_no_strength_to_damage(player, fighter, encounter):
    fighter.dex_score = 16
    fighter.save()
    goblin = monster(encounter, "Goblin", ac=6, hp_max=7, hp=7)
    _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "missile",
            "natural": 10,
            "damage": "1d6",
            "damage_dice": "4",
        },
    )
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.data["roll"]["mods"] == [[2, "dex"]]
    assert entry.data["damage"]["total"] == 4


def test_a_miss_deals_no_damage(player, fighter, goblin, encounter):
    _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 2,
            "damage": "1d6",
            "damage_dice": "6",
        },
    )
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.data["roll"]["success"] is False
    assert entry.data["damage"] is None
    goblin.refresh_from_db()
    assert goblin.hp == goblin.hp_max


def test_a_monster_at_zero_hit_points_is_dead(referee, encounter):
    ogre = monster(encounter, "Ogre", ac=9, hp_max=3, hp=3, thac0=15)
    hero = character(encounter, "Hero", hp_max=4, hp=4)
    _post(
        referee,
        encounter,
        "attack",
        {
            "actor": ogre.pk,
            "target": hero.pk,
            "mode": "melee",
            "natural": 19,
            "damage": "1d6",
            "damage_dice": "4",
        },
    )
    hero.refresh_from_db()
    assert hero.hp == 0 and hero.dead
    assert LogEntry.objects.get(encounter=encounter).data["killed"] is True


def test_it_halves_damage_on_a_successful_save_rounding_down(player, fighter, encounter):
    _post(
        player,
        encounter,
        "save",
        {
            "actor": fighter.pk,
            "category": "breath",
            "natural": 15,
            "damage": 9,
        },
    )
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.data["roll"]["success"] is True
    assert entry.data["damage"] == {"amount": 9, "taken": 4, "halved": True}
    fighter.refresh_from_db()
    assert fighter.hp == 16


def test_a_failed_save_takes_the_whole_damage(player, fighter, encounter):
    _post(
        player,
        encounter,
        "save",
        {
            "actor": fighter.pk,
            "category": "breath",
            "natural": 5,
            "damage": 9,
        },
    )
    fighter.refresh_from_db()
    assert fighter.hp == 11


def test_a_natural_1_always_succeeds_on_an_ability_check(player, fighter, encounter):
    _post(
        player,
        encounter,
        "check",
        {
            "actor": fighter.pk,
            "ability": "int",
            "score": 3,
            "modifier": 4,
            "natural": 1,
        },
    )
    assert LogEntry.objects.get(encounter=encounter).data["roll"]["success"] is True


def test_a_natural_20_always_fails_on_an_ability_check(player, fighter, encounter):
    _post(
        player,
        encounter,
        "check",
        {
            "actor": fighter.pk,
            "ability": "str",
            "modifier": -4,
            "natural": 20,
        },
    )
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.data["score"] == 13
    assert entry.data["roll"]["success"] is False


def test_an_ability_check_modifier_beyond_4_is_a_clear_message(player, fighter, encounter):
    response = _post(
        player,
        encounter,
        "check",
        {
            "actor": fighter.pk,
            "ability": "str",
            "modifier": 5,
            "natural": 3,
        },
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not LogEntry.objects.exists()


def test_healing_never_raises_hit_points_above_the_maximum(referee, fighter, encounter):
    fighter.hp = 15
    fighter.save()
    _post(referee, encounter, "hit_points", {"actor": fighter.pk, "action": "heal", "amount": 9})
    fighter.refresh_from_db()
    assert fighter.hp == 20
    assert LogEntry.objects.get(encounter=encounter).effects == [{"combatant": fighter.pk, "hp": 5}]


def test_natural_healing_heals_1d3_per_full_day_and_nothing_on_an_interrupted_day(
    player, fighter, encounter
):
    fighter.hp = 5
    fighter.save()
    _post(
        player,
        encounter,
        "rest",
        {
            "actor": fighter.pk,
            "days": 3,
            "interrupted": 1,
            "day_dice": "2 3",
        },
    )
    fighter.refresh_from_db()
    assert fighter.hp == 10


def test_undo_reverses_an_earlier_entry_with_a_new_one(referee, player, fighter, goblin, encounter):
    _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 18,
            "damage": "1d4",
            "damage_dice": "2",
        },
    )
    attack = LogEntry.objects.get(encounter=encounter)
    goblin.refresh_from_db()
    assert goblin.hp == 2  # 2 + 1 (STR)
    response = referee.post(reverse("undo", args=[encounter.slug, attack.seq]))
    assert response.status_code == 302
    goblin.refresh_from_db()
    assert goblin.hp == 5
    undo = LogEntry.objects.get(undoes=attack)
    assert undo.seq > attack.seq
    # Undoing twice changes nothing more.
    referee.post(reverse("undo", args=[encounter.slug, attack.seq]))
    goblin.refresh_from_db()
    assert goblin.hp == 5
    assert LogEntry.objects.filter(encounter=encounter).count() == 2


@pytest.mark.parametrize("expression", ["2d6+1", "2k6+1", "2к6+1", "2К6+1"])
def test_a_free_roll_accepts_d_k_and_cyrillic_k(referee, encounter, expression):
    _post(referee, encounter, "free_roll", {"expression": expression, "entered": "3 4"})
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.data["total"] == 8
    assert entry.data["expr"] == "2d6+1"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("101d6", "At most 100 dice"),
        ("1d1001", "at most 1000 sides"),
        ("fireball", "is not a dice expression"),
        ("2d6+", "is not a dice expression"),
    ],
)
def test_a_free_roll_out_of_bounds_is_a_clear_message(referee, encounter, expression, message):
    response = _post(referee, encounter, "free_roll", {"expression": expression})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not LogEntry.objects.exists()


def test_entered_damage_dice_of_the_wrong_count_is_a_message(player, fighter, goblin, encounter):
    response = _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 20,
            "damage": "2d6",
            "damage_dice": "3",
        },
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode() or "alert" in response.content.decode()
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize(
    "data",
    [
        {"natural": 21},
        {"natural": 0},
        {"natural": "x"},
        {"modifier": "lots"},
        {"target": 999999},
        {"target": "abc"},
        {"mode": "telepathy"},
        {"damage": "1d0"},
    ],
)
def test_bad_attack_input_never_gives_a_server_error(player, fighter, goblin, encounter, data):
    base = {"actor": fighter.pk, "target": goblin.pk, "mode": "melee", "damage": "1d6"}
    response = _post(player, encounter, "attack", base | data)
    assert response.status_code == 200
    assert not LogEntry.objects.exists()


def test_a_plain_form_post_redirects_after_a_roll(player, fighter, goblin, encounter):
    response = _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 2,
        },
        htmx=False,
    )
    assert response.status_code == 302
    assert LogEntry.objects.filter(encounter=encounter).count() == 1


def test_the_odds_show_the_number_needed_and_the_exact_chance(player, fighter, goblin, encounter):
    # THAC0 17 against AC 6 needs 11; STR +1 makes a natural 10 enough: 11 of 20 = 55%.
    response = player.get(
        reverse("odds", args=[encounter.slug, "attack"]),
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "modifier": 0,
        },
    )
    assert "needs 11+ · 55%" in response.content.decode()


def test_direct_thac0_odds_also_show_the_matrix_where_they_differ(referee, encounter):
    encounter.attack_method = "thac0"
    encounter.save()
    weakling = monster(encounter, "Rat", thac0=19, hp_max=1, hp=1)
    plate = character(encounter, "Paladin", ac=-3)
    response = referee.get(
        reverse("odds", args=[encounter.slug, "attack"]),
        {
            "actor": weakling.pk,
            "target": plate.pk,
            "mode": "melee",
            "modifier": 0,
        },
    )
    text = response.content.decode()
    assert "needs 22+ · 0%" in text
    assert "the attack matrix: needs 20+ · 5%" in text


def test_the_save_form_opened_from_a_button_shows_its_odds(player, fighter, encounter):
    response = player.get(
        reverse("save", args=[encounter.slug]),
        {"actor": fighter.pk, "category": "death"},
        HTTP_HX_REQUEST="true",
    )
    assert "needs 10+ · 55%" in response.content.decode()


def test_a_free_roll_form_shows_the_range_mean_and_chart_before_the_roll(player, encounter):
    response = player.get(reverse("odds", args=[encounter.slug, "roll"]), {"expression": "2d6"})
    text = response.content.decode()
    assert "2 to 12 · average 7" in text
    assert text.count("<rect") == 11


def test_a_huge_free_roll_shows_its_range_without_a_chart(player, encounter):
    response = player.get(
        reverse("odds", args=[encounter.slug, "roll"]), {"expression": "100d1000"}
    )
    text = response.content.decode()
    assert "100 to 100000 · average 50050" in text
    assert "<rect" not in text


def test_a_player_may_make_a_free_roll_but_never_in_secret(player, encounter):
    _post(player, encounter, "free_roll", {"expression": "1d20", "entered": "7", "secret": "on"})
    entry = LogEntry.objects.get(encounter=encounter)
    assert (entry.data["total"], entry.secret, entry.actor) == (7, False, "Anna")


def test_the_dice_are_written_the_czech_way_in_czech(player, fighter, goblin, encounter):
    player.cookies["django_language"] = "cs"
    _post(
        player,
        encounter,
        "attack",
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 20,
            "damage": "1d6",
            "damage_dice": "2",
        },
    )
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "1k6" in page and "1k20" in page
    assert "TZ" in page


def test_only_playable_rules_systems_are_offered(db, client):
    page = client.get(reverse("home")).content.decode()
    assert 'value="ose"' in page
    assert 'value="becmi"' in page and 'value="dolmenwood"' in page  # the registry of systems
    response = client.post(
        reverse("home"), {"name": "X", "system": "gurps", "attack_method": "matrix"}
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()


def test_a_seated_player_without_a_character_is_told_what_happens_next(player, encounter):
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "The referee will give you a character" in page


def test_the_combatant_form_says_how_to_write_hit_dice_in_the_referees_language(referee, encounter):
    referee.cookies[settings.LANGUAGE_COOKIE_NAME] = "cs"
    response = referee.get(reverse("combatant_new", args=[encounter.slug]))
    assert "Nestvůry: tak, jak jsou zapsané, např. 1-1, 2+1, 4*" in response.content.decode()


@pytest.mark.django_db
def test_forms_without_odds_build_no_probe_of_themselves(encounter, goblin, monkeypatch):
    """Odds come for attacks, saves, checks and free rolls; the answer to a damage or a rest
    asks for none, and works out nothing to say so."""
    from combat import odds
    from combat.access import Viewer
    from combat.forms import HitPointsForm, RestForm

    def probe(form):
        raise AssertionError(f"a probe of {type(form).__name__}")

    monkeypatch.setattr(odds, "form_values", probe)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    for form_class in (HitPointsForm, RestForm):
        assert odds.for_form(form_class(viewer=viewer, initial={"actor": goblin.pk})) is None


HELPLESS_SAID = {
    "hit": "hits automatically: the target is helpless · 100%",
    "slain": "slain outright: the target is helpless · 100%",
}


@pytest.mark.parametrize("rule", ["hit", "slain"])
@pytest.mark.parametrize("condition", ["asleep", "paralysed"])
def test_the_odds_against_a_helpless_target_say_what_the_roll_then_does(
    player, fighter, goblin, encounter, rule, condition
):
    from combat.models import Condition

    encounter.helpless_rule = rule
    encounter.save()
    values = {"actor": fighter.pk, "target": goblin.pk, "mode": "melee", "modifier": 0}
    odds = reverse("odds", args=[encounter.slug, "attack"])
    assert "needs 11+ · 55%" in player.get(odds, values).content.decode()  # awake: rolled
    Condition.objects.create(combatant=goblin, kind=condition, rounds_left=3)
    said = player.get(odds, values).content.decode()
    assert HELPLESS_SAID[rule] in said and "needs" not in said
    # A natural 2 would miss an awake goblin: the roll does what the preview said instead.
    _post(player, encounter, "attack", values | {"natural": 2, "damage": "1d6", "damage_dice": "3"})
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert (entry.data["helpless"], entry.data["roll"]) == (rule, None)
    goblin.refresh_from_db()
    assert goblin.dead if rule == "slain" else goblin.hp == goblin.hp_max - 4  # 3 + 1 STR
