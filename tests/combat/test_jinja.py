"""The log's Jinja environment (``combat.jinja``) draws as Django's engine does: values
localized and escaped alike, missing values empty, Django's filters and simple tags by their
names, messages by the same ids; and every ``.jinja`` template compiles."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import jinja2
import pytest
from django import template
from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from combat import jinja
from combat.management.commands.makemessages import messages_as_python

ROOT = Path(__file__).resolve().parents[2]


def _jinja_templates() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.jinja") if ".venv" not in p.parts)


def _draw(source: str, **context: object) -> str:
    return jinja.jinja_env().from_string(source).render(context)


def _django(source: str, **context: object) -> str:
    return engines["django"].from_string(source).render(context)


def test_every_jinja_template_compiles():
    env = jinja.jinja_env()
    templates = _jinja_templates()
    assert len(templates) >= 30
    for path in templates:
        env.from_string(path.read_text(encoding="utf-8"))  # a syntax error raises


def test_every_project_jinja_template_is_found_by_its_name():
    env = jinja.jinja_env()
    names = [
        str(path.relative_to(folder))
        for path in _jinja_templates()
        for folder in path.parents
        if folder.name == "jinja2" and "toy_system" not in path.parts
    ]
    assert "combat/log/_attack.jinja" in names and "becmi/_special_log.jinja" in names
    for name in names:
        env.get_template(name)


VALUES = [
    2.5,
    Decimal("1234.5"),
    1234567,
    -3,
    0,
    True,
    None,
    'Mi\'rek "&" <b>',
    mark_safe("<b>bold</b>"),
]


@pytest.mark.parametrize("thousands", [False, True])
@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_a_value_is_written_as_django_writes_it(settings, language, thousands):
    """Localized (a Czech decimal comma, thousands separated when the settings say so) and
    escaped with Django's escaping, in ``{{ }}`` and in a translated message."""
    settings.USE_THOUSAND_SEPARATOR = thousands
    with translation.override(language):
        for value in VALUES:
            expected = _django("{{ x }}", x=value)
            assert _draw("{{ x }}", x=value) == expected, value
            assert _draw("{% trans x=x %}[{{ x }}]{% endtrans %}", x=value) == f"[{expected}]"
    with translation.override("cs"):
        assert _draw("{{ x }}", x=2.5) == "2,5"


def test_a_missing_value_is_empty_and_none_as_in_django():
    assert _draw("[{{ d.a.b }}]", d={}) == _django("[{{ d.a.b }}]", d={}) == "[]"
    source = "{% if d.table is none %}none{% else %}set{% endif %}"
    assert _draw(source, d={}) == "none"
    assert _draw(source, d={"table": None}) == "none"
    assert _draw(source, d={"table": 0}) == "set"
    assert _draw("{{ d.x|default('-', true) }}", d={"x": ""}) == "-"


def test_django_s_filters_and_simple_tags_are_there_but_jinja_s_own_win():
    env = jinja.jinja_env()
    assert env.filters["default"] is jinja2.filters.do_default
    assert env.filters["join"] is jinja2.filters.do_join
    # Django's, and the project's and each rules system's, from their templatetags.
    for name in ("force_escape", "floatformat", "signed", "zone_effects", "dw_weapon_label"):
        assert name in env.filters
    for name in ("roll_line", "die_source", "mods", "system_roll_line"):
        assert name in env.django_tags
    assert _draw("{{ x|force_escape }}", x="a'b") == _django("{{ x|force_escape }}", x="a'b")
    assert _draw("{{ x|signed }}", x=2) == "+2"


def test_a_simple_tag_that_takes_the_context_gets_jinja_s():
    library = template.Library()

    @library.simple_tag(takes_context=True)
    def greet(context, word):
        return f"{word}, {context['name']}"

    @library.simple_tag
    def shout(word):
        return word.upper()

    @library.inclusion_tag("combat/_entry_notice.html")
    def notice():
        return {}

    tags = {name: jinja._simple_tag(compiled) for name, compiled in library.tags.items()}
    assert tags["notice"] is None  # an inclusion tag draws a template: not a function
    env = jinja.jinja_env().overlay()
    env.globals.update(greet=tags["greet"], shout=tags["shout"])
    drawn = env.from_string("{{ greet('Hi') }} {{ shout('a') }}").render({"name": "Zora"})
    assert drawn == "Hi, Zora A"


def test_a_template_is_drawn_by_the_engine_its_name_says():
    """A rules system may name a Django template for its log, or a Jinja one."""
    context = {"referee": True}
    assert jinja.render("combat/_entry_notice.html", context) == render_to_string(
        "combat/_entry_notice.html", context
    )
    drawn = jinja.render("combat/log/_success.jinja", {"r": {"success": True}, "note": "n"})
    assert '<div class="outcome success">Success · n</div>' in drawn


def test_makemessages_reads_a_jinja_template_s_messages_on_their_lines():
    source = (
        "{{ _('Hit!') }}\n"
        "{% trans who=d.who %}{{ who }} is dead.{% endtrans %}\n"
        "{% trans x=d.x %}a {{ x }}% chance{% endtrans %}\n"
        "{% trans trimmed n=d.n %}\n  {{ n }} day\n{% pluralize n %}\n"
        "  {{ n }} days\n{% endtrans %}\n"
        "{{ pgettext('die letter', 'd') }}{{ _(name) }}\n"
    )
    lines = messages_as_python(source).split("\n")
    assert lines[0] == "gettext('Hit!')"
    assert lines[1] == "gettext('%(who)s is dead.')"
    assert lines[2] == "gettext('a %(x)s%% chance')"  # as Django's blocktranslate stores it
    assert lines[3] == "ngettext('%(n)s day', '%(n)s days')"
    assert lines[8] == "pgettext('die letter', 'd')"  # a message that is a name: none


def test_a_roll_without_a_total_is_a_miss_as_django_drew_it():
    """Django's ``{% if None < 12 %}`` is false; Jinja would raise: the template asks first."""
    from combat.templatetags.roll_lines import hit_outcome

    drawn = hit_outcome({"needed": 12, "total": None, "success": False})
    assert '<div class="outcome failure">Miss.</div>' in drawn
