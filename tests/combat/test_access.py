"""Who may do what: every action refused to those who may not do it, and nothing changes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from combat.models import Combatant, LogEntry

from .conftest import form_values

pytestmark = pytest.mark.django_db


def _state(encounter):
    return (
        list(
            Combatant.objects.filter(encounter=encounter).values_list(
                "pk", "hp", "hidden", "name", "seat"
            )
        ),
        LogEntry.objects.filter(encounter=encounter).count(),
    )


REFEREE_ONLY = [
    (
        "combatant_new",
        False,
        {
            "name": "Ogre",
            "side": "foes",
            "kind": "monster",
            "ac": 5,
            "hp_max": 20,
            "hit_dice": "4+1",
            "str_score": 10,
            "dex_score": 10,
        },
    ),
    ("quick_add", False, {"count": 3, "name": "Orc", "ac": 6, "hit_dice": "1", "side": "foes"}),
    (
        "combatant_edit",
        True,
        {
            "name": "Renamed",
            "side": "foes",
            "kind": "monster",
            "ac": 5,
            "hp_max": 5,
            "hit_dice": "1",
            "str_score": 10,
            "dex_score": 10,
        },
    ),
    ("combatant_delete", True, {}),
    ("combatant_hide", True, {}),
    (
        "encounter_settings",
        False,
        {"settings-name": "X", "settings-attack_method": "thac0", "settings-show_foe_hp": "on"},
    ),
]


@pytest.mark.parametrize(("name", "takes_pk", "data"), REFEREE_ONLY)
def test_it_refuses_referee_actions_to_a_player(
    player, fighter, goblin, encounter, name, takes_pk, data
):
    args = [encounter.slug, goblin.pk] if takes_pk else [encounter.slug]
    before = _state(encounter)
    response = player.post(reverse(name, args=args), data)
    assert response.status_code == 403
    assert _state(encounter) == before


@pytest.mark.parametrize(("name", "takes_pk", "data"), REFEREE_ONLY)
def test_it_refuses_referee_actions_to_an_outsider(
    outsider, goblin, encounter, name, takes_pk, data
):
    args = [encounter.slug, goblin.pk] if takes_pk else [encounter.slug]
    before = _state(encounter)
    response = outsider.post(reverse(name, args=args), data)
    assert response.status_code == 404
    assert _state(encounter) == before


def test_it_refuses_to_unseat_for_a_player(player, other_player, encounter):
    response = player.post(reverse("seat_remove", args=[encounter.slug, other_player.seat.pk]))
    assert response.status_code == 403
    assert encounter.seats.count() == 2


def test_it_refuses_undo_to_a_player(referee, player, fighter, goblin, encounter):
    referee.post(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": goblin.pk, "action": "damage", "amount": 2},
    )
    entry = LogEntry.objects.get(encounter=encounter)
    response = player.post(reverse("undo", args=[encounter.slug, entry.seq]))
    assert response.status_code == 403
    goblin.refresh_from_db()
    assert goblin.hp == 3


def test_an_outsider_sees_nothing_of_the_encounter(outsider, encounter, goblin):
    for name in ("encounter", "log", "join_qr"):
        assert outsider.get(reverse(name, args=[encounter.slug])).status_code == 404


ROLLS = [
    (
        "attack",
        lambda me, foe: {
            "actor": me.pk,
            "target": foe.pk,
            "mode": "melee",
            "natural": 20,
            "damage": "1d6",
        },
    ),
    ("save", lambda me, foe: {"actor": me.pk, "category": "death", "natural": 1}),
    ("check", lambda me, foe: {"actor": me.pk, "ability": "str", "natural": 1}),
    ("hit_points", lambda me, foe: {"actor": me.pk, "action": "damage", "amount": 3}),
    ("rest", lambda me, foe: {"actor": me.pk, "days": 2, "interrupted": 0}),
]


@pytest.mark.parametrize(("name", "data"), ROLLS)
def test_it_refuses_a_player_acting_for_a_monster(player, fighter, goblin, encounter, name, data):
    before = _state(encounter)
    response = player.post(reverse(name, args=[encounter.slug]), data(goblin, fighter))
    assert response.status_code == 403
    assert _state(encounter) == before


@pytest.mark.parametrize(("name", "data"), ROLLS)
def test_it_refuses_a_player_acting_for_another_players_character(
    player, fighter, thief, goblin, encounter, name, data
):
    before = _state(encounter)
    response = player.post(reverse(name, args=[encounter.slug]), data(thief, goblin))
    assert response.status_code == 403
    assert _state(encounter) == before


@pytest.mark.parametrize(("name", "data"), ROLLS)
def test_it_refuses_every_roll_to_an_outsider(outsider, fighter, goblin, encounter, name, data):
    before = _state(encounter)
    response = outsider.post(reverse(name, args=[encounter.slug]), data(fighter, goblin))
    assert response.status_code == 404
    assert _state(encounter) == before


def test_a_player_cannot_target_a_hidden_combatant(player, fighter, lurker, encounter):
    response = player.post(
        reverse("attack", args=[encounter.slug]),
        {"actor": fighter.pk, "target": lurker.pk, "mode": "melee", "natural": 20, "damage": "1d6"},
    )
    assert response.status_code == 200
    assert not LogEntry.objects.filter(encounter=encounter).exists()
    lurker.refresh_from_db()
    assert lurker.hp == lurker.hp_max


def test_a_player_cannot_roll_in_secret(player, fighter, goblin, encounter):
    player.post(
        reverse("check", args=[encounter.slug]),
        {"actor": fighter.pk, "ability": "str", "natural": 5, "secret": "on"},
    )
    assert LogEntry.objects.get(encounter=encounter).secret is False


def test_a_seat_from_another_encounter_grants_nothing(player, db):
    from combat.models import Encounter

    elsewhere = Encounter.objects.create(name="Elsewhere")
    assert player.get(reverse("encounter", args=[elsewhere.slug])).status_code == 404


def test_the_referee_link_is_exchanged_for_a_clean_url(encounter, outsider):
    response = outsider.get(reverse("referee_link", args=[encounter.referee_key]))
    assert response.status_code == 302
    assert encounter.referee_key not in response["Location"]
    page = outsider.get(response["Location"])
    assert page.status_code == 200
    assert page["Referrer-Policy"] == "same-origin"


def test_a_wrong_referee_key_or_join_token_is_not_found(outsider, encounter):
    assert outsider.get(reverse("referee_link", args=["nope"])).status_code == 404
    assert outsider.get(reverse("join", args=["nope"])).status_code == 404


def test_a_referee_on_localhost_is_given_a_join_link_players_can_open(referee, encounter, settings):
    settings.FRAY_PLAYER_URLS = ["http://192.168.1.20:8000/"]
    settings.ALLOWED_HOSTS = ["localhost", "192.168.1.20"]
    page = referee.get(
        reverse("encounter", args=[encounter.slug]), HTTP_HOST="localhost:8000"
    ).content.decode()
    assert f"http://192.168.1.20:8000/join/{encounter.join_token}/" in page
    on_lan = referee.get(
        reverse("encounter", args=[encounter.slug]), HTTP_HOST="192.168.1.20:8000"
    ).content.decode()
    assert f"http://192.168.1.20:8000/join/{encounter.join_token}/" in on_lan


def test_hidden_facts_never_reach_a_player_page(
    referee, player, fighter, goblin, lurker, encounter
):
    referee.post(
        reverse("free_roll", args=[encounter.slug]),
        {"expression": "1d100", "label": "Wandering monster check", "secret": "on"},
    )
    referee.post(
        reverse("save", args=[encounter.slug]),
        {"actor": lurker.pk, "category": "spells", "natural": 5},
    )
    for name in ("encounter", "log"):
        html = player.get(reverse(name, args=[encounter.slug])).content.decode()
        assert "Lurking wight" not in html
        assert "Wandering monster check" not in html
        assert "5/5" not in html  # the goblin's hit points: players see a health word
        assert encounter.referee_key not in html
    referee_html = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Lurking wight" in referee_html and "Wandering monster check" in referee_html


def test_the_referee_may_show_foes_hit_points(referee, player, fighter, goblin, encounter):
    url = reverse("encounter_settings", args=[encounter.slug])
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    referee.post(url, form_values(page, url) | {"settings-show_foe_hp": "on"})
    assert "5/5" in player.get(reverse("encounter", args=[encounter.slug])).content.decode()


def test_refusals_are_explained_in_the_viewers_language(player, outsider, encounter, goblin):
    refused = player.post(reverse("combatant_delete", args=[encounter.slug, goblin.pk]))
    assert refused.status_code == 403
    assert "Only the referee may do that" in refused.content.decode()
    outsider.cookies["django_language"] = "cs"
    missing = outsider.get(reverse("encounter", args=[encounter.slug]))
    assert missing.status_code == 404
    assert "Tady pro vás nic není" in missing.content.decode()


def test_an_unseated_player_loses_the_page(referee, player, encounter):
    referee.post(reverse("seat_remove", args=[encounter.slug, player.seat.pk]))
    assert player.get(reverse("encounter", args=[encounter.slug])).status_code == 404


@pytest.mark.parametrize(
    "path",
    ["/e/%00abc/", "/e/a%00/attack/", "/join/%00/", "/r/%00x/", "/d/%00/", "/e/ž/", "/join/a%20b/"],
)
def test_a_link_with_a_character_no_link_holds_is_not_found(client, path):
    """Slugs, keys and tokens are URL-safe base64: anything else in their place is no link
    at all (a NUL byte reached PostgreSQL, which refuses it in text, as a server error)."""
    assert client.get(path).status_code == 404
