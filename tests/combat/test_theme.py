"""The theme switch in the page header: a page follows the system's preference until the
browser picks light or dark, and then every page (error pages too) is rendered in that choice
from its first byte. The switch without JavaScript posts to set_theme; with it, fray.js writes
the same cookie (tests/e2e/test_accessibility.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from combat import theme

pytestmark = pytest.mark.django_db

HTML_TAG = re.compile(r"<html [^>]*>")


def html_tag(client: Client, url: str = "/") -> str:
    return HTML_TAG.search(client.get(url).content.decode()).group(0)


def choose(client: Client, value: str, back: str = "/hit-locations/"):
    return client.post(reverse("set_theme"), {"theme": value, "next": back})


def test_a_page_follows_the_system_until_a_theme_is_chosen() -> None:
    client = Client()
    assert "data-theme" not in html_tag(client)
    page = client.get("/").content.decode()
    assert '<meta name="color-scheme" content="light dark">' in page
    assert '<option value="auto">' in page
    assert '<label for="theme-select" class="visually-hidden">Theme</label>' in page


def test_a_chosen_theme_is_remembered_on_every_page_and_the_switch_shows_it() -> None:
    client = Client()
    response = choose(client, "dark")
    assert response.status_code == 302
    assert response["Location"] == "/hit-locations/"
    assert response.cookies[theme.COOKIE].value == "dark"
    assert response.cookies[theme.COOKIE]["max-age"] == theme.COOKIE_AGE
    assert 'data-theme="dark"' in html_tag(client)
    assert 'data-theme="dark"' in html_tag(client, "/hit-locations/")
    page = client.get("/").content.decode()
    assert '<option value="dark" selected>' in page
    assert '<meta name="color-scheme" content="dark">' in page
    not_found = client.get("/e/no-such-encounter/")
    assert not_found.status_code == 404
    assert 'data-theme="dark"' in HTML_TAG.search(not_found.content.decode()).group(0)


def test_choosing_the_system_theme_again_forgets_the_choice() -> None:
    client = Client()
    choose(client, "light")
    assert 'data-theme="light"' in html_tag(client)
    response = choose(client, "auto")
    assert response.cookies[theme.COOKIE]["max-age"] == 0
    assert "data-theme" not in html_tag(client)


@pytest.mark.parametrize("value", ["", "purple", "dark\x00", "x" * 5000])
def test_an_unknown_theme_changes_nothing_and_says_so(value: str) -> None:
    client = Client()
    choose(client, "dark")
    response = choose(client, value)
    assert response.status_code == 302
    assert theme.COOKIE not in response.cookies
    page = client.get("/hit-locations/").content.decode()
    assert "There is no such theme; the page keeps its colours." in page
    assert 'data-theme="dark"' in HTML_TAG.search(page).group(0)


def test_a_forged_cookie_is_ignored() -> None:
    client = Client()
    client.cookies[theme.COOKIE] = '"><script>alert(1)</script>'
    tag = html_tag(client)
    assert "data-theme" not in tag and "script" not in tag


@pytest.mark.parametrize("back", ["https://elsewhere.example/", "//elsewhere.example/", ""])
def test_it_goes_back_only_to_a_page_of_this_server(back: str) -> None:
    response = choose(Client(), "light", back=back)
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_it_takes_only_a_post() -> None:
    assert Client().get(reverse("set_theme")).status_code == 405


def test_the_switch_needs_the_pages_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post(reverse("set_theme"), {"theme": "dark"}).status_code == 403


# --- the colours: WCAG AA in both themes ----------------------------------------------------
#
# axe (tests/e2e/test_accessibility.py) measures text as drawn; these pairs also cover what it
# does not measure: controls' edges, focus rings, chart bars and the body diagram's shades.

CSS = Path(__file__).resolve().parents[2] / "static" / "fray.css"
TEXT = 4.5  # WCAG 1.4.3, normal text
GRAPHIC = 3.0  # WCAG 1.4.11, user-interface components and graphical objects
TEXT_ON = ("bg", "card", "top", "button")
PAIRS = [
    *((ink, ground, TEXT) for ink in ("ink", "muted", "accent", "ok", "bad") for ground in TEXT_ON),
    ("ink", "field", TEXT),
    ("on-accent", "accent", TEXT),
    *(("control", ground, GRAPHIC) for ground in ("card", "field", "bg")),
    *(("accent", ground, GRAPHIC) for ground in ("bg", "card", "field", "button")),  # focus, bars
    ("zone-mark", "zone", TEXT),  # a zone's number on its halo
    ("zone-mark", "zone-wounded", GRAPHIC),
    ("zone-mark-on-dark", "zone-badly", GRAPHIC),
    ("zone-mark-on-dark", "zone-lost", GRAPHIC),
    ("muted", "card", GRAPHIC),  # a lost zone's and a severed one's edge
]


def _variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", block))


def themes() -> dict[str, dict[str, str]]:
    css = CSS.read_text()
    light = _variables(css[css.index(":root {") : css.index("}", css.index(":root {"))])
    chosen = css[css.index(':root[data-theme="dark"]') :]
    dark = _variables(chosen[: chosen.index("}")])
    preferred = css[css.index("@media (prefers-color-scheme: dark)") :]
    assert _variables(preferred[: preferred.index("}")]) == dark, "the two dark blocks differ"
    return {"light": light, "dark": light | dark}


def _luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("name", ["light", "dark"])
def test_every_colour_pair_meets_wcag_aa_in_both_themes(name: str) -> None:
    colours = themes()[name]
    failing = [
        f"--{fore} on --{back}: {contrast(colours[fore], colours[back]):.2f} < {needed}"
        for fore, back, needed in PAIRS
        if contrast(colours[fore], colours[back]) < needed
    ]
    assert not failing, failing


def test_the_body_diagrams_shades_stand_out_from_the_page_in_both_themes() -> None:
    """A zone is told from the card by its edge (light: dark edges on pale shades) or by its
    fill (dark: the edge is the page's own colour); a lost zone by its muted edge."""
    for name, colours in themes().items():
        for shade in ("zone", "zone-wounded", "zone-badly"):
            by_edge = contrast(colours["zone-edge"], colours["card"])
            by_fill = contrast(colours[shade], colours["card"])
            assert max(by_edge, by_fill) >= GRAPHIC, (name, shade, by_edge, by_fill)


def test_no_colour_is_written_outside_the_theme() -> None:
    css = CSS.read_text()
    rules = css[css.index("/* -- end theme -- */") :]
    # The other pages' own stylesheets (the console's, the display's) use the theme's too.
    rules += "".join(sheet.read_text() for sheet in CSS.parent.glob("*.css") if sheet != CSS)
    declarations = "".join(re.findall(r"\{([^{}]*)\}", rules))  # not selectors: "#feed"
    assert not re.findall(r"#[0-9a-fA-F]{3,6}\b|rgba?\(", declarations)
