"""Clear outcomes in a browser (issue 12): quick-add says what it added, a miss says what it
needed, the chart labels every total, undo asks first, and a Czech phone reads the same
fight with no grammatical case to get wrong."""

from __future__ import annotations

import pytest
from playwright.sync_api import Dialog, expect

from .test_table import (
    add_character,
    combatant,
    create_encounter,
    fresh,
    join,
    open_attack,
    open_panel,
    roll_attack,
    settled,
    swap_panel,
)

pytestmark = pytest.mark.e2e


def test_a_referee_sees_what_each_action_did_and_is_asked_before_an_undo(referee, phone):
    join_link = create_encounter(referee, "The goblin cave")
    panel = open_panel(referee, "Add several monsters")
    panel.locator("#id_count").fill("2")
    panel.locator("#id_name").fill("Goblin")
    panel.locator("#id_ac").fill("6")
    panel.locator("#id_hit_dice").fill("1-1")
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("2 monsters added: Goblin 1–2.")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    bara = phone()
    join(bara, join_link, "Bára")
    bara.locator("#language-select").select_option("cs")
    expect(bara.locator("html")).to_have_attribute("lang", "cs")

    # THAC0 19 against AC 4 needs 15: a 5 misses and says so, an 18 hits AC 1 and better.
    open_attack(referee, "Goblin 1", "Aldric")
    missed = roll_attack(referee, natural=5, damage="1d6", damage_dice="3")
    expect(missed).to_contain_text("Miss: needed 15, rolled 5.")
    expect(missed).not_to_contain_text("hits AC")
    open_attack(referee, "Goblin 1", "Aldric")
    hit = roll_attack(referee, natural=18, damage="1d6", damage_dice="3")
    expect(hit).to_contain_text("Hit! · hits AC 1")
    expect(combatant(referee, "Aldric").locator(".hp")).to_contain_text("9/12")

    # The Czech phone: who attacks whom with an arrow, the miss with its target number.
    expect(bara.locator("#log .entry.attack").first).to_contain_text("Útok: Goblin 1 → Aldric")
    expect(bara.locator("#log")).to_contain_text("Vedle: potřeba 15, padlo 5.")

    # Undo asks first: declined, nothing changes; accepted, the hit points come back.
    questions: list[str] = []

    def answer(accept: bool):
        def on_dialog(dialog: Dialog) -> None:
            questions.append(dialog.message)
            if accept:
                dialog.accept()
            else:
                dialog.dismiss()

        return on_dialog

    settled(referee)
    the_hit = referee.locator("#log li.entry.attack").filter(has_text="Hit!")
    referee.once("dialog", answer(False))
    the_hit.get_by_role("button", name="Undo").click()
    expect(referee.locator("#log li.entry.undone")).to_have_count(0)
    referee.once("dialog", answer(True))
    the_hit.get_by_role("button", name="Undo").click()
    expect(referee.locator("#log li.entry.undone")).to_have_count(1)
    expect(combatant(referee, "Aldric").locator(".hp")).to_contain_text("12/12")
    assert questions[0] == questions[1] and questions[0].endswith(
        "? What it did is reversed for everyone."
    )

    # The free roll's chart: a d6 is six bars, each saying its total and its chance.
    panel = open_panel(referee, "Free roll")
    panel.locator("#id_expression").fill("1d6")
    chart = panel.locator("output.odds svg.chart")
    expect(chart.locator("text.total")).to_have_text(["1", "2", "3", "4", "5", "6"])
    expect(chart.locator("text.chance")).to_have_text(["16.7%"] * 6)
