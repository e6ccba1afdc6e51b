"""Dolmenwood at the table, through the views as the referee and players use them.

Facts from the Dolmenwood core rules (seed 004, Ukrainian), copied here as cases:
- skill check: 1d6 + modifiers ≥ the skill's target (6 unless Kindred or class gives lower;
  when both do, the better); natural 1 fails, natural 6 succeeds.
- ability check: 1d6 + the ability's modifier + modifiers ≥ 4; natural 1 fails, 6 succeeds.
- saves: 1d20 + modifiers ≥ the category's target; WIS modifier only against magic; natural 1
  fails, natural 20 succeeds. Categories Doom, Ray, Hold, Blast, Spell, chosen in that order.
- attack: 1d20 + attack bonus + STR (melee) or DEX (missile) ≥ the defender's AC; natural 1
  misses, 20 hits; damage + STR for melee, at least 1; HP never below 0; an immune target
  takes no damage and no damage is rolled.
- chance: X-in-6 on a d6 (success on X or less); percentage on d100.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from combat.models import Combatant, Encounter, LogEntry

from ...conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def encounter(db) -> Encounter:
    return Encounter.objects.create(name="The Hag's glade", system="dolmenwood")


def _post(client, encounter, name, data):
    return client.post(reverse(name, args=[encounter.slug]), data, **HX)


def _get(client, encounter, name, query=""):
    return client.get(reverse(name, args=[encounter.slug]) + query, **HX)


@pytest.fixture
def hunter(encounter, player):
    """A hunter: attack bonus +1, STR 13 (+1), DEX 16 (+2), WIS 16 (+2); Listen 5 from
    Kindred and 4 from class, a class skill Tracking 4; saves Doom 12 … Spell 16."""
    return character(
        encounter,
        "Wendeline",
        seat=player.seat,
        ac=13,
        attack_bonus=1,
        str_score=13,
        dex_score=16,
        wis_score=16,
        save_death=12,
        save_wands=13,
        save_paralysis=14,
        save_breath=15,
        save_spells=16,
        skills=[
            {"key": "listen", "name": "", "targets": [5, 4]},
            {"key": "", "name": "Tracking", "targets": [4]},
        ],
    )


@pytest.fixture
def bogle(encounter):
    return monster(encounter, "Bogle", ac=14, hp_max=6, hp=6, attack_bonus=2)


# --- skill checks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("natural", "modifier", "success"),
    [
        (3, 0, False),  # 3 < the better target 4
        (4, 0, True),  # Kindred 5, class 4: the better (4) is used
        (2, 2, True),  # 2 + 2 = 4
        (1, 5, False),  # a natural 1 always fails
        (6, -5, True),  # a natural 6 always succeeds
    ],
)
def test_a_skill_check_takes_the_better_of_kindred_and_class(
    player, hunter, encounter, natural, modifier, success
):
    response = _post(
        player,
        encounter,
        "dw_skill",
        {"actor": hunter.pk, "skill": "listen", "modifier": modifier, "natural": natural},
    )
    assert response.status_code == 200
    entry = LogEntry.objects.get(encounter=encounter)
    assert entry.kind == "skill"
    assert entry.data["skill"] == "listen"
    assert entry.data["roll"]["needed"] == 4
    assert entry.data["roll"]["success"] is success
    assert entry.data["roll"]["entered"] is True


def test_everyone_has_search_at_6_and_a_class_skill_only_its_class(
    player, hunter, encounter, referee, bogle
):
    _post(player, encounter, "dw_skill", {"actor": hunter.pk, "skill": "search", "natural": 5})
    assert LogEntry.objects.get().data["roll"]["needed"] == 6
    _post(
        player, encounter, "dw_skill", {"actor": hunter.pk, "skill": "name:Tracking", "natural": 4}
    )
    tracked = LogEntry.objects.get(kind="skill", data__name="Tracking")
    assert tracked.data["roll"]["success"] is True
    response = _post(
        referee, encounter, "dw_skill", {"actor": bogle.pk, "skill": "name:Tracking", "natural": 4}
    )
    assert "class skill this character does not have" in response.content.decode()
    assert LogEntry.objects.count() == 2


def test_the_skill_form_shows_the_odds_before_the_roll(player, hunter, encounter):
    page = _get(player, encounter, "dw_skill", f"?actor={hunter.pk}").content.decode()
    # Target 4 on a d6: 4, 5, 6 succeed.
    assert "needs 4+ · 50%" in page
    assert "Kindred gives 5, class 4: the better, 4." in page
    odds = reverse("system_odds", args=[encounter.slug, "dw_skill"])
    again = player.get(odds, {"actor": hunter.pk, "skill": "listen", "modifier": 1})
    assert "needs 4+ · 66.7%" in again.content.decode()  # the total, as OSE says it


# --- ability checks ----------------------------------------------------------------------


@pytest.mark.parametrize(("natural", "success"), [(1, False), (2, True), (6, True)])
def test_an_ability_check_needs_4_with_the_abilitys_modifier(
    player, hunter, encounter, natural, success
):
    # DEX 16: +2, so a natural 2 makes 4.
    _post(player, encounter, "dw_check", {"actor": hunter.pk, "ability": "dex", "natural": natural})
    entry = LogEntry.objects.get()
    assert entry.data["roll"]["mods"] == [[2, "dex"]]
    assert (entry.data["roll"]["needed"], entry.data["roll"]["success"]) == (4, success)


def test_an_ability_check_without_a_known_score_asks_for_it(player, hunter, encounter):
    response = _post(player, encounter, "dw_check", {"actor": hunter.pk, "ability": "cha"})
    assert "Enter the ability score." in response.content.decode()
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize(
    "ability, field", [("int", "int_score"), ("con", "con_score"), ("cha", "cha_score")]
)
def test_an_ability_check_uses_any_of_the_six_scores_stored(
    player, hunter, encounter, ability, field
):
    Combatant.objects.filter(pk=hunter.pk).update(**{field: 18})
    _post(player, encounter, "dw_check", {"actor": hunter.pk, "ability": ability, "natural": 1})
    entry = LogEntry.objects.get()
    assert entry.data["roll"]["mods"] == [[3, ability]]  # 18: +3, and a natural 1 still fails
    assert entry.data["roll"]["success"] is False


# --- saves -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("natural", "magical", "success"),
    [
        (10, True, True),  # 10 + 2 (WIS vs magic) = 12 ≥ Doom 12
        (10, False, False),  # WIS counts only against magic
        (1, True, False),  # a natural 1 always fails
        (20, False, True),
    ],
)
def test_a_save_vs_doom_adds_wis_only_against_magic(
    player, hunter, encounter, natural, magical, success
):
    data = {"actor": hunter.pk, "category": "doom", "natural": natural}
    if magical:
        data["magical"] = "on"
    _post(player, encounter, "dw_save", data)
    entry = LogEntry.objects.get()
    assert entry.data["category"] == "doom"
    assert entry.data["roll"]["success"] is success
    assert ([2, "wis"] in entry.data["roll"]["mods"]) is magical


def test_a_spell_effect_counts_as_magic_and_the_form_hints_the_category(player, hunter, encounter):
    odds = reverse("system_odds", args=[encounter.slug, "dw_save"])
    page = player.get(
        odds, {"actor": hunter.pk, "category": "spell", "effect": "lightning"}
    ).content.decode()
    assert "save vs Ray (the first category that fits)" in page
    _post(
        player,
        encounter,
        "dw_save",
        {"actor": hunter.pk, "category": "spell", "effect": "arcane_spell", "natural": 14},
    )
    entry = LogEntry.objects.get()
    assert entry.data["magical"] is True
    assert entry.data["roll"]["total"] == 16  # 14 + 2 WIS ≥ Spell 16


def test_an_unknown_save_category_changes_nothing(player, hunter, encounter):
    response = _post(
        player, encounter, "dw_save", {"actor": hunter.pk, "category": "wands", "natural": 5}
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not LogEntry.objects.exists()


# --- attacks -----------------------------------------------------------------------------


def test_an_attack_hits_ascending_ac_and_deals_str_damage(player, hunter, bogle, encounter):
    # +1 attack bonus, +1 STR: 12 + 2 = 14 ≥ AC 14.
    _post(
        player,
        encounter,
        "dw_attack",
        {
            "actor": hunter.pk,
            "target": bogle.pk,
            "mode": "melee",
            "weapon": "mundane",
            "natural": 12,
            "damage": "1d6",
            "damage_dice": "3",
        },
    )
    entry = LogEntry.objects.get()
    assert entry.data["roll"]["mods"] == [[1, "attack_bonus"], [1, "str"]]
    assert entry.data["roll"]["success"] is True
    assert entry.data["damage"]["total"] == 4
    bogle.refresh_from_db()
    assert bogle.hp == 2


def test_hit_points_stop_at_0_and_the_undo_gives_them_back(
    player, referee, hunter, bogle, encounter
):
    _post(
        player,
        encounter,
        "dw_attack",
        {
            "actor": hunter.pk,
            "target": bogle.pk,
            "mode": "melee",
            "weapon": "mundane",
            "natural": 20,
            "damage": "2d6",
            "damage_dice": "6 6",
        },
    )
    bogle.refresh_from_db()
    assert bogle.hp == 0  # 13 damage to 6 HP: 0, never below
    entry = LogEntry.objects.get()
    assert entry.data["killed"] is True
    referee.post(reverse("undo", args=[encounter.slug, entry.seq]), **HX)
    bogle.refresh_from_db()
    assert bogle.hp == 6


def test_a_hit_deals_at_least_1_damage(referee, bogle, hunter, encounter):
    weak = character(encounter, "Weakling", str_score=3, attack_bonus=0)
    _post(
        referee,
        encounter,
        "dw_attack",
        {
            "actor": weak.pk,
            "target": bogle.pk,
            "mode": "melee",
            "weapon": "mundane",
            "natural": 20,
            "damage": "1d4",
            "damage_dice": "1",
        },
    )
    damage = LogEntry.objects.get().data["damage"]
    assert (damage["total"], damage["outcome"]) == (1, "minimum")  # 1 − 3 STR, at least 1


@pytest.mark.parametrize(("natural", "hit"), [(1, False), (20, True)])
def test_natural_1_misses_and_natural_20_hits(referee, bogle, encounter, natural, hit):
    # +30 would hit AC 14 on any die, −10 could never reach AC 20: the natural decides.
    giant = monster(encounter, "Giant", attack_bonus=30 if natural == 1 else -10)
    tank = monster(encounter, "Tank", ac=20)
    target = bogle if natural == 1 else tank
    response = _post(
        referee,
        encounter,
        "dw_attack",
        {"actor": giant.pk, "target": target.pk, "mode": "melee", "natural": natural},
    )
    assert response.status_code == 200
    roll = LogEntry.objects.get().data["roll"]
    assert (roll["success"], roll["automatic"]) == (hit, True)


def test_a_target_immune_to_ordinary_weapons_takes_no_damage_and_the_form_says_why(
    player, hunter, encounter
):
    wraith = monster(encounter, "Wraith", ac=12, hp_max=20, hp=20, immunities=["mundane"])
    odds = reverse("system_odds", args=[encounter.slug, "dw_attack"])
    note = player.get(
        odds, {"actor": hunter.pk, "target": wraith.pk, "mode": "melee", "weapon": "mundane"}
    ).content.decode()
    assert "Wraith is immune to ordinary weapons: a hit deals no damage." in note
    response = _post(
        player,
        encounter,
        "dw_attack",
        {
            "actor": hunter.pk,
            "target": wraith.pk,
            "mode": "melee",
            "weapon": "mundane",
            "natural": 18,
            "damage": "1d8",
        },
    )
    assert "Wraith is immune to ordinary weapons: no damage." in response.content.decode()
    entry = LogEntry.objects.get()
    assert entry.data["damage"]["outcome"] == "immune"
    assert entry.data["damage"]["dice"] == []
    wraith.refresh_from_db()
    assert wraith.hp == 20
    # A damage die typed in for it is set aside: the hit and its typed d20 stand (issue 31).
    typed = {"actor": hunter.pk, "target": wraith.pk, "mode": "melee", "weapon": "mundane"}
    typed |= {"natural": 17, "damage": "1d8", "damage_dice": "6"}
    response = _post(player, encounter, "dw_attack", typed)
    assert "Wraith is immune to ordinary weapons: no damage." in response.content.decode()
    entry = LogEntry.objects.get(seq=entry.seq + 1)
    assert entry.payload.roll.natural == 17 and entry.payload.roll.entered
    assert entry.payload.damage.outcome == "immune" and entry.payload.damage.dice == []
    wraith.refresh_from_db()
    assert wraith.hp == 20
    # A silver weapon is not what it is immune to.
    _post(
        player,
        encounter,
        "dw_attack",
        {
            "actor": hunter.pk,
            "target": wraith.pk,
            "mode": "melee",
            "weapon": "silver",
            "natural": 18,
            "damage": "1d8",
            "damage_dice": "5",
        },
    )
    wraith.refresh_from_db()
    assert wraith.hp == 14


def test_damage_of_two_kinds_of_dice_is_refused(player, hunter, bogle, encounter):
    response = _post(
        player,
        encounter,
        "dw_attack",
        {"actor": hunter.pk, "target": bogle.pk, "mode": "melee", "damage": "1d6+1d4"},
    )
    assert "One kind of die" in response.content.decode()
    assert not LogEntry.objects.exists()


# --- chance rolls -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "chance", "natural", "success"),
    [("x_in_6", 2, 2, True), ("x_in_6", 2, 3, False), ("percent", 10, 10, True),
     ("percent", 10, 11, False), ("percent", 100, 100, True)],
)  # fmt: skip
def test_the_referees_chance_rolls(referee, encounter, kind, chance, natural, success):
    _post(referee, encounter, "chance", {"kind": kind, "chance": chance, "natural": natural})
    entry = LogEntry.objects.get()
    assert (entry.kind, entry.data["success"]) == ("chance", success)


def test_players_roll_chances_only_when_the_referee_allows(player, hunter, encounter):
    assert _post(player, encounter, "chance", {"kind": "x_in_6", "chance": 3}).status_code == 403
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert reverse("chance", args=[encounter.slug]) not in page
    encounter.players_roll_chances = True
    encounter.save()
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert reverse("chance", args=[encounter.slug]) in page
    assert _post(player, encounter, "chance", {"kind": "x_in_6", "chance": 3}).status_code == 200
    assert LogEntry.objects.get().kind == "chance"


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "x_in_6", "chance": 7},
        {"kind": "x_in_6", "chance": 3, "natural": 7},
        {"kind": "x_in_6", "chance": 3, "natural": 0},
        {"kind": "percent", "chance": "fifty"},
        {"kind": "percent", "chance": 50, "natural": 101},
        {"kind": "d12", "chance": 3},
    ],
)
def test_bad_chance_input_is_a_form_error(referee, encounter, data):
    response = _post(referee, encounter, "chance", data)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not LogEntry.objects.exists()


# --- who may act, bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("dw_skill", {"skill": "listen", "natural": 7}),
        ("dw_skill", {"skill": "listen", "natural": 0}),
        ("dw_skill", {"skill": "listen", "natural": "six"}),
        ("dw_check", {"ability": "str", "natural": 9}),
        ("dw_save", {"category": "doom", "natural": 21}),
        ("dw_save", {"category": "doom", "modifier": "lots"}),
    ],
)
def test_bad_dice_and_numbers_are_form_errors(player, hunter, encounter, name, data):
    response = _post(player, encounter, name, {"actor": hunter.pk} | data)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize("name", ["dw_skill", "dw_check", "dw_save", "dw_attack"])
def test_a_player_acting_for_a_monster_is_refused(player, bogle, hunter, encounter, name):
    data = {"actor": bogle.pk, "skill": "listen", "ability": "str", "category": "doom"}
    data |= {"target": hunter.pk, "mode": "melee"}
    assert _post(player, encounter, name, data).status_code == 403
    assert not LogEntry.objects.exists()


def test_an_outsider_is_refused(outsider, encounter, hunter):
    response = _post(outsider, encounter, "dw_skill", {"actor": hunter.pk, "skill": "listen"})
    assert response.status_code in (403, 404)
    assert not LogEntry.objects.exists()


def test_dolmenwood_rolls_are_not_offered_on_an_ose_table(referee, encounter, hunter):
    encounter.system = "ose"
    encounter.save()
    assert _get(referee, encounter, "dw_skill").status_code == 404
    response = _post(referee, encounter, "dw_skill", {"actor": hunter.pk, "skill": "listen"})
    assert response.status_code == 404


def test_a_secret_skill_check_never_reaches_a_player(referee, player, hunter, encounter):
    _post(
        referee,
        encounter,
        "dw_skill",
        {"actor": hunter.pk, "skill": "search", "natural": 6, "secret": "on"},
    )
    entry = LogEntry.objects.get()
    assert entry.secret and entry.public_seq is None
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Search check" not in page


def test_a_double_tap_rolls_once(player, hunter, encounter):
    data = {"actor": hunter.pk, "skill": "listen", "once": "tap-1"}
    _post(player, encounter, "dw_skill", data)
    _post(player, encounter, "dw_skill", data)
    assert LogEntry.objects.count() == 1


# --- the page speaks Dolmenwood ---------------------------------------------------------------


def test_a_row_offers_dolmenwoods_saves_skills_and_checks(player, hunter, encounter):
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    save = reverse("dw_save", args=[encounter.slug])
    for category in ("doom", "ray", "hold", "blast", "spell"):
        assert f"{save}?actor={hunter.pk}&amp;category={category}" in page
    assert reverse("dw_skill", args=[encounter.slug]) in page
    assert reverse("save", args=[encounter.slug]) + "?" not in page  # no OSE saves


def test_the_log_says_a_save_in_the_viewers_language(player, hunter, encounter):
    _post(player, encounter, "dw_save", {"actor": hunter.pk, "category": "hold", "natural": 18})
    page = player.get(
        reverse("encounter", args=[encounter.slug]), HTTP_ACCEPT_LANGUAGE="uk"
    ).content.decode()
    assert "Утримання" in page
    page = player.get(
        reverse("encounter", args=[encounter.slug]), HTTP_ACCEPT_LANGUAGE="cs"
    ).content.decode()
    assert "Sevření" in page


# --- choosing the system ----------------------------------------------------------------------


def test_a_referee_creates_a_dolmenwood_encounter(client, db):
    response = client.post(
        reverse("home"),
        {"name": "Fungal grotto", "system": "dolmenwood", "attack_method": "matrix"},
    )
    assert response.status_code == 302
    assert Encounter.objects.get(name="Fungal grotto").system == "dolmenwood"


def test_only_the_systems_the_table_plays_are_offered(client, db):
    page = client.get(reverse("home")).content.decode()
    assert 'value="dolmenwood"' in page
    client.post(reverse("home"), {"name": "Keep", "system": "gurps", "attack_method": "matrix"})
    assert not Encounter.objects.filter(name="Keep").exists()


def _settings(referee, encounter, **changes):
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    values = form_values(page, reverse("encounter_settings", args=[encounter.slug]))
    return referee.post(
        reverse("encounter_settings", args=[encounter.slug]),
        values | {f"settings-{k}": v for k, v in changes.items()},
    )


def test_the_system_changes_in_the_settings_until_the_first_roll(
    referee, player, hunter, encounter
):
    _settings(referee, encounter, system="ose")
    encounter.refresh_from_db()
    assert encounter.system == "ose"
    _settings(referee, encounter, system="dolmenwood")
    encounter.refresh_from_db()
    assert encounter.system == "dolmenwood"
    _post(player, encounter, "dw_skill", {"actor": hunter.pk, "skill": "listen"})
    response = _settings(referee, encounter, system="ose")
    assert "The rules system cannot change once something has been rolled." in (
        response.content.decode()
    )
    encounter.refresh_from_db()
    assert encounter.system == "dolmenwood"


# --- the combatant form ---------------------------------------------------------------------


def test_the_referee_adds_a_dolmenwood_character(referee, encounter):
    url = reverse("combatant_new", args=[encounter.slug])
    page = referee.get(url, **HX).content.decode()
    assert 'name="thac0"' not in page
    assert "Doom" in page
    values = form_values(page, url) | {
        "name": "Sister Morwen",
        "side": "party",
        "kind": "character",
        "ac": "14",
        "hp_max": "9",
        "attack_bonus": "1",
        "save_death": "11",
        "save_wands": "12",
        "save_paralysis": "13",
        "save_breath": "14",
        "save_spells": "15",
        "wis_score": "15",
        "skills": "Слухання 5/4, Climb wall 4",
        "immunities": [],
    }
    response = referee.post(url, values, **HX)
    assert response.status_code == 200, response.content.decode()
    morwen = encounter.combatants.get(name="Sister Morwen")
    assert morwen.attack_bonus == 1 and morwen.thac0 == 18
    assert morwen.skills == [
        {"key": "listen", "name": "", "targets": [5, 4]},
        {"key": "", "name": "Climb wall", "targets": [4]},
    ]


def test_a_skill_sheet_that_cannot_be_read_is_a_form_error(referee, encounter):
    url = reverse("combatant_new", args=[encounter.slug])
    values = form_values(referee.get(url, **HX).content.decode(), url) | {
        "name": "X",
        "side": "party",
        "kind": "character",
        "ac": "12",
        "hp_max": "5",
        "attack_bonus": "0",
        "skills": "Listen 9",
    }
    for name in ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells"):
        values[name] = "12"
    response = referee.post(url, values, **HX)
    assert "“Listen 9”" in response.content.decode()
    assert not encounter.combatants.filter(name="X").exists()


# --- the round skeleton: a d6 per side, turns, morale, conditions -------------------------------


def test_a_dolmenwood_fight_runs_in_rounds_with_a_d6_per_side(referee, player, hunter, encounter):
    from ...test_rounds import _advance, _initiative, _page, _round_section, _start

    goblin = monster(encounter, "Goblin", morale=7, ac=12)
    monster(encounter, "Goblin 2", morale=7, ac=12)
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    section = _round_section(_page(player, encounter))
    assert "The party acts." in section and "Your side acts" in section
    # The acting side attacks by Dolmenwood's rules in the middle of the round.
    _post(
        player,
        encounter,
        "dw_attack",
        {"actor": hunter.pk, "target": goblin.pk, "mode": "melee", "natural": 15},
    )
    assert LogEntry.objects.filter(kind="attack", data__system="dolmenwood").exists()
    _advance(referee, encounter, "turn")
    assert "The foes act." in _round_section(_page(player, encounter))
    goblin.hp = 0
    goblin.save()
    assert "Morale check due for the foes" in _page(referee, encounter)


def test_a_paralysed_character_cannot_make_a_skill_check(referee, player, hunter, encounter):
    from combat.models import Condition

    Condition.objects.create(combatant=hunter, kind="paralysed", rounds_left=3)
    response = _post(player, encounter, "dw_skill", {"actor": hunter.pk, "skill": "listen"})
    assert "Wendeline is paralysed and cannot act." in response.content.decode()
    assert not LogEntry.objects.exists()


def test_the_helpless_are_hit_without_a_roll(referee, hunter, bogle, encounter):
    from combat.models import Condition

    Condition.objects.create(combatant=bogle, kind="asleep", rounds_left=3)
    _post(
        referee,
        encounter,
        "dw_attack",
        {
            "actor": hunter.pk,
            "target": bogle.pk,
            "mode": "melee",
            "damage": "1d6",
            "damage_dice": "2",
        },
    )
    entry = LogEntry.objects.get()
    assert (entry.data["helpless"], entry.data["roll"]) == ("hit", None)
    bogle.refresh_from_db()
    assert bogle.hp == 3  # 2 + 1 STR


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("hit", "hits automatically: the target is helpless · 100%"),
        ("slain", "slain outright: the target is helpless · 100%"),
    ],
    ids=["hit", "slain"],
)
def test_the_odds_against_a_helpless_target_say_what_the_roll_then_does(
    referee, hunter, bogle, encounter, rule, said
):
    from combat.models import Condition

    encounter.helpless_rule = rule
    encounter.save()
    values = {"actor": hunter.pk, "target": bogle.pk, "mode": "melee", "weapon": "mundane"}
    odds = reverse("system_odds", args=[encounter.slug, "dw_attack"])
    # Awake, AC 14 with +1 and STR +1: a natural 12 or more, 9 of 20.
    assert "needs 14+ · 45%" in referee.get(odds, values).content.decode()
    Condition.objects.create(combatant=bogle, kind="paralysed", rounds_left=3)
    page = referee.get(odds, values).content.decode()
    assert said in page and "needs" not in page and "natural 1" not in page
    _post(referee, encounter, "dw_attack", values | {"natural": 1, "damage": "1d6"})
    entry = LogEntry.objects.get()
    assert (entry.data["helpless"], entry.data["roll"]) == (rule, None)
    bogle.refresh_from_db()
    assert bogle.dead if rule == "slain" else bogle.hp < 6


def test_an_automatic_hit_on_an_immune_helpless_target_still_says_it_deals_no_damage(
    referee, hunter, encounter
):
    from combat.models import Condition

    wraith = monster(encounter, "Wraith", ac=12, hp_max=20, hp=20, immunities=["mundane"])
    Condition.objects.create(combatant=wraith, kind="asleep", rounds_left=3)
    values = {"actor": hunter.pk, "target": wraith.pk, "mode": "melee", "weapon": "mundane"}
    odds = reverse("system_odds", args=[encounter.slug, "dw_attack"])
    page = referee.get(odds, values).content.decode()
    assert "hits automatically: the target is helpless" in page
    assert "Wraith is immune to ordinary weapons: a hit deals no damage." in page
    _post(referee, encounter, "dw_attack", values | {"damage": "1d8"})
    assert LogEntry.objects.get().data["helpless"] == "hit"
    wraith.refresh_from_db()
    assert wraith.hp == 20


# --- hit locations with Dolmenwood -----------------------------------------------------------


def test_a_hit_lands_in_a_zone_and_hit_points_stay_at_0_or_more(referee, hunter, bogle, encounter):
    from combat import zones

    encounter.hit_locations = True
    encounter.save()
    for combatant in (hunter, bogle):
        zones.sync(combatant, encounter)
    values = {
        "actor": hunter.pk,
        "target": bogle.pk,
        "mode": "melee",
        "weapon": "mundane",
        "natural": 15,
        "damage": "2d6",
        "damage_dice": "6 6",
        "direction": "front",
        "location": 65,
    }
    page = referee.get(reverse("dw_attack", args=[encounter.slug]), **HX).content.decode()
    assert 'name="posture"' in page and 'name="wound_dice"' in page  # as OSE's form has them
    response = _post(referee, encounter, "dw_attack", values | {"posture": ""})
    assert response.status_code == 200
    entry = LogEntry.objects.get()
    assert entry.data["location"]["zone"] == "left_arm"
    assert "zones" in entry.effects[0]
    bogle.refresh_from_db()
    assert bogle.hp == 0
    referee.post(reverse("undo", args=[encounter.slug, entry.seq]), **HX)
    bogle.refresh_from_db()
    assert bogle.hp == 6
    assert zones.state_of(bogle).total_damage == 0


# --- live: every screen, in its language ---------------------------------------------------------


def test_every_screen_hears_of_a_roll_in_its_own_language(player, hunter, encounter):
    from combat.access import Viewer
    from combat.live.state import render_snapshot

    _post(player, encounter, "dw_skill", {"actor": hunter.pk, "skill": "listen", "natural": 6})
    encounter.refresh_from_db()
    referee_view = Viewer(encounter, is_referee=True, seat=None)
    player_view = Viewer(encounter, is_referee=False, seat=player.seat)
    assert "Wendeline: Listen check" in render_snapshot(referee_view, "en")[1]
    ukrainian = render_snapshot(player_view, "uk")[1]
    assert "перевірка навички «Слухання»" in ukrainian
    assert "природна 6 — завжди успіх" in ukrainian
    assert "Naslouchání" in render_snapshot(player_view, "cs")[1]


def test_a_changed_system_changes_the_live_rows_buttons(referee, hunter, encounter):
    from combat.access import Viewer
    from combat.live.state import render_snapshot

    viewer = Viewer(encounter, is_referee=True, seat=None)
    assert reverse("dw_skill", args=[encounter.slug]) in render_snapshot(viewer, "en")[1]
    _settings(referee, encounter, system="ose")
    encounter.refresh_from_db()
    html = render_snapshot(Viewer(encounter, is_referee=True, seat=None), "en")[1]
    assert reverse("dw_skill", args=[encounter.slug]) not in html
    assert reverse("save", args=[encounter.slug]) + "?actor=" in html


def test_damage_by_hand_stops_at_0_hit_points(referee, bogle, encounter):
    _post(referee, encounter, "hit_points", {"actor": bogle.pk, "action": "damage", "amount": 50})
    bogle.refresh_from_db()
    assert bogle.hp == 0
    entry = LogEntry.objects.get()
    assert entry.data["killed"] is True
    referee.post(reverse("undo", args=[encounter.slug, entry.seq]), **HX)
    bogle.refresh_from_db()
    assert bogle.hp == 6


def test_editing_a_character_keeps_its_skills_and_changes_what_was_changed(
    referee, hunter, encounter
):
    url = reverse("combatant_edit", args=[encounter.slug, hunter.pk])
    page = referee.get(url, **HX).content.decode()
    assert "Listen 5/4, Tracking 4" in page
    # A browser sends the textarea's text (the test's form reader leaves textareas empty).
    values = form_values(page, url) | {"skills": "Listen 5/4, Tracking 4"}
    referee.post(url, values | {"name": "Wendeline the Bold"}, **HX)
    hunter.refresh_from_db()
    assert hunter.name == "Wendeline the Bold"
    assert hunter.skills == [
        {"key": "listen", "name": "", "targets": [5, 4]},
        {"key": "", "name": "Tracking", "targets": [4]},
    ]
    referee.post(
        url,
        form_values(referee.get(url, **HX).content.decode(), url)
        | {"skills": "Listen 5/3, Tracking 4, Pick lock 5"},
        **HX,
    )
    hunter.refresh_from_db()
    assert hunter.skills[0]["targets"] == [5, 3] and hunter.skills[2]["name"] == "Pick lock"
