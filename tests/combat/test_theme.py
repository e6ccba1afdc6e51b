"""The theme switch in the page header: a page follows the system's preference until the
browser picks light or dark, and then every page (error pages too) is rendered in that choice
from its first byte. The switch without JavaScript posts to set_theme; with it, fray.js writes
the same cookie (tests/e2e/test_accessibility.py)."""

from __future__ import annotations

import re

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
    assert '<option value="dark" selected>' in client.get("/").content.decode()
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
