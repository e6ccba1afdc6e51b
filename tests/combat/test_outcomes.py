"""Clear outcomes (issue 12): a chart says each total and its chance, undo and removal ask
first, and quick-add says what it added."""

from __future__ import annotations

import re
from html import unescape

from django.urls import reverse

from combat.models import Combatant, LogEntry

HX = {"HTTP_HX_REQUEST": "true"}


def _chart(client, encounter, expression: str) -> str:
    response = client.get(
        reverse("odds", args=[encounter.slug, "roll"]), {"expression": expression}
    )
    return response.content.decode()


def _texts(html: str, css_class: str) -> list[str]:
    return [
        unescape(t) for t in re.findall(rf'<text class="{css_class}"[^>]*>([^<]*)</text>', html)
    ]


def test_a_d6_chart_says_each_total_and_its_chance(player, encounter):
    html = _chart(player, encounter, "1d6")
    assert _texts(html, "total") == ["1", "2", "3", "4", "5", "6"]
    assert _texts(html, "chance") == ["16.7%"] * 6
    assert "rotate" not in html  # six bars leave room to write across


def test_a_chart_of_many_totals_turns_its_labels_and_keeps_them_all(player, encounter):
    html = _chart(player, encounter, "3d6")
    totals = _texts(html, "total")
    assert totals == [str(n) for n in range(3, 19)]
    chances = _texts(html, "chance")
    assert len(chances) == 16 and chances[0] == "0.5%" and chances[7] == "12.5%"
    assert html.count("rotate(-90") == 32


def test_a_chart_speaks_the_viewers_number_format(player, encounter):
    player.cookies["django_language"] = "cs"
    html = _chart(player, encounter, "1d6")
    assert _texts(html, "chance") == ["16,7 %"] * 6  # Czech puts a space before %


def test_a_grouped_chart_labels_each_bar_with_its_range(player, encounter):
    html = _chart(player, encounter, "10d10")  # 91 totals: bars of four
    totals = _texts(html, "total")
    assert totals[0] == "10–13" and totals[-1] == "98–100"
    # The ends are possible, only rarely: never written as 0 %.
    chances = _texts(html, "chance")
    assert chances[0] == "<0.1%" and "0.0%" not in chances


def _attack(player, fighter, goblin, encounter) -> LogEntry:
    player.post(
        reverse("attack", args=[encounter.slug]),
        {
            "actor": fighter.pk,
            "target": goblin.pk,
            "mode": "melee",
            "natural": 18,
            "damage": "1d4",
            "damage_dice": "2",
        },
    )
    return LogEntry.objects.get(encounter=encounter)


def test_undo_asks_before_it_reverses_an_entry(referee, player, fighter, goblin, encounter):
    entry = _attack(player, fighter, goblin, encounter)
    question = f"Undo #{entry.seq}? What it did is reversed for everyone."
    page = unescape(referee.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert f'hx-confirm="{question}"' in page
    whole_log = unescape(referee.get(reverse("log", args=[encounter.slug])).content.decode())
    # The log page's form is sent by htmx too (boosted), so its question is asked as well.
    assert re.search(rf'hx-boost="true" hx-confirm="{re.escape(question)}"', whole_log)


def test_undo_asks_in_the_referees_language(referee, player, fighter, goblin, encounter):
    entry = _attack(player, fighter, goblin, encounter)
    referee.cookies["django_language"] = "uk"
    page = unescape(referee.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert f"Скасувати запис #{entry.seq}? Усе, що він змінив, скасується для всіх." in page


def test_removing_a_combatant_or_a_seat_asks_first(referee, player, encounter, goblin):
    page = unescape(referee.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert 'hx-confirm="Remove Goblin?"' in page
    assert 'hx-confirm="Unseat Anna?"' in page


def test_quick_add_says_how_many_it_added_and_their_names(referee, encounter):
    values = {"count": 4, "name": "Goblin", "ac": 6, "hit_dice": "1", "side": "foes"}
    response = referee.post(reverse("quick_add", args=[encounter.slug]), values, **HX)
    assert "4 monsters added: Goblin 1–4." in response.content.decode()
    assert Combatant.objects.filter(encounter=encounter).count() == 4


def test_quick_add_says_it_in_the_referees_language(referee, encounter):
    referee.cookies["django_language"] = "cs"
    values = {"count": 1, "name": "Ogr", "ac": 5, "hit_dice": "4+1", "side": "foes"}
    response = referee.post(reverse("quick_add", args=[encounter.slug]), values, **HX)
    assert "Přidána 1 nestvůra: Ogr." in response.content.decode()


def test_a_confirmed_undo_from_the_whole_log_comes_back_to_the_whole_log(
    referee, player, fighter, goblin, encounter
):
    entry = _attack(player, fighter, goblin, encounter)
    log_url = reverse("log", args=[encounter.slug])
    response = referee.post(
        reverse("undo", args=[encounter.slug, entry.seq]),
        {"next": log_url},
        HTTP_HX_REQUEST="true",
        HTTP_HX_BOOSTED="true",
    )
    assert response.status_code == 302 and response["Location"] == log_url
    goblin.refresh_from_db()
    assert goblin.hp == goblin.hp_max
    assert LogEntry.objects.filter(undoes=entry).exists()


def test_quick_add_without_javascript_says_it_on_the_page_it_lands_on(referee, encounter):
    values = {"count": 2, "name": "Orc", "ac": 6, "hit_dice": "1", "side": "foes"}
    response = referee.post(reverse("quick_add", args=[encounter.slug]), values, follow=True)
    assert "2 monsters added: Orc 1–2." in response.content.decode()
