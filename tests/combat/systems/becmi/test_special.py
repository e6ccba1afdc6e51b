"""BECMI / Rules Cyclopedia's special actions at the table: unarmed striking, wrestling across
rounds, and naval combat, through the views as the referee and players use them.

Table cases come from the BECMI combat tables (seed 003, copied here): striking damage is
``1 + STR adj`` (0 pulled); stunned if ``1d20 − C > 0`` (a monster's C is ``2 × HD``); a stunned
defender saves vs Death Ray at ``+4 − STR adj`` (haymaker ``−4``) or is knocked out for t rounds;
a haymaker is −5 to hit with no size limit. Wrestling: each side rolls ``1d20 + WR``, the
higher moves the hold grab → fall → pin; pinned: save vs Death Ray or take ``1 + STR adj``, WR
−3; helpers +1 / +5 for less / more than half the HD. Naval: 1 hull point per 5 hit points of
monster damage; each 10 % of damage cuts speed 10 %; dead in the water at 75 %, sinks at 100 %;
grappling at 50 ft or less on 2 in 6; ramming THAC0 19, a small galley (1d4 + 4) × 10 to a ship,
3d8 to a creature; repairs need five crew, 1 hull point a turn up to half the damage, and give
way after 5d6 days.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.access import Viewer
from combat.live.state import render_snapshot
from combat.models import (
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    EntryKind,
    Kind,
    LogEntry,
    Side,
    Wrestle,
)
from combat.templatetags.fray import percent
from rules import becmi_striking, becmi_wrestling

from ...conftest import character, monster


@pytest.fixture
def encounter(db) -> Encounter:
    return Encounter.objects.create(name="The ogre's bridge", system="becmi")


@pytest.fixture
def ogre(encounter: Encounter) -> Combatant:
    return monster(
        encounter, "Ogre", hit_dice="4+1", ac=5, hp_max=25, hp=25, thac0=15, save_death=10,
        height_ft=Decimal(9),
    )  # fmt: skip


def url(encounter: Encounter, name: str, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def strike(client, encounter, **values):
    data = {"blow": "punch", "modifier": "0"} | {k: str(v) for k, v in values.items()}
    return client.post(url(encounter, "bx_strike"), data, HTTP_HX_REQUEST="true")


# --- striking ----------------------------------------------------------------------------------


def test_a_punch_hurts_stuns_and_knocks_out_as_the_table_says(referee, encounter, fighter, ogre):
    # STR 13: +1. The ogre's C is 2 × 4 = 8; a stun roll of 15 gives t = 7; the save at
    # +4 − 1 = +3 with a 2 totals 5, under its 10: knocked out for 7 rounds.
    response = strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=15,
        save_natural=2,
    )  # fmt: skip
    assert response.status_code == 200
    ogre.refresh_from_db()
    assert ogre.hp == 25 - 2
    entry = LogEntry.objects.get(encounter=encounter, kind=EntryKind.STRIKE)
    assert entry.data["outcome"] == "knocked_out"
    assert entry.data["stun"]["t"] == 7
    assert entry.data["save"]["mods"] == [[4, "stun_save"], [-1, "attacker_str"]]
    knocked = Condition.objects.get(combatant=ogre)
    assert (knocked.kind, knocked.rounds_left) == (ConditionKind.KNOCKED_OUT, 7)
    assert "knocked out for 7 rounds" in response.content.decode()


def test_a_stun_roll_at_or_under_c_does_not_stun(referee, encounter, fighter, ogre):
    strike(referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=8)
    entry = LogEntry.objects.get(kind=EntryKind.STRIKE)
    assert entry.data["outcome"] == "hit" and entry.data["save"] is None
    assert not Condition.objects.exists()


def test_a_pulled_blow_does_no_damage_but_still_stuns(referee, encounter, fighter, ogre):
    strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, pulled="on", natural=18,
        stun_natural=20, save_natural=20,
    )  # fmt: skip
    ogre.refresh_from_db()
    assert ogre.hp == 25
    assert LogEntry.objects.get(kind=EntryKind.STRIKE).data["outcome"] == "stunned"


def test_the_form_shows_the_odds_before_the_roll(referee, encounter, fighter, ogre):
    response = referee.get(url(encounter, "bx_strike") + f"?actor={fighter.pk}")
    page = response.content.decode()
    odds = becmi_striking.strike_odds(
        17, 5, defender_con=8, defender_save=10, attacker_str=13, attacker_size=6.0,
        defender_size=9.0,
    )  # fmt: skip
    assert f"stunned: {percent(odds.stun)}%" in page
    assert f"knocked out: {percent(odds.knockout)}%" in page
    assert f"hit: needs 11+ · {percent(odds.hit)}%" in page  # THAC0 17 − AC 5 = 12, STR +1


def test_a_haymaker_is_minus_5_to_hit_and_the_save_at_minus_4(referee, encounter, fighter, ogre):
    strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, haymaker="on", natural=20,
        stun_natural=20, save_natural=14,
    )  # fmt: skip
    entry = LogEntry.objects.get(kind=EntryKind.STRIKE)
    assert [-5, "haymaker"] in entry.data["roll"]["mods"]
    assert entry.data["save"]["mods"] == [[-4, "haymaker"], [-1, "attacker_str"]]
    assert entry.data["outcome"] == "knocked_out"  # 14 − 5 = 9 < 10
    assert entry.data["haymaker"] is True


def test_a_striker_under_half_the_size_needs_a_haymaker(referee, encounter, ogre):
    halfling = character(encounter, "Pip", height_ft=Decimal(3))
    response = strike(referee, encounter, actor=halfling.pk, target=ogre.pk, natural=20)
    assert "at least half the defender" in response.content.decode()
    assert not LogEntry.objects.exists()
    strike(
        referee, encounter, actor=halfling.pk, target=ogre.pk, haymaker="on", natural=20,
        stun_natural=1,
    )  # fmt: skip
    assert LogEntry.objects.filter(kind=EntryKind.STRIKE).count() == 1


def test_undo_gives_back_the_hit_points_and_wakes_the_knocked_out(
    referee, encounter, fighter, ogre
):
    strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=15,
        save_natural=2,
    )  # fmt: skip
    entry = LogEntry.objects.get(kind=EntryKind.STRIKE)
    assert entry.undoable
    referee.post(url(encounter, "undo", entry.seq), HTTP_HX_REQUEST="true")
    ogre.refresh_from_db()
    assert ogre.hp == 25
    assert not Condition.objects.running().exists()


def test_the_knocked_out_cannot_act(referee, encounter, fighter, ogre):
    Condition.objects.create(combatant=ogre, kind=ConditionKind.KNOCKED_OUT, rounds_left=3)
    response = strike(referee, encounter, actor=ogre.pk, target=fighter.pk, natural=20)
    assert "cannot act" in response.content.decode()
    assert not LogEntry.objects.exists()


def test_a_player_strikes_for_their_own_character(player, encounter, fighter, ogre):
    response = strike(player, encounter, actor=fighter.pk, target=ogre.pk, natural=18)
    assert response.status_code == 200
    assert LogEntry.objects.get(kind=EntryKind.STRIKE).seat == player.seat


def test_it_refuses_a_player_striking_for_a_monster(player, encounter, fighter, ogre):
    response = strike(player, encounter, actor=ogre.pk, target=fighter.pk, natural=20)
    assert response.status_code == 403
    assert not LogEntry.objects.exists()


def test_the_wrong_player_and_an_outsider_are_refused(
    other_player, outsider, encounter, fighter, ogre
):
    assert strike(other_player, encounter, actor=fighter.pk, target=ogre.pk).status_code == 403
    assert strike(outsider, encounter, actor=fighter.pk, target=ogre.pk).status_code == 404
    assert not LogEntry.objects.exists()


def test_it_is_not_offered_at_an_ose_table(referee, encounter, fighter, ogre):
    encounter.system = "ose"
    encounter.save()
    assert referee.get(url(encounter, "bx_strike")).status_code == 404
    assert strike(referee, encounter, actor=fighter.pk, target=ogre.pk).status_code == 404
    page = referee.get(url(encounter, "encounter")).content.decode()
    assert url(encounter, "bx_strike") not in page


@pytest.mark.parametrize(
    "values",
    [
        {"natural": "abc"},
        {"natural": "21"},
        {"natural": "0"},
        {"stun_natural": "99"},
        {"save_natural": "-1"},
        {"modifier": "ten"},
        {"target": "9999"},
        {"target": "abc"},
        {"blow": "headbutt"},
    ],
)
def test_bad_input_is_a_form_error_and_changes_nothing(referee, encounter, fighter, ogre, values):
    data = {"actor": fighter.pk, "target": ogre.pk} | values
    response = strike(referee, encounter, **data)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode() or "errors" in response.content.decode()
    assert not LogEntry.objects.exists()
    ogre.refresh_from_db()
    assert ogre.hp == 25


def test_striking_oneself_or_the_dead_is_refused(referee, encounter, fighter, ogre):
    response = strike(referee, encounter, actor=fighter.pk, target=fighter.pk, natural=20)
    assert "strikes themselves" in response.content.decode()
    Combatant.objects.filter(pk=ogre.pk).update(hp=0)
    response = strike(referee, encounter, actor=fighter.pk, target=ogre.pk, natural=20)
    assert "already dead" in response.content.decode()
    assert not LogEntry.objects.exists()


def test_a_double_tap_strikes_once(referee, encounter, fighter, ogre):
    for _ in range(2):
        strike(
            referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=1,
            once="tap-1",
        )  # fmt: skip
    assert LogEntry.objects.filter(kind=EntryKind.STRIKE).count() == 1
    ogre.refresh_from_db()
    assert ogre.hp == 23


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("cs", "úder beze zbraně"),
        ("ru", "безоружный удар"),
        ("uk", "беззбройний удар"),
    ],
)
def test_the_log_says_a_strike_in_every_language(
    referee, player, encounter, fighter, ogre, language, words
):
    strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=15,
        save_natural=2,
    )  # fmt: skip
    viewer = Viewer(encounter, is_referee=False, seat=player.seat)
    _seq, html = render_snapshot(viewer, language)
    assert words in html.lower()


# --- wrestling ---------------------------------------------------------------------------------


def grab(client, encounter, **values):
    data = {k: str(v) for k, v in values.items()}
    return client.post(url(encounter, "bx_wrestle"), data, HTTP_HX_REQUEST="true")


def wrestle_round(client, encounter, wrestle, **values):
    data = {"wrestle": wrestle.pk} | {k: str(v) for k, v in values.items()}
    return client.post(url(encounter, "bx_wrestle_round"), data, HTTP_HX_REQUEST="true")


def test_ratings_follow_the_seed(encounter, fighter, ogre):
    from combat.systems.becmi import special as special

    # ⌈1 / 2⌉ + STR 13 (+1) + DEX 9 (0) + basic AC 4 = 6; the ogre 2 × 4 + 5 = 13.
    assert special.rating(fighter, special.basic_ac(fighter)) == 6
    assert special.rating(ogre, special.basic_ac(ogre)) == 13


def test_a_grab_that_wins_starts_a_hold_both_rows_show(referee, player, encounter, fighter, ogre):
    response = grab(
        referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
        defender_natural=1,
    )  # fmt: skip
    assert response.status_code == 200
    wrestle = Wrestle.objects.get()
    assert (wrestle.hold, wrestle.ended) == ("grabbed", False)
    entry = LogEntry.objects.get(kind=EntryKind.WRESTLE)
    assert entry.data["attacker_roll"]["total"] == 26 and entry.data["defender_roll"]["total"] == 14
    page = player.get(url(encounter, "encounter")).content.decode()
    assert "wrestling Ogre: grabbed" in page and "may try to throw down" in page
    assert "held by Aldric: grabbed" in page and "may try to break free" in page
    assert url(encounter, "bx_wrestle_round") in page  # the player's own fighter may roll it


def test_a_failed_grab_leaves_nobody_held(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=1,
         defender_natural=20)  # fmt: skip
    assert Wrestle.objects.get().ended
    assert "the grab fails" in referee.get(url(encounter, "log")).content.decode()


def test_the_hold_goes_to_the_pin_which_hurts_and_then_breaks_back(
    referee, encounter, fighter, ogre
):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    wrestle_round(referee, encounter, wrestle, attacker_natural=20, defender_natural=1)
    wrestle.refresh_from_db()
    assert wrestle.hold == "thrown"
    # Pinned: the ogre saves vs death ray (10) with a 3 and fails: 1 + STR adj (+1) = 2.
    wrestle_round(
        referee, encounter, wrestle, attacker_natural=20, defender_natural=1, save_natural=3
    )
    wrestle.refresh_from_db()
    ogre.refresh_from_db()
    assert wrestle.hold == "pinned" and ogre.hp == 23
    # Pinned, its WR is 3 lower: 13 − 3 = 10, so 6 + 10 = 16 ties 10 + 6 = 16.
    wrestle_round(referee, encounter, wrestle, attacker_natural=10, defender_natural=6,
                  save_natural=20)  # fmt: skip
    last = LogEntry.objects.filter(kind=EntryKind.WRESTLE).first()
    assert [-3, "pinned"] in last.data["defender_roll"]["mods"]
    assert last.data["winner"] == "tie"
    # The ogre wins: back to thrown, then grabbed, then free: broken free, it ends.
    for _ in range(3):
        wrestle_round(referee, encounter, wrestle, attacker_natural=1, defender_natural=20)
    wrestle.refresh_from_db()
    assert (wrestle.hold, wrestle.ended) == ("free", True)
    assert "breaks free" in referee.get(url(encounter, "log")).content.decode()


def test_helpers_count_by_hit_dice_as_the_seed_says(referee, encounter, fighter, ogre):
    squire = character(encounter, "Squire", level=2)
    wolf = monster(encounter, "Wolf", hit_dice="3", side=Side.PARTY)
    # Against the ogre's 4+1 HD (half: just above 2): level 2 is less (+1), 3 HD more (+5).
    grab(
        referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_helpers=squire.pk,
        attacker_natural=10, defender_natural=10,
    )  # fmt: skip
    entry = LogEntry.objects.get(kind=EntryKind.WRESTLE)
    assert [1, "helpers_small"] in entry.data["attacker_roll"]["mods"]
    response = referee.post(
        url(encounter, "bx_wrestle"),
        {"actor": squire.pk, "target": ogre.pk, "attacker_helpers": [wolf.pk],
         "attacker_natural": "10", "defender_natural": "10"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert response.status_code == 200
    entry = LogEntry.objects.filter(kind=EntryKind.WRESTLE).first()
    assert [5, "helpers_large"] in entry.data["attacker_roll"]["mods"]


def test_the_round_form_shows_each_holds_chance(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    page = referee.get(url(encounter, "bx_wrestle_round") + f"?wrestle={wrestle.pk}")
    odds = becmi_wrestling.wrestling_round_odds("grabbed", 6, 13)
    text = page.content.decode()
    assert "wrestling ratings 6 against 13" in text
    for hold, chance in odds.items():
        assert f"{percent(chance)}%" in text, hold


def test_a_player_rolls_a_round_of_their_own_hold_but_not_anothers(
    referee, player, other_player, encounter, fighter, thief, ogre
):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    assert wrestle_round(other_player, encounter, wrestle, attacker_natural=20).status_code == 403
    assert wrestle_round(player, encounter, wrestle, attacker_natural=20).status_code == 200
    assert LogEntry.objects.filter(kind=EntryKind.WRESTLE).count() == 2
    # The player's own side's die only: the ogre's is the server's.
    assert LogEntry.objects.first().data["defender_roll"]["entered"] is False
    end = player.post(url(encounter, "bx_wrestle_end"), {"wrestle": wrestle.pk})
    assert end.status_code == 403
    assert not LogEntry.objects.filter(data__becmi="wrestle_end").exists()


def test_the_referee_ends_a_hold_and_undo_brings_it_back(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    referee.post(url(encounter, "bx_wrestle_end"), {"wrestle": wrestle.pk}, HTTP_HX_REQUEST="true")
    wrestle.refresh_from_db()
    assert wrestle.ended
    entry = LogEntry.objects.first()
    referee.post(url(encounter, "undo", entry.seq), HTTP_HX_REQUEST="true")
    wrestle.refresh_from_db()
    assert (wrestle.hold, wrestle.ended) == ("grabbed", False)


def test_undo_takes_back_the_latest_round_first(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    wrestle_round(referee, encounter, wrestle, attacker_natural=20, defender_natural=1)
    first, second = LogEntry.objects.filter(kind=EntryKind.WRESTLE).order_by("seq")
    response = referee.post(url(encounter, "undo", first.seq), HTTP_HX_REQUEST="true")
    assert "later rounds" in response.content.decode()
    wrestle.refresh_from_db()
    assert wrestle.hold == "thrown"
    referee.post(url(encounter, "undo", second.seq), HTTP_HX_REQUEST="true")
    referee.post(url(encounter, "undo", first.seq), HTTP_HX_REQUEST="true")
    wrestle.refresh_from_db()
    assert wrestle.ended  # the grab undone: nobody holds anybody


def test_a_hold_ends_when_a_side_dies(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    Combatant.objects.filter(pk=ogre.pk).update(hp=0)
    page = referee.get(url(encounter, "encounter")).content.decode()
    assert "held by" not in page
    response = wrestle_round(referee, encounter, wrestle, attacker_natural=20)
    assert "has ended" in response.content.decode()
    assert LogEntry.objects.filter(kind=EntryKind.WRESTLE).count() == 1


@pytest.mark.parametrize(
    "values",
    [
        {"target": "self"},
        {"attacker_natural": "x"},
        {"attacker_natural": "25"},
        {"attacker_ac": "abc"},
        {"attacker_ac": "99"},
        {"attacker_helpers": "target"},
        {"target": "424242"},
    ],
)
def test_bad_wrestling_input_changes_nothing(referee, encounter, fighter, ogre, values):
    data = {"actor": fighter.pk, "target": ogre.pk} | values
    if data["target"] == "self":
        data["target"] = fighter.pk
    if data.get("attacker_helpers") == "target":
        data["attacker_helpers"] = ogre.pk
    response = grab(referee, encounter, **data)
    assert response.status_code == 200
    assert not Wrestle.objects.exists() and not LogEntry.objects.exists()


def test_a_wrestling_round_with_a_bad_die_changes_nothing(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    for bad in ("0", "21", "two"):
        response = wrestle_round(referee, encounter, wrestle, attacker_natural=bad)
        assert response.status_code == 200
    for forged in ("99999", "²", "9" * 40, "-1"):
        response = referee.post(
            url(encounter, "bx_wrestle_round"), {"wrestle": forged}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
    assert LogEntry.objects.filter(kind=EntryKind.WRESTLE).count() == 1


def test_both_screens_hear_the_hold_live(referee, player, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    viewer = Viewer(encounter, is_referee=False, seat=player.seat)
    _seq, html = render_snapshot(viewer, "ru")
    # Arrows, not verbs: who holds whom reads without a case or a gender (issue 32).
    assert "борьба → Ogre: захват" in html
    assert "борьба ← Aldric: захват" in html
    wrestle = Wrestle.objects.get()
    wrestle_round(referee, encounter, wrestle, attacker_natural=20, defender_natural=1)
    _seq, html = render_snapshot(viewer, "uk")
    assert "боротьба → Ogre: повалення" in html


# --- naval combat ------------------------------------------------------------------------------


def ship(encounter: Encounter, name: str, **extra) -> Combatant:
    values = dict(
        side=Side.FOES, kind=Kind.SHIP, ac=8, hp_max=100, hp=100, thac0=19, save_death=20,
        save_wands=20, save_paralysis=20, save_breath=20, save_spells=20, speed=120, crew=20,
        rowers=40,
    )  # fmt: skip
    return Combatant.objects.create(encounter=encounter, name=name, **values | extra)


def act(client, encounter, view, **values):
    data = {k: str(v) for k, v in values.items()}
    return client.post(url(encounter, view), data, HTTP_HX_REQUEST="true")


@pytest.fixture
def galley(encounter: Encounter, player) -> Combatant:
    return ship(encounter, "Sea Wolf", side=Side.PARTY, seat=player.seat, hp_max=60, hp=60)


@pytest.fixture
def cog(encounter: Encounter) -> Combatant:
    return ship(encounter, "Black Cog")


def test_the_referee_puts_a_ship_on_the_table(referee, player, encounter):
    response = act(
        referee, encounter, "bx_ship", name="Sea Wolf", side="party", ac=8, hull_points=60,
        speed=120, crew=20, rowers=40,
    )  # fmt: skip
    assert response.status_code == 200
    sea_wolf = Combatant.objects.get(name="Sea Wolf")
    assert (sea_wolf.kind, sea_wolf.hp, sea_wolf.hp_max, sea_wolf.thac0) == ("ship", 60, 60, 19)
    page = player.get(url(encounter, "encounter")).content.decode()
    assert "Hull 60/60" in page and "speed 120 of 120" in page and "afloat" in page
    assert act(player, encounter, "bx_ship", name="Mine", hull_points=5, ac=8).status_code == 403


def test_a_ships_row_shows_its_hull_not_hit_points_and_offers_no_rest(referee, encounter, cog):
    page = referee.get(url(encounter, "encounter")).content.decode()
    row = page[page.index(f'id="combatant-{cog.pk}"') :]
    row = row[: row.index("</li>")]
    assert "Hull 100/100" in row
    assert 'class="hp"' not in row and "/rest/" not in row


def test_a_ram_hits_on_thac0_19_and_does_the_galley_tables_damage(referee, encounter, galley, cog):
    # THAC0 19 against AC 8 needs 11; a small galley into a ship: (1d4 + 4) × 10, 2 → 60.
    page = referee.get(url(encounter, "bx_ram") + f"?actor={galley.pk}").content.decode()
    assert "THAC0 19: needs 11+ · 50%" in page
    act(referee, encounter, "bx_ram", actor=galley.pk, target=cog.pk, vessel="small_galley",
        natural=11, damage_dice="2")  # fmt: skip
    cog.refresh_from_db()
    assert cog.hp == 40
    entry = LogEntry.objects.get(kind=EntryKind.NAVAL)
    assert entry.data["damage"]["total"] == 60 and entry.data["against"] == "ship"
    # 60 % of the hull gone: speed down 60 %, still afloat.
    page = referee.get(url(encounter, "encounter")).content.decode()
    assert "Hull 40/100" in page and "speed 48 of 120" in page
    referee.post(url(encounter, "undo", entry.seq), HTTP_HX_REQUEST="true")
    cog.refresh_from_db()
    assert cog.hp == 100


def test_a_ram_on_a_creature_rolls_3d8(referee, encounter, galley, ogre):
    act(referee, encounter, "bx_ram", actor=galley.pk, target=ogre.pk, vessel="small_galley",
        natural=20, damage_dice="1 2 3")  # fmt: skip
    ogre.refresh_from_db()
    assert ogre.hp == 25 - 6
    response = act(referee, encounter, "bx_ram", actor=galley.pk, target=ogre.pk,
                   vessel="small_galley", natural=20, damage_dice="1 2")  # fmt: skip
    assert "Enter 3 dice" in response.content.decode()
    assert LogEntry.objects.filter(kind=EntryKind.NAVAL).count() == 1


def test_dead_in_the_water_at_75_percent_sinking_at_100(referee, encounter, galley, cog):
    act(referee, encounter, "bx_ram", actor=galley.pk, target=cog.pk, vessel="large_galley",
        natural=20, damage_dice="2")  # fmt: skip  # (2 + 5) × 10 = 70
    act(referee, encounter, "bx_hull", actor=cog.pk, hit_points=27)  # 27 // 5 = 5
    cog.refresh_from_db()
    assert cog.hp == 25
    page = referee.get(url(encounter, "encounter")).content.decode()
    assert "dead in the water" in page and "speed 0 of 120" in page
    assert "is dead in the water" in referee.get(url(encounter, "log")).content.decode()
    act(referee, encounter, "bx_hull", actor=cog.pk, hit_points=125)
    cog.refresh_from_db()
    assert cog.dead
    assert "sinking" in referee.get(url(encounter, "encounter")).content.decode()


def test_grappling_is_2_in_6_within_50_feet(referee, encounter, galley, cog):
    page = referee.get(url(encounter, "bx_grapple") + f"?actor={galley.pk}").content.decode()
    assert "2 in 6 · 33.3%" in page
    act(referee, encounter, "bx_grapple", actor=galley.pk, target=cog.pk, distance=30, natural=2)
    act(referee, encounter, "bx_grapple", actor=galley.pk, target=cog.pk, distance=30, natural=3)
    act(referee, encounter, "bx_grapple", actor=galley.pk, target=cog.pk, distance=60, natural=1)
    act(referee, encounter, "bx_grapple", actor=galley.pk, target=cog.pk, distance=80,
        mutual="on")  # fmt: skip
    outcomes = [e.data["outcome"] for e in LogEntry.objects.order_by("seq")]
    assert outcomes == ["grappled", "failed", "out_of_range", "out_of_range"]


def test_repairs_need_five_crew_and_mend_half_the_damage(referee, encounter, galley, cog):
    Combatant.objects.filter(pk=cog.pk).update(hp=60)  # 40 hull points lost
    response = act(referee, encounter, "bx_repair", actor=cog.pk, crew=4, turns=1)
    assert "at least five crew" in response.content.decode()
    act(referee, encounter, "bx_repair", actor=cog.pk, crew=5, turns=30,
        life_dice="1 2 3 4 5")  # fmt: skip
    cog.refresh_from_db()
    assert (cog.hp, cog.hull_repaired) == (80, 20)
    entry = LogEntry.objects.get(kind=EntryKind.NAVAL)
    assert entry.data["days"] == 15
    referee.post(url(encounter, "undo", entry.seq), HTTP_HX_REQUEST="true")
    cog.refresh_from_db()
    assert (cog.hp, cog.hull_repaired) == (60, 0)


def test_lost_rowers_slow_the_ship(referee, encounter, cog):
    act(referee, encounter, "bx_rowers", actor=cog.pk, count=8)  # 20 % of 40
    cog.refresh_from_db()
    assert cog.rowers_lost == 8
    assert "speed 96 of 120" in referee.get(url(encounter, "encounter")).content.decode()


def test_a_player_rams_with_their_ship_only(player, encounter, galley, cog):
    response = act(player, encounter, "bx_ram", actor=cog.pk, target=galley.pk,
                   vessel="small_galley")  # fmt: skip
    assert response.status_code == 403
    response = act(player, encounter, "bx_ram", actor=galley.pk, target=cog.pk,
                   vessel="small_galley", natural=1)  # fmt: skip
    assert response.status_code == 200
    assert LogEntry.objects.get().data["roll"]["success"] is False
    assert act(player, encounter, "bx_hull", actor=galley.pk, hit_points=5).status_code == 403


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("bx_ram", {"vessel": "trireme"}),
        ("bx_ram", {"natural": "30"}),
        ("bx_ram", {"damage_dice": "a b"}),
        ("bx_ram", {"target": "own"}),
        ("bx_grapple", {"distance": "-5"}),
        ("bx_grapple", {"natural": "7"}),
        ("bx_hull", {"hit_points": "lots"}),
        ("bx_repair", {"turns": "0"}),
        ("bx_repair", {"life_dice": "1 2 3"}),
        ("bx_rowers", {"count": "-1"}),
    ],
)
def test_bad_naval_input_changes_nothing(referee, encounter, galley, cog, name, values):
    data = {"actor": galley.pk, "target": cog.pk, "vessel": "small_galley", "distance": 10,
            "hit_points": 10, "crew": 5, "turns": 1, "count": 1} | values  # fmt: skip
    if data["target"] == "own":
        data["target"] = galley.pk
    Combatant.objects.filter(pk=galley.pk).update(hp=30)
    response = act(referee, encounter, name, **data)
    assert response.status_code == 200
    assert not LogEntry.objects.exists()
    galley.refresh_from_db()
    cog.refresh_from_db()
    assert (galley.hp, cog.hp, galley.rowers_lost, galley.hull_repaired) == (30, 100, 0, 0)


def test_only_ships_ram(referee, encounter, fighter, cog):
    response = act(referee, encounter, "bx_ram", actor=fighter.pk, target=cog.pk,
                   vessel="small_galley")  # fmt: skip
    assert response.status_code == 200
    assert not LogEntry.objects.exists()


def test_a_ram_reads_in_every_language(referee, player, encounter, galley, cog):
    act(referee, encounter, "bx_ram", actor=galley.pk, target=cog.pk, vessel="small_galley",
        natural=20, damage_dice="1")  # fmt: skip
    viewer = Viewer(encounter, is_referee=False, seat=player.seat)
    for language, words in (("cs", "Taranování"), ("ru", "Таран"), ("uk", "Таран")):
        _seq, html = render_snapshot(viewer, language)
        assert words in html, language


def test_a_boarder_is_minus_2_to_hit_and_its_ac_2_worse(referee, encounter, fighter, ogre):
    # THAC0 17 against AC 5 needs 12; STR +1, boarding −2: a natural 13, 40 %.
    page = referee.get(url(encounter, "bx_board") + f"?actor={fighter.pk}").content.decode()
    assert "hit: needs 13+ · 40%" in page
    act(referee, encounter, "bx_board", actor=fighter.pk, target=ogre.pk, boarding="on",
        modifier=0, natural=12, damage="1d6", damage_dice="3")  # fmt: skip
    missed = LogEntry.objects.get(kind=EntryKind.NAVAL)
    assert [-2, "boarding"] in missed.data["roll"]["mods"] and not missed.data["roll"]["success"]
    # The ogre boarding in its turn: its AC 5 counts as 7 against the fighter's blow.
    act(referee, encounter, "bx_board", actor=fighter.pk, target=ogre.pk, target_boarding="on",
        modifier=0, natural=9, damage="1d6", damage_dice="3")  # fmt: skip
    hit = LogEntry.objects.filter(kind=EntryKind.NAVAL).first()
    assert hit.data["ac"] == 7 and hit.data["roll"]["success"]
    ogre.refresh_from_db()
    assert ogre.hp == 25 - 4  # 3 + STR 1
    assert "in the boarding round" in referee.get(url(encounter, "log")).content.decode()


def test_a_hidden_grabber_stays_unseen_on_the_players_screens(
    referee, player, encounter, fighter, lurker
):
    grab(referee, encounter, actor=lurker.pk, target=fighter.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    assert LogEntry.objects.get().secret
    page = player.get(url(encounter, "encounter")).content.decode()
    assert "held by someone unseen: grabbed" in page
    form = player.get(url(encounter, "bx_wrestle_round")).content.decode()
    assert "someone unseen — Aldric" in form
    assert "Lurking wight" not in page + form


def test_the_referee_edits_a_ships_speed_and_crew(referee, encounter, cog, fighter):
    edit = url(encounter, "combatant_edit", cog.pk)
    page = referee.get(edit).content.decode()
    assert 'name="speed"' in page and 'name="rowers_lost"' in page
    assert (
        'name="speed"'
        not in referee.get(url(encounter, "combatant_edit", fighter.pk)).content.decode()
    )
    from ...conftest import form_values

    values = form_values(page, edit) | {"speed": "90", "crew": "12"}
    referee.post(edit, values)
    cog.refresh_from_db()
    assert (cog.speed, cog.crew, cog.hp) == (90, 12, 100)
    new = referee.get(url(encounter, "combatant_new")).content.decode()
    assert 'value="ship"' not in new  # ships come through "Add a ship"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    natural=st.integers(1, 20),
    stun=st.integers(1, 20),
    save=st.integers(1, 20),
    haymaker=st.booleans(),
    pulled=st.booleans(),
)
def test_any_strike_does_what_the_rules_say_and_undo_takes_it_all_back(
    encounter, fighter, ogre, natural, stun, save, haymaker, pulled
):
    from combat import table as toolkit
    from combat.systems.becmi import special as becmi_special

    referee = Viewer(encounter, is_referee=True, seat=None)
    expected = becmi_striking.resolve_strike(
        17, 5, defender_con=8, defender_save=10, attacker_str=13, haymaker=haymaker,
        pulled=pulled, natural=natural, stun_natural=stun, save_natural=save,
    )  # fmt: skip
    entry = becmi_special.strike(
        referee, actor=fighter, target=ogre, blow="kick", haymaker=haymaker, pulled=pulled,
        modifier=0, natural=natural, stun_natural=stun, save_natural=save,
    )  # fmt: skip
    ogre.refresh_from_db()
    assert entry.data["outcome"] == expected.outcome
    assert ogre.hp == 25 - (expected.damage if expected.attack.hit else 0)
    knocked = Condition.objects.running().filter(combatant=ogre)
    assert knocked.exists() == expected.knocked_out
    if expected.knocked_out:
        assert knocked.get().rounds_left == expected.t
    if entry.undoable:
        toolkit.undo(referee, entry)
    ogre.refresh_from_db()
    assert ogre.hp == 25 and not Condition.objects.running().exists()


def test_the_repair_form_says_what_it_mends_and_how_long_it_holds(referee, encounter, cog):
    Combatant.objects.filter(pk=cog.pk).update(hp=90)  # 10 lost: 5 repairable
    page = referee.get(url(encounter, "bx_repair") + f"?actor={cog.pk}").content.decode()
    assert "repairs 1 hull point" in page
    assert "5 to 30, 17.5 on average" in page
    odds = referee.get(url(encounter, "bx_odds", "bx_repair"), {"actor": cog.pk, "crew": 5,
                       "turns": 9}).content.decode()  # fmt: skip
    assert "repairs 5 hull points" in odds


@pytest.mark.parametrize("forged", ["²", "9" * 40, "abc", "-3", ""])
def test_a_player_sending_no_hold_at_all_gets_a_form_error(
    player, encounter, fighter, ogre, forged
):
    response = player.post(
        url(encounter, "bx_wrestle_round"), {"wrestle": forged}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert not LogEntry.objects.exists()


def test_repairs_give_way_after_their_days_and_undo_holds_them_again(
    referee, player, encounter, cog
):
    Combatant.objects.filter(pk=cog.pk).update(hp=60)
    act(referee, encounter, "bx_repair", actor=cog.pk, crew=5, turns=30)
    page = referee.get(url(encounter, "encounter")).content.decode()
    assert "20 hull points repaired for now" in page
    assert url(encounter, "bx_repairs_fail") in page
    assert act(player, encounter, "bx_repairs_fail", actor=cog.pk).status_code == 403
    act(referee, encounter, "bx_repairs_fail", actor=cog.pk)
    cog.refresh_from_db()
    assert (cog.hp, cog.hull_repaired) == (60, 0)
    entry = LogEntry.objects.filter(kind=EntryKind.NAVAL).first()
    assert "20 hull points lost again" in referee.get(url(encounter, "log")).content.decode()
    referee.post(url(encounter, "undo", entry.seq), HTTP_HX_REQUEST="true")
    cog.refresh_from_db()
    assert (cog.hp, cog.hull_repaired) == (80, 20)


def test_the_referee_may_make_the_pin_cost_more(referee, encounter, fighter, ogre):
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    Wrestle.objects.filter(pk=wrestle.pk).update(hold="pinned")
    page = referee.get(url(encounter, "bx_wrestle_round") + f"?wrestle={wrestle.pk}")
    assert 'name="penalty"' in page.content.decode()
    wrestle_round(referee, encounter, wrestle, attacker_natural=10, defender_natural=10,
                  save_natural=20, penalty=5)  # fmt: skip
    entry = LogEntry.objects.filter(kind=EntryKind.WRESTLE).first()
    assert [-5, "pinned"] in entry.data["defender_roll"]["mods"]


def _load_and_render_queries(encounter: Encounter, player_seat) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from combat.live.state import Audience, build_views

    audiences = [
        Audience(referee=True, seat=None, language="en"),
        Audience(referee=False, seat=player_seat.pk, language="ru"),
    ]
    with CaptureQueriesContext(connection) as queries:
        build_views(encounter.pk, audiences, {})
    return len(queries)


def test_holds_are_loaded_once_for_every_row_however_many(referee, player, encounter, fighter):
    from combat.systems.becmi import special as becmi_special

    viewer = Viewer(encounter, is_referee=True, seat=None)
    foes = [monster(encounter, f"Goblin {n}") for n in range(4)]
    becmi_special.start_wrestle(
        viewer, actor=fighter, target=foes[0], attacker_helpers=[], defender_helpers=[],
        attacker_ac=4, defender_ac=6, attacker_natural=20, defender_natural=1,
    )  # fmt: skip
    one = _load_and_render_queries(encounter, player.seat)
    for foe in foes[1:]:
        becmi_special.start_wrestle(
            viewer, actor=foe, target=foes[0] if foe is not foes[0] else fighter,
            attacker_helpers=[], defender_helpers=[], attacker_ac=6, defender_ac=6,
            attacker_natural=20, defender_natural=1,
        )  # fmt: skip
    assert Wrestle.objects.filter(ended=False).count() == 4
    assert _load_and_render_queries(encounter, player.seat) == one


def test_a_knock_out_wears_off_at_the_end_of_its_rounds(referee, encounter, fighter, ogre):
    from combat import rounds

    viewer = Viewer(encounter, is_referee=True, seat=None)
    rounds.start(viewer, surprise=False, party_die=None, foes_die=None)
    strike(
        referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=9,
        save_natural=1,
    )  # fmt: skip  # t = 9 − 8 = 1 round
    assert Condition.objects.running().get().rounds_left == 1
    rounds.end_round(Viewer(Encounter.objects.get(pk=encounter.pk), is_referee=True, seat=None))
    assert not Condition.objects.running().exists()
    log = referee.get(url(encounter, "log"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "без сознания" in log and "Ogre" in log


PANELS = [
    "bx_strike", "bx_wrestle", "bx_wrestle_round", "bx_wrestle_end", "bx_ship", "bx_ram",
    "bx_grapple", "bx_board", "bx_hull", "bx_repair", "bx_rowers", "bx_repairs_fail",
]  # fmt: skip
REFEREE_ONLY = {"bx_wrestle_end", "bx_ship", "bx_hull", "bx_rowers", "bx_repairs_fail"}


@pytest.mark.parametrize("panel", PANELS)
def test_every_panel_opens_for_whom_it_is_and_its_odds_take_any_junk(
    referee, player, outsider, encounter, fighter, ogre, galley, cog, panel
):
    assert referee.get(url(encounter, panel)).status_code == 200
    assert player.get(url(encounter, panel)).status_code == (403 if panel in REFEREE_ONLY else 200)
    assert outsider.get(url(encounter, panel)).status_code == 404
    junk = {"actor": "²", "target": "-1", "natural": "x", "wrestle": "9" * 30, "turns": "1e9",
            "distance": "NaN", "vessel": "ark", "hit_points": "", "crew": "٣"}  # fmt: skip
    for who in (referee, player):
        assert who.get(url(encounter, "bx_odds", panel), junk).status_code in (200, 403)
        assert who.post(url(encounter, panel), junk).status_code in (200, 403)
    assert not LogEntry.objects.exists()


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    start=st.sampled_from(["grabbed", "thrown", "pinned"]),
    a=st.integers(1, 20),
    d=st.integers(1, 20),
    save=st.integers(1, 20),
)
def test_any_wrestling_round_moves_the_hold_as_the_rules_say_and_undo_puts_it_back(
    encounter, fighter, ogre, start, a, d, save
):
    from combat import table as toolkit
    from combat.systems.becmi import special as becmi_special

    referee = Viewer(encounter, is_referee=True, seat=None)
    wrestle = Wrestle.objects.create(
        encounter=encounter, attacker=fighter, defender=ogre, hold=start, attacker_ac=4,
        defender_ac=5,
    )  # fmt: skip
    expected = becmi_wrestling.resolve_wrestling_round(
        start, 6, 13, defender_save=10, pinner_str=13, attacker_natural=a, defender_natural=d,
        save_natural=save,
    )  # fmt: skip
    entry = becmi_special.wrestle_round(
        referee, wrestle=wrestle, attacker_natural=a, defender_natural=d, save_natural=save
    )
    wrestle.refresh_from_db()
    ogre.refresh_from_db()
    assert wrestle.hold == expected.hold
    assert wrestle.ended == (expected.hold == "free")
    assert ogre.hp == 25 - expected.damage
    toolkit.undo(referee, entry)
    wrestle.refresh_from_db()
    ogre.refresh_from_db()
    assert (wrestle.hold, wrestle.ended, ogre.hp) == (start, False, 25)
    wrestle.ended = True
    wrestle.save()


def test_the_form_may_give_the_two_heights_for_the_half_size_rule(
    referee, encounter, fighter, ogre
):
    # Both stored at 6 ft; a 13 ft ogre is more than twice the fighter: a haymaker or nothing.
    odds = referee.get(
        url(encounter, "bx_odds", "bx_strike"),
        {"actor": fighter.pk, "target": ogre.pk, "defender_ft": "13"},
    ).content.decode()
    assert "Too small" in odds
    response = strike(referee, encounter, actor=fighter.pk, target=ogre.pk, defender_ft="13",
                      natural=20)  # fmt: skip
    assert "at least half the defender" in response.content.decode()
    assert not LogEntry.objects.exists()
    cs = referee.post(
        url(encounter, "bx_strike"),
        {"actor": fighter.pk, "target": ogre.pk, "defender_ft": "12,5", "haymaker": "on",
         "natural": "20", "stun_natural": "1", "blow": "kick"},
        HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="cs",
    )  # fmt: skip
    assert cs.status_code == 200
    assert LogEntry.objects.get().data["haymaker"] is True


def test_each_special_entry_reads_as_its_actions_payload_and_writes_back_what_it_stored(
    referee, encounter, fighter, ogre, galley, cog
):
    """The entries are typed (``combat.systems.becmi.payloads``): each reads as its action's
    class, which declares every key it stores (strict in the tests), and writes back the very
    JSON it was read from; the undo's ``restore`` reads as a ``Restore``."""
    from combat.systems.becmi import payloads

    strike(referee, encounter, actor=fighter.pk, target=ogre.pk, natural=18, stun_natural=15,
           save_natural=2)  # fmt: skip
    grab(referee, encounter, actor=fighter.pk, target=ogre.pk, attacker_natural=20,
         defender_natural=1)  # fmt: skip
    wrestle = Wrestle.objects.get()
    wrestle_round(referee, encounter, wrestle, attacker_natural=1, defender_natural=20)
    act(referee, encounter, "bx_board", actor=fighter.pk, target=ogre.pk, target_boarding="on",
        modifier=0, natural=20, damage="1d6", damage_dice="3")  # fmt: skip
    act(referee, encounter, "bx_ram", actor=galley.pk, target=cog.pk, vessel="small_galley",
        natural=11, damage_dice="2")  # fmt: skip
    act(referee, encounter, "bx_grapple", actor=galley.pk, target=cog.pk, distance=30, natural=2)
    act(referee, encounter, "bx_hull", actor=cog.pk, hit_points=27)
    act(referee, encounter, "bx_repair", actor=cog.pk, crew=5, turns=3, life_dice="1 2 3 4 5")
    act(referee, encounter, "bx_repairs_fail", actor=cog.pk)
    act(referee, encounter, "bx_rowers", actor=cog.pk, count=8)
    entries = list(LogEntry.objects.filter(encounter=encounter).order_by("seq"))
    assert [type(e.payload) for e in entries] == [
        payloads.Strike,
        payloads.WrestleRound,
        payloads.WrestleRound,
        payloads.Board,
        payloads.Ram,
        payloads.Grapple,
        payloads.HullDamage,
        payloads.Repair,
        payloads.RepairsFail,
        payloads.Rowers,
    ]
    for entry in entries:
        assert entry.payload.to_json() == entry.data, entry.data["becmi"]
    knock_out, grabbed, broken = (e.payload for e in entries[:3])
    assert knock_out.restore.conditions == [Condition.objects.get().pk]
    assert grabbed.start and grabbed.restore.state == payloads.HoldState(ended=True)
    assert broken.broken and broken.restore.state.hold == "grabbed"
    assert entries[7].payload.restore.fields == {"hull_repaired": 0}
