"""A change of rules system converts what it must (issue 31): armour class and attack values go
between the descending scale (OSE, BECMI) and the ascending one (Dolmenwood), whether the party
moves on into an encounter of another system or the settings change the system before the
first roll; the referee is told what changed, and the log says it in every viewer's language."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Encounter, EntryKind
from combat.systems import common as systems

from .conftest import character, monster
from .systems.dolmenwood.test_dolmenwood import _settings

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _page(client: Client, encounter: Encounter, language: str = "en") -> str:
    response = client.get(
        reverse("encounter", args=[encounter.slug]), headers={"accept-language": language}
    )
    assert response.status_code == 200
    return _text(response.content.decode())


def _move_on(referee: Client, encounter: Encounter, carried, system: str, **extra):
    data = {"name": "The bandits' road", "carried": [c.pk for c in carried], "system": system}
    return referee.post(reverse("party_next", args=[encounter.slug]), data | extra, follow=True)


@pytest.fixture
def plate(encounter: Encounter, player: Client) -> Combatant:
    """The plate-armoured fighter of the report: AC 2, THAC0 17, played by Anna."""
    return character(encounter, "Aldric", seat=player.seat, ac=2, thac0=17)


def test_the_registry_says_which_systems_count_armour_class_upwards():
    assert systems.scale_of("ose") == "descending"
    assert systems.scale_of("becmi") == "descending"
    assert systems.scale_of("dolmenwood") == "ascending"


def test_moving_on_into_dolmenwood_converts_and_back_into_ose_converts_again(
    encounter, referee, player, plate
):
    reply = _move_on(referee, encounter, [plate], "dolmenwood")
    encounter.refresh_from_db()
    road = encounter.moved_on_to
    assert road.system == "dolmenwood"
    aldric = road.combatants.get(name="Aldric")
    # Plate and shield is AC 17 upwards; THAC0 17 is an attack bonus of +2.
    assert (aldric.ac, aldric.attack_bonus, aldric.thac0) == (17, 2, 17)
    # The referee lands on the new encounter, told what changed.
    said = _text(reply.content.decode())
    assert "Dolmenwood counts armour class upwards" in said
    assert "Aldric: AC 2 → 17, THAC0 17 → attack bonus +2" in said
    assert "AC 17" in _page(referee, road)
    entry = road.log.get()
    assert entry.kind == EntryKind.CONVERT and not entry.secret
    assert entry.data["combatants"][0] | {} == {
        "name": "Aldric",
        "side": "party",
        "ac_before": 2,
        "ac_after": 17,
        "attack_before": 17,
        "attack_after": 2,
    }
    # The system can still change there: the log's account is no roll.
    assert not systems.has_rolled(road)
    # And on again, back into OSE: the values come back as they were.
    back = _move_on(referee, road, [aldric], "ose")
    road.refresh_from_db()
    keep = road.moved_on_to
    again = keep.combatants.get(name="Aldric")
    assert (again.ac, again.thac0, again.attack_bonus) == (2, 17, None)
    assert "Aldric: AC 17 → 2, attack bonus +2 → THAC0 17" in _text(back.content.decode())


def test_the_player_following_sees_the_converted_armour_class_and_the_log_says_why(
    encounter, referee, player, plate
):
    _move_on(referee, encounter, [plate], "dolmenwood")
    player.post(reverse("party_follow", args=[encounter.slug]))
    encounter.refresh_from_db()
    page = _page(player, encounter.moved_on_to)
    assert "AC 17" in page
    assert "armour class now counts upwards (19 − AC)" in page
    assert "Aldric: AC 2 → 17, THAC0 17 → attack bonus +2" in page


def test_moving_on_in_the_same_system_or_scale_converts_nothing(encounter, referee, plate):
    _move_on(referee, encounter, [plate], "becmi")
    encounter.refresh_from_db()
    road = encounter.moved_on_to
    assert road.system == "becmi"
    assert road.combatants.get().ac == 2
    assert not road.log.exists()


def test_the_settings_convert_every_combatant_and_back(encounter, referee, player, plate):
    bandit = monster(encounter, "Bandit", ac=7, hit_dice="1", thac0=19)
    reply = _settings(referee, encounter, system="dolmenwood")
    assert reply.status_code == 302
    plate.refresh_from_db()
    bandit.refresh_from_db()
    assert (plate.ac, plate.attack_bonus) == (17, 2)
    # A monster takes its bonus from its Hit Dice there: 19 − THAC0.
    assert (bandit.ac, bandit.attack_bonus, bandit.thac0) == (12, None, 19)
    referee_page = _page(referee, encounter)
    assert "Dolmenwood counts armour class upwards" in referee_page  # the message
    assert "Bandit: AC 7 → 12, THAC0 19 → attack bonus +0" in referee_page  # the log
    # Players see their side's values, never a foe's armour class.
    player_page = _page(player, encounter)
    assert "Aldric: AC 2 → 17" in player_page and "Bandit: AC" not in player_page
    # The bandits now need the roll they needed before against the fighter: 19 − 2 = 17.
    assert bandit.thac0 - 2 == plate.ac - systems.attack_value(bandit, systems.Scale.ASCENDING)
    # Still before the first roll: the settings may change it back.
    _settings(referee, encounter, system="ose")
    plate.refresh_from_db()
    bandit.refresh_from_db()
    assert (plate.ac, plate.thac0, plate.attack_bonus) == (2, 17, None)
    assert (bandit.ac, bandit.thac0) == (7, 19)
    assert encounter.log.filter(kind=EntryKind.CONVERT).count() == 2


def test_a_value_the_other_scale_cannot_hold_refuses_the_change(encounter, referee, plate):
    monster(encounter, "Iron golem", ac=-3, hit_dice="12")
    reply = _settings(referee, encounter, system="dolmenwood")
    said = _text(reply.content.decode())
    assert "Iron golem's armour class -3 would be 22 on the other scale" in said
    encounter.refresh_from_db()
    plate.refresh_from_db()
    assert encounter.system == "ose" and plate.ac == 2
    assert not encounter.log.exists()


def test_a_move_on_that_cannot_convert_says_why_and_makes_nothing(encounter, referee, plate):
    Combatant.objects.filter(pk=plate.pk).update(ac=-2)
    reply = _move_on(referee, encounter, [plate], "dolmenwood")
    assert "Aldric's armour class -2 would be 21 on the other scale" in _text(
        reply.content.decode()
    )
    encounter.refresh_from_db()
    assert encounter.moved_on_to is None
    assert Encounter.objects.count() == 1
