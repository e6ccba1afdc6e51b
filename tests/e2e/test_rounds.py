"""Three rounds of a fight in real browsers: a referee's laptop and two phones in other
languages, every screen following the round live."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .test_group import fireball_for_phones, roll_group, row
from .test_table import (
    MARK_STALE,
    act_on,
    add_character,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_panel,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def in_language(page: Page, language: str) -> None:
    page.locator("#language-select").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)
    wait_until_live(page)


def add_goblins(referee: Page, count: int, morale: int) -> None:
    panel = open_panel(referee, "Add several monsters")
    panel.locator("#id_count").fill(str(count))
    panel.locator("#id_name").fill("Goblin")
    panel.locator("#id_ac").fill("6")
    panel.locator("#id_hit_dice").fill("1-1")
    panel.locator("#id_morale").fill(str(morale))
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(combatant(referee, f"Goblin {count}")).to_be_visible()


def roll(page: Page, panel) -> None:
    """Roll in the open panel; its result replaces the form."""
    settled(page)
    panel.evaluate(MARK_STALE)
    panel.get_by_role("button", name="Roll").click()
    expect(fresh(panel, ".result")).to_be_visible()


def round_button(referee: Page, name: str) -> None:
    """A button of the round's section; the panel says what it did."""
    settled(referee)
    referee.locator("#round").get_by_role("button", name=name, exact=True).click()


def test_three_rounds_surprise_initiative_group_attack_fireball_morale_condition_summary(
    referee, phone
):
    join_link = create_encounter(referee, "The goblin cave")
    add_goblins(referee, 5, morale=7)
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    add_character(referee, "Brina", ac=7, hp=8, thac0=19, str_score=10)
    anna, boris = phone(), phone()
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Aldric", "Anna")
    give(referee, "Brina", "Boris")
    in_language(anna, "cs")
    in_language(boris, "uk")
    referee.on("dialog", lambda dialog: dialog.accept())

    # Surprise with dice rolled at the table: the foes are caught napping.
    panel = open_panel(referee, "Start a fight")
    expect(panel.locator(".odds")).to_contain_text("33")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("1")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")  # what comes next, at once
    expect(anna.locator("#round")).to_contain_text("Kolo 1")
    expect(boris.locator("#round")).to_contain_text("Раунд 1")

    # Initiative with a typed die: the party acts, and both phones say so in their language.
    panel.locator("#id_party_die").fill("4")
    panel.locator("#id_foes_die").fill("2")
    roll(referee, panel)
    expect(anna.locator("#round")).to_contain_text("Vaše strana jedná")
    expect(boris.locator("#round")).to_contain_text("Ваша сторона діє")
    # The foes are surprised: the dice decide nothing this round, and the log says so.
    expect(referee.locator("#log")).to_contain_text(
        "The foes are surprised: only the party acts this round."
    )

    # A sleep spell: Goblin 5 is asleep for two rounds, on every screen.
    condition = swap_panel(
        referee, act_on(referee, "Goblin 5").get_by_role("link", name="Condition")
    )
    condition.locator("#id_kind").select_option("asleep")
    condition.locator("#id_duration").fill("2")
    swap_panel(referee, condition.get_by_role("button", name="Add"))
    expect(combatant(anna, "Goblin 5").locator(".condition")).to_contain_text("spánek")
    expect(combatant(boris, "Goblin 5").locator(".condition")).to_contain_text("сон")

    # The first goblin falls: the referee is offered a morale check, and they hold.
    hp = swap_panel(referee, act_on(referee, "Goblin 1").get_by_role("link", name="HP ±"))
    hp.locator("#id_amount").fill("20")
    swap_panel(referee, hp.get_by_role("button", name="Save"))
    expect(referee.locator("#round")).to_contain_text("Morale check due for the foes")
    morale = swap_panel(referee, referee.locator("#round").get_by_role("link", name="Check morale"))
    expect(morale.locator(".odds")).to_contain_text("41.7")  # 2d6 above 7
    morale.locator("#id_dice").fill("2 3")
    roll(referee, morale)
    expect(referee.locator("#log")).to_contain_text("They hold.")
    expect(referee.locator("#round")).not_to_contain_text("Morale check due")

    # The surprised foes lose the first round: after the party, everyone has acted.
    round_button(referee, "Next side")
    expect(anna.locator("#round")).not_to_contain_text("Vaše strana jedná")
    expect(anna.locator("#round")).to_contain_text("V tomto kole už jednali všichni.")
    round_button(referee, "End the round")
    expect(boris.locator("#round")).to_contain_text("Раунд 2")
    # Round two: the foes win the initiative, then hand over to the party.
    panel = swap_panel(referee, referee.get_by_role("link", name="Roll initiative"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    panel.locator("#id_party_die").fill("1")
    panel.locator("#id_foes_die").fill("6")
    roll(referee, panel)
    expect(anna.locator("#round")).to_contain_text("Jednají nepřátelé.")
    # The foes' turn: three goblins attack Aldric at one tap, dice rolled at the table.
    panel = open_panel(referee, "Group attack")
    for name in ("Goblin 2", "Goblin 3", "Goblin 4"):
        panel.get_by_label(name, exact=True).check()
    panel.locator("#id_target").select_option(label="Aldric")
    expect(panel.locator(".group-odds .odds-line")).to_have_count(3)
    for name, natural, damage in (
        ("Goblin 2", 20, "1"),
        ("Goblin 3", 2, ""),
        ("Goblin 4", 19, "1"),
    ):
        row(panel, name).locator("input[name^='natural_']").fill(str(natural))
        row(panel, name).locator("input[name^='damage_dice_']").fill(damage)
    roll_group(referee, panel, 3)
    expect(anna.locator("#log .badge.group")).to_have_count(3)
    expect(combatant(anna, "Aldric").locator(".hp")).to_contain_text("10/12")
    # Their shaman's fireball: Anna and Boris roll their characters' saves on their phones.
    panel = fireball_for_phones(referee, ("Aldric", "Brina"), "3 3")
    roll_group(referee, panel, 1)
    for phone_page, name, natural in ((anna, "Aldric", "20"), (boris, "Brina", "2")):
        save = combatant(phone_page, name).locator("form.pending-save")
        save.locator("input[name='natural']").fill(natural)
        settled(phone_page)
        save.get_by_role("button").click()
        expect(save).to_have_count(0)
    expect(combatant(referee, "Aldric").locator(".hp")).to_contain_text("7/12")  # saved: 3
    expect(combatant(referee, "Brina").locator(".hp")).to_contain_text("2/8")  # failed: 6
    round_button(referee, "Next side")
    expect(anna.locator("#round")).to_contain_text("Vaše strana jedná")
    expect(boris.locator("#round")).to_contain_text("Ваша сторона діє")
    round_button(referee, "End the round")
    expect(anna.locator("#round")).to_contain_text("Kolo 3")
    # Asleep for two rounds: it ends with the second round's end, with a line in the log.
    expect(anna.locator("#log")).to_contain_text("Goblin 5: stav „spánek“ skončil.")
    expect(combatant(boris, "Goblin 5").locator(".condition")).to_have_count(0)

    # The end of the fight: the summary to check first, with the table's experience; the
    # referee gives the goblin a little more, says two share it, and shares it.
    panel = swap_panel(referee, referee.locator("#round").get_by_role("link", name="End the fight"))
    expect(fresh(panel, "h2")).to_have_text("End of the fight")
    expect(panel.locator(".summary")).to_contain_text("The fight is over after 3 rounds.")
    expect(panel.locator(".summary")).to_contain_text("Fell: foes — Goblin 1")
    expect(panel.locator(".xp-table")).to_contain_text("1-1 → 5")
    goblin_xp = panel.get_by_label("Goblin 1")
    expect(goblin_xp).to_have_value("5")
    expect(panel.locator("output.odds")).to_have_text("Total: 5 XP")
    goblin_xp.fill("9")
    panel.get_by_label("Shared by how many").fill("2")
    panel.get_by_label("Extra line").fill("a silver key")
    expect(panel.locator("output.odds")).to_have_text(
        "Total: 9 XP · 2 shares: 4 XP each, 1 left over."
    )
    expect(referee.locator("#round")).to_contain_text("Round 3")  # not over until shared
    settled(referee)
    panel.evaluate(MARK_STALE)
    panel.get_by_role("button", name="Share and end the fight").click()
    expect(fresh(panel, ".result")).to_contain_text("The fight is over after 3 rounds.")
    expect(referee.locator("#log")).to_contain_text("Experience for the slain: 9 XP")
    expect(referee.locator("#log")).to_contain_text("Goblin 1 (1-1) 9 (adjusted; the table")
    expect(anna.locator("#log")).to_contain_text("Boj skončil po 3 kolech.")
    expect(anna.locator("#log")).to_contain_text("Zkušenosti za zabité: 9")
    expect(anna.locator("#log")).to_contain_text("upraveno; podle tabulky 5")
    expect(anna.locator("#log")).to_contain_text("Podílů: 2, na každý 4, zbývá 1.")
    expect(anna.locator("#log")).to_contain_text("a silver key")
    expect(boris.locator("#log")).to_contain_text("Бій закінчено після 3 раундів.")
    expect(boris.locator("#log")).to_contain_text("Досвід за вбитих: 9")
    expect(boris.locator("#log")).to_contain_text("змінено; за таблицею 5")
    expect(boris.locator("#log")).to_contain_text("Часток: 2, по 4 ОД на частку, залишок 1.")
    expect(referee.locator("#round").get_by_role("link", name="Start a fight")).to_be_visible()
