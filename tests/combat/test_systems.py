"""Which rules system a table plays, and BECMI / Rules Cyclopedia at the table.

Facts from the BECMI combat tables (seed 003) and its digest, copied here as cases:
- the hit table: a fighter of levels 7–9 has THAC0 15; a monster of 4+ to 5 HD, 15; of 7+ to 8
  HD, 12 (OSE says 13 there).
- needed = THAC0 − AC, then: under 2, add up to 4 (at least 2); over 20, subtract up to 4 (so
  each of 2, 20, 30 … stands for five ACs); still negative: needs 2 and adds −H to damage.
  THAC0 10: AC 15 → 2 with +1 damage; AC −10 → 20; AC −15 → 21.
- range: short +1, long −1; cover soft −1/−2/−3/−4, hard −2/−4/−6/impossible.
- a natural 1 always misses; a natural 20 does not always hit.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from combat.models import Encounter, LogEntry
from combat.systems import common as systems

from .conftest import character, monster

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def encounter(db) -> Encounter:
    return Encounter.objects.create(name="The Keep", system="becmi")


def _post(client, encounter, name, data):
    return client.post(reverse(name, args=[encounter.slug]), data, **HX)


@pytest.fixture
def fighter9(encounter, player):
    """A 9th-level fighter: THAC0 15 from the hit table, STR 13 (+1)."""
    return character(encounter, "Sir Kay", seat=player.seat, thac0=15, str_score=13)


@pytest.fixture
def ogre(encounter):
    return monster(encounter, "Ogre", ac=5, hp_max=25, hp=25, hit_dice="4+1", thac0=15)


def _attack(client, encounter, actor, target, **extra):
    values = {"actor": actor.pk, "target": target.pk, "mode": "melee", "natural": 9}
    return _post(client, encounter, "becmi_attack", values | extra)


def test_a_9th_level_fighter_hits_an_ogre_through_the_hit_table(player, fighter9, ogre, encounter):
    # THAC0 15 against AC 5 needs 10: a natural 9 with STR +1 makes it.
    response = _attack(player, encounter, fighter9, ogre, damage="1d8", damage_dice="6")
    assert response.status_code == 200
    entry = LogEntry.objects.get()
    roll = entry.data["roll"]
    assert (roll["needed"], roll["total"], roll["success"]) == (10, 10, True)
    assert entry.data["damage"]["total"] == 7  # 6 + 1 STR
    ogre.refresh_from_db()
    assert ogre.hp == 18
    assert "Hit!" in response.content.decode()


@pytest.mark.parametrize(
    ("ac", "str_score", "natural", "hit", "bonus"),
    [
        (15, 10, 2, True, 1),  # needs 2 with +1 damage
        (15, 18, 1, False, 0),  # a natural 1 always misses
        (-10, 10, 20, True, 0),  # needs 20
        (-15, 10, 20, False, 0),  # needs 21: a natural 20 alone does not hit
        (-15, 13, 20, True, 0),  # … STR +1 reaches it
    ],
)
def test_the_hit_tables_rows_beyond_2_and_20(
    referee, encounter, ac, str_score, natural, hit, bonus
):
    hero = character(encounter, "Hero", thac0=10, str_score=str_score)
    foe = monster(encounter, "Foe", ac=ac, hp_max=30, hp=30)
    _attack(referee, encounter, hero, foe, natural=natural, damage="1d4", damage_dice="2")
    entry = LogEntry.objects.get()
    assert entry.data["roll"]["success"] is hit
    if hit:
        mods = dict((reason, value) for value, reason in entry.data["damage"]["mods"])
        assert mods.get("hit_table", 0) == bonus


def test_range_and_cover_are_choices_of_the_form(referee, encounter, fighter9, ogre):
    page = referee.get(
        reverse("becmi_attack", args=[encounter.slug]) + f"?actor={fighter9.pk}", **HX
    ).content.decode()
    assert 'name="range_band"' in page and 'name="cover"' in page
    _attack(
        referee,
        encounter,
        fighter9,
        ogre,
        mode="missile",
        range_band="long",
        cover="half",
        cover_material="hard",
        natural=15,
    )
    roll = LogEntry.objects.get().data["roll"]
    assert [-1, "range_long"] in roll["mods"] and [-4, "cover_hard_half"] in roll["mods"]
    assert roll["total"] == 10 and roll["success"] is True  # 15 − 1 − 4 = 10


def test_full_hard_cover_makes_the_attack_impossible(referee, encounter, fighter9, ogre):
    odds = reverse("system_odds", args=[encounter.slug, "becmi_attack"])
    page = referee.get(
        odds,
        {
            "actor": fighter9.pk,
            "target": ogre.pk,
            "mode": "missile",
            "cover": "full",
            "cover_material": "hard",
        },
    ).content.decode()
    assert "the attack is impossible" in page and "0%" in page
    _attack(referee, encounter, fighter9, ogre, mode="missile", cover="full", cover_material="hard")
    entry = LogEntry.objects.get()
    assert (entry.data["outcome"], entry.data["roll"]) == ("impossible", None)


def test_range_is_refused_for_melee(referee, encounter, fighter9, ogre):
    response = _attack(referee, encounter, fighter9, ogre, range_band="short")
    assert "Range is for missile attacks." in response.content.decode()
    assert not LogEntry.objects.exists()


def test_the_odds_show_before_the_roll(referee, encounter, fighter9, ogre):
    odds = reverse("system_odds", args=[encounter.slug, "becmi_attack"])
    page = referee.get(
        odds, {"actor": fighter9.pk, "target": ogre.pk, "mode": "melee"}
    ).content.decode()
    # Needs 10, STR +1: a natural 9 or more, 12 of 20 (the total needed is said, as OSE does).
    assert "needs 10+ · 60%" in page


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("hit", "hits automatically: the target is helpless · 100%"),
        ("slain", "slain outright: the target is helpless · 100%"),
    ],
    ids=["hit", "slain"],
)
def test_the_odds_against_a_helpless_target_say_what_the_roll_then_does(
    referee, encounter, fighter9, ogre, rule, said
):
    from combat.models import Condition

    encounter.helpless_rule = rule
    encounter.save()
    values = {"actor": fighter9.pk, "target": ogre.pk, "mode": "melee"}
    odds = reverse("system_odds", args=[encounter.slug, "becmi_attack"])
    assert "needs 10+ · 60%" in referee.get(odds, values).content.decode()  # awake
    Condition.objects.create(combatant=ogre, kind="asleep", rounds_left=None)
    page = referee.get(odds, values).content.decode()
    assert said in page and "needs" not in page and "natural 1" not in page
    _attack(referee, encounter, fighter9, ogre, natural=1, damage="1d8", damage_dice="6")
    entry = LogEntry.objects.get()
    assert (entry.data["helpless"], entry.data["roll"]) == (rule, None)
    ogre.refresh_from_db()
    assert ogre.dead if rule == "slain" else ogre.hp == 25 - 7  # 6 + 1 STR


def test_a_becmi_save_uses_the_rules_cyclopedias_names(player, fighter9, encounter):
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    # A player's save keys: a word each, the Rules Cyclopedia's name their title.
    assert 'title="Death Ray or Poison">Death</a>' in page
    _post(
        player,
        encounter,
        "becmi_save",
        {"actor": fighter9.pk, "category": "paralysis", "natural": 11, "modifier": 1},
    )
    entry = LogEntry.objects.get()
    assert entry.data["roll"]["needed"] == 12 and entry.data["roll"]["success"] is True
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Sir Kay: saving throw vs Paralysis or Turn to Stone" in page


def test_the_check_button_of_a_becmi_row_opens_and_rolls_an_ability_check(
    player, fighter9, encounter
):
    """The Rules Cyclopedia's ability check is B/X's (a d20 at or under the score); the row's
    button opens BECMI's own panel, not OSE's (which a BECMI table does not serve)."""
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    url = reverse("becmi_check", args=[encounter.slug])
    assert f'href="{url}?actor={fighter9.pk}"' in page
    assert player.get(f"{url}?actor={fighter9.pk}", **HX).status_code == 200
    check = {"actor": fighter9.pk, "ability": "str", "score": 13, "modifier": 0}
    for natural in (13, 14):  # at the score succeeds, above it fails
        _post(player, encounter, "becmi_check", check | {"natural": natural})
    assert [e.data["roll"]["success"] for e in LogEntry.objects.order_by("seq")] == [True, False]


def test_an_attack_undone_gives_the_hit_points_back(player, referee, fighter9, ogre, encounter):
    _attack(player, encounter, fighter9, ogre, damage="1d8", damage_dice="8")
    entry = LogEntry.objects.get()
    referee.post(reverse("undo", args=[encounter.slug, entry.seq]), **HX)
    ogre.refresh_from_db()
    assert ogre.hp == 25


@pytest.mark.parametrize(
    "data",
    [
        {"natural": 21},
        {"natural": "x"},
        {"cover": "behind a tree"},
        {"range_band": "far", "mode": "missile"},
        {"damage": "1d6", "damage_dice": "9"},
    ],
)
def test_bad_input_is_a_form_error(referee, encounter, fighter9, ogre, data):
    response = _attack(referee, encounter, fighter9, ogre, **data)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode() or "alert" in response.content.decode()
    assert not LogEntry.objects.exists()


def test_a_player_cannot_attack_for_the_ogre(player, fighter9, ogre, encounter):
    assert _attack(player, encounter, ogre, fighter9).status_code == 403


def test_becmi_rolls_are_not_offered_on_an_ose_table(referee, encounter, fighter9, ogre):
    encounter.system = "ose"
    encounter.save()
    assert _attack(referee, encounter, fighter9, ogre).status_code == 404


def test_a_becmi_monster_gets_the_hit_tables_thac0(referee, encounter):
    # 8+1 HD: BECMI's row "8+ to 9" is 11, where OSE says 12.
    assert systems.monster_thac0("becmi", "8+1") == 11
    assert systems.monster_thac0("ose", "8+1") == 12
    url = reverse("quick_add", args=[encounter.slug])
    referee.post(url, {"count": 1, "name": "Troll", "ac": 4, "hit_dice": "8+1", "side": "foes"})
    assert encounter.combatants.get(name="Troll").thac0 == 11


def test_becmi_is_offered_when_an_encounter_is_created(client, db):
    page = client.get(reverse("home")).content.decode()
    assert 'value="becmi"' in page


def test_a_becmi_hit_lands_in_a_zone_with_hit_locations(referee, encounter, fighter9, ogre):
    from combat import zones

    encounter.hit_locations = True
    encounter.save()
    for combatant in (fighter9, ogre):
        zones.sync(combatant, encounter)
    _attack(
        referee,
        encounter,
        fighter9,
        ogre,
        natural=15,
        damage="1d8",
        damage_dice="3",
        direction="front",
        location=65,
    )
    entry = LogEntry.objects.get()
    assert entry.data["location"]["zone"] == "left_arm"
    assert zones.state_of(Encounter.objects.get().combatants.get(name="Ogre")).total_damage == 4


def test_the_settings_change_the_system_to_becmi_before_the_first_roll(referee, encounter):
    from .systems.dolmenwood.test_dolmenwood import _settings

    _settings(referee, encounter, system="dolmenwood")
    encounter.refresh_from_db()
    assert encounter.system == "dolmenwood"
    _settings(referee, encounter, system="becmi")
    encounter.refresh_from_db()
    assert encounter.system == "becmi"


def _codes(module) -> set[str]:
    """The error codes a rules module can raise, read from its source."""
    import inspect
    import re

    source = inspect.getsource(module)
    patterns = [
        r'RulesError\(\s*"([a-z0-9_]+)"',
        r'_int\([^()]*?"([a-z0-9_]+)"',
        r'_enum\([^()]*?"([a-z0-9_]+)"\)',
    ]
    return {code for pattern in patterns for code in re.findall(pattern, source)}


def test_every_error_of_dolmenwood_and_becmi_attacks_is_said_in_every_language():
    from django.utils import translation

    from combat.errors import FALLBACK, MESSAGES
    from rules import becmi_attack, becmi_hit, dolmenwood

    codes = _codes(dolmenwood) | _codes(becmi_hit) | _codes(becmi_attack)
    codes |= {"not_integer", "out_of_range"}  # dolmenwood's _whole
    assert {"skill_not_available", "bad_dice", "unknown_cover", "level_out_of_range"} <= codes
    for code in sorted(codes):
        assert code in MESSAGES, code
        english = str(MESSAGES[code])
        assert english != str(FALLBACK) or code == "bad_argument"
        for language in ("cs", "ru", "uk"):
            with translation.override(language):
                assert str(MESSAGES[code]) != english, (code, language)


# --- the odds line agrees with the engine's exact chance ------------------------------------


def test_each_dolmenwood_odds_line_is_the_seeds_rule_counted_over_the_die(
    encounter, fighter9, ogre
):
    """The odds line says the total the log will say is needed, and a chance that is the
    seed's rule counted over every face: natural 1 fails, the top face succeeds, otherwise
    natural + modifiers ≥ needed. Skill checks (the better of two targets), saves (WIS only
    against magic) and attacks (bonus + STR for melee)."""
    from fractions import Fraction

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from combat.access import Viewer
    from combat.models import SAVE_MAX, SAVE_MIN
    from combat.systems.dolmenwood.forms import DolmenwoodAttackForm, SaveForm, SkillForm
    from rules.core import ability_modifier

    def counted(sides: int, shift: int, needed: int) -> Fraction:
        faces = [n for n in range(1, sides + 1) if n == sides or (n != 1 and n + shift >= needed)]
        return Fraction(len(faces), sides)

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(1, 6),
        st.integers(1, 6),
        st.integers(-10, 10),
        st.integers(SAVE_MIN, SAVE_MAX),
        st.integers(0, 20),
        st.integers(-5, 15),
        st.one_of(st.none(), st.integers(3, 18)),
        st.booleans(),
    )
    def check(kindred, klass, modifier, save, ac, bonus, wis, magical):
        fighter9.skills = [{"key": "search", "name": "", "targets": [kindred, klass]}]
        fighter9.save_death = save
        fighter9.wis_score = wis
        fighter9.attack_bonus = bonus
        fighter9.save()
        ogre.ac = ac
        ogre.save()
        viewer = Viewer(encounter, is_referee=True, seat=None)
        skill = SkillForm(
            {"actor": fighter9.pk, "skill": "search", "modifier": modifier}, viewer=viewer
        )
        odds = skill.system_odds()
        assert odds.needed == min(kindred, klass)
        assert odds.chance == counted(6, modifier, odds.needed)
        data = {"actor": fighter9.pk, "category": "doom", "modifier": modifier}
        if magical:
            data["magical"] = "on"
        odds = SaveForm(data, viewer=viewer).system_odds()
        wis_mod = ability_modifier(wis) if magical and wis is not None else 0
        assert odds.needed == save
        assert odds.chance == counted(20, modifier + wis_mod, save)
        attack = {"actor": fighter9.pk, "target": ogre.pk, "mode": "melee", "modifier": modifier}
        odds = DolmenwoodAttackForm(attack, viewer=viewer).system_odds()
        assert odds.needed == ac
        assert odds.chance == counted(20, bonus + 1 + modifier, ac)  # STR 13: +1

    check()


def test_switching_to_becmi_gives_the_monsters_becmis_thac0(referee, encounter):
    from .systems.dolmenwood.test_dolmenwood import _settings

    encounter.system = "ose"
    encounter.save()
    troll = monster(encounter, "Troll", hit_dice="8+1", thac0=12)
    _settings(referee, encounter, system="becmi")
    troll.refresh_from_db()
    assert troll.thac0 == 11
    _settings(referee, encounter, system="ose")
    troll.refresh_from_db()
    assert troll.thac0 == 12


def test_a_system_change_racing_a_roll_is_dropped_inside_the_transaction(referee, encounter):
    from combat import editing
    from combat import table as toolkit
    from combat.access import Viewer
    from combat.forms import EncounterSettingsForm
    from rules import dice

    viewer = Viewer(encounter, is_referee=True, seat=None)
    values = {"name": encounter.name, "system": "ose", "attack_method": "matrix"}
    values |= {"initiative_mode": "group", "helpless_rule": "hit"}
    opened = EncounterSettingsForm(instance=encounter, prefix="settings")["opened"].value()
    values["opened"] = opened  # as the page drew the form
    form = EncounterSettingsForm(
        {f"settings-{k}": v for k, v in values.items()}, instance=encounter, prefix="settings"
    )
    assert form.is_valid(), form.errors  # nothing rolled yet when the form was checked
    toolkit.free_roll(viewer, expression=dice.parse("1d6"), label="", entered=None)
    editing.save_edit(viewer, form, encounter)
    encounter.refresh_from_db()
    assert encounter.system == "becmi"
