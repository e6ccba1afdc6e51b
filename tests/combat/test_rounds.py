"""The fight in rounds at the table: surprise, initiative, turns, the round's end,
conditions, morale, the fight's end, and undo, as the referee and the players see them."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Condition, Encounter, LogEntry

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _open(client: Client, name: str, encounter: Encounter, query: str = "") -> dict[str, str]:
    url = _url(name, encounter)
    response = client.get(url + query, **HTMX)
    assert response.status_code == 200
    return form_values(response.content.decode(), url)


def _send(client: Client, name: str, encounter: Encounter, values: dict, *args) -> str:
    response = client.post(_url(name, encounter, *args), values, **HTMX)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _page(client: Client, encounter: Encounter) -> str:
    return client.get(_url("encounter", encounter)).content.decode()


def _round_section(html: str) -> str:
    match = re.search(r'<section id="round".*?</section>', html, re.S)
    assert match, "no round section"
    return match.group(0)


def _at(client: Client, encounter: Encounter) -> str:
    match = re.search(r'name="at" value="([^"]+)"', _page(client, encounter))
    assert match, "no round buttons"
    return match.group(1)


def _advance(client: Client, encounter: Encounter, what: str, at: str | None = None) -> str:
    at = _at(client, encounter) if at is None else at
    return _send(client, "advance", encounter, {"at": at}, what)


def _start(client: Client, encounter: Encounter, surprise: bool = False, **dice) -> str:
    values = _open(client, "fight", encounter)
    values.pop("surprise", None)
    if surprise:
        values["surprise"] = "on"
    values |= {key: str(value) for key, value in dice.items()}
    return _send(client, "fight", encounter, values)


def _initiative(client: Client, encounter: Encounter, **dice) -> str:
    values = _open(client, "initiative", encounter)
    values |= {key: str(value) for key, value in dice.items()}
    return _send(client, "initiative", encounter, values)


@pytest.fixture
def fight(encounter, referee, player):
    hero = character(encounter, "Aldric", seat=player.seat, dex_score=16)
    goblins = [
        monster(encounter, f"Goblin {n}", hp_max=3, hp=3, ac=6, morale=7, hit_dice="1-1")
        for n in (1, 2, 3)
    ]
    return encounter, referee, player, hero, goblins


def test_before_a_fight_the_referee_is_offered_to_start_one_and_players_see_no_round(fight):
    encounter, referee, player, *_ = fight
    assert "Start a fight" in _round_section(_page(referee, encounter))
    players = _round_section(_page(player, encounter))
    assert "Start a fight" not in players and "Round" not in players


def test_surprise_rolled_with_typed_dice_costs_the_surprised_side_the_first_round(fight):
    encounter, referee, player, *_ = fight
    answer = _start(referee, encounter, surprise=True, party_die=2, foes_die=5)
    assert "Initiative" in answer  # the next thing to do is offered at once
    encounter.refresh_from_db()
    assert encounter.round == 1 and encounter.turn["surprised"] == "party"
    assert "The party is surprised" in _round_section(_page(player, encounter))
    _initiative(referee, encounter, party_die=6, foes_die=1)  # the party won, but is surprised
    section = _round_section(_page(player, encounter))
    assert "The foes act." in section and "Your side acts" not in section
    entry = LogEntry.objects.filter(encounter=encounter, kind="combat").get()
    assert entry.data["surprise"]["party"] == [2, True, True]


def test_both_sides_surprised_means_nothing_happens_that_round(fight):
    encounter, referee, player, *_ = fight
    _start(referee, encounter, surprise=True, party_die=1, foes_die=2)
    assert "nothing happens this round" in _round_section(_page(player, encounter))
    _advance(referee, encounter, "round")
    encounter.refresh_from_db()
    assert encounter.round == 2 and encounter.turn["surprised"] == ""


def test_group_initiative_orders_the_sides_and_tells_the_acting_players(fight):
    encounter, referee, player, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    section = _round_section(_page(player, encounter))
    assert "The party acts." in section and "Your side acts" in section
    assert 'aria-current="step"' in section  # the steps: morale first
    _advance(referee, encounter, "turn")
    section = _round_section(_page(player, encounter))
    assert "The foes act." in section and "Your side acts" not in section
    _advance(referee, encounter, "turn")
    assert "Everyone has acted" in _round_section(_page(player, encounter))


def test_a_tie_means_both_sides_act_at_once_unless_ties_are_rerolled(fight):
    encounter, referee, player, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=4, foes_die=4)
    assert "Both sides act at once." in _round_section(_page(player, encounter))
    Encounter.objects.filter(pk=encounter.pk).update(reroll_ties=True)
    _initiative(referee, encounter)  # the referee re-rolls: a tie is rolled again
    encounter.refresh_from_db()
    assert len(encounter.turn["order"]) == 2
    assert LogEntry.objects.filter(kind="initiative").first().data["again"] is True


def test_the_odds_of_initiative_and_surprise_show_before_the_roll(fight):
    encounter, referee, *_ = fight
    response = referee.get(_url("fight", encounter), **HTMX).content.decode()
    assert "33" in response  # 1 in 3
    _start(referee, encounter)
    response = referee.get(_url("initiative", encounter), **HTMX).content.decode()
    assert "41.7" in response or "42" in response  # 15/36 the party first
    assert "16.7" in response or "17" in response  # 6/36 a tie


def test_a_round_button_tapped_twice_moves_the_round_once(fight):
    encounter, referee, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    at = _at(referee, encounter)
    _advance(referee, encounter, "turn", at)
    again = _advance(referee, encounter, "turn", at)
    assert "moved on" in again
    encounter.refresh_from_db()
    assert encounter.turn["index"] == 1


def test_next_step_ticks_through_the_steps_then_hands_over(fight):
    encounter, referee, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    for step in range(1, 5):
        _advance(referee, encounter, "step")
        encounter.refresh_from_db()
        assert (encounter.turn["index"], encounter.turn["step"]) == (0, step)
    _advance(referee, encounter, "step")  # after melee: the foes
    encounter.refresh_from_db()
    assert (encounter.turn["index"], encounter.turn["step"]) == (1, 0)


def test_a_condition_counts_down_and_ends_with_a_line_in_the_log(fight):
    encounter, referee, player, _hero, goblins = fight
    _start(referee, encounter)
    values = _open(referee, "condition_new", encounter, f"?combatant={goblins[0].pk}")
    values |= {"kind": "paralysed", "duration": "2", "unit": "rounds"}
    _send(referee, "condition_new", encounter, values)
    assert "paralysed" in _page(player, encounter)
    _advance(referee, encounter, "round")
    assert Condition.objects.get().rounds_left == 1
    _advance(referee, encounter, "round")
    assert Condition.objects.get().rounds_left == 0
    ended = LogEntry.objects.filter(kind="turn").first()
    assert ended.data["expired"] == [["Goblin 1", "paralysed", ""]]
    assert "Goblin 1 is no longer paralysed." in _page(player, encounter)


def test_a_condition_in_turns_lasts_sixty_rounds_a_turn(fight):
    encounter, referee, _player, hero, _goblins = fight
    values = _open(referee, "condition_new", encounter, f"?combatant={hero.pk}")
    values |= {"kind": "asleep", "duration": "1", "unit": "turns"}
    _send(referee, "condition_new", encounter, values)
    assert Condition.objects.get().rounds_left == 60


def test_the_paralysed_cannot_act_and_are_hit_automatically(fight):
    encounter, referee, player, hero, goblins = fight
    Condition.objects.create(combatant=goblins[0], kind="paralysed", rounds_left=3)
    attack = _open(referee, "attack", encounter, f"?actor={goblins[0].pk}")
    attack |= {"target": str(hero.pk), "natural": "20"}
    refused = _send(referee, "attack", encounter, attack)
    assert "Goblin 1 is paralysed and cannot act." in refused
    attack = _open(player, "attack", encounter)
    attack |= {"target": str(goblins[0].pk), "damage": "1d4", "damage_dice": "2"}
    _send(player, "attack", encounter, attack)
    entry = LogEntry.objects.filter(kind="attack").first()
    assert entry.data["helpless"] == "hit" and entry.data["damage"]["dice"] == [2]
    assert "helpless: hit automatically" in _page(player, encounter)


def test_the_helpless_are_slain_outright_when_the_referee_says_so(fight):
    encounter, _referee, player, _hero, goblins = fight
    Encounter.objects.filter(pk=encounter.pk).update(helpless_rule="slain")
    Condition.objects.create(combatant=goblins[1], kind="asleep", rounds_left=None)
    attack = _open(player, "attack", encounter)
    attack |= {"target": str(goblins[1].pk)}
    _send(player, "attack", encounter, attack)
    goblins[1].refresh_from_db()
    assert goblins[1].dead
    assert "slain outright" in _page(player, encounter)


def test_a_morale_check_is_offered_after_the_first_death_and_a_failure_sends_them_fleeing(
    fight,
):
    encounter, referee, player, _hero, goblins = fight
    _start(referee, encounter)
    assert "Morale check due" not in _page(referee, encounter)
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    page = _page(referee, encounter)
    assert "Morale check due for the foes" in page
    assert "Morale check due" not in _page(player, encounter)  # the referee's prompt
    values = _open(referee, "morale", encounter, "?side=foes&why=first_death")
    assert values["score"] == "7"
    odds = referee.get(_url("morale", encounter) + "?side=foes", **HTMX).content.decode()
    assert "41.7" in odds or "42" in odds  # 2d6 above 7: 15/36
    values["dice"] = "6 5"
    answer = _send(referee, "morale", encounter, values)
    assert "They break" in answer
    assert set(Combatant.objects.filter(fled=True).values_list("name", flat=True)) == {
        "Goblin 2",
        "Goblin 3",
    }
    assert "Morale check due" not in _page(referee, encounter)  # the first death was checked
    # Undone: the check never happened, and the goblins are back.
    entry = LogEntry.objects.filter(kind="morale").get()
    _send(referee, "undo", encounter, {}, entry.seq)
    assert not Combatant.objects.filter(fled=True).exists()
    assert "Morale check due for the foes" in _page(referee, encounter)


def test_two_passed_checks_and_they_fight_to_the_death(fight):
    encounter, referee, _player, _hero, goblins = fight
    _start(referee, encounter)
    for dice, why in (("1 1", "first_death"), ("2 2", "half")):
        values = _open(referee, "morale", encounter, f"?side=foes&why={why}")
        values["dice"] = dice
        _send(referee, "morale", encounter, values)
    assert LogEntry.objects.filter(kind="morale").first().data["to_the_death"] is True
    Combatant.objects.filter(pk__in=[g.pk for g in goblins[:2]]).update(hp=0)
    assert "Morale check due" not in _page(referee, encounter)


def test_the_end_of_a_round_can_be_undone_and_brings_the_conditions_back(fight):
    encounter, referee, _player, hero, _goblins = fight
    _start(referee, encounter)
    Condition.objects.create(combatant=hero, kind="held", rounds_left=1)
    _advance(referee, encounter, "round")
    assert Condition.objects.get().rounds_left == 0
    entry = LogEntry.objects.filter(kind="turn").first()
    _send(referee, "undo", encounter, {}, entry.seq)
    encounter.refresh_from_db()
    assert encounter.round == 1 and Condition.objects.get().rounds_left == 1


def test_only_the_latest_change_of_the_round_can_be_undone(fight):
    encounter, referee, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    started = LogEntry.objects.filter(kind="combat").get()
    answer = _send(referee, "undo", encounter, {}, started.seq)
    assert "Undo the later turns of the fight first." in answer
    encounter.refresh_from_db()
    assert encounter.round == 1 and encounter.turn["rolled"]


def test_individual_initiative_orders_combatants_by_d6_and_dex(fight):
    encounter, referee, player, hero, goblins = fight
    Encounter.objects.filter(pk=encounter.pk).update(initiative_mode="individual")
    Combatant.objects.filter(pk=goblins[2].pk).update(hp=0)  # the dead drop out
    _start(referee, encounter)
    form = referee.get(_url("initiative", encounter), **HTMX).content.decode()
    assert "Aldric +1" in form  # DEX 16
    assert f"die_{goblins[2].pk}" not in form
    dice = {f"die_{hero.pk}": 3, f"die_{goblins[0].pk}": 4, f"die_{goblins[1].pk}": 6}
    _initiative(referee, encounter, **dice)
    encounter.refresh_from_db()
    assert encounter.turn["order"] == [
        {"ids": [goblins[1].pk]},
        {"ids": sorted([hero.pk, goblins[0].pk])},
    ]
    _advance(referee, encounter, "turn")
    section = _round_section(_page(player, encounter))
    assert "Your side acts" in section and "Aldric" in section


def test_the_end_of_the_fight_sums_it_up_with_experience_for_the_slain(fight):
    encounter, referee, player, _hero, goblins = fight
    _start(referee, encounter)
    Combatant.objects.filter(pk__in=[goblins[0].pk, goblins[1].pk]).update(hp=0)
    Combatant.objects.filter(pk=goblins[2].pk).update(fled=True)
    _advance(referee, encounter, "round")
    _advance(referee, encounter, "end")
    entry = LogEntry.objects.filter(kind="combat").first()
    assert entry.data["rounds"] == 2 and entry.data["xp_total"] == 10  # 5 XP a goblin
    page = _page(player, encounter)
    assert "The fight is over after 2 rounds." in page and "10 XP" in page
    assert "Start a fight" in _round_section(_page(referee, encounter))


@pytest.mark.parametrize(
    "name,args",
    [("fight", ()), ("initiative", ()), ("morale", ()), ("condition_new", ())],
)
def test_players_may_not_run_the_round(fight, name, args):
    encounter, _referee, player, *_ = fight
    assert player.get(_url(name, encounter, *args), **HTMX).status_code == 403
    assert player.post(_url(name, encounter, *args), {}, **HTMX).status_code == 403
    assert player.post(_url("advance", encounter, "turn"), {"at": "x"}, **HTMX).status_code == 403


@pytest.mark.parametrize(
    "name,values",
    [
        ("fight", {"surprise": "on", "party_die": "7"}),
        ("fight", {"surprise": "on", "foes_die": "abc"}),
        ("morale", {"side": "foes", "score": "13"}),
        ("morale", {"side": "foes", "score": "7", "dice": "1 2 3"}),
        ("morale", {"side": "elves", "score": "7"}),
        ("condition_new", {"kind": "paralysed", "unit": "rounds", "duration": ""}),
        ("condition_new", {"kind": "other", "unit": "until_removed"}),
        ("condition_new", {"kind": "nonsense", "unit": "rounds", "duration": "2"}),
    ],
)
def test_bad_input_gets_a_message_and_changes_nothing(fight, name, values):
    encounter, referee, _player, hero, _goblins = fight
    if name == "morale":
        _start(referee, encounter)
    seq = Encounter.objects.get(pk=encounter.pk).seq
    form = _open(referee, name, encounter)
    form.pop("surprise", None)
    answer = _send(referee, name, encounter, form | {"combatant": str(hero.pk)} | values)
    assert 'class="errors"' in answer
    assert Encounter.objects.get(pk=encounter.pk).seq == seq


def test_round_buttons_with_a_stale_or_unknown_state_change_nothing(fight):
    encounter, referee, *_ = fight
    answer = _send(referee, "advance", encounter, {"at": "garbage"}, "turn")
    assert "moved on" in answer
    assert referee.post(_url("advance", encounter, "sideways"), {}, **HTMX).status_code == 404
