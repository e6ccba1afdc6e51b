"""Readable at a glance, nothing hidden (issue 31), in real browsers: a roll's odds never under
the panel's sticky Roll bar, the error alert never over the buttons one needs, a checkbox's
label on one line on a 360 px phone in every language, and the body diagram's figures large
enough to read and never over one another."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .systems.becmi.test_becmi import create_becmi_encounter
from .test_rounds import in_language
from .test_table import (
    a_goblin_fight,
    act_on,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    give,
    join,
    open_attack,
    swap_panel,
)
from .test_zones import turn_on_hit_locations

pytestmark = pytest.mark.e2e

LANGUAGES = ("en", "cs", "ru", "uk")


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, locator
    return found


def bottom(found: dict) -> float:
    return found["y"] + found["height"]


# --- Item 7: nothing hidden under sticky bars -------------------------------------------------


def test_a_rolls_odds_stand_above_the_panels_sticky_bar(new_context):
    """The report: the odds of a Ukrainian BECMI attack on a 1280×800 laptop lay under the
    panel's Roll/Close bar until one scrolled inside the panel."""
    referee = new_context(viewport={"width": 1280, "height": 800}).new_page()
    referee.goto("/")
    create_becmi_encounter(referee, "The ogre's bridge")
    turn_on_hit_locations(referee)  # the odds then carry the body, as tall as they get
    add_monsters(referee, 1, "Ogre", ac=5, hit_dice="4+1")
    add_character(referee, "Sir Kay", ac=2, hp=50, thac0=15, str_score=13)
    in_language(referee, "uk")
    panel = open_attack(referee, "Sir Kay", "Ogre")
    odds, bar = panel.locator("output.odds"), panel.locator("form > .buttons")
    expect(odds.locator(".zone-odds svg")).to_be_visible()
    for scrolled in ("0", "el.scrollHeight / 3", "el.scrollHeight"):
        panel.evaluate(f"el => {{ el.scrollTop = {scrolled}; }}")
        odds_box, bar_box, panel_box = box(odds), box(bar), box(panel)
        assert bottom(odds_box) <= bar_box["y"] + 0.5, (scrolled, odds_box, bar_box)
        assert odds_box["y"] >= panel_box["y"], (scrolled, odds_box, panel_box)
        assert bottom(bar_box) <= bottom(panel_box) + 0.5, (scrolled, bar_box, panel_box)
    # The whole of the odds is what a person sees there: the topmost element at their corners
    # and centre is part of them, not the bar or a field.
    for x, y in (("0.02", "0.05"), ("0.5", "0.5"), ("0.98", "0.95")):
        on_top = odds.evaluate(
            f"""o => {{ const r = o.getBoundingClientRect();
                const e = document.elementFromPoint(r.left + r.width * {x}, r.top + r.height * {y});
                return o.contains(e); }}"""
        )
        assert on_top, (x, y)


def test_the_error_alert_covers_no_button_on_a_phone(referee, phone):
    """The report: the alert of a failed tap covered the phone's bottom buttons until it was
    dismissed. The button just tapped, at the foot of the screen, moves up above it, and the
    page's last buttons can be scrolled out from under it."""
    anna = phone(390, 844)
    a_goblin_fight(referee, anna)
    anna.route("**/attack/**", lambda route: route.abort("connectionrefused"))
    attack = combatant(anna, "Aldric").locator("a[href*='/attack/']")
    attack.evaluate("a => a.scrollIntoView({ block: 'end' })")  # at the foot of the screen
    attack.click()
    alert = anna.get_by_role("alert")
    expect(alert).to_contain_text("Not sent")
    assert bottom(box(attack)) <= box(alert)["y"], (box(attack), box(alert))

    anna.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    alert_top = box(alert)["y"]
    covered = anna.evaluate(
        """top => [...document.querySelectorAll('main :is(a, button, input, select)')]
            .filter(e => !e.closest('#tap-error') && e.getClientRects().length)
            .map(e => [e.textContent.trim() || e.name, e.getBoundingClientRect()])
            .filter(([, r]) => r.bottom > top && r.top < innerHeight)
            .map(([name]) => name)""",
        alert_top,
    )
    assert covered == [], covered
    anna.get_by_role("button", name="Dismiss").click()
    expect(alert).to_be_hidden()


# --- Item 10: readable at a glance -----------------------------------------------------------


def test_a_checkbox_label_is_one_line_on_a_small_phone_in_every_language(referee, phone):
    """The report: "Proti / magii: / počítá / se / MDR:", one word a line, on a phone."""
    anna = phone(360, 740)
    a_goblin_fight(referee, anna)
    for language in LANGUAGES:
        in_language(anna, language)
        saves = act_on(anna, "Aldric").locator(".saves a")
        panel = swap_panel(anna, saves.first)
        label = panel.locator("label[for='id_magical']")
        expect(label).to_be_visible()
        height, line = label.evaluate(
            """l => [l.getBoundingClientRect().height,
                     parseFloat(getComputedStyle(l).lineHeight)]"""
        )
        assert height <= line * 1.2, (language, label.inner_text(), height, line)
        assert anna.evaluate("document.documentElement.scrollWidth") <= 360


FIGURES = """svg => {
    if (!svg.isConnected || !svg.getBoundingClientRect().height) { return null; }
    const scale = svg.getBoundingClientRect().height / svg.viewBox.baseVal.height;
    const texts = [...svg.querySelectorAll('text')];
    const boxes = texts.map(t => t.getBoundingClientRect());
    let overlaps = 0;
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach(b => {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
            overlaps += 1;
        }
    }));
    return { count: texts.length, overlaps,
             px: texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale) };
}"""


def figures(page: Page, selector: str) -> dict:
    """The figures of the diagram at ``selector`` once it is drawn and settled (a live update
    may be replacing it)."""
    handle = page.wait_for_function(
        f"""() => {{ const svg = document.querySelector({selector!r});
            const found = svg && ({FIGURES})(svg);
            return found && found.px.every(Number.isFinite) && found; }}"""
    )
    return handle.json_value()


def test_the_body_diagrams_figures_are_large_and_apart_on_a_small_phone(referee, phone):
    """The report: the diagram's figures about 6 CSS px, the legs' odds over each other."""
    join_link = create_encounter(referee, "The goblin cave")
    turn_on_hit_locations(referee)
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=40, thac0=17, str_score=13)
    anna = phone(360, 740)
    join(anna, join_link, "Anna")
    give(referee, "Aldric", "Anna")
    in_language(anna, "cs")  # "12 %": the longer figures
    own = combatant(anna, "Aldric").locator(".body-diagram svg")
    expect(own).to_be_visible()
    drawn = figures(anna, "li.combatant.own .body-diagram svg")
    assert drawn["count"] >= 4 and drawn["overlaps"] == 0, drawn
    assert min(drawn["px"]) >= 12, drawn
    panel = open_attack(anna, "Aldric", "Goblin 1")
    expect(panel.locator(".zone-odds svg")).to_be_visible()
    drawn = figures(anna, "#panel .zone-odds svg")
    assert drawn["count"] >= 3 and drawn["overlaps"] == 0, drawn
    assert min(drawn["px"]) >= 12, drawn
