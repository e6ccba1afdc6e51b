"""Forms offer only the possible (issue 31, item 9): no attack form, in any system, offers the
attacker as its own target, nor a wrestling grab its two wrestlers as helpers; the choices
follow a new attacker (drawn again by the server), and a form sent with them anyway is
refused with a clear message, changing nothing."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Encounter, Kind, LogEntry

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ATTACKS = [("ose", "attack"), ("becmi", "becmi_attack"), ("dolmenwood", "dw_attack")]


@pytest.fixture
def table(encounter, referee, player):
    hero = character(encounter, "Aldric", seat=player.seat)
    friend = character(encounter, "Brina")
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    orc = monster(encounter, "Orc", hp_max=9, hp=9)
    return encounter, referee, player, hero, friend, goblin, orc


def _set(encounter: Encounter, **values) -> None:
    Encounter.objects.filter(pk=encounter.pk).update(**values)
    encounter.refresh_from_db()


def _get(client: Client, name: str, encounter: Encounter, query: str = "") -> str:
    response = client.get(reverse(name, args=[encounter.slug]) + query, **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def _options(html: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S).group(0)
    return re.findall(r'<option value="(\d+)"', select)


def _boxes(html: str, name: str) -> list[str]:
    return re.findall(rf'<input type="checkbox" name="{name}" value="(\d+)"', html)


def _post(client: Client, name: str, encounter: Encounter, values: dict) -> str:
    response = client.post(reverse(name, args=[encounter.slug]), values, **HTMX)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _unchanged(*combatants: Combatant) -> bool:
    return not LogEntry.objects.exists() and all(
        Combatant.objects.get(pk=c.pk).hp == c.hp for c in combatants
    )


@pytest.mark.parametrize("hit_locations", [False, True])
@pytest.mark.parametrize(("system", "panel"), ATTACKS)
def test_no_attack_form_offers_the_attacker_as_its_own_target(table, system, panel, hit_locations):
    encounter, referee, player, hero, friend, goblin, orc = table
    _set(encounter, system=system, hit_locations=hit_locations)
    mine = _options(_get(player, panel, encounter, f"?actor={hero.pk}"), "target")
    assert str(hero.pk) not in mine and {str(goblin.pk), str(friend.pk)} <= set(mine)
    theirs = _options(_get(referee, panel, encounter, f"?actor={goblin.pk}"), "target")
    assert str(goblin.pk) not in theirs and str(orc.pk) in theirs and str(hero.pk) in theirs
    # Named as its own target by a button or a kept form: another is chosen instead.
    page = _get(referee, panel, encounter, f"?actor={orc.pk}&target={orc.pk}")
    values = form_values(page, reverse(panel, args=[encounter.slug]))
    assert values["target"] != str(orc.pk)
    assert Combatant.objects.get(pk=values["target"]).side != orc.side


@pytest.mark.parametrize("hit_locations", [False, True])
@pytest.mark.parametrize(("system", "panel"), ATTACKS)
def test_an_attack_on_oneself_sent_by_hand_is_refused_and_changes_nothing(
    table, system, panel, hit_locations
):
    encounter, _referee, player, hero, _friend, _goblin, _orc = table
    _set(encounter, system=system, hit_locations=hit_locations)
    values = form_values(_get(player, panel, encounter), reverse(panel, args=[encounter.slug]))
    values |= {"actor": str(hero.pk), "target": str(hero.pk), "natural": "20"}
    values |= {"damage": "1d6", "damage_dice": "6"}
    answer = _post(player, panel, encounter, values)
    assert "Aldric cannot attack itself: choose another target." in answer
    assert _unchanged(hero)


@pytest.mark.parametrize(("system", "panel"), ATTACKS)
def test_the_targets_follow_a_new_attacker(table, system, panel):
    """The referee's form was drawn for the orc, aiming at the goblin; the goblin is chosen
    to attack: the targets are drawn again without it, aiming at the other side."""
    encounter, referee, _player, hero, _friend, goblin, orc = table
    _set(encounter, system=system, hit_locations=system == "ose")
    page = _get(referee, panel, encounter, f"?actor={orc.pk}&target={goblin.pk}")
    url = reverse("choices", args=[encounter.slug, panel])
    assert f'hx-get="{url}"' in page  # the attacker's list asks when it changes
    values = form_values(page, reverse(panel, args=[encounter.slug])) | {"actor": goblin.pk}
    answer = referee.get(url, values, HTTP_HX_TRIGGER_NAME="actor", **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="id_target"' in html and 'hx-swap-oob="true"' in html
    offered = _options(html, "target")
    assert str(goblin.pk) not in offered and str(orc.pk) in offered
    chosen = re.search(r'<option value="(\d+)" selected>', html).group(1)
    assert Combatant.objects.get(pk=chosen).side != goblin.side
    assert answer["HX-Trigger-After-Settle"] == "choices-redrawn"  # the odds asked again
    if system == "ose":  # hit locations: the directions come for the new target's body
        assert 'id="id_direction"' in html
    # A target still possible stays, and the odds need not be asked again.
    values["target"] = str(hero.pk)
    calm = referee.get(url, values, HTTP_HX_TRIGGER_NAME="actor", **HTMX)
    assert re.search(r'<option value="(\d+)" selected>', calm.content.decode()).group(1) == (
        str(hero.pk)
    )
    assert "HX-Trigger-After-Settle" not in calm
    # Only a field that others follow asks.
    assert referee.get(url, values, HTTP_HX_TRIGGER_NAME="mode", **HTMX).status_code == 404


def test_the_group_attack_offers_no_attacker_itself_as_its_own_target(table):
    encounter, referee, _player, hero, _friend, goblin, orc = table
    page = _get(referee, "group_attack", encounter)
    for attacker in (hero, goblin, orc):
        own = _options(page, f"target_{attacker.pk}")
        assert str(attacker.pk) not in own and len(own) == 3
    values = form_values(page, reverse("group_attack", args=[encounter.slug]))
    values |= {"attackers": [str(goblin.pk)], "target": str(hero.pk)}
    answer = _post(referee, "group_attack", encounter, values | {f"target_{goblin.pk}": goblin.pk})
    assert "Goblin cannot attack itself." in answer
    answer = _post(referee, "group_attack", encounter, values | {"target": str(goblin.pk)})
    assert "Goblin cannot attack itself." in answer
    assert _unchanged(hero, goblin)


def test_becmi_wrestling_offers_neither_wrestler_as_a_helper(table):
    encounter, referee, _player, hero, friend, goblin, orc = table
    _set(encounter, system="becmi")
    page = _get(referee, "bx_wrestle", encounter, f"?actor={hero.pk}&target={goblin.pk}")
    assert str(hero.pk) not in _options(page, "target")
    for name in ("attacker_helpers", "defender_helpers"):
        helpers = _boxes(page, name)
        assert str(hero.pk) not in helpers and str(goblin.pk) not in helpers
        assert {str(friend.pk), str(orc.pk)} <= set(helpers)
    # Sent with a wrestler ticked as a helper anyway: refused, nothing happens.
    values = form_values(page, reverse("bx_wrestle", args=[encounter.slug]))
    for helpers in ({"attacker_helpers": [hero.pk]}, {"defender_helpers": [goblin.pk]}):
        assert "The two wrestlers cannot also help." in _post(
            referee, "bx_wrestle", encounter, values | helpers
        )
    assert _unchanged(hero, goblin)


def test_becmi_wrestling_helpers_follow_the_wrestlers(table):
    encounter, referee, _player, hero, friend, goblin, orc = table
    _set(encounter, system="becmi")
    page = _get(referee, "bx_wrestle", encounter, f"?actor={hero.pk}&target={goblin.pk}")
    values = form_values(page, reverse("bx_wrestle", args=[encounter.slug]))
    url = reverse("choices", args=[encounter.slug, "bx_wrestle"])
    # The orc, ticked to help, is now the one grabbed: it is no longer offered, nor ticked.
    values |= {"attacker_helpers": [str(orc.pk), str(friend.pk)], "target": str(orc.pk)}
    answer = referee.get(url, values, HTTP_HX_TRIGGER_NAME="target", **HTMX)
    html = answer.content.decode()
    assert 'id="id_attacker_helpers" hx-swap-oob="true"' in html
    assert str(orc.pk) not in _boxes(html, "attacker_helpers")
    assert str(goblin.pk) in _boxes(html, "attacker_helpers")
    assert re.search(rf'value="{friend.pk}"[^>]*checked', html)
    assert 'id="id_target"' not in html  # the list just chosen from is left alone
    assert answer["HX-Trigger-After-Settle"] == "choices-redrawn"


@pytest.mark.parametrize("panel", ["bx_strike", "bx_board", "bx_wrestle"])
def test_becmi_blows_and_grabs_offer_no_one_themselves(table, panel):
    encounter, _referee, player, hero, _friend, _goblin, _orc = table
    _set(encounter, system="becmi")
    page = _get(player, panel, encounter, f"?actor={hero.pk}")
    assert str(hero.pk) not in _options(page, "target")
    values = form_values(page, reverse(panel, args=[encounter.slug]))
    answer = _post(player, panel, encounter, values | {"target": str(hero.pk)})
    assert "themselves" in answer
    assert _unchanged(hero)


@pytest.mark.parametrize("panel", ["bx_ram", "bx_grapple"])
def test_a_ship_is_not_offered_itself_to_ram_or_grapple(table, panel):
    encounter, referee, *_ = table
    _set(encounter, system="becmi")
    ships = [
        monster(encounter, name, kind=Kind.SHIP, hp_max=60, hp=60, ac=8, side=side)
        for name, side in (("Sea Wolf", "party"), ("Black Gull", "foes"))
    ]
    page = _get(referee, panel, encounter, f"?actor={ships[0].pk}")
    offered = _options(page, "target")
    assert str(ships[0].pk) not in offered and str(ships[1].pk) in offered
    values = form_values(page, reverse(panel, args=[encounter.slug]))
    answer = _post(referee, panel, encounter, values | {"target": str(ships[0].pk)})
    assert "itself" in answer
    assert _unchanged(*ships)
