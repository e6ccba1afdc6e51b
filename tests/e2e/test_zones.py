"""Hit locations in real browsers: a referee's laptop and two phones in other languages. A
player severs a reptile's wing with a typed d100 after reading the zone odds; every screen's
diagram follows live; the wing bleeds at the round's end; the referee's undo restores it.

Facts from the rules: a reptile attacked from the left is reached in its left wing 01–15,
belly, tail and left hind leg; a wing holds 30% of the creature's hit points, is not
cumulative, and when lost halves DEX and bleeds 1 hp a round."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_rounds import in_language, round_button
from .test_table import (
    add_character,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_panel,
    open_settings,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def turn_on_hit_locations(referee: Page) -> None:
    open_settings(referee)
    referee.get_by_label("Hit locations").check()
    referee.get_by_role("button", name="Save settings").click()
    wait_until_live(referee)
    expect(referee.locator("#id_settings-hit_locations")).to_be_checked()


def add_wyvern(referee: Page) -> None:
    panel = open_panel(referee, "Add combatant")
    panel.locator("#id_name").fill("Wyvern")
    # A foe and a monster, whatever the form kept from the last one added (issue 31).
    panel.locator("#id_side").select_option("foes")
    panel.locator("#id_kind").select_option("monster")
    panel.locator("#id_ac").fill("6")
    panel.locator("#id_hp_max").fill("30")
    panel.locator("#id_hit_dice").fill("4")
    panel.locator("#id_body").select_option("reptile")
    panel.locator("#id_wings").select_option("2")
    # The body chosen is pictured under its field, in the form (not instead of it).
    expect(panel.locator('form .body-preview path[data-zone="left_wing"]')).to_be_visible()
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("Saved Wyvern.")


def wing(page: Page):
    return combatant(page, "Wyvern").locator('.body-diagram path[data-zone="left_wing"]').first


def test_a_wing_severed_from_the_left_bleeds_and_comes_back_with_undo(referee, phone):
    join_link = create_encounter(referee, "The wyvern's nest")
    turn_on_hit_locations(referee)
    add_character(referee, "Bára", ac=4, hp=20, thac0=17, str_score=13)
    add_wyvern(referee)
    anna, boris = phone(), phone(360, 740)
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Bára", "Anna")
    in_language(anna, "cs")
    in_language(boris, "uk")
    referee.on("dialog", lambda dialog: dialog.accept())
    for screen in (referee, anna, boris):
        expect(wing(screen)).to_have_class(re.compile("unhurt"))

    # Anna aims at the wyvern from the left: the zone odds show before she rolls.
    panel = swap_panel(anna, combatant(anna, "Bára").locator("a[href*='/attack/']"))
    panel.locator("#id_target").select_option(label="Wyvern")
    wyvern_id = panel.locator("#id_target option:checked").get_attribute("value")
    # The directions the wyvern's body allows are in the form before Anna picks one.
    expect(panel.locator("#id_direction")).to_have_attribute("data-target", wyvern_id)
    expect(panel.locator(".htmx-request")).to_have_count(0)
    settled(anna)
    panel.locator("#id_direction").select_option("left")
    odds = panel.locator("output.odds")
    expect(odds.locator('li[data-zone="left_wing"]')).to_have_text("levé křídlo 15 %")
    expect(odds.locator('li[data-zone="belly"]')).to_be_visible()
    expect(odds.locator('li[data-zone="right_wing"]')).to_have_count(0)  # the far side

    # A typed d20, d100 and damage: 10 + 1 (STR) severs the 9-point wing.
    panel.locator("#id_natural").fill("17")
    panel.locator("#id_location").fill("5")
    panel.locator("#id_damage").fill("2d6")
    panel.locator("#id_damage_dice").fill("5 5")
    swap_panel(anna, panel.locator("button.primary"))
    expect(fresh(panel, ".result")).to_contain_text("zásah do levého křídla")
    expect(fresh(panel, ".result")).to_contain_text("levé křídlo: useknuto")

    # Every screen's diagram shows the wing gone, and the log says so in each language.
    for screen in (referee, anna, boris):
        expect(wing(screen)).not_to_have_class(re.compile("unhurt"))
    expect(referee.locator("#log")).to_contain_text("left wing: severed")
    expect(boris.locator("#log")).to_contain_text("ліве крило: відрубано")
    expect(combatant(referee, "Wyvern").locator(".hp")).to_contain_text("30/30")  # not cumulative

    # The round ends: the severed wing bleeds 1 hp.
    panel = open_panel(referee, "Start a fight")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    round_button(referee, "End the round")
    expect(referee.locator("#log")).to_contain_text("Wyvern: bleeds 1 hp")
    expect(combatant(referee, "Wyvern").locator(".hp")).to_contain_text("29/30")

    # The referee undoes the attack: the wing is whole again on every screen.
    attack = referee.locator("#log li.entry.attack").first
    settled(referee)
    attack.get_by_role("button", name="Undo").click()
    for screen in (referee, anna, boris):
        expect(wing(screen)).to_have_class(re.compile("unhurt"))
