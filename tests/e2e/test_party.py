"""The party goes on, in real browsers: the referee's laptop moves on to the next encounter,
and a player's phone, in Czech, hears of it live and follows into its new seat."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_table import (
    ENCOUNTER_PAGE,
    act_on,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    free_roll,
    give,
    join,
    open_more,
    open_panel,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def test_a_phone_follows_the_party_into_the_next_encounter_with_its_hit_points(referee, phone):
    join_link = create_encounter(referee, "The goblin cave")
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    anna: Page = phone()
    join(anna, join_link, "Anna")
    give(referee, "Aldric", "Anna")
    anna.locator("#language-select").select_option("cs")
    expect(anna.locator("html")).to_have_attribute("lang", "cs")
    wait_until_live(anna)
    old_page = anna.url

    # The goblins wound Aldric: 5 of his 12 hit points.
    hp = swap_panel(referee, act_on(referee, "Aldric").get_by_role("link", name="HP ±"))
    hp.locator("#id_amount").fill("5")
    swap_panel(referee, hp.get_by_role("button", name="Save"))
    expect(combatant(anna, "Aldric").locator(".hp")).to_contain_text("7/12")

    # The referee moves on: Aldric is ticked, the goblins are not offered.
    open_more(referee)
    panel = open_panel(referee, "Next encounter with this party")
    expect(panel.get_by_label(re.compile(r"^Aldric \(7/12 hit points\)"))).to_be_checked()
    expect(panel.get_by_text("Goblin")).to_have_count(0)
    panel.locator("#id_name").fill("The ogre's bridge")
    settled(referee)
    panel.get_by_role("button", name="Go on to the next encounter").click()
    expect(referee.locator("header .title")).to_have_text("The ogre's bridge")
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    wait_until_live(referee)
    expect(combatant(referee, "Aldric").locator(".hp")).to_contain_text("7/12")
    expect(combatant(referee, "Aldric").locator(".seat")).to_have_text("Anna")
    expect(combatant(referee, "Goblin 1")).to_have_count(0)

    # Anna's phone hears of it live, in Czech, and one tap seats her there.
    notice = anna.locator("#party-moved")
    expect(notice).to_contain_text("Družina pokračovala do střetnutí „The ogre's bridge“.")
    settled(anna)
    notice.get_by_role("button", name="Pokračovat do „The ogre's bridge“").click()
    expect(anna.locator("header .title")).to_have_text("The ogre's bridge")
    assert anna.url != old_page
    wait_until_live(anna)
    aldric = combatant(anna, "Aldric")
    expect(aldric.locator(".hp")).to_contain_text("7/12")
    expect(aldric.locator("a[href*='/attack/']")).to_be_visible()  # hers to play
    expect(anna.locator("header .role")).to_have_text("Anna")

    # She is live at the new table: the referee's roll reaches her phone.
    free_roll(referee, "Ogre's morale", dice="2d6")
    expect(anna.locator("#log")).to_contain_text("Ogre's morale")
    assert anna.evaluate("document.documentElement.scrollWidth") <= 390
