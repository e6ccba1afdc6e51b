"""A form's fields as the panels draw them (``combat.templatetags.form_fields``, through the
form renderer's ``combat/forms/form.html`` and ``field.html``)."""

from __future__ import annotations

import re

import pytest
from django import forms

from combat.templatetags.form_fields import form_fields


class Sample(forms.Form):
    name = forms.CharField(label="Name", help_text="<b>as players call it</b>")
    count = forms.IntegerField(label="Count")
    secret = forms.BooleanField(label="Secret", required=False)
    once = forms.CharField(widget=forms.HiddenInput)
    note = forms.CharField(widget=forms.Textarea, required=False)

    def clean(self):
        raise forms.ValidationError("Something is off")


def _boxes(html: str) -> list[str]:
    return re.findall(r'<div class="(field[^"]*)">', html)


def test_each_field_in_its_box_a_number_narrow_a_checkbox_before_its_label() -> None:
    html = form_fields(Sample())
    assert _boxes(html) == ["field wide", "field", "field check", "field wide"]
    secret = html[html.index('class="field check"') :]
    assert secret.index("<input") < secret.index("<label")
    name = html[html.index('class="field wide"') :]
    assert name.index("<label") < name.index("<input")
    assert '<small class="help">&lt;b&gt;as players call it&lt;/b&gt;</small>' in html
    assert html.endswith('<input type="hidden" name="once" id="id_once">')


def test_errors_are_shown_beside_their_field_and_above_the_form() -> None:
    form = Sample({"count": "many", "once": "x"})
    assert not form.is_valid()
    html = form_fields(form)
    assert html.startswith('<div class="errors" role="alert"><ul class="errorlist nonfield">')
    assert "Something is off" in html
    assert _boxes(html)[:2] == ["field invalid wide", "field invalid"]
    assert html.count('<div class="errors" role="alert">') == 3  # the form's, name's, count's


def test_no_form_draws_nothing() -> None:
    assert form_fields("") == ""


def test_a_form_a_field_and_the_fields_tag_draw_the_same_boxes() -> None:
    from django.template import Context, Template

    form = Sample({"count": "many", "once": "x"})
    assert str(form) == form_fields(form)
    drawn = Template("{% load form_fields %}{% fields form.visible_fields %}")
    each = [field.as_field_group() for field in form.visible_fields()]
    assert drawn.render(Context({"form": form})) == "".join(each)
    assert all(box in form_fields(form) for box in each)


@pytest.mark.parametrize("language", ["cs", "ru", "uk"])
def test_a_fields_label_and_help_are_in_the_viewers_language(language) -> None:
    from django.utils import translation

    class Natural(forms.Form):
        natural = forms.IntegerField(
            label=translation.gettext_lazy("Die rolled at the table"),
            help_text=translation.gettext_lazy("Leave empty and the server rolls."),
        )

    with translation.override(language):
        html = form_fields(Natural())
        label = translation.gettext("Die rolled at the table")
        said = translation.gettext("Leave empty and the server rolls.")
    assert label != "Die rolled at the table"
    assert f'<label for="id_natural">{label}:</label> <input type="number"' in html
    assert f'<small class="help">{said}</small>' in html


# --- The action panel around a form ------------------------------------------------------------


def _panel(panel: str, language: str = "en", **context) -> str:
    from django.template import Context, Template
    from django.utils import translation

    from combat.models import Encounter

    drawn = Template('{% include "combat/_panel.html" %}')
    with translation.override(language):
        return drawn.render(Context({"panel": panel, "encounter": Encounter(slug="s1"), **context}))


ROLL_PANELS = {"attack": "/e/s1/attack/", "save": "/e/s1/save/", "check": "/e/s1/check/"}
ROLL_PANELS |= {"roll": "/e/s1/roll/"}


def test_a_rolls_panel_goes_to_its_action_shows_its_odds_and_rolls() -> None:
    for panel, url in ROLL_PANELS.items():
        html = _panel(panel, form=Sample(), csrf_token="t0k3n", odds=None)
        assert f'<form method="post" action="{url}" hx-post="{url}"' in html
        assert f'hx-get="/e/s1/odds/{panel}/"' in html, "the odds, kept up as the form changes"
        assert '<input type="hidden" name="csrfmiddlewaretoken" value="t0k3n">' in html
        assert 'name="count"' in html, "the form's fields"
        assert '<button type="submit" class="primary">Roll</button>' in html
        assert 'href="/e/s1/" class="button"' in html, "Close goes back to the table"


def test_the_tables_own_forms_save_and_show_no_odds() -> None:
    own = {"hp": "/e/s1/hit-points/", "quick_add": "/e/s1/combatants/quick-add/"}
    for panel, url in own.items():
        html = _panel(panel)
        assert f'action="{url}"' in html
        assert 'class="odds"' not in html
        assert "csrfmiddlewaretoken" not in html, "no token in the context: none drawn"
        assert '<button type="submit" class="primary">Save</button>' in html
    assert '<button type="submit" class="primary">Roll</button>' in _panel("rest")


def test_a_panels_heading_and_buttons_are_in_the_viewers_language() -> None:
    from types import SimpleNamespace

    html = _panel("combatant", "cs", editing=SimpleNamespace(pk=7))
    assert 'action="/e/s1/combatants/7/"' in html
    assert "<h2>Upravit účastníka boje</h2>" in html
    assert ">Uložit</button>" in html and ">Zavřít</a>" in html
    assert "<h2>Добавить участника</h2>" in _panel("combatant", "ru")
    assert "<h2>Атака</h2>" in _panel("attack", "uk")
    assert ">Кинути</button>" in _panel("attack", "uk")
