"""A form's fields as the panels draw them (``combat.templatetags.form_fields``)."""

from __future__ import annotations

import re

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
