"""The body diagram (``{% body_diagram %}``), the words of hit locations and the page of tables."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest
from django.conf import settings
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils import translation

from combat import zone_labels
from combat.bodies import diagram, figure_width, layout_for, path_box, zone_state_key
from combat.models import Combatant
from combat.templatetags.fray import percent
from rules import hit_location as hl
from rules.hit_location import BodyType, Direction, Part, Zone

CENTIPEDE = hl.combine_bodies(
    "centipede",
    (
        hl.body_plan("insectoid"),
        ["head", "left_leg_1", "right_leg_1", "left_leg_2", "right_leg_2"],
    ),
    (hl.body_plan("snake"), ["upper_body", "lower_body"]),
)

VARIANTS = {
    "humanoid": hl.body_plan("humanoid"),
    "humanoid with tail and wings": hl.body_plan("humanoid", optional=True),
    "humanoid with a tail": hl.body_plan("humanoid", tail=True),
    "humanoid with wings": hl.body_plan("humanoid", wings=True),
    "bird, wings spread": hl.body_plan("bird"),
    "bird, wings folded": hl.body_plan("bird", wings_spread=False),
    "reptile": hl.body_plan("reptile"),
    "reptile without wings": hl.body_plan("reptile", wings=False),
    "reptile on two legs": hl.body_plan("reptile", legs=2),
    "reptile on two legs without wings": hl.body_plan("reptile", legs=2, wings=False),
    "reptile upright": hl.body_plan("reptile", upright=True),
    **{
        f"insectoid, {legs} legs, {wings} wings": hl.body_plan(
            "insectoid", legs=legs, wings=wings or False
        )
        for legs in (6, 8, 10)
        for wings in (0, 4, 6)
    },
    "fish": hl.body_plan("fish"),
    "snake": hl.body_plan("snake"),
    "snake, coiled": hl.body_plan("snake", coiled=True),
    "centipede (insectoid and snake)": CENTIPEDE,
}

GEOMETRY = {"d", "viewBox", "width", "height", "x", "y", "font-size"}


def render(plan, state=None, **options) -> str:
    template = Template(
        "{% load bodies %}{% body_diagram plan state numbers=numbers odds=odds tap_url=tap_url %}"
    )
    context = {"numbers": True, "odds": None, "tap_url": None, **options}
    return template.render(Context({"plan": plan, "state": state, **context}))


def parse(html: str) -> ET.Element:
    return ET.fromstring(html)


def zone_paths(root: ET.Element) -> dict[str, ET.Element]:
    found = root.findall(".//path[@data-zone]")
    zones = {path.get("data-zone"): path for path in found}
    assert len(zones) == len(found), "a zone is drawn twice"
    return zones


def hurt(plan, **damage: int) -> hl.ZoneState:
    state = hl.new_zone_state(plan, 40)
    for zone, points in damage.items():
        state, _ = hl.apply_zone_damage(state, zone, points, entered=None, rng=_Dice())
    return state


class _Dice:
    def randint(self, a: int, b: int) -> int:
        return b


# ----------------------------------------------------------------------------- drawing


@pytest.mark.parametrize("name", VARIANTS)
def test_each_body_and_variant_draws_one_shape_per_zone(name):
    plan = VARIANTS[name]
    root = parse(render(plan, hl.new_zone_state(plan, 30)))
    svg = root.find("svg")
    assert svg is not None and re.fullmatch(r"0 0 \d+ \d+", svg.get("viewBox"))
    assert set(zone_paths(root)) == {zone.value for zone in plan.zone_keys}
    for path in zone_paths(root).values():
        assert path.get("d"), "every zone has a shape"
        assert path.find("title").text, "every zone has a name for screen readers"


@pytest.mark.parametrize("name", VARIANTS)
def test_each_zone_lies_inside_its_drawing(name):
    layout = layout_for(VARIANTS[name])
    for zone, shape in layout.shapes:
        numbers = [int(n) for n in re.findall(r"-?\d+", shape.d.split("a")[0])]
        assert 0 <= shape.x <= layout.width and 0 <= shape.y <= layout.height, zone
        assert 0 <= numbers[0] <= layout.width and 0 <= numbers[1] <= layout.height, zone


def test_variants_get_their_own_drawing():
    spread = layout_for(hl.body_plan("bird"))
    folded = layout_for(hl.body_plan("bird", wings_spread=False))
    assert dict(spread.shapes)[Zone.LEFT_WING] != dict(folded.shapes)[Zone.LEFT_WING]
    plain = layout_for(hl.body_plan("snake"))
    coiled = layout_for(hl.body_plan("snake", coiled=True))
    assert dict(plain.shapes)[Zone.HEAD] != dict(coiled.shapes)[Zone.HEAD]
    assert len(layout_for(hl.body_plan("insectoid", legs=10, wings=6)).shapes) == 3 + 10 + 6


def test_an_unhurt_body_without_a_state_draws_every_zone_unhurt():
    root = parse(render(hl.body_plan("reptile"), None))
    assert {path.get("class") for path in zone_paths(root).values()} == {"unhurt"}
    assert root.find(".//text") is None, "no figures without a state"


# ----------------------------------------------------------------------------- states


@pytest.mark.parametrize(
    ("damage", "maximum", "limb", "expected"),
    [
        (0, 10, True, "unhurt"),
        (1, 10, True, "wounded"),
        (4, 10, False, "wounded"),
        (5, 10, False, "badly"),
        (9, 10, True, "badly"),
        (10, 10, False, "lost"),
        (10, 10, True, "severed"),
        (25, 10, True, "severed"),
        (1, 3, False, "wounded"),
        (2, 3, False, "badly"),
        (1, 1, False, "lost"),
    ],
)
def test_a_zone_state_follows_the_share_of_its_points_gone(damage, maximum, limb, expected):
    assert zone_state_key(damage, maximum, limb) == expected


@pytest.mark.parametrize("maximum", [1, 2, 3, 7, 10])
def test_the_halves_are_those_of_a_combatants_health(maximum):
    for damage in range(maximum):
        health = Combatant(hp=maximum - damage, hp_max=maximum).health
        assert zone_state_key(damage, maximum, False) == health


def test_the_diagram_classes_and_marks_follow_the_damage():
    plan = hl.body_plan("humanoid")  # 40 hp: head 6, chest 32, abdomen 24, arms 8, legs 10
    state = hurt(plan, left_arm=1, right_arm=4, abdomen=24, left_leg=10)
    paths = zone_paths(parse(render(plan, state)))
    assert paths["head"].get("class") == "unhurt"
    assert paths["left_arm"].get("class") == "wounded"
    assert paths["right_arm"].get("class") == "badly"
    assert paths["abdomen"].get("class") == "lost"
    assert paths["left_leg"].get("class") == "severed"
    marks = parse(render(plan, state)).findall(".//path[@class]")
    kinds = [m.get("class") for m in marks if m.get("class", "").startswith("mk")]
    assert sorted(kinds) == ["mk badly", "mk lost", "mk severed", "mk wounded"]


def test_each_zone_says_its_name_points_and_state():
    plan = hl.body_plan("humanoid")
    state = hurt(plan, left_arm=3, right_leg=13)
    with translation.override("en"):
        paths = zone_paths(parse(render(plan, state)))
    assert paths["left_arm"].find("title").text == "left arm: 5 of 8 hit points, wounded"
    assert paths["head"].find("title").text == "head: 6 of 6 hit points, unhurt"
    assert paths["right_leg"].find("title").text == (
        "right leg: 0 of 10 hit points, 3 over its maximum, severed"
    )


def test_a_dead_creature_is_drawn_dead():
    plan = hl.body_plan("humanoid")
    root = parse(render(plan, hurt(plan, head=6)))
    assert "dead" in root.get("class").split()


@pytest.mark.parametrize("name", ["humanoid", "reptile", "fish", "snake", "bird, wings spread"])
def test_without_numbers_no_figure_is_shown_anywhere(name):
    plan = VARIANTS[name]
    state = hurt(plan, **{plan.zone_keys[0].value: 1, plan.zone_keys[-1].value: 2})
    html = render(plan, state, numbers=False, tap_url="/zone/?actor=7")
    root = parse(html)
    for element in root.iter():
        for text in (element.text, element.tail):
            assert not re.search(r"\d", text or ""), f"{element.tag}: {text!r}"
        for attribute, value in element.attrib.items():
            if attribute in GEOMETRY or attribute in {"href", "hx-get"}:
                continue
            assert not re.search(r"\d", value), f"{element.tag} {attribute}={value!r}"
    # and the figures are there when numbers are asked for
    assert re.search(r"\d+/\d+", render(plan, state, numbers=True, tap_url="/z/"))


def test_numbers_show_each_zones_points_left():
    plan = hl.body_plan("humanoid")
    root = parse(render(plan, hurt(plan, chest=2)))
    texts = {(t.get("x"), t.get("y")): t.text for t in root.findall(".//text")}
    assert "30" in texts.values()  # the chest's 32 less 2
    assert "6" in texts.values()  # the head's


# ----------------------------------------------------------------------------- odds


CASES = [
    (hl.body_plan("humanoid"), "front", "N"),
    (hl.body_plan("humanoid", optional=True), "rear", "N"),
    (hl.body_plan("humanoid"), "left", "40 N"),
    (hl.body_plan("humanoid"), "front", "N 60"),
    (hl.body_plan("humanoid"), "front", "A"),
    (hl.body_plan("reptile"), "left", "W"),
    (hl.body_plan("insectoid", legs=10, wings=6), "below", "N"),
    (hl.body_plan("fish"), "below", "N 20"),
    (hl.body_plan("bird", wings_spread=False), "right", "N"),
    (hl.body_plan("snake", coiled=True), "rear", "80 N"),
]


@pytest.mark.parametrize(("plan", "direction", "band"), CASES)
def test_the_odds_on_the_diagram_are_the_engines(plan, direction, band):
    """Each figure drawn is the engine's chance for its zone; a figure with no room is left
    out (the list under the diagram says every chance, _zone_odds.html)."""
    odds = hl.location_odds(plan, direction, band)
    with translation.override("en"):
        root = parse(render(plan, None, odds=odds, numbers=False))
        found = diagram(plan, None, odds=odds, numbers=False)
    labels = {z.zone: z.text for z in found.zones if z.text}
    expected = {zone.value: f"{percent(chance)}%" for zone, chance in odds.items() if chance}
    assert labels and labels.items() <= expected.items()
    assert sorted(t.text for t in root.findall(".//text")) == sorted(labels.values())
    assert sum(int(text.rstrip("%")) for text in expected.values()) == 100
    for zone, path in zone_paths(root).items():
        assert ("out" in path.get("class").split()) == (zone not in expected)


# The figures on a zone (issue 31: "about 6 CSS px, and the leg labels overlap, '12 '12 %'").


def _figure_boxes(found) -> list[tuple[str, tuple[float, float, float, float]]]:
    size = found.label_size
    return [
        (
            z.zone,
            (
                z.x - figure_width(z.text, size) / 2,
                z.text_y - size * 0.6,  # the whole line, as a browser measures it
                z.x + figure_width(z.text, size) / 2,
                z.text_y + size * 0.6,
            ),
        )
        for z in found.zones
        if z.text
    ]


def _all_drawings():
    for name, plan in VARIANTS.items():
        keys = plan.zone_keys
        state = hurt(plan, **{keys[0].value: 1, keys[len(keys) // 2].value: 9, keys[-1].value: 4})
        big = hl.new_zone_state(plan, 400)  # two- and three-figure hit points
        for direction in ("front", "left", "rear", "below"):
            try:
                odds = hl.location_odds(plan, direction, "N")
            except Exception:  # a direction this body cannot be hit from
                continue
            yield name, plan, None, {"odds": odds, "numbers": False}
        for drawn_state in (state, big):
            yield name, plan, drawn_state, {"numbers": True}
            yield name, plan, drawn_state, {"numbers": True, "row": True}


@pytest.mark.parametrize("language", ["en", "cs"])
def test_figures_are_12_css_px_at_least_and_never_overlap(language):
    with translation.override(language):
        for name, plan, state, options in _all_drawings():
            found = diagram(plan, state, **options)
            drawn_px = (
                Fraction(112, found.height) if options.get("row") else found.SCALE
            ) * found.label_size
            assert drawn_px >= 12, (name, options, drawn_px)
            boxes = _figure_boxes(found)
            for i, (zone, box) in enumerate(boxes):
                assert 0 <= box[0] and box[2] <= found.width, (name, zone, box)
                assert 0 <= box[1] and box[3] <= found.height, (name, zone, box)
                for other, second in boxes[i + 1 :]:
                    apart = (
                        box[2] <= second[0]
                        or second[2] <= box[0]
                        or box[3] <= second[1]
                        or second[3] <= box[1]
                    )
                    assert apart, (name, options.keys(), zone, other, box, second)


def test_the_legs_odds_both_show_without_overlapping():
    """The report's "12 '12 %": a humanoid's two legs, side by side, each with its chance."""
    plan = hl.body_plan("humanoid")
    odds = hl.location_odds(plan, "front", "N")
    with translation.override("cs"):
        found = diagram(plan, None, odds=odds, numbers=False)
    legs = {z.zone: z for z in found.zones if z.zone.endswith("_leg")}
    assert all(z.text for z in legs.values()), "both legs' chances fit, one under the other"
    assert legs["left_leg"].text_y != legs["right_leg"].text_y
    assert dict(_figure_boxes(found)).keys() >= {"left_leg", "right_leg"}


def test_a_row_draws_its_figures_larger_in_its_units():
    plan = hl.body_plan("humanoid")
    state = hurt(plan, chest=2)
    assert diagram(plan, state, row=True).label_size == 12  # 112 units in 112 px
    assert diagram(plan, state).label_size == 8  # at 1.5 px a unit
    html = Template("{% load bodies %}{% body_diagram plan state numbers=True row=True %}").render(
        Context({"plan": plan, "state": state})
    )
    assert parse(html).find("svg").get("font-size") == "12"


def test_a_figure_with_no_room_is_left_out_and_still_said():
    """A snake's head is too small for a three-figure number beside its neighbours' at a
    row's size: left out of the drawing, still in the zone's name for screen readers."""
    plan = hl.body_plan("humanoid", wings=True)
    state = hl.new_zone_state(plan, 4000)
    found = diagram(plan, state, row=True)
    left_out = [z for z in found.zones if not z.text]
    assert left_out, "some four-figure numbers do not fit"
    for z in left_out:
        assert re.search(r"\d+ of \d+ hit points", z.label), z.label


def test_a_path_box_holds_its_shape():
    assert path_box("M15 25h11l-1 42h-9z") == (15, 25, 26, 67)
    assert path_box("M30 50a10 11 0 1 0 20 0a10 11 0 1 0 -20 0z") == (30, 39, 50, 61)
    assert path_box("M26 27L1 3l3 36 12-4z") == (1, 3, 26, 39)


def test_the_odds_are_said_with_each_zone():
    plan = hl.body_plan("humanoid")
    odds = {Zone.HEAD: Fraction(1, 10), "chest": Fraction(9, 10)}
    with translation.override("en"):
        paths = zone_paths(parse(render(plan, None, odds=odds, numbers=False)))
    assert paths["head"].find("title").text == "head: unhurt; chance of a hit: 10%"
    assert paths["chest"].find("title").text == "chest: unhurt; chance of a hit: 90%"
    assert paths["left_leg"].find("title").text == "left leg: unhurt"


def test_the_odds_figure_follows_the_viewers_language():
    plan = hl.body_plan("humanoid")
    with translation.override("cs"):
        html = render(plan, None, odds={Zone.HEAD: Fraction(1, 10)}, numbers=False)
    assert "10\u00a0%" in html or "10 %" in html


# ----------------------------------------------------------------------------- tapping


def test_tapping_a_zone_opens_its_url_in_the_action_panel():
    plan = hl.body_plan("reptile")
    root = parse(render(plan, None, tap_url="/e/abc/zone/?actor=3"))
    assert root.get("hx-target") == "#panel"
    links = root.findall(".//a[@href]")
    svg_links = root.find("svg").findall("a")
    assert len(svg_links) == len(plan.zones)
    for link in svg_links:
        zone = link.find("path").get("data-zone")
        assert link.get("href") == f"/e/abc/zone/?actor=3&zone={zone}"
        assert link.get("hx-get") == link.get("href")
    listed = root.findall(".//ul[@class='zone-list']/li/a")
    assert [a.get("href").rsplit("=", 1)[1] for a in listed] == [z.value for z in plan.zone_keys]
    assert len(links) == 2 * len(plan.zones)


def test_a_url_without_a_query_gets_one():
    root = parse(render(hl.body_plan("snake"), None, tap_url="/zone/"))
    assert root.find(".//a").get("href") == "/zone/?zone=lower_body"


def test_without_a_tap_url_nothing_is_a_link():
    root = parse(render(hl.body_plan("fish"), None))
    assert root.find(".//a") is None and root.find(".//ul") is None


# ----------------------------------------------------------------------------- size


@pytest.mark.parametrize(
    "name",
    ["humanoid", "bird, wings spread", "reptile", "fish", "snake", "insectoid, 6 legs, 0 wings"],
)
def test_a_diagram_stays_small(name):
    plan = VARIANTS[name]
    state = hurt(plan, **{plan.zone_keys[0].value: 1, plan.zone_keys[-1].value: 200})
    with translation.override("ru"):  # the longest words in bytes
        html = render(plan, state)
    assert len(html.encode()) < 2400
    assert "style=" not in html


# ----------------------------------------------------------------------------- words


def test_every_key_of_the_engine_has_a_label():
    assert set(zone_labels.ZONES) == set(Zone) == set(zone_labels.ZONES_HIT)
    assert set(zone_labels.PARTS) == set(Part)
    assert set(zone_labels.DIRECTIONS) == set(Direction)
    assert set(zone_labels.BODY_TYPES) == set(BodyType)


@pytest.mark.parametrize(
    ("language", "zone", "body", "expected"),
    [
        ("ru", "head", None, "голова"),
        ("ru", "chest", None, "грудь"),
        ("ru", "abdomen", "humanoid", "живот"),
        ("ru", "abdomen", "insectoid", "брюшко"),
        ("ru", "left_arm", None, "левая рука"),
        ("ru", "right_wing", None, "правое крыло"),
        ("ru", "left_hind_leg", None, "левая задняя лапа"),
        ("ru", "thorax", None, "торакс"),
        ("ru", "dorsal_fin", None, "спинной плавник"),
        ("ru", "upper_body", None, "верхняя часть тела"),
        ("cs", "left_wing", None, "levé křídlo"),
        ("cs", "left_arm", None, "levá paže"),
        ("cs", "body", "fish", "trup"),
        ("uk", "right_pectoral_fin", None, "правий грудний плавець"),
        ("uk", "tail", None, "хвіст"),
        ("en", "left_leg_3", "insectoid", "left leg 3"),
    ],
)
def test_zone_names_use_the_glossarys_words(language, zone, body, expected):
    with translation.override(language):
        assert zone_labels.zone_label(zone, body) == expected


@pytest.mark.parametrize("language", ["cs", "ru", "uk"])
def test_every_hit_location_word_is_translated(language):
    words = [
        *zone_labels.ZONES.values(),
        *zone_labels.ZONES_HIT.values(),
        *zone_labels.PARTS.values(),
        *zone_labels.SIDES.values(),
        *zone_labels.DIRECTIONS.values(),
        *zone_labels.VARIANTS.values(),
        *zone_labels.ZONE_STATES.values(),
        *[v for k, v in zone_labels.BODY_TYPES.items() if k is not BodyType.HUMANOID],
    ]
    with translation.override("en"):
        english = [str(word) for word in words]
    with translation.override(language):
        translated = [str(word) for word in words]
    same = [e for e, t in zip(english, translated, strict=True) if e == t]
    assert not same, f"{language}: not translated {same}"


@pytest.mark.parametrize(
    ("language", "zone", "body", "expected"),
    [
        ("en", "left_arm", None, "in the left arm"),
        ("cs", "left_arm", None, "do levé paže"),
        ("cs", "right_wing", None, "do pravého křídla"),
        ("ru", "left_arm", None, "в левую руку"),
        ("ru", "abdomen", "insectoid", "в брюшко"),
        ("uk", "head", None, "у голову"),
    ],
)
def test_where_a_blow_lands_is_said_in_the_case_it_needs(language, zone, body, expected):
    with translation.override(language):
        assert zone_labels.zone_hit_label(zone, body) == expected


def test_an_unknown_key_is_said_as_it_is():
    assert zone_labels.zone_label("trunk") == "trunk"
    assert zone_labels.zone_label("head", "octopus") == "head"
    assert zone_labels.part_label("tentacle") == "tentacle"
    assert zone_labels.direction_label("sideways") == "sideways"
    assert zone_labels.body_label("centipede") == "centipede"


def test_a_combined_body_keeps_each_zones_own_words():
    with translation.override("ru"):
        drawn = diagram(CENTIPEDE, None)
    names = {zone.zone: zone.name for zone in drawn.zones}
    assert names["head"] == "голова" and names["lower_body"] == "нижняя часть тела"
    assert drawn.name == "centipede"


# ----------------------------------------------------------------------------- tables page


def _get(language: str):
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(reverse("hit_locations"))


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_the_tables_page_shows_every_body_and_direction(language):
    response = _get(language)
    assert response.status_code == 200
    html = response.content.decode()
    with translation.override(language):
        for body in BodyType:
            assert zone_labels.body_label(body) in html
        for direction in Direction:
            assert f">{zone_labels.direction_label(direction)}</th>" in html
        assert f">{zone_labels.zone_label('abdomen', 'insectoid')}" in html
    assert 'id="height-matrix"' in html
    for band in ("A", "40 N", "60 N", "80 N", "N 20", "N 40", "N 60", "N 80", "W"):
        assert f'<th scope="row">{band}</th>' in html
    assert "1975" in html and "Blackmoor" in html


@pytest.mark.django_db
def test_the_tables_page_holds_every_range_of_the_engine():
    html = _get("en").content.decode()
    for low, high in [(1, 10), (11, 40), (41, 60), (89, 100)]:  # humanoid from the front
        assert f"{low}–{high}" in html
    table = hl.location_table_for(hl.body_plan("insectoid", wings=True), "above")
    for row in table.rows:
        cell = str(row.low) if row.low == row.high else f"{row.low}–{row.high}"
        assert f'<td class="num">{cell}</td>' in html


@pytest.mark.django_db
def test_the_tables_page_says_in_each_language_that_the_tables_are_reconstructed():
    english = _get("en").content.decode()
    assert "Fray's reconstruction" in english or "Fray&#x27;s reconstruction" in english
    for language in ("cs", "ru", "uk"):
        html = _get(language).content.decode()
        assert "Fray's reconstruction" not in html.replace("&#x27;", "'"), language
        assert "1975" in html


@pytest.mark.django_db
def test_the_tables_page_needs_no_encounter_and_is_refused_to_a_post():
    assert Client().post(reverse("hit_locations")).status_code == 405


def test_the_reconstruction_note_links_to_the_tables():
    html = Template('{% include "combat/_reconstruction_note.html" %}').render(Context())
    root = parse(html)
    assert root.find("a").get("href") == reverse("hit_locations")
    assert "1975" in "".join(root.itertext())


def _holds(ratio_text: str, r: Fraction) -> bool:
    """Reads "1.75 ≤ r < 3", "r ≥ 3" or "r < 0.33" back into a test of r."""
    compare = {
        "<": lambda a, b: a < b,
        "≤": lambda a, b: a <= b,
        "≥": lambda a, b: a >= b,
        ">": lambda a, b: a > b,
    }
    parts = ratio_text.split()
    values = [r if p == "r" else Fraction(p) for p in parts[::2]]
    return all(
        compare[op](left, right)
        for left, op, right in zip(values, parts[1::2], values[1:], strict=False)
    )


def test_the_height_matrix_on_the_page_is_the_engines():
    from combat.views.zones_tables import _matrix

    with translation.override("en"):
        rows = _matrix()
    for step in range(1, 400):
        r = Fraction(step, 100)
        shown = [row.band for row in rows if _holds(row.ratio, r)]
        assert shown == [str(hl.height_band_for(r, 1).matrix_band)], r


def test_a_diagram_drawn_before_is_drawn_anew_when_anything_it_shows_changes():
    plan = hl.body_plan("humanoid")
    unhurt = render(plan, hl.new_zone_state(plan, 40))
    hurt_arm = render(plan, hurt(plan, left_arm=3))
    assert unhurt != hurt_arm and 'class="wounded"' in hurt_arm
    assert render(plan, hurt(plan, left_arm=3)) == hurt_arm
    assert render(plan, hurt(plan, left_arm=3), numbers=False) != hurt_arm
    assert render(plan, hl.new_zone_state(plan, 41)) != unhurt  # other zone maxima
    with translation.override("cs"):
        assert render(plan, hurt(plan, left_arm=3)) != hurt_arm
    head = {Zone.HEAD: Fraction(1, 10)}
    assert render(plan, None, odds=head) != render(plan, None, odds={"head": Fraction(1, 5)})
    assert render(plan, None, odds=head) == render(plan, None, odds={"head": Fraction(1, 10)})
    assert render(plan, None, tap_url="/a/") != render(plan, None, tap_url="/b/")


def test_the_legend_shows_each_state_with_its_shade_and_mark():
    with translation.override("en"):
        root = parse(Template('{% include "combat/_body_legend.html" %}').render(Context()))
    items = root.findall("li")
    assert ["".join(item.itertext()).strip() for item in items] == [
        "unhurt",
        "wounded",
        "badly wounded",
        "lost",
        "severed",
    ]
    marks = [len(item.findall(".//path")) for item in items]
    assert marks == [1, 2, 2, 2, 2], "a swatch, and a mark but for the unhurt"


def test_the_figures_drawn_on_zones_are_hidden_from_screen_readers_which_hear_them_in_names():
    plan = hl.body_plan("humanoid")
    state = hurt(plan, left_arm=3)
    with translation.override("en"):
        svg = parse(render(plan, state))
    figures = svg.findall(".//text")
    assert figures and all(t.get("aria-hidden") == "true" for t in figures)
    assert "5 of 8 hit points" in zone_paths(svg)["left_arm"].find("title").text
