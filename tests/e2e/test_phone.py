"""The player's phone (issue 12): the own character first and marked, its saves by name in big
targets, the turn state on top, a header on one line, and nothing the player asked for (a form,
its result, its error) ever hidden under the sticky header, on 360 and 390 px wide screens."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .test_rounds import in_language, roll, round_button
from .test_table import (
    SAVE_KEYS,
    act_on,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_attack,
    open_panel,
    roll_attack,
    swap_panel,
)

pytestmark = pytest.mark.e2e

SIZES = [pytest.param(360, 740, id="360x740"), pytest.param(390, 844, id="390x844")]
# A long name, as referees give them: the header cuts it, and keeps one line.
ENCOUNTER = "The goblin cave under the old mill by the river"
# The glossary's names of the five saves (Czech OSE's, the Russian and Ukrainian references').
SAVE_NAMES = {
    "en": [
        "Death ray or poison",
        "Magic wands",
        "Paralysis or petrification",
        "Breath attacks",
        "Spells, rods or staves",
    ],
    "cs": [
        "Smrt nebo jed",
        "Hůlky",
        "Paralýza nebo zkamenění",
        "Dechové útoky",
        "Kouzla, žezla nebo hole",
    ],
    "ru": [
        "Смерть или яд",
        "Волшебные палочки",
        "Паралич или окаменение",
        "Оружие дыхания",
        "Заклинания, жезлы и посохи",
    ],
    "uk": [
        "Смерть або отрута",
        "Чарівні палички",
        "Параліч або скам’яніння",
        "Подих дракона",
        "Закляття, жезли й посохи",
    ],
}
# What the buttons say on a phone: one word each (the glossary's short forms), so that five fit
# a thumb's width without wrapping; the full name is each button's title.
SAVE_WORDS = {
    "en": ["Death", "Wands", "Paralysis", "Breath", "Spells"],
    "cs": ["Smrt", "Hůlky", "Paralýza", "Dech", "Kouzla"],
    "ru": ["Смерть", "Палочки", "Паралич", "Дыхание", "Заклинания"],
    "uk": ["Смерть", "Палички", "Параліч", "Подих", "Закляття"],
}
ONE_LINE = """b => {
  const text = document.createRange();
  text.selectNodeContents(b);
  const lines = [...text.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top));
  return new Set(lines).size === 1;
}"""
LIVE = {"cs": "živě", "ru": "онлайн", "uk": "онлайн"}  # the connection's status, short
YOURS = {"en": "your character", "cs": "vaše postava", "ru": "ваш персонаж", "uk": "ваш персонаж"}
YOUR_SIDE_ACTS = {"en": "Your side acts", "cs": "Vaše strana jedná"}

# What a person sees of an element: all of it on the screen, none of it under the header.
CLEAR_OF_HEADER = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  return box.height > 0 && box.top >= header.bottom - 0.5 && box.bottom <= window.innerHeight + 0.5;
}"""
WHERE = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  return {header: header.bottom, top: box.top, bottom: box.bottom, screen: window.innerHeight};
}"""


def clear_of_header(page: Page, what: Locator) -> None:
    """``what`` is on the screen, whole, below the sticky header (as soon as the page has put
    it there: the panel scrolls into view as its swap settles)."""
    expect(what).to_be_visible()
    handle = what.element_handle()
    try:
        page.wait_for_function(CLEAR_OF_HEADER, arg=handle)
    except PlaywrightTimeoutError:
        pytest.fail(f"not clear of the header: {handle.evaluate(WHERE)}")


def a_table_on(referee: Page, anna: Page) -> None:
    """Brina (no one's) and Aldric (Anna's) in the party, six goblins: a page that scrolls."""
    join_link = create_encounter(referee, ENCOUNTER)
    add_monsters(referee, 6, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Brina", ac=7, hp=8, thac0=19, str_score=10)
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    join(anna, join_link, "Anna")
    give(referee, "Aldric", "Anna")
    expect(combatant(anna, "Aldric").locator("a[href*='/attack/']")).to_be_visible()


def assert_big_and_apart(buttons: Locator) -> None:
    """Each button 48 px tall or more, 8 px or more from its neighbours either way."""
    boxes = [button.bounding_box() for button in buttons.all()]
    assert boxes and min(box["height"] for box in boxes) >= 48, boxes
    for a, b in pairwise(sorted(boxes, key=lambda box: (box["y"], box["x"]))):
        if abs(a["y"] - b["y"]) < 1:  # side by side
            assert b["x"] - (a["x"] + a["width"]) >= 8, (a, b)
        else:  # one row below the other
            assert b["y"] - (a["y"] + a["height"]) >= 8, (a, b)


def assert_header_on_one_line(page: Page) -> None:
    """The header is one line high, its name cut rather than wrapped, and nothing on the page
    is wider than the screen."""
    header = page.locator("header.top")
    box = header.bounding_box()
    assert box["height"] <= 60, box  # 3.5rem: one line of 44 px keys
    for child in header.locator(":scope > :not([hidden])").all():
        inner = child.bounding_box()
        if inner is None:
            continue
        assert inner["y"] >= box["y"] and inner["y"] + inner["height"] <= box["y"] + box["height"]
    # Some of the name shows in every language: the role and the connection's status are
    # short words (issue 32: "Ведучий гри" and "на зв'язку" left "B." of it).
    assert page.locator(".top .title").bounding_box()["width"] >= 60
    expect(page.locator(".top .title")).to_have_attribute("title", ENCOUNTER)
    scroll = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll[0] <= scroll[1], scroll


def own_row_panels(page: Page) -> list[tuple[str, Locator]]:
    """Every panel the own row opens: attack, each save, check, rest, notes (and hit points,
    for the referee: players may not by default)."""
    row = act_on(page, "Aldric")
    links = [("attack", row.locator("a[href*='/attack/']"))]
    links += [(key, row.locator(f".saves a[href*='category={key}']")) for key in SAVE_KEYS]
    links += [(name, row.locator(f"a[href*='/{name}/']")) for name in ("check", "rest", "notes")]
    if page.locator("body.referee").count():
        links.append(("hit points", row.locator("a[href*='/hit-points/']")))
    return links


def every_panel_clear_of_the_header(page: Page) -> None:
    for name, link in own_row_panels(page):
        expect(link, name).to_be_visible()
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # far from the panel
        panel = swap_panel(page, link)
        clear_of_header(page, fresh(panel, "h2"))

    # A result: the free roll, opened from the bottom of the page.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    panel = open_panel(page, "Free roll")
    clear_of_header(page, fresh(panel, "h2"))
    panel.locator("#id_expression").fill("2d6")
    panel.locator("#id_label").fill("Torches gutter")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the player scrolled on
    swap_panel(page, panel.locator("button.primary"))
    clear_of_header(page, fresh(panel, ".result"))

    # A refused form: a damage die with no sides. Its error beside its field, which is marked
    # and takes the typing.
    panel = open_attack(page, "Aldric", "Goblin 1")
    panel.locator("#id_natural").fill("12")
    panel.locator("#id_damage").fill("1d")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    swap_panel(page, panel.locator("button.primary"))
    field = fresh(panel, "form").locator(".field.invalid")
    expect(field).to_have_count(1)
    clear_of_header(page, field.locator(".errors"))
    expect(field.locator("#id_damage")).to_have_attribute("aria-invalid", "true")
    expect(field.locator("#id_damage")).to_be_focused()

    # The attack's result, after a fixed die.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    result = roll_attack(page, natural=14, damage="1d6", damage_dice="4")
    clear_of_header(page, result)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_panel_a_player_opens_shows_below_the_header(referee, phone, width, height):
    anna = phone(width, height)
    a_table_on(referee, anna)
    every_panel_clear_of_the_header(anna)


def test_every_panel_the_referee_opens_on_a_phone_shows_below_the_header(phone):
    ref = phone(360, 740)
    ref.goto("/")
    anna = phone()
    a_table_on(ref, anna)
    assert_header_on_one_line(ref)
    every_panel_clear_of_the_header(ref)
    # The referee's row keeps the saves' letters.
    expect(act_on(ref, "Aldric").locator(".saves .button")).to_have_text(list("DWPBS"))
    for language in ("cs", "ru", "uk"):
        in_language(ref, language)
        expect(ref.locator("#live-status")).to_have_text(LIVE[language])
        assert_header_on_one_line(ref)


def test_the_own_character_comes_first_with_its_saves_by_name_in_every_language(referee, phone):
    anna = phone(360, 740)
    a_table_on(referee, anna)
    for language in ("en", "cs", "ru", "uk"):
        if language != "en":
            in_language(anna, language)
        assert_header_on_one_line(anna)
        rows = anna.locator("#party li.combatant")
        expect(rows.first.locator(".name")).to_have_text("Aldric")  # added after Brina
        expect(rows.first).to_have_class(re.compile(r"\bown\b"))
        expect(rows.first.locator(".badge.yours")).to_have_text(YOURS[language])
        expect(rows.nth(1).locator(".name")).to_have_text("Brina")
        expect(rows.nth(1)).not_to_have_class(re.compile(r"\bown\b"))
        saves = rows.first.locator(".saves .button")
        expect(saves).to_have_text(SAVE_WORDS[language])
        for save, name in zip(saves.all(), SAVE_NAMES[language], strict=True):
            expect(save).to_have_attribute("title", name)
            # One line of text: a word that wraps would make the button twice as tall.
            assert save.evaluate(ONE_LINE), name
        assert_big_and_apart(saves)
        assert_big_and_apart(rows.first.locator(".actions > a.button"))
        # Two saves side by side on a phone: a thumb's reach, not a long column.
        boxes = [save.bounding_box() for save in saves.all()]
        assert abs(boxes[0]["y"] - boxes[1]["y"]) < 1, boxes
    # The referee's list keeps the table's order.
    expect(referee.locator("#party li.combatant").first.locator(".name")).to_have_text("Brina")


def test_the_player_whose_side_acts_is_told_at_the_top(referee, phone):
    anna = phone(360, 740)
    a_table_on(referee, anna)
    in_language(anna, "cs")
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("3")
    panel.locator("#id_foes_die").fill("3")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("2")
    roll(referee, panel)

    note = anna.locator("#round .your-turn-note")
    expect(note).to_have_text(YOUR_SIDE_ACTS["cs"])
    anna.evaluate("window.scrollTo(0, 0)")
    clear_of_header(anna, note)  # on the first screen the phone shows, above the character
    aldric = combatant(anna, "Aldric").bounding_box()
    assert note.bounding_box()["y"] < aldric["y"]

    round_button(referee, "Next side")
    expect(anna.locator("#round")).to_have_attribute("data-acting", "foes")
    expect(note).to_have_count(0)
