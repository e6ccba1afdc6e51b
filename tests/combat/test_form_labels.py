"""Every field of a form has a label of its own, in every language: two fields both called
"Cover" in Russian and Ukrainian (issue 30) left the referee guessing which was which."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest
from django.conf import settings
from django.urls import reverse

from combat.models import Encounter

from .conftest import character, monster

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
LANGUAGES = ("en", "cs", "ru", "uk")
# BECMI's own panels, each opened as the referee opens it from a combatant's row.
PANELS = ("becmi_attack", "becmi_save", "bx_strike", "bx_wrestle")


@pytest.fixture
def encounter(db) -> Encounter:
    return Encounter.objects.create(name="The Keep", system="becmi")


def labels(html: str) -> list[str]:
    """What each field's label says, as a person reads it; not the labels of a list's options
    (``id_helpers_0``: the same combatant may be offered to both sides)."""
    found = re.findall(r'<label for="(id_\w+)"[^>]*>(.*?)</label>', html, flags=re.S)
    return [
        " ".join(unescape(re.sub(r"<[^>]+>", " ", text)).split())
        for for_id, text in found
        if not re.search(r"_\d+$", for_id)
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("panel", PANELS)
def test_no_two_fields_of_a_becmi_form_share_a_label(referee, encounter, panel, language):
    hero = character(encounter, "Sir Kay", thac0=15, str_score=13)
    monster(encounter, "Ogre", ac=5, hp_max=25, hp=25, hit_dice="4+1", thac0=15)
    referee.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    url = reverse(panel, args=[encounter.slug]) + f"?actor={hero.pk}"
    response = referee.get(url, **HX)
    assert response.status_code == 200
    said = [text for text in labels(response.content.decode()) if text]
    assert said, "the form has labelled fields"
    twice = [text for text, count in Counter(said).items() if count > 1]
    assert not twice, f"{panel} in {language}: {twice} label more than one field"


# A checkbox's label is one line on a 360 px phone (issue 31: "Proti / magii: / počítá / se /
# MDR:", a word a line): what it says at length goes into its help, under it.
CHECKBOX_LABEL_MOST = 36


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("panel", (*PANELS, "bx_board"))
def test_a_checkbox_label_of_a_becmi_form_is_short_enough_for_a_phone(
    referee, encounter, panel, language
):
    hero = character(encounter, "Sir Kay", thac0=15, str_score=13)
    monster(encounter, "Ogre", ac=5, hp_max=25, hp=25, hit_dice="4+1", thac0=15)
    referee.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    url = reverse(panel, args=[encounter.slug]) + f"?actor={hero.pk}"
    html = referee.get(url, **HX).content.decode()
    boxes = re.findall(r'type="checkbox" name="\w+"[^>]*id="(id_\w+)"', html)
    assert boxes or panel not in ("becmi_save", "bx_strike", "bx_board")
    said = dict(re.findall(r'<label for="(id_\w+)"[^>]*>(.*?)</label>', html, flags=re.S))
    long = [
        text
        for box in boxes
        if len(text := " ".join(unescape(re.sub(r"<[^>]+>", " ", said[box])).split()))
        > CHECKBOX_LABEL_MOST
    ]
    assert not long, f"{panel} in {language}: {long}"
