"""The fight in rounds at the table: surprise, initiative, turns, the round's end,
conditions, morale, the fight's end, and undo, as the referee and the players see them."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat.access import Viewer
from combat.live.state import render_snapshot
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


def _listed(html: str, names: tuple[str, ...]) -> list[str]:
    """``names`` in the order the page lists them."""
    return sorted(names, key=lambda name: html.index(f'<strong class="name">{name}</strong>'))


def test_with_individual_initiative_the_rows_are_listed_in_the_order_they_act(fight):
    encounter, referee, player, hero, goblins = fight
    Encounter.objects.filter(pk=encounter.pk).update(initiative_mode="individual")
    names = ("Goblin 1", "Goblin 2", "Goblin 3")
    assert _listed(_page(referee, encounter), names) == list(names)  # the table's order
    _start(referee, encounter)
    dice = {f"die_{hero.pk}": 3, f"die_{goblins[0].pk}": 2, f"die_{goblins[1].pk}": 5}
    dice[f"die_{goblins[2].pk}"] = 4
    _initiative(referee, encounter, **dice)
    acting = ["Goblin 2", "Goblin 3", "Goblin 1"]
    assert _listed(_page(referee, encounter), names) == acting
    assert _listed(_page(player, encounter), names) == acting
    encounter.refresh_from_db()
    for viewer in (
        Viewer(encounter, is_referee=True, seat=None),
        Viewer(encounter, is_referee=False, seat=player.seat),
    ):
        assert _listed(render_snapshot(viewer, "en")[1], names) == acting  # live, the same
    # A player whose own character is hidden from the others sees a list of their own: the same.
    Combatant.objects.filter(pk=hero.pk).update(hidden=True)
    seat_view = Viewer(encounter, is_referee=False, seat=player.seat)
    assert _listed(render_snapshot(seat_view, "en")[1], names) == acting


def _end_panel(client: Client, encounter: Encounter, at: str | None = None) -> str:
    """The summary "End the fight" opens, as the round stands (or at ``at``)."""
    at = _at(client, encounter) if at is None else at
    response = client.get(_url("advance", encounter, "end") + f"?at={at}", **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def _summary(client: Client, encounter: Encounter, **changes: object) -> dict[str, str]:
    """What the summary's form sends, with ``changes`` typed in."""
    values = form_values(_end_panel(client, encounter), _url("advance", encounter, "end"))
    assert values["share"] == "1"
    return values | {key: str(value) for key, value in changes.items()}


def _share(client: Client, encounter: Encounter, values: dict[str, str]) -> str:
    return _send(client, "advance", encounter, values, "end")


def _totals(client: Client, encounter: Encounter, values: dict[str, str]) -> str:
    """The total as the panel shows it while the referee types."""
    response = client.get(_url("advance", encounter, "end"), values | {"part": "totals"}, **HTMX)
    assert response.status_code == 200
    return " ".join(re.sub(r"<[^>]+>", "", response.content.decode()).split())


def _ended(encounter: Encounter) -> list[LogEntry]:
    return list(LogEntry.objects.filter(encounter=encounter, kind="combat", data__event="end"))


def _xp(entry: LogEntry) -> list[tuple[str, int, int | None]]:
    return [(a["name"], a["xp"], a["table"]) for a in entry.data["awards"]]


def test_the_end_of_the_fight_sums_it_up_with_experience_for_the_slain(fight):
    encounter, referee, player, hero, goblins = fight
    _start(referee, encounter)
    Combatant.objects.filter(pk__in=[goblins[0].pk, goblins[1].pk]).update(hp=0)
    Combatant.objects.filter(pk=goblins[2].pk).update(fled=True)
    Combatant.objects.filter(pk=hero.pk).update(hp=-2)
    _advance(referee, encounter, "round")
    # "End the fight" shows the summary first: the fight goes on until it is shared.
    panel = _end_panel(referee, encounter)
    assert "The fight is over after 2 rounds." in panel and "Share and end the fight" in panel
    assert Encounter.objects.get(pk=encounter.pk).round == 2 and not _ended(encounter)
    _share(referee, encounter, _summary(referee, encounter))
    (entry,) = _ended(encounter)
    assert entry.data["rounds"] == 2 and entry.data["xp_total"] == 10  # 5 XP a goblin
    assert _xp(entry) == [("Goblin 1", 5, 5), ("Goblin 2", 5, 5)]
    page = " ".join(_page(player, encounter).split())
    assert "The fight is over after 2 rounds." in page and "10 XP" in page
    assert "Fell: party — Aldric; foes — Goblin 1, Goblin 2" in page
    assert "Fled: foes — Goblin 3" in page
    assert "adjusted" not in page
    assert "Start a fight" in _round_section(_page(referee, encounter))


def test_the_round_buttons_old_direct_end_shows_the_summary_and_ends_nothing(fight):
    encounter, referee, *_ = fight
    _start(referee, encounter)
    answer = _advance(referee, encounter, "end")  # a bare POST, as the round's button once was
    assert "Share and end the fight" in answer
    assert Encounter.objects.get(pk=encounter.pk).round == 1 and not _ended(encounter)
    assert "moved on" in _advance(referee, encounter, "end", at="0:0:0:0")
    assert "moved on" in _end_panel(referee, encounter, at="7:0:0:1")


def test_the_summary_shows_each_slain_foes_table_experience_with_the_special_bonus(fight):
    encounter, referee, *_ = fight
    ogre = monster(encounter, "Ogre shaman", hit_dice="4*", hp=0)
    wight = monster(encounter, "Wight", hit_dice="3**", hp=0)
    odd = monster(encounter, "Something odd", hit_dice="as a dragon", hp=0)
    _start(referee, encounter)
    panel = _end_panel(referee, encounter)
    assert "4* → 75 + 50" in panel and "3** → 35 + 30" in panel
    assert "not in the table: enter the XP" in panel
    values = _summary(referee, encounter)
    assert values[f"xp_{ogre.pk}"] == "125" and values[f"xp_{wight.pk}"] == "65"
    assert values[f"xp_{odd.pk}"] == ""  # the referee gives it
    assert "Correct or fill in the numbers above" in _totals(referee, encounter, values)
    answer = _share(referee, encounter, values)
    assert 'class="errors"' in answer and not _ended(encounter)
    values[f"xp_{odd.pk}"] = "0"
    assert "Total: 190 XP" in _totals(referee, encounter, values)
    _share(referee, encounter, values)
    (entry,) = _ended(encounter)
    assert entry.data["xp_total"] == 190
    assert entry.data["awards"][0] == {
        "name": "Ogre shaman",
        "hd": "4*",
        "hidden": False,
        "xp": 125,
        "table": 125,
        "base": 75,
        "bonus": 50,
    }
    assert _xp(entry)[2] == ("Something odd", 0, None)


def test_the_referees_adjustment_is_what_is_logged_and_the_totals_add_up(fight):
    encounter, referee, player, _hero, goblins = fight
    ogre = monster(encounter, "Ogre", hit_dice="4+1", hp=0)
    odd = monster(encounter, "Odd thing", hit_dice="", hp=0)
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter)
    values |= {f"xp_{ogre.pk}": "100", f"xp_{odd.pk}": "40", "extra": "treasure: 300 gp"}
    assert "Total: 145 XP" in _totals(referee, encounter, values)
    result = " ".join(_share(referee, encounter, values).split())
    assert "Experience for the slain: 145 XP" in result
    (entry,) = _ended(encounter)
    assert _xp(entry) == [("Goblin 1", 5, 5), ("Ogre", 100, 125), ("Odd thing", 40, None)]
    assert entry.data["xp_total"] == sum(xp for _name, xp, _table in _xp(entry)) == 145
    assert entry.data["extra"] == "treasure: 300 gp"
    page = " ".join(_page(player, encounter).split())
    assert "Ogre (4+1) 100 (adjusted; the table gives 125)" in page
    assert "Odd thing 40 (set by the referee)" in page
    assert "treasure: 300 gp" in page and "145 XP" in page


def test_the_experience_is_divided_among_those_who_share_it(fight):
    encounter, referee, player, _hero, goblins = fight
    monster(encounter, "Ogre", hit_dice="4*", hp=0)
    Combatant.objects.filter(pk__in=[g.pk for g in goblins]).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter, shares=4)  # 3 × 5 + 125 = 140
    assert "Total: 140 XP · 4 shares: 35 XP each, 0 left over." in _totals(
        referee, encounter, values
    )
    values[f"xp_{goblins[0].pk}"] = "7"  # 142: 35 each, 2 left over
    assert "4 shares: 35 XP each, 2 left over." in _totals(referee, encounter, values)
    _share(referee, encounter, values)
    (entry,) = _ended(encounter)
    data = entry.data
    assert (data["xp_total"], data["shares"], data["per_share"], data["remainder"]) == (
        142,
        4,
        35,
        2,
    )
    assert "4 shares: 35 XP each, 2 left over." in _page(player, encounter)


@pytest.mark.parametrize(
    "changes",
    [
        {"xp": "-1"},
        {"xp": "1000001"},
        {"xp": "lots"},
        {"xp": ""},
        {"extra": "x" * 201},
        {"shares": "0"},
        {"shares": "101"},
        {"shares": "four"},
    ],
)
def test_bad_summary_input_gets_a_message_and_changes_nothing(fight, changes):
    encounter, referee, _player, _hero, goblins = fight
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter)
    if "xp" in changes:
        values[f"xp_{goblins[0].pk}"] = changes.pop("xp")
    seq = Encounter.objects.get(pk=encounter.pk).seq
    answer = _share(referee, encounter, values | changes)
    assert 'class="errors"' in answer and "Share and end the fight" in answer
    assert Encounter.objects.get(pk=encounter.pk).seq == seq
    assert Encounter.objects.get(pk=encounter.pk).round == 1 and not _ended(encounter)
    assert "Correct or fill in the numbers above" in _totals(referee, encounter, values | changes)


def test_a_summary_left_open_while_the_round_moved_on_refuses(fight):
    encounter, referee, *_ = fight
    _start(referee, encounter)
    values = _summary(referee, encounter)
    _advance(referee, encounter, "round")  # meanwhile the round ends
    assert "moved on" in _share(referee, encounter, values)
    assert Encounter.objects.get(pk=encounter.pk).round == 2 and not _ended(encounter)
    # Another referee shares the end; the first one's panel, still open, changes nothing.
    stale = _summary(referee, encounter)
    _share(referee, encounter, _summary(referee, encounter))
    assert "moved on" in _share(referee, encounter, stale)
    assert len(_ended(encounter)) == 1


def test_a_foe_slain_after_the_summary_opened_is_added_before_it_is_shared(fight):
    encounter, referee, _player, _hero, goblins = fight
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter, extra="a silver key")
    values[f"xp_{goblins[0].pk}"] = "9"
    Combatant.objects.filter(pk=goblins[1].pk).update(hp=0)  # the round's marker stays
    answer = _share(referee, encounter, values)
    assert "Who was slain has changed since this summary was opened" in answer
    assert not _ended(encounter)
    again = form_values(answer, _url("advance", encounter, "end"))
    assert again[f"xp_{goblins[0].pk}"] == "9" and again[f"xp_{goblins[1].pk}"] == "5"
    assert again["extra"] == "a silver key"
    _share(referee, encounter, again)
    (entry,) = _ended(encounter)
    assert entry.data["xp_total"] == 14


def test_a_summary_sent_twice_ends_the_fight_once(fight):
    encounter, referee, _player, _hero, goblins = fight
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter)
    first = _share(referee, encounter, values)
    again = _share(referee, encounter, values)
    assert "The fight is over after 1 round." in first
    assert "The fight is over after 1 round." in again and "moved on" not in again
    assert len(_ended(encounter)) == 1


def test_players_may_not_end_the_fight(fight):
    encounter, referee, player, _hero, goblins = fight
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    values = _summary(referee, encounter)
    url = _url("advance", encounter, "end")
    assert player.get(url + f"?at={values['at']}", **HTMX).status_code == 403
    assert player.get(url, values | {"part": "totals"}, **HTMX).status_code == 403
    assert player.post(url, values, **HTMX).status_code == 403
    assert Encounter.objects.get(pk=encounter.pk).round == 1 and not _ended(encounter)


def test_undoing_the_shared_end_brings_the_fight_back(fight):
    encounter, referee, _player, _hero, goblins = fight
    Combatant.objects.filter(pk=goblins[0].pk).update(hp=0)
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    _advance(referee, encounter, "turn")
    before = Encounter.objects.get(pk=encounter.pk).turn
    _share(referee, encounter, _summary(referee, encounter, **{f"xp_{goblins[0].pk}": 50}))
    (entry,) = _ended(encounter)
    _send(referee, "undo", encounter, {}, entry.seq)
    encounter.refresh_from_db()
    assert encounter.round == 1 and encounter.turn == before
    assert "End the fight" in _round_section(_page(referee, encounter))


def test_a_hidden_slain_foe_is_a_hidden_foe_on_a_players_page(fight, lurker):
    encounter, referee, player, _hero, goblins = fight
    Combatant.objects.filter(pk__in=[goblins[0].pk, lurker.pk]).update(hp=0)
    Combatant.objects.filter(pk=goblins[1].pk).update(fled=True, hidden=True)
    _start(referee, encounter)
    assert "Lurking wight" in _end_panel(referee, encounter)  # the referee's own
    _share(referee, encounter, _summary(referee, encounter, shares=2))
    page = " ".join(_page(player, encounter).split())
    assert "Lurking wight" not in page and "3*" not in page and "Goblin 2" not in page
    assert "Fell: foes — Goblin 1, a hidden foe" in page
    assert "Fled: foes — a hidden foe" in page
    # The total is the whole award: the hidden foe's part shows, without its name.
    assert "Experience for the slain: 55 XP" in page  # 5 + 3* (35 + 15)
    assert "Goblin 1 (1-1) 5, a hidden foe 50" in page
    assert "2 shares: 27 XP each, 1 left over." in page
    assert "Lurking wight (3*) 50" in " ".join(_page(referee, encounter).split())


@pytest.mark.django_db(transaction=True)
async def test_a_hidden_slain_foes_name_never_reaches_a_players_socket():
    from asgiref.sync import sync_to_async

    from .test_fanout import _open

    def table():
        encounter = Encounter.objects.create(name="Crypt")
        referee = Client()
        referee.get(reverse("referee_link", args=[encounter.referee_key]))
        player = Client()
        player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
        character(encounter, "Aldric", seat=encounter.seats.get())
        monster(encounter, "Goblin", hp=0)
        monster(encounter, "Lurking wight", hidden=True, hit_dice="3*", hp=0)
        _start(referee, encounter)
        encounter.refresh_from_db()
        return encounter, referee, player, _summary(referee, encounter)

    encounter, referee, player, values = await sync_to_async(table)()
    english = await _open(player, encounter.slug, seq=encounter.seq)
    czech = await _open(player, encounter.slug, "cs", seq=encounter.seq)
    await sync_to_async(_share)(referee, encounter, values)
    seen = {"en": "", "cs": ""}
    for language, socket in (("en", english), ("cs", czech)):
        while "entry combat" not in seen[language]:
            seen[language] += await socket.receive_from(timeout=5)
        await socket.disconnect()
    assert "a hidden foe" in seen["en"] and "55 XP" in seen["en"]
    assert "skrytý nepřítel" in seen["cs"]
    for message in seen.values():
        assert "Lurking wight" not in message and "wight" not in message.lower()
    # A fresh snapshot (a reconnect) says no more.
    snapshot = await _open(player, encounter.slug)
    assert "Lurking wight" not in await snapshot.receive_from(timeout=5)
    await snapshot.disconnect()


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


def test_the_referee_is_offered_undo_on_the_rounds_entries(fight):
    encounter, referee, player, *_ = fight
    _start(referee, encounter)
    _initiative(referee, encounter, party_die=5, foes_die=2)
    rolled = LogEntry.objects.filter(kind="initiative").get()
    page = _page(referee, encounter)
    assert reverse("undo", args=[encounter.slug, rolled.seq]) in page
    assert "/undo/" not in _page(player, encounter)
    _send(referee, "undo", encounter, {}, rolled.seq)
    encounter.refresh_from_db()
    assert not encounter.turn["rolled"]
    assert "Waiting for initiative." in _round_section(_page(player, encounter))
