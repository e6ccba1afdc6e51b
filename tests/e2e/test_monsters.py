"""Monster entries in a real browser: a referee on a phone adds hobgoblins with their attack
typed as the stat block writes it, taps a hobgoblin's attack, and rolls it in one more tap."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .test_table import act_on, add_character, create_encounter, fresh, open_panel, swap_panel

pytestmark = pytest.mark.e2e


def test_a_referee_on_a_phone_attacks_with_a_hobgoblin_s_weapon(phone):
    referee: Page = phone(width=360, height=740)
    referee.goto("/")
    create_encounter(referee, "The ford")
    add_character(referee, "Bára", ac=5, hp=30, thac0=17, str_score=13)
    panel = open_panel(referee, "Add several monsters")
    panel.locator("#id_count").fill("3")
    panel.locator("#id_name").fill("Hobgoblin")
    panel.locator("#id_ac").fill("6")
    panel.locator("#id_hit_dice").fill("1+1")
    panel.locator("#id_attacks").fill("weapon 1d8")
    panel.locator("#id_movement").fill("90' (30')")
    panel.locator("#id_special_notes").fill("Their chief waits upstream")
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    hobgoblin = act_on(referee, "Hobgoblin 2")  # the console shows a selected row's actions
    expect(hobgoblin.locator(".movement")).to_contain_text("90' (30')")
    expect(hobgoblin.locator(".special")).to_have_text("Their chief waits upstream")

    # One tap on the attack: the form has its damage in; one more rolls it.
    panel = swap_panel(referee, hobgoblin.get_by_role("link", name="weapon", exact=True))
    expect(panel.locator("#id_actor option:checked")).to_have_text("Hobgoblin 2")
    expect(panel.locator("#id_damage")).to_have_value("1d8")
    expect(panel.get_by_text("Damage (weapon)")).to_be_visible()
    panel.locator("#id_target").select_option(label="Bára")
    swap_panel(referee, panel.locator("button.primary"))
    result = fresh(panel, ".result")
    expect(result.locator(".entry.attack .what")).to_contain_text(
        "Hobgoblin 2 attacks Bára (weapon, melee)"
    )
    # The row of a monster with its attack stays within a 360 px screen.
    width = referee.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
