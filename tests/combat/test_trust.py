"""Trust at the table: nothing lost or doubled, the dead stay dead, dice say where they came
from, and players learn nothing the referee keeps from them."""

from __future__ import annotations

import re

import pytest
from django.db import DataError, IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from combat.models import ActionKey, Combatant, Encounter, LogEntry, Seat

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _post(client: Client, url: str, data: dict, htmx: bool = True):
    return client.post(url, data, **(HTMX if htmx else {}))


def _open_form(client: Client, url: str, query: str = "") -> dict[str, str]:
    """Open a form as the page would (htmx GET) and read what submitting it sends."""
    response = client.get(url + query, **HTMX)
    assert response.status_code == 200
    return form_values(response.content.decode(), url)


def _damage(client: Client, encounter: Encounter, who: Combatant, amount: int):
    return _post(
        client,
        _url("hit_points", encounter),
        {"actor": who.pk, "action": "damage", "amount": amount},
    )


def _player_page(client: Client, encounter: Encounter) -> str:
    return client.get(_url("encounter", encounter)).content.decode()


# --- 3. A stale form never overwrites a newer fact -------------------------------------------


def test_a_stale_edit_form_never_brings_back_hit_points_lost_meanwhile(referee, encounter):
    ogre = monster(encounter, "Ogre", hp_max=5000, hp=5000, ac=5)
    form = _open_form(referee, _url("combatant_edit", encounter, ogre.pk))
    _damage(referee, encounter, ogre, 7)
    form["ac"] = "3"
    response = _post(referee, _url("combatant_edit", encounter, ogre.pk), form)
    assert response.status_code == 200
    ogre.refresh_from_db()
    assert (ogre.hp, ogre.ac) == (4993, 3)
    # And the form said that someone else had changed the hit points meanwhile.
    assert "Changed by someone else while you edited" in response.content.decode()


def test_a_stale_edit_form_never_undoes_a_hide_or_a_seat_change(referee, player, encounter):
    goblin = monster(encounter, "Goblin")
    form = _open_form(referee, _url("combatant_edit", encounter, goblin.pk))
    _post(referee, _url("combatant_hide", encounter, goblin.pk), {"hidden": "1"})
    other = _open_form(referee, _url("combatant_edit", encounter, goblin.pk))
    other["seat"] = str(player.seat.pk)
    _post(referee, _url("combatant_edit", encounter, goblin.pk), other)
    form["name"] = "Goblin chief"
    _post(referee, _url("combatant_edit", encounter, goblin.pk), form)
    goblin.refresh_from_db()
    assert (goblin.name, goblin.hidden, goblin.seat_id) == ("Goblin chief", True, player.seat.pk)


def test_a_field_two_people_changed_comes_back_with_the_current_value(referee, encounter):
    goblin = monster(encounter, "Goblin", ac=6)
    mine = _open_form(referee, _url("combatant_edit", encounter, goblin.pk))
    theirs = _open_form(referee, _url("combatant_edit", encounter, goblin.pk))
    theirs["ac"] = "2"
    _post(referee, _url("combatant_edit", encounter, goblin.pk), theirs)
    mine["ac"] = "4"
    response = _post(referee, _url("combatant_edit", encounter, goblin.pk), mine)
    goblin.refresh_from_db()
    assert goblin.ac == 2  # not overwritten
    html = response.content.decode()
    assert "Someone changed this while you were editing" in html
    assert form_values(html, _url("combatant_edit", encounter, goblin.pk))["ac"] == "2"
    # Saving the form as it came back now keeps what the user meant.
    again = form_values(html, _url("combatant_edit", encounter, goblin.pk))
    again["ac"] = "4"
    _post(referee, _url("combatant_edit", encounter, goblin.pk), again)
    goblin.refresh_from_db()
    assert goblin.ac == 4


def test_hit_points_set_in_the_edit_form_are_a_logged_correction_undo_reverses(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    form = _open_form(referee, _url("combatant_edit", encounter, goblin.pk))
    form["hp"] = "3"
    _post(referee, _url("combatant_edit", encounter, goblin.pk), form)
    goblin.refresh_from_db()
    assert goblin.hp == 3
    entry = LogEntry.objects.get(encounter=encounter, kind="correct")
    assert entry.effects == [{"combatant": goblin.pk, "hp": -4}]
    assert "hit points corrected from 7 to 3" in _player_page(referee, encounter)
    _post(referee, _url("undo", encounter, entry.seq), {})
    goblin.refresh_from_db()
    assert goblin.hp == 7


def test_saving_the_settings_never_writes_back_an_old_sequence_number(
    referee, player, fighter, encounter
):
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    settings = form_values(_player_page(referee, encounter), _url("encounter_settings", encounter))
    _damage(referee, encounter, goblin, 1)
    _damage(referee, encounter, goblin, 1)
    before = Encounter.objects.get(pk=encounter.pk).seq
    settings["settings-name"] = "Renamed"
    _post(referee, _url("encounter_settings", encounter), settings)
    encounter.refresh_from_db()
    assert encounter.name == "Renamed"
    assert encounter.seq > before  # never backwards
    _damage(referee, encounter, goblin, 1)
    seqs = list(LogEntry.objects.filter(encounter=encounter).values_list("seq", flat=True))
    assert len(seqs) == len(set(seqs)) == 3


def test_the_database_refuses_two_log_entries_with_one_number(encounter):
    LogEntry.objects.create(encounter=encounter, seq=1, kind="roll", actor="")
    with pytest.raises(IntegrityError), transaction.atomic():
        LogEntry.objects.create(encounter=encounter, seq=1, kind="roll", actor="")


def test_undoing_twice_shows_the_first_undo_and_never_fails(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    _damage(referee, encounter, goblin, 3)
    entry = LogEntry.objects.get(encounter=encounter)
    first = _post(referee, _url("undo", encounter, entry.seq), {})
    second = _post(referee, _url("undo", encounter, entry.seq), {})
    assert first.status_code == second.status_code == 200
    assert "already undone" in second.content.decode()
    goblin.refresh_from_db()
    assert goblin.hp == 7
    assert LogEntry.objects.filter(encounter=encounter, kind="undo").count() == 1
    # An undo itself cannot be undone, and an unknown number is a plain 404.
    undo = LogEntry.objects.get(encounter=encounter, kind="undo")
    assert _post(referee, _url("undo", encounter, undo.seq), {}).status_code == 200
    assert _post(referee, _url("undo", encounter, 999), {}).status_code == 404


def test_undo_from_the_whole_log_page_goes_back_to_that_page(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    _damage(referee, encounter, goblin, 3)
    log_url = _url("log", encounter)
    html = referee.get(log_url).content.decode()
    assert 'hx-post="' + _url("undo", encounter, 1) not in html  # no live panel there
    data = form_values(html, _url("undo", encounter, 1))
    response = referee.post(_url("undo", encounter, 1), data)
    assert response.status_code == 302 and response["Location"] == log_url
    goblin.refresh_from_db()
    assert goblin.hp == 7


# --- 4. A tap applies once -------------------------------------------------------------------


def test_after_a_save_the_form_keeps_who_and_which_save_but_not_the_damage(
    player, fighter, encounter
):
    url = _url("save", encounter)
    form = _open_form(player, url, f"?actor={fighter.pk}&category=breath")
    form |= {"damage": "8", "natural": "3", "modifier": "2"}
    response = _post(player, url, form)
    after = form_values(response.content.decode(), url)
    assert (after["actor"], after["category"]) == (str(fighter.pk), "breath")
    assert after["damage"] == after["natural"] == ""
    assert after["modifier"] in ("", "0")
    assert after["once"] != form["once"]


def test_after_a_kill_the_attack_form_moves_on_to_a_standing_foe(player, fighter, encounter):
    first = monster(encounter, "Goblin 1", hp_max=2, hp=2)
    second = monster(encounter, "Goblin 2", hp_max=2, hp=2)
    url = _url("attack", encounter)
    form = _open_form(player, url, f"?actor={fighter.pk}")
    assert form["target"] == str(first.pk)
    form |= {"natural": "20", "damage": "1d6", "damage_dice": "5"}
    response = _post(player, url, form)
    after = form_values(response.content.decode(), url)
    assert after["target"] == str(second.pk)
    assert after["damage"] == "1d6" and after["damage_dice"] == after["natural"] == ""


def test_the_same_attack_sent_twice_applies_once_and_shows_the_first_result(
    player, fighter, encounter
):
    goblin = monster(encounter, "Goblin", hp_max=20, hp=20)
    url = _url("attack", encounter)
    form = _open_form(player, url, f"?actor={fighter.pk}")
    form |= {"natural": "18", "damage": "1d6", "damage_dice": "4"}
    first = _post(player, url, form)
    second = _post(player, url, form)
    goblin.refresh_from_db()
    assert goblin.hp == 15  # 4 + 1 for STR, once
    assert LogEntry.objects.filter(encounter=encounter).count() == 1
    assert "Aldric attacks Goblin" in second.content.decode()
    assert re.search(r'id="entry-1"', second.content.decode())
    assert first.status_code == second.status_code == 200


def test_a_killing_blow_sent_twice_shows_the_kill_not_a_refusal(player, fighter, encounter):
    goblin = monster(encounter, "Goblin", hp_max=2, hp=2)
    url = _url("attack", encounter)
    form = _open_form(player, url, f"?actor={fighter.pk}")
    form |= {"target": str(goblin.pk), "natural": "18", "damage": "1d6", "damage_dice": "4"}
    _post(player, url, form)
    again = _post(player, url, form).content.decode()
    assert "Goblin is dead." in again
    assert "already dead" not in again
    assert LogEntry.objects.filter(encounter=encounter).count() == 1


def test_a_quick_add_sent_twice_adds_the_monsters_once(referee, encounter):
    url = _url("quick_add", encounter)
    form = _open_form(referee, url)
    form |= {"count": "4", "name": "Goblin", "ac": "6", "hit_dice": "1-1"}
    _post(referee, url, form)
    response = _post(referee, url, form)
    assert Combatant.objects.filter(encounter=encounter).count() == 4
    assert "sent twice" in response.content.decode()


def test_a_new_combatant_and_a_seat_sent_twice_are_made_once(referee, encounter):
    url = _url("combatant_new", encounter)
    form = _open_form(referee, url)
    form |= {"name": "Ogre", "side": "foes", "kind": "monster", "ac": "5", "hp_max": "20"}
    form["hit_dice"] = "4+1"
    _post(referee, url, form)
    _post(referee, url, form)
    assert Combatant.objects.filter(encounter=encounter, name="Ogre").count() == 1
    join_url = reverse("join", args=[encounter.join_token])
    phone = Client()
    join = form_values(phone.get(join_url).content.decode(), join_url)
    join["name"] = "Cyril"
    # A browser retrying the request whose answer it lost, with its old cookie.
    Client().post(join_url, join)
    assert phone.post(join_url, join).status_code == 302
    assert Seat.objects.filter(encounter=encounter, name="Cyril").count() == 1


def test_a_hide_button_tapped_twice_stays_hidden(referee, encounter):
    goblin = monster(encounter, "Goblin")
    html = _player_page(referee, encounter)
    data = form_values(html, _url("combatant_hide", encounter, goblin.pk))
    _post(referee, _url("combatant_hide", encounter, goblin.pk), data)
    _post(referee, _url("combatant_hide", encounter, goblin.pk), data)
    goblin.refresh_from_db()
    assert goblin.hidden


def test_removing_a_combatant_twice_changes_nothing_the_second_time(referee, encounter):
    goblin = monster(encounter, "Goblin")
    url = _url("combatant_delete", encounter, goblin.pk)
    assert _post(referee, url, {}).status_code == 200
    seq = Encounter.objects.get(pk=encounter.pk).seq
    assert _post(referee, url, {}).status_code == 200
    assert Encounter.objects.get(pk=encounter.pk).seq == seq


def test_one_time_keys_belong_to_their_encounter(referee, encounter):
    other = Encounter.objects.create(name="Elsewhere")
    ActionKey.objects.create(encounter=other, key="same-key")
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    _post(
        referee,
        _url("hit_points", encounter),
        {"actor": goblin.pk, "action": "damage", "amount": 2, "once": "same-key"},
    )
    goblin.refresh_from_db()
    assert goblin.hp == 7


# --- 5. The rules of death -------------------------------------------------------------------


def test_the_dead_are_not_offered_as_targets_and_an_attack_on_one_is_refused(
    player, fighter, encounter
):
    corpse = monster(encounter, "Goblin 1", hp=0)
    monster(encounter, "Goblin 2")
    url = _url("attack", encounter)
    html = player.get(url + f"?actor={fighter.pk}", **HTMX).content.decode()
    assert f'value="{corpse.pk}"' not in html
    form = form_values(html, url) | {"target": str(corpse.pk), "natural": "15"}
    response = _post(player, url, form)
    assert "Goblin 1 is already dead: choose another target." in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter).exists()


def test_the_dead_cannot_attack_save_or_check(player, fighter, encounter):
    goblin = monster(encounter, "Goblin")
    fighter.hp = -2
    fighter.save()
    for name, data in (
        ("attack", {"target": goblin.pk, "mode": "melee", "natural": 15}),
        ("save", {"category": "death", "natural": 15}),
        ("check", {"ability": "str", "natural": 3}),
    ):
        response = _post(player, _url(name, encounter), {"actor": fighter.pk, **data})
        assert "Aldric is dead and cannot act." in response.content.decode(), name
    assert not LogEntry.objects.filter(encounter=encounter).exists()
    # Nor are they offered the buttons to try.
    row = re.search(
        rf'<li class="combatant[^"]*" id="combatant-{fighter.pk}".*?</li>',
        _player_page(player, encounter),
        re.S,
    ).group(0)
    assert ">Attack<" not in row and ">Check<" not in row


def test_is_dead_is_logged_only_when_one_dies(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=5, hp=5)
    for _ in range(3):
        _damage(referee, encounter, goblin, 4)
    killed = [
        e.data["killed"] for e in LogEntry.objects.filter(encounter=encounter).order_by("seq")
    ]
    assert killed == [False, True, False]
    html = _player_page(referee, encounter)
    assert html.count("Goblin is dead.") == 1


def test_undo_brings_one_back_to_life_and_says_so(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=5, hp=5)
    _damage(referee, encounter, goblin, 6)
    response = _post(referee, _url("undo", encounter, 1), {})
    goblin.refresh_from_db()
    assert goblin.hp == 5 and not goblin.dead
    assert "Goblin is alive again." in response.content.decode()


def test_players_see_a_health_word_never_negative_hit_points(referee, player, fighter, encounter):
    _damage(referee, encounter, fighter, 27)  # 20 hit points: −7
    html = _player_page(player, encounter)
    row = re.search(rf'id="combatant-{fighter.pk}".*?</li>', html, re.S).group(0)
    row = row.replace(encounter.slug, "")  # a random slug's links may hold "-7" themselves
    assert "-7" not in row and "−7" not in row
    assert "down" in row
    assert "-7/20" in _player_page(referee, encounter)  # the referee sees the true total


# --- 6. Dice people can trust ----------------------------------------------------------------


def test_every_die_in_the_log_says_whether_it_was_typed_in_or_rolled_by_the_server(
    player, fighter, encounter
):
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    url = _url("attack", encounter)
    base = {"actor": fighter.pk, "target": goblin.pk, "mode": "melee", "damage": "1d6"}
    _post(player, url, base | {"natural": "20", "damage_dice": "3"})
    _post(player, url, base | {"modifier": "20"})  # the server rolls both dice
    typed, rolled = LogEntry.objects.filter(encounter=encounter).order_by("seq")
    assert typed.data["roll"]["entered"] and typed.data["damage"]["entered"]
    assert not rolled.data["roll"]["entered"] and not rolled.data["damage"]["entered"]
    someone = Client()
    someone.get(reverse("referee_link", args=[encounter.referee_key]))
    for viewer, numbers in (
        (player, (typed.public_seq, rolled.public_seq)),
        (someone, (typed.seq, rolled.seq)),
    ):
        html = _player_page(viewer, encounter)
        entry = re.search(rf'id="entry-{numbers[0]}".*?</li>', html, re.S).group(0)
        assert entry.count("typed in") == 2
        entry = re.search(rf'id="entry-{numbers[1]}".*?</li>', html, re.S).group(0)
        assert entry.count("server roll") == 2


def test_players_enter_dice_only_when_the_referee_allows_it(referee, player, fighter, encounter):
    goblin = monster(encounter, "Goblin", hp_max=50, hp=50)
    encounter.players_enter_dice = False
    encounter.save()
    url = _url("attack", encounter)
    form = _open_form(player, url, f"?actor={fighter.pk}")
    assert "natural" not in form and "damage_dice" not in form
    response = _post(player, url, form | {"natural": "20"})
    assert "leave the dice empty" in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter).exists()
    # The referee always may.
    _post(referee, url, {"actor": goblin.pk, "target": fighter.pk, "mode": "melee", "natural": 20})
    assert LogEntry.objects.get(encounter=encounter).data["roll"]["entered"]


def test_players_adjust_their_hit_points_only_when_the_referee_allows_it(
    referee, player, fighter, encounter
):
    url = _url("hit_points", encounter)
    data = {"actor": fighter.pk, "action": "damage", "amount": 1}
    assert player.get(url + f"?actor={fighter.pk}").status_code == 403
    assert _post(player, url, data).status_code == 403
    assert "HP ±" not in _player_page(player, encounter)
    encounter.players_adjust_hp = True
    encounter.save()
    assert _post(player, url, data).status_code == 200
    entry = LogEntry.objects.get(encounter=encounter)
    assert (entry.actor, entry.by_referee) == ("Anna", False)
    assert "HP ±" in _player_page(player, encounter)


# --- 7. What players can infer ---------------------------------------------------------------


def _numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li class="entry[^"]*" id="entry-(\d+)"', html)]


def test_players_see_their_own_log_numbers_with_no_gap_for_a_secret_roll(
    referee, player, encounter
):
    url = _url("free_roll", encounter)
    _post(referee, url, {"expression": "1d6", "label": "First"})
    _post(referee, url, {"expression": "1d100", "label": "Wandering", "secret": "on"})
    _post(referee, url, {"expression": "1d6", "label": "Third"})
    player_html = _player_page(player, encounter)
    assert _numbers(player_html) == [2, 1]
    assert "#3" not in player_html and "Wandering" not in player_html
    referee_numbers = _numbers(_player_page(referee, encounter))
    assert len(referee_numbers) == 3 and referee_numbers == sorted(referee_numbers, reverse=True)
    log_html = player.get(_url("log", encounter)).content.decode()
    assert _numbers(log_html) == [2, 1]


def test_a_secret_attack_on_a_players_character_shows_them_the_damage_not_its_cause(
    referee, player, fighter, encounter
):
    wight = monster(encounter, "Wight", hidden=True, hp_max=13, hp=13, hit_dice="3*")
    _post(
        referee,
        _url("attack", encounter),
        {
            "actor": wight.pk,
            "target": fighter.pk,
            "mode": "melee",
            "natural": 20,
            "damage": "1d6",
            "damage_dice": "5",
        },
    )
    html = _player_page(player, encounter)
    entry = re.search(r'id="entry-1".*?</li>', html, re.S).group(0)
    assert "Aldric takes 5 points of damage" in entry
    assert "Wight" not in html and "attacks" not in entry
    assert "15/20" in html


def test_a_heal_does_not_tell_players_how_far_a_hidden_foe_is_from_full(referee, player, encounter):
    ogre = monster(encounter, "Ogre", hp_max=30, hp=28)
    _post(referee, _url("hit_points", encounter), {"actor": ogre.pk, "action": "heal", "amount": 6})
    html = _player_page(player, encounter)
    entry = re.search(r'id="entry-1".*?</li>', html, re.S).group(0)
    assert "Ogre is healed." in entry
    assert "2" not in re.sub(r"#1|entry-1", "", re.sub(r"<[^>]+>", "", entry))
    assert "never above the maximum" not in entry
    referee_html = _player_page(referee, encounter)
    assert "Ogre is healed by 2 hit points" in referee_html


# --- 8. Keys ---------------------------------------------------------------------------------


def test_new_links_shut_out_the_old_ones_and_keep_the_seats(referee, player, fighter, encounter):
    old_referee, old_join = encounter.referee_key, encounter.join_token
    elsewhere = Client()  # another device that opened the old referee link
    elsewhere.get(reverse("referee_link", args=[old_referee]))
    assert elsewhere.get(_url("encounter", encounter)).status_code == 200
    response = referee.post(_url("new_links", encounter))
    assert response.status_code == 302
    encounter.refresh_from_db()
    assert old_referee != encounter.referee_key and old_join != encounter.join_token
    assert Client().get(reverse("referee_link", args=[old_referee])).status_code == 404
    assert Client().get(reverse("join", args=[old_join])).status_code == 404
    assert elsewhere.get(_url("encounter", encounter)).status_code == 404
    assert referee.get(_url("encounter", encounter)).status_code == 200
    assert "Aldric" in _player_page(player, encounter)  # the player keeps the seat
    assert player.post(_url("new_links", encounter)).status_code == 403


# --- 9. Bounds -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "21", "9999999999", "-1"])
def test_saving_throw_values_are_bounded_by_the_form(referee, encounter, value):
    url = _url("combatant_new", encounter)
    form = _open_form(referee, url)
    form |= {"name": "Hero", "side": "party", "kind": "character", "ac": "4", "hp_max": "9"}
    form |= {"thac0": "19", "save_death": value, "save_wands": "11", "save_paralysis": "12"}
    form |= {"save_breath": "13", "save_spells": "14"}
    response = _post(referee, url, form)
    assert response.status_code == 200
    assert not Combatant.objects.filter(encounter=encounter).exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [("save_death", 0), ("save_spells", 9_999_999_999), ("thac0", 99), ("ac", 50), ("hp", 10**7)],
)
def test_the_database_holds_the_same_bounds(encounter, field, value):
    # PostgreSQL refuses a number too wide for its column before the check (DataError).
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        character(encounter, "Hero", **{field: value})


# --- 8. Every out-of-band fragment has its target ----------------------------------------------


def test_action_answers_carry_only_the_panel(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    answers = [
        _damage(referee, encounter, goblin, 2),
        _post(referee, _url("undo", encounter, 1), {}),
        _post(referee, _url("combatant_hide", encounter, goblin.pk), {"hidden": "1"}),
        _post(referee, _url("combatant_delete", encounter, goblin.pk), {}),
    ]
    for answer in answers:
        assert answer.status_code == 200
        assert "hx-swap-oob" not in answer.content.decode()


def test_every_live_fragment_has_its_target_on_the_page_that_receives_it(
    referee, player, fighter, encounter
):
    from combat.access import viewer_of
    from combat.live.state import render_snapshot

    monster(encounter, "Goblin")
    for client in (referee, player):
        page = _player_page(client, encounter)
        viewer = viewer_of(client.session, encounter.slug)
        _seq, snapshot = render_snapshot(viewer, "en")
        targets = re.findall(r'id="([^"]+)"[^>]*hx-swap-oob', snapshot)
        assert targets
        for target in targets:
            assert f'id="{target}"' in page, target


def test_a_deeply_dead_monster_can_still_be_edited(referee, encounter):
    lich = monster(encounter, "Lich", hp_max=40, hp=-5000)
    form = _open_form(referee, _url("combatant_edit", encounter, lich.pk))
    form["ac"] = "0"
    _post(referee, _url("combatant_edit", encounter, lich.pk), form)
    lich.refresh_from_db()
    assert (lich.ac, lich.hp) == (0, -5000)


def test_a_correction_never_shows_players_negative_hit_points(referee, player, fighter, encounter):
    fighter.hp = -4
    fighter.save()
    form = _open_form(referee, _url("combatant_edit", encounter, fighter.pk))
    form["hp"] = "6"
    _post(referee, _url("combatant_edit", encounter, fighter.pk), form)
    # What the page says, not its attributes: a one-time key or token may hold "-4" by chance.
    shown = re.sub(r"<[^>]*>", " ", _player_page(player, encounter))
    assert "corrected from 0 to 6" in shown and "-4" not in shown
    assert "corrected from -4 to 6" in _player_page(referee, encounter)
