"""The project's form renderer writes exactly what Django's templates write, whether it draws
a widget or a label or gives back what it kept.

Every case renders with Django's own ``DjangoTemplates`` renderer, then twice with
``combat.renderer.FormRenderer`` (drawn, then kept); the outputs must be equal byte for byte.
For what the renderer keeps, a variant that may not load any template proves the second
answer was kept; for what it must not keep (values compared by more than their data), that
it draws them anew.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.test import override_settings
from django.utils import timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy, pgettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st

from combat import forms as app_forms
from combat import renderer as renderer_module
from combat.access import Viewer
from combat.renderer import FormRenderer

from .conftest import character, monster

DJANGO = DjangoTemplates()
OURS = FormRenderer()


class NoTemplates(FormRenderer):
    """FormRenderer that fails if it draws a template: all it answers was kept."""

    def get_template(self, template_name: str) -> Any:
        raise AssertionError(f"drew {template_name}")


KEPT_ONLY = NoTemplates()

NASTY = "<b>&\"'</b>"
SAFE = mark_safe('<i class="x">safe & sound</i>')
LAZY = gettext_lazy("Damage")
AWARE = datetime.datetime(2024, 3, 1, 23, 30, tzinfo=datetime.UTC)

# Languages and settings the table is rendered under: labels that are numbers or dates are
# localised by ``{{ }}`` (Czech writes 2,5), values under ``stringformat`` are not.
LOCALES = [
    pytest.param(("en", False), id="en"),
    pytest.param(("cs", False), id="cs"),
    pytest.param(("cs", True), id="cs-thousands"),
]

ATTR_SETS = {
    "no-attrs": None,
    "flags": {"disabled": True, "required": False, "autofocus": True},
    "odd-values": {
        "placeholder": None,
        "data-zero": 0,
        "data-one": 1,
        "maxlength": 40,
        "step": 0.5,
        "data-dec": decimal.Decimal("1.50"),
        "title": LAZY,
        "class": NASTY,
        "data-safe": SAFE,
        "data-tuple": ("a", 1),
        "data-list": ["x", "<y>"],
        "data-empty": "",
        "data-date": datetime.date(2024, 3, 1),
    },
    "nasty-name": {'x"<y>': "z"},
}

INPUT_WIDGETS = {
    "text": forms.TextInput,
    "number": forms.NumberInput,
    "email": forms.EmailInput,
    "url": forms.URLInput,
    "password": lambda: forms.PasswordInput(render_value=True),
    "password-hidden": forms.PasswordInput,
    "hidden": forms.HiddenInput,
    "search": forms.SearchInput,
    "tel": forms.TelInput,
    "color": forms.ColorInput,
    "file": forms.FileInput,
    "date": forms.DateInput,
    "datetime": forms.DateTimeInput,
    "time": forms.TimeInput,
}
INPUT_VALUES = {
    "none": None,
    "empty": "",
    "text": "plain",
    "spaces": "  padded  ",
    "nasty": NASTY,
    "safe": SAFE,
    "lazy": LAZY,
    "zero": 0,
    "int": 1234567,
    "float": 2.5,
    "decimal": decimal.Decimal("3.10"),
    "date": datetime.date(2024, 3, 1),
    "datetime": AWARE,
    "time": datetime.time(12, 5),
}

CHOICES = {
    "ints": [(1, "one"), (2, "two"), (1234, 1234)],
    "strings": [("a", "Alpha"), ("b", "Beta")],
    "lazy": [("melee", pgettext_lazy("attack", "Melee (STR)")), ("heal", LAZY)],
    "nasty": [(NASTY, NASTY), ("s", SAFE), (SAFE, "safe value")],
    "numbers-as-labels": [(1, 2.5), (2, decimal.Decimal("1234.5")), (3, AWARE), (4, True)],
    "empty-choice": [("", "---------"), (None, "none"), ("x", "")],
    "optgroups": [
        ("", "---------"),
        ("Melee", [("sword", "Sword"), ("axe", "<Axe>")]),
        (NASTY, [(1, "one")]),
        ("top", "Top level"),
        (LAZY, [("l", LAZY)]),
        ("Empty group", []),
    ],
    "no-choices": [],
}
SELECT_VALUES = {
    "none": None,
    "first": 1,
    "string": "a",
    "many": ["a", "sword", 1, NASTY],
    "empty": "",
}


def assert_same(render, kept: bool | None = True) -> str:
    """``render(renderer)`` gives the same text with Django's renderer and ours, drawn and
    again; with ``kept``, ours needed no template the second time (with ``kept=False``, it
    did: it kept nothing)."""
    theirs = render(DJANGO)
    assert render(OURS) == theirs
    assert render(OURS) == theirs
    if kept:
        assert render(KEPT_ONLY) == theirs
    elif kept is not None:
        with pytest.raises(AssertionError, match="drew"):
            render(KEPT_ONLY)
    return theirs


def _dated(value: Any) -> bool:
    """A date or time, or values holding one: drawn as the active time zone and language say,
    never kept."""
    if isinstance(value, dict):
        return any(map(_dated, value.values()))
    if isinstance(value, list | tuple):
        return any(map(_dated, value))
    return isinstance(value, datetime.date | datetime.time)


@pytest.fixture(params=LOCALES)
def locale(request):
    language, thousands = request.param
    with translation.override(language), override_settings(USE_THOUSAND_SEPARATOR=thousands):
        yield language


def test_the_project_uses_this_renderer():
    assert isinstance(get_default_renderer(), FormRenderer)


@pytest.mark.parametrize("attrs", list(ATTR_SETS.values()), ids=list(ATTR_SETS))
@pytest.mark.parametrize("value", list(INPUT_VALUES.values()), ids=list(INPUT_VALUES))
@pytest.mark.parametrize("kind", list(INPUT_WIDGETS))
def test_inputs_render_as_the_templates_do(locale, kind, value, attrs):
    widget = INPUT_WIDGETS[kind]()
    # (its value, a string); hidden: one-time keys, kept around a stand-in for the value,
    # unless the value is a safe string (written as it is, not escaped)
    kept = (kind != "hidden" or value is not SAFE) and not _dated(attrs)
    render = lambda r: widget.render("field", value, attrs=attrs, renderer=r)  # noqa: E731
    html = assert_same(render, kept=kept)
    assert html.startswith("<input ") and html.endswith(">")


def test_a_one_time_key_is_written_into_the_input_kept_without_it():
    key = lambda value: forms.HiddenInput().render("once", value, renderer=OURS)  # noqa: E731
    first, second = key("abc"), key("x<y")
    assert first == '<input type="hidden" name="once" value="abc">'
    assert second == '<input type="hidden" name="once" value="x&lt;y">'
    assert forms.HiddenInput().render("once", "q", renderer=KEPT_ONLY) == first.replace("abc", "q")


@pytest.mark.parametrize("localized", [False, True], ids=["plain", "localized"])
@pytest.mark.parametrize("value", [2.5, decimal.Decimal("1234.5"), 7, None])
def test_localized_number_inputs_render_as_the_templates_do(locale, localized, value):
    widget = forms.NumberInput()
    widget.is_localized = localized
    assert_same(lambda r: widget.render("n", value, renderer=r))


@pytest.mark.parametrize("attrs", list(ATTR_SETS.values()), ids=list(ATTR_SETS))
@pytest.mark.parametrize(
    "value", [True, False, None, "", "on", "x", NASTY, 0, 1], ids=lambda v: repr(v)
)
def test_checkboxes_checked_and_not_render_as_the_templates_do(locale, value, attrs):
    widget = forms.CheckboxInput()
    render = lambda r: widget.render("check", value, attrs=attrs, renderer=r)  # noqa: E731
    html = assert_same(render, kept=not _dated(attrs))
    assert (" checked" in html) == (value is not False and value is not None and value != "")


@pytest.mark.parametrize("attrs", list(ATTR_SETS.values()), ids=list(ATTR_SETS))
@pytest.mark.parametrize("value", list(SELECT_VALUES.values()), ids=list(SELECT_VALUES))
@pytest.mark.parametrize("choices", list(CHOICES.values()), ids=list(CHOICES))
@pytest.mark.parametrize("widget_class", [forms.Select, forms.SelectMultiple])
def test_selects_render_as_the_templates_do(locale, widget_class, choices, value, attrs):
    widget = widget_class(choices=choices)
    kept = not _dated([choices, attrs])
    assert_same(lambda r: widget.render("pick", value, attrs=attrs, renderer=r), kept=kept)


def test_a_selected_option_and_an_optgroup_are_written():
    widget = forms.Select(choices=CHOICES["optgroups"])
    html = assert_same(lambda r: widget.render("pick", "axe", renderer=r))
    assert '<optgroup label="Melee">' in html
    assert '<option value="axe" selected>&lt;Axe&gt;</option>' in html


@pytest.mark.parametrize("value", [None, True, False, "unknown", "true", "2"])
def test_null_boolean_selects_render_as_the_templates_do(locale, value):
    widget = forms.NullBooleanSelect()
    assert_same(lambda r: widget.render("maybe", value, renderer=r))


@pytest.mark.parametrize("attrs", list(ATTR_SETS.values()), ids=list(ATTR_SETS))
@pytest.mark.parametrize(
    "value",
    [None, "", "text", "two\nlines", "\n leading newline", NASTY, SAFE, LAZY, 0, 2.5],
    ids=lambda v: repr(v)[:20],
)
def test_textareas_empty_and_with_text_render_as_the_templates_do(locale, value, attrs):
    widget = forms.Textarea()
    render = lambda r: widget.render("notes", value, attrs=attrs, renderer=r)  # noqa: E731
    assert_same(render, kept=not _dated(attrs))


class LabelForm(forms.Form):
    plain = forms.CharField(label="Name")
    nasty = forms.CharField(label=NASTY, required=False)
    safe = forms.CharField(label=SAFE)
    lazy = forms.IntegerField(label=LAZY)
    question = forms.CharField(label="Why?")
    spaced = forms.CharField(label="  spaced  ")
    suffixed = forms.CharField(label="Own suffix", label_suffix=" →")
    unnamed = forms.CharField()
    check = forms.BooleanField(required=False)
    pick = forms.ChoiceField(choices=CHOICES["ints"])
    fixed_id = forms.CharField(widget=forms.TextInput(attrs={"id": "my-id"}))


LABEL_FORMS = {
    "auto-id": {},
    "no-id": {"auto_id": False},
    "id-format": {"auto_id": "x_%s_<"},
    "prefix": {"prefix": "p"},
    "no-suffix": {"label_suffix": ""},
    "nasty-suffix": {"label_suffix": "<:>"},
}
LABEL_CALLS = {
    "label_tag": lambda bf: bf.label_tag(),
    "legend_tag": lambda bf: bf.legend_tag(),
    "attrs": lambda bf: bf.label_tag(attrs={"class": NASTY, "hidden": True, "x": False}),
    "contents": lambda bf: bf.label_tag(contents=" <own> "),
    "safe-contents": lambda bf: bf.label_tag(contents=SAFE, label_suffix="!"),
    "suffix": lambda bf: bf.label_tag(label_suffix=" :"),
}


@pytest.mark.parametrize("call", list(LABEL_CALLS.values()), ids=list(LABEL_CALLS))
@pytest.mark.parametrize("options", list(LABEL_FORMS.values()), ids=list(LABEL_FORMS))
def test_label_tags_with_and_without_id_render_as_the_templates_do(locale, options, call):
    form = LabelForm(**options)
    for name in form.fields:

        def render(renderer, name=name):
            form.renderer = renderer
            return call(form[name])

        assert_same(render, kept=None if name == "unnamed" else True)


def test_a_label_without_an_id_is_its_stripped_text():
    form = LabelForm(auto_id=False)
    form.renderer = OURS
    assert form["spaced"].label_tag(label_suffix="") == "spaced"
    assert form["spaced"].label_tag() == "spaced  :"
    assert form["nasty"].label_tag() == "&lt;b&gt;&amp;&quot;&#x27;&lt;/b&gt;:"


def test_required_css_class_on_labels_renders_as_the_templates_do():
    class Styled(LabelForm):
        required_css_class = "needed"

    form = Styled()

    def render(renderer):
        form.renderer = renderer
        return "".join(form[name].label_tag(attrs={"class": "a"}) for name in form.fields)

    assert_same(render)


def test_whole_plain_forms_render_as_the_templates_do(locale):
    form = LabelForm({"plain": NASTY, "lazy": "x", "pick": "9"})

    def render(renderer):
        form.renderer = renderer
        return form.as_p() + form.as_table() + form.as_ul()

    assert_same(render, kept=None)


# What the renderer draws anew every time, or keeps in ways of its own: Django's answer still.
def _option_template_select():
    widget = forms.Select(choices=CHOICES["strings"])
    widget.option_template_name = "django/forms/widgets/radio_option.html"
    return widget


def _called():
    return "called"


class CallableLabels(forms.Select):
    """A label the template language would call (Django's choices call theirs already)."""

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return super().create_option(*args, **kwargs) | {"label": _called}


FALLBACKS = {
    "radio": (lambda: forms.RadioSelect(choices=CHOICES["optgroups"]), "axe"),
    "checkbox-select": (lambda: forms.CheckboxSelectMultiple(choices=CHOICES["strings"]), ["a"]),
    "clearable-file": (forms.ClearableFileInput, None),
    "split-datetime": (forms.SplitDateTimeWidget, AWARE),
    "multiple-hidden": (forms.MultipleHiddenInput, ["a", NASTY]),
    "select-date": (forms.SelectDateWidget, datetime.date(2024, 3, 1)),
    "own-option-template": (_option_template_select, "a"),
    "callable-attr": (lambda: forms.TextInput(attrs={"data-x": _called}), "a"),
    "items-attr": (lambda: forms.TextInput(attrs={"items": [("k", "v")]}), "a"),
    "callable-label": (lambda: CallableLabels(choices=[("a", "A")]), "a"),
}


NEVER_KEPT = {"callable-attr", "callable-label"}  # a template would call them


@pytest.mark.parametrize(("make", "value"), list(FALLBACKS.values()), ids=list(FALLBACKS))
def test_other_widgets_render_as_the_templates_do(make, value, request):
    widget = make()
    kept = False if request.node.callspec.id in NEVER_KEPT else None
    assert_same(lambda r: widget.render("w", value, renderer=r), kept=kept)


def test_contexts_other_than_djangos_go_to_the_templates():
    odd = [
        ("django/forms/widgets/text.html", {"widget": {"name": "x"}}),  # no type, value, attrs
        ("django/forms/widgets/select.html", {"widget": "not a dict"}),
        ("django/forms/label.html", {"label": "x"}),
    ]
    for template_name, context in odd:
        for _ in range(2):
            assert OURS.render(template_name, context) == DJANGO.render(template_name, context)


class NeverUnequal:
    """Says it is not unequal to anything, None included."""

    def __ne__(self, other: object) -> bool:
        return False

    def __str__(self) -> str:
        return "<never>"


class SafeWhenShown:
    """Not safe itself, but its text is."""

    def __str__(self) -> str:
        return mark_safe("<em>")


def test_hand_made_contexts_follow_the_template_language():
    attrs = {"a": SafeWhenShown(), "b": NeverUnequal(), "c": 1.5, "d": (1,)}
    cases = [
        ("django/forms/widgets/input.html", {"type": "t", "name": 2, "value": NeverUnequal()}),
        ("django/forms/widgets/input.html", {"type": "t", "name": "n", "value": SafeWhenShown()}),
        ("django/forms/widgets/textarea.html", {"name": "n", "value": SafeWhenShown()}),
        ("django/forms/widgets/textarea.html", {"name": "n", "value": 0}),
        ("django/forms/widgets/select.html", {"name": "n", "optgroups": []}),
    ]
    for template_name, widget in cases:
        context = {"widget": widget | {"attrs": attrs}}
        expected = DJANGO.render(template_name, context)
        for _ in range(2):
            assert OURS.render(template_name, context) == expected
    for label, use_tag in [(5, True), (" x ", False), (SafeWhenShown(), True), (AWARE, 0)]:
        context = {"label": label, "use_tag": use_tag, "tag": "legend", "attrs": attrs}
        expected = DJANGO.render("django/forms/label.html", context)
        for _ in range(2):
            assert OURS.render("django/forms/label.html", context) == expected


# The app's own forms, built as the views build them.


@pytest.fixture
def cast(encounter, player):
    """A party, foes (one hidden, one dead, one with a name to escape) and the viewers."""
    character(encounter, "Aldric", seat=player.seat)
    character(encounter, "Brina & <Co>", thac0=19, ac=7, hp_max=8, hp=8)
    monster(encounter, "Goblin")
    monster(encounter, 'The "Lurker"', hidden=True, hp_max=13, hp=13, hit_dice="3*")
    monster(encounter, "Dead orc", hp=0)
    return [
        Viewer(encounter, is_referee=True, seat=None),
        Viewer(encounter, is_referee=False, seat=player.seat),
    ]


def _app_forms(encounter, viewers) -> list[forms.BaseForm]:
    goblin = encounter.combatants.get(name="Goblin")
    made: list[forms.BaseForm] = [
        app_forms.EncounterForm(),
        app_forms.EncounterForm({"name": "", "system": "nope", "attack_method": "x"}),
        app_forms.EncounterSettingsForm(instance=encounter, prefix="settings"),
        app_forms.EncounterSettingsForm(
            {"settings-name": "", "settings-attack_method": "?"},
            instance=encounter,
            prefix="settings",
        ),
        app_forms.JoinForm(),
        app_forms.JoinForm({"name": "  "}),
        app_forms.SeatGiveForm(viewer=viewers[0], seat=viewers[1].seat),
        app_forms.SeatGiveForm({"combatant": "<x>"}, viewer=viewers[0], seat=viewers[1].seat),
        app_forms.ClaimForm(),
        app_forms.ClaimForm({"combatant": "-1"}),
        app_forms.CombatantForm(encounter=encounter),
        app_forms.CombatantForm(instance=goblin, encounter=encounter),
        app_forms.CombatantForm(
            {"name": NASTY, "side": "?", "kind": "monster", "ac": "x", "hit_dice": "<9>"},
            encounter=encounter,
        ),
        app_forms.QuickAddForm(),
        app_forms.QuickAddForm({"count": "99", "name": NASTY, "hit_dice": "??", "side": "x"}),
    ]
    bad = {
        "actor": "999",
        "target": "<x>",
        "mode": "nope",
        "modifier": "1.5",
        "natural": "30",
        "damage": "1d",
        "damage_dice": "a b",
        "category": "?",
        "ability": "?",
        "score": "99",
        "action": "?",
        "amount": "-1",
        "days": "0",
        "interrupted": "9",
        "day_dice": "x",
        "expression": "",
        "label": NASTY,
        "entered": "q",
        "secret": "on",
        "once": NASTY,
    }
    action_forms = [
        app_forms.AttackForm,
        app_forms.SaveForm,
        app_forms.CheckForm,
        app_forms.HitPointsForm,
        app_forms.RestForm,
        app_forms.FreeRollForm,
    ]
    for viewer in viewers:
        for form_class in action_forms:
            made.append(form_class(viewer=viewer))
            made.append(form_class(initial={"actor": goblin.pk}, viewer=viewer))
            made.append(form_class(bad, viewer=viewer))
    for form in made:
        form.is_valid()  # bound forms show their errors
    return made


def _every_way(form: forms.BaseForm) -> str:
    """The form in Django's layouts, and field by field."""
    parts = [form.as_p(), form.as_table()]
    for field in form:
        parts += [str(field), field.label_tag(), field.legend_tag()]
    return "\n".join(parts)


@pytest.mark.django_db
def test_every_app_form_renders_as_the_templates_do(encounter, cast, locale):
    made = _app_forms(encounter, cast)
    assert {type(form) for form in made} >= {
        cls
        for cls in vars(app_forms).values()
        if isinstance(cls, type)
        and issubclass(cls, forms.BaseForm)
        and cls.__module__ == app_forms.__name__
        and cls not in {app_forms.MergingForm, app_forms.ActionForm, app_forms.RollForm}
    }
    for form in made:

        def render(renderer, form=form):
            form.renderer = renderer
            return _every_way(form)

        html = assert_same(render, kept=None)
        assert "<select" in html or "<input" in html


@pytest.mark.django_db
def test_the_app_forms_visible_fields_are_kept(encounter, cast):
    for form in _app_forms(encounter, cast):
        form.renderer = DJANGO
        theirs = [(str(field), field.label_tag()) for field in form.visible_fields()]
        form.renderer = OURS
        assert [(str(field), field.label_tag()) for field in form.visible_fields()] == theirs
        form.renderer = KEPT_ONLY
        assert [(str(field), field.label_tag()) for field in form.visible_fields()] == theirs


@pytest.mark.django_db
def test_an_app_forms_boxes_are_kept_and_drawn_as_every_panel_shows_a_field(encounter, cast):
    from combat.templatetags.form_fields import form_fields

    for form in _app_forms(encounter, cast):
        form.renderer = OURS
        drawn = form_fields(form)
        boxes = [field.as_field_group() for field in form.visible_fields()]
        form.renderer = KEPT_ONLY
        assert [field.as_field_group() for field in form.visible_fields()] == boxes
        assert all(box.startswith('<div class="field') for box in boxes)
        for field, box in zip(form.visible_fields(), boxes, strict=True):
            assert box in drawn
            assert (f'id="{field.auto_id}_error"' in box) == bool(field.errors)


# What is kept is told apart by everything a template draws differently.


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("<b>x</b>", mark_safe("<b>x</b>")),  # escaped, or not
        (1, 1.0),
        (1, True),
        (decimal.Decimal("1.5"), decimal.Decimal("1.50")),
        (0.0, -0.0),
    ],
)
def test_values_drawn_differently_are_never_taken_for_each_other(one, other):
    widget = forms.Select(choices=[(1, one), (2, "b")])
    for first, second in ((one, other), (other, one)):
        widget.choices = [(1, first)]
        OURS.render("django/forms/widgets/select.html", widget.get_context("s", 1, {}))
        widget.choices = [(1, second)]
        context = widget.get_context("s", 1, {})
        assert OURS.render("django/forms/widgets/select.html", context) == DJANGO.render(
            "django/forms/widgets/select.html", context
        )


@pytest.mark.parametrize("language", ["cs", "ru", "uk"])
def test_a_kept_label_is_said_in_each_language(language):
    widget = forms.Select(choices=[("melee", pgettext_lazy("attack", "Melee (STR)"))])
    english = widget.render("mode", "melee", renderer=OURS)
    with translation.override(language):
        said = widget.render("mode", "melee", renderer=OURS)
        assert said == widget.render("mode", "melee", renderer=DJANGO)
        assert said == widget.render("mode", "melee", renderer=KEPT_ONLY)
    assert said != english


# Random attributes, values and choices.

_names = st.text(alphabet="abcxyz-_:<>\"'&", min_size=1, max_size=8)
_texts = st.text(max_size=12)
_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.decimals(allow_nan=False, places=2),
    _texts,
    _texts.map(mark_safe),
    st.tuples(st.integers(), _texts),
    st.lists(_texts, max_size=2),
    st.dates(),
)
_attrs = st.dictionaries(_names, _values, max_size=5)
_choice_values = st.one_of(st.integers(-5, 5), _texts, _texts.map(mark_safe))
_labels = st.one_of(_texts, _texts.map(mark_safe), st.integers(), st.floats(allow_nan=False))
_choices = st.lists(
    st.one_of(
        st.tuples(_choice_values, _labels),
        st.tuples(_texts, st.lists(st.tuples(_choice_values, _labels), max_size=3)),
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(attrs=_attrs, value=_values, kind=st.sampled_from(["text", "number", "hidden"]))
def test_any_attributes_and_value_render_as_the_templates_do(attrs, value, kind):
    widget = INPUT_WIDGETS[kind]()
    assert_same(lambda r: widget.render("f", value, attrs=attrs, renderer=r), kept=None)
    checkbox = forms.CheckboxInput()
    assert_same(lambda r: checkbox.render("c", value, attrs=attrs, renderer=r), kept=None)
    textarea = forms.Textarea()
    assert_same(lambda r: textarea.render("t", value, attrs=attrs, renderer=r), kept=None)


@settings(max_examples=300, deadline=None)
@given(choices=_choices, attrs=_attrs, picked=st.lists(_choice_values, max_size=3))
def test_any_choices_render_as_the_templates_do(choices, attrs, picked):
    widget = forms.SelectMultiple(choices=choices)
    assert_same(lambda r: widget.render("s", picked, attrs=attrs, renderer=r), kept=None)
    single = forms.Select(choices=choices)
    value = picked[0] if picked else None
    assert_same(lambda r: single.render("s", value, attrs=attrs, renderer=r), kept=None)


def test_a_localised_label_and_time_zone_match():
    widget = forms.Select(choices=[(1, AWARE), (2, timezone.now().date())])
    with override_settings(TIME_ZONE="Europe/Prague"), translation.override("cs"):
        assert_same(lambda r: widget.render("when", 1, renderer=r), kept=None)


# A field's box kept by what the field, its widget and its form hold (``_field_key``): the box
# its widget and label draw, and never another field's.


def _box_drawn(field: forms.BoundField) -> str:
    """``field``'s box drawn from its widget and label, as the renderer draws a box it does
    not keep by the field."""
    return OURS.render(FormRenderer.field_template_name, renderer_module._box(field))


@pytest.mark.django_db
def test_an_app_forms_boxes_kept_by_their_fields_are_drawn_from_widget_and_label(
    encounter, cast, locale
):
    for form in _app_forms(encounter, cast):
        form.renderer = OURS
        for field in form.visible_fields():
            box = field.as_field_group()
            assert box == _box_drawn(field)
            assert field.as_field_group() == box


class BoxForm(forms.Form):
    text = forms.CharField(label="Name", max_length=10, help_text="Help <b>")
    number = forms.IntegerField(label=LAZY, min_value=1, max_value=9, required=False)
    pick = forms.ChoiceField(label="Pick", choices=CHOICES["strings"])
    check = forms.BooleanField(label="Tick", required=False)
    notes = forms.CharField(label="Notes", widget=forms.Textarea, required=False)


def _set_choices(form: forms.Form, name: str) -> None:
    if hasattr(form.fields[name], "choices"):
        form.fields[name].choices = [("a", "Other")]
    else:
        form.fields[name].widget.attrs["data-choices"] = "x"


BOX_CHANGES = {
    "label": lambda form, name: setattr(form.fields[name], "label", "Other"),
    "help": lambda form, name: setattr(form.fields[name], "help_text", "Other help"),
    "required": lambda form, name: setattr(
        form.fields[name], "required", not form.fields[name].required
    ),
    "disabled": lambda form, name: setattr(form.fields[name], "disabled", True),
    "attrs": lambda form, name: form.fields[name].widget.attrs.update({"data-x": "<1>"}),
    "choices": _set_choices,
    "initial": lambda form, name: form.initial.update({name: "b"}),
    "field-suffix": lambda form, name: setattr(form.fields[name], "label_suffix", " →"),
    "form-suffix": lambda form, name: setattr(form, "label_suffix", "!"),
    "required-class": lambda form, name: setattr(form, "required_css_class", "needed"),
    "auto-id": lambda form, name: setattr(form, "auto_id", "x_%s"),
    "no-id": lambda form, name: setattr(form, "auto_id", False),
    "prefix": lambda form, name: setattr(form, "prefix", "p"),
    "no-required-attribute": lambda form, name: setattr(form, "use_required_attribute", False),
    "widget-template": lambda form, name: setattr(
        form.fields[name].widget, "template_name", "django/forms/widgets/hidden.html"
    ),
}


@pytest.mark.parametrize("name", list(BoxForm.base_fields))
@pytest.mark.parametrize("change", list(BOX_CHANGES.values()), ids=list(BOX_CHANGES))
@pytest.mark.parametrize("bound", [False, True], ids=["unbound", "bound"])
def test_a_box_kept_by_its_field_is_never_another_fields(locale, change, name, bound):
    data = {"text": "Aldric", "number": "3", "pick": "a", "check": "on"}
    make = (lambda: BoxForm(data)) if bound else BoxForm
    form = make()
    form.renderer = OURS
    form.is_valid()
    before = form[name].as_field_group()
    changed = make()
    change(changed, name)
    changed.renderer = OURS
    changed.is_valid()
    box = changed[name].as_field_group()
    assert box == _box_drawn(changed[name])
    assert before == _box_drawn(form[name])


def test_a_box_with_errors_or_of_another_widget_is_drawn_from_widget_and_label():
    form = BoxForm({"text": "x" * 20, "number": "0", "pick": "?"})
    form.renderer = KEPT_ONLY
    assert not form.is_valid()
    for name in ("text", "number", "pick"):
        with pytest.raises(AssertionError, match="drew"):
            form[name].as_field_group()
    radio = BoxForm()
    radio.fields["pick"].widget = forms.RadioSelect(choices=CHOICES["strings"])
    radio.renderer = OURS
    assert radio["pick"].as_field_group() == _box_drawn(radio["pick"])
