"""Issue 31 in real browsers: a change of rules system converts armour class and says so, and
less setup: the join block folds live, a character is given from the list of players in one
step, Add combatant keeps the party's side and kind, and a player claims a character."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .test_table import (
    ENCOUNTER_PAGE,
    MARK_STALE,
    add_character,
    combatant,
    create_encounter,
    fresh,
    join,
    open_more,
    open_panel,
    open_settings,
    settled,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def seat_of(referee: Page, player_name: str) -> Locator:
    """A seat's line in the referee's list of players."""
    name = referee.locator("strong", has_text=re.compile(rf"^{re.escape(player_name)}$"))
    return referee.locator("#seats li.seat-row").filter(has=name)


def give_from_the_seats(referee: Page, name: str, player_name: str) -> None:
    """The list of players: the seat's select, then Give."""
    seat = seat_of(referee, player_name)
    settled(referee)
    seat.locator("select[name=combatant]").select_option(label=name)
    panel = referee.locator("#panel")
    panel.evaluate(MARK_STALE)
    seat.get_by_role("button", name="Give").click()
    expect(fresh(panel, ".message")).to_have_text(f"{name} is now played by {player_name}.")
    expect(combatant(referee, name).locator(".seat")).to_have_text(player_name)


def test_the_party_moved_into_dolmenwood_shows_its_converted_armour_class(referee, phone):
    join_link = create_encounter(referee, "The bandits' road")
    add_character(referee, "Aldric", ac=2, hp=12, thac0=17, str_score=13)
    anna: Page = phone()
    join(anna, join_link, "Anna")
    give_from_the_seats(referee, "Aldric", "Anna")
    expect(combatant(anna, "Aldric").locator(".ac")).to_have_text("AC 2")

    # Next encounter, in Dolmenwood: plate and shield is AC 17 there, and the referee is told.
    open_more(referee)
    panel = open_panel(referee, "Next encounter with this party")
    panel.locator("#id_name").fill("Into the wood")
    panel.locator("#id_system").select_option("dolmenwood")
    settled(referee)
    panel.get_by_role("button", name="Go on to the next encounter").click()
    expect(referee.locator("header .title")).to_have_text("Into the wood")
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    expect(referee.locator(".messages")).to_contain_text(
        "Dolmenwood counts armour class upwards: converted as 19 − AC. "
        "Aldric: AC 2 → 17, THAC0 17 → attack bonus +2."
    )
    wait_until_live(referee)
    expect(combatant(referee, "Aldric").locator(".ac")).to_have_text("AC 17")
    expect(referee.locator("#log")).to_contain_text("Aldric: AC 2 → 17, THAC0 17 → attack bonus +2")

    # Anna follows, and her phone shows the converted AC, and why.
    settled(anna)
    anna.locator("#party-moved").get_by_role("button", name=re.compile("Into the wood")).click()
    expect(anna.locator("header .title")).to_have_text("Into the wood")
    wait_until_live(anna)
    expect(combatant(anna, "Aldric").locator(".ac")).to_have_text("AC 17")
    expect(anna.locator("#log")).to_contain_text("armour class now counts upwards")

    # Before the first roll the settings may put it back: AC 2 again, on every screen.
    open_settings(referee)
    referee.locator("#id_settings-system").select_option("ose")
    referee.get_by_role("button", name="Save settings").click()
    expect(referee.locator(".messages")).to_contain_text(
        "Aldric: AC 17 → 2, attack bonus +2 → THAC0 17."
    )
    expect(combatant(referee, "Aldric").locator(".ac")).to_have_text("AC 2")
    expect(combatant(anna, "Aldric").locator(".ac")).to_have_text("AC 2")
    expect(anna.locator("#log")).to_contain_text("armour class now counts downwards")


def test_less_setup_from_joining_to_claiming(referee, phone):
    join_link = create_encounter(referee, "The goblin cave")
    join_block = referee.locator("#referee-tools details.join")
    expect(join_block).to_have_attribute("open", "")

    # Anna takes a seat: the join block on the referee's open page folds by itself.
    anna: Page = phone()
    join(anna, join_link, "Anna")
    expect(referee.locator("#seats li.seat-row")).to_contain_text("Anna")
    expect(join_block).not_to_have_attribute("open", "")
    expect(join_block.locator(":scope > summary")).to_be_visible()  # one click away
    expect(referee.locator("#foes h2")).to_be_in_viewport()

    # Two characters in a row: the second form starts from the party and Character.
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    panel = referee.locator("#panel")
    expect(panel.locator("#id_side")).to_have_value("party")
    expect(panel.locator("#id_kind")).to_have_value("character")
    add_character(referee, "Brina", ac=7, hp=8, thac0=19, str_score=10)
    expect(panel.locator("#id_side")).to_have_value("party")

    # Aldric goes to Anna in one step from the list of players.
    give_from_the_seats(referee, "Aldric", "Anna")
    expect(combatant(anna, "Aldric").locator(".badge.yours")).to_be_visible()

    # The referee lets players claim; Boris, joining, claims Brina from his own phone.
    open_settings(referee)
    referee.get_by_label("players may claim a party member").check()
    referee.get_by_role("button", name="Save settings").click()
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    boris: Page = phone()
    join(boris, join_link, "Boris")
    claim = boris.get_by_role("button", name="Play Brina")
    expect(claim).to_be_visible()
    expect(boris.get_by_role("button", name="Play Aldric")).to_have_count(0)  # Anna's
    settled(boris)
    claim.click()
    expect(boris.locator("#panel .message")).to_have_text("Brina is yours to play now.")
    expect(combatant(boris, "Brina").locator(".badge.yours")).to_be_visible()
    expect(claim).to_have_count(0)
    expect(combatant(referee, "Brina").locator(".seat")).to_have_text("Boris")
    expect(seat_of(referee, "Boris").locator(".plays")).to_have_text("Brina")
