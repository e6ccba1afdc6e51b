"""The bestiary in real browsers: on a laptop, the referee adds three hobgoblins from the
starter bestiary; a player's phone shows them at once, each with its own hit points."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_table import (
    act_on,
    combatant,
    create_encounter,
    fresh,
    join,
    open_panel,
    open_settings,
    settled,
    swap_panel,
)
from .test_zones import wait_until_live

pytestmark = pytest.mark.e2e

HP = re.compile(r"HP (\d+)/(\d+)")


def show_foes_hit_points(referee: Page) -> None:
    open_settings(referee)
    referee.get_by_label("show foes' hit points to players").check()
    referee.get_by_role("button", name="Save settings").click()
    wait_until_live(referee)
    expect(referee.locator("#id_settings-show_foe_hp")).to_be_checked()


def hit_points(page: Page, name: str) -> tuple[int, int]:
    hp = combatant(page, name).locator(".hp")
    expect(hp).to_have_text(HP)
    current, most = HP.search(hp.inner_text()).groups()
    return int(current), int(most)


def test_three_hobgoblins_from_the_starter_bestiary_reach_a_player_s_phone(referee, phone):
    join_link = create_encounter(referee, "Hobgoblin ford")
    show_foes_hit_points(referee)
    player: Page = phone(width=360, height=740)
    join(player, join_link, "Anna")

    panel = open_panel(referee, "Bestiary")
    expect(panel.get_by_text("Old-School Essentials SRD")).to_be_visible()
    panel.locator("#id_count").fill("3")
    panel.locator("#id_entry").select_option(value="s:hobgoblin")
    swap_panel(referee, panel.get_by_role("button", name="Add", exact=True))
    expect(fresh(panel, ".message")).to_have_text("3 monsters added: Hobgoblin 1–3.")

    names = [f"Hobgoblin {n}" for n in (1, 2, 3)]
    on_laptop = [hit_points(referee, name) for name in names]
    for name, (current, most) in zip(names, on_laptop, strict=True):
        assert current == most and 2 <= most <= 9  # 1+1 Hit Dice: a d8 and one
        # The player's phone shows each its own hit points, live, as the laptop does.
        expect(combatant(player, name).locator(".hp")).to_have_text(f"HP {current}/{most}")
    width = player.evaluate("document.documentElement.scrollWidth")
    assert width <= 360


def test_a_saved_monster_is_offered_after_a_reload_and_travels_in_a_bestiary_file(referee):
    create_encounter(referee, "The troll bridge")
    page_url = referee.url
    panel = open_panel(referee, "Bestiary")
    panel.locator("#id_entry").select_option(value="s:troll")
    swap_panel(referee, panel.get_by_role("button", name="Add", exact=True))
    settled(referee)
    swap_panel(referee, act_on(referee, "Troll").get_by_role("button", name="Save to bestiary"))
    expect(fresh(panel, ".message")).to_have_text("Saved Troll to the bestiary.")
    expect(panel.locator(".bestiary-entries .name")).to_have_text("Troll")
    assert referee.url == page_url  # a reload reloads the table, not the form's address
    referee.reload()
    panel = open_panel(referee, "Bestiary")
    options = panel.locator("#id_entry optgroup").first
    expect(options).to_have_attribute("label", "This campaign's bestiary")
    expect(options.locator("option")).to_have_text(["Troll · HD 6+3* · AC 4"])

    # The bestiary goes to a file and into another campaign's encounter.
    with referee.expect_download() as download:
        panel.get_by_role("link", name="Export the bestiary (JSON)").click()
    saved = download.value.path()
    referee.goto("/")
    create_encounter(referee, "Another campaign")
    panel = open_panel(referee, "Bestiary")
    expect(panel.locator(".bestiary-entries .name")).to_have_count(0)
    panel.locator('input[type="file"]').set_input_files(saved)
    swap_panel(referee, panel.get_by_role("button", name="Import into the bestiary"))
    expect(fresh(panel, ".message")).to_have_text("Imported: 1 new, 0 replaced.")
    expect(panel.locator(".bestiary-entries .name")).to_have_text("Troll")
