"""The templates as written, Django's and the log's Jinja ones (``.jinja``): indented for
reading, no line too long to read, and the loaders that strip the indentation again
(``combat.templates_loader``, ``combat.jinja.Loader``) by its rules."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.template import engines
from django.template.loader import get_template, render_to_string

from combat.templates_loader import Loader, strip_indentation

ROOT = Path(__file__).resolve().parents[2]
LONGEST = 200


# A {% translate %} (Jinja: ``{{ _("...") }}``) is one tag, and a template tag never spans
# lines: a line may be longer than LONGEST only for one that is long by itself. (A long
# blocktranslate or trans spans lines with ``trimmed``: both join them with a space, for the
# page and for makemessages.)
MESSAGE = re.compile(r"\{% translate .*?%\}|\{\{ (?:_|gettext|pgettext)\(.*?\) \}\}")
LONG_MESSAGE = 150


def _templates() -> list[Path]:
    return sorted(
        path
        for folder in (ROOT / "templates", ROOT / "combat")
        for pattern in ("*.html", "*.jinja")
        for path in folder.rglob(pattern)
    )


def test_the_scans_read_the_log_s_jinja_templates_too():
    names = {path.name for path in _templates()}
    assert {"_attack.jinja", "_entry.jinja", "_special_log.jinja", "_round.html"} <= names


def test_django_templates_never_use_jinja_s_trans_tag():
    """The loader reads a ``{% trans %}`` as Jinja's, as written to its ``{% endtrans %}``:
    Django's templates say ``{% translate %}``, its other name."""
    old_name = re.compile(r"\{%\s*trans\s")
    django = [p for p in _templates() if p.suffix == ".html"]
    assert [p.name for p in django if old_name.search(p.read_text(encoding="utf-8"))] == []


def _too_long(line: str) -> bool:
    if len(line) <= LONGEST:
        return False
    return not any(len(m.group(0)) > LONG_MESSAGE for m in MESSAGE.finditer(line))


def test_no_template_line_is_longer_than_200_characters():
    """Indented templates, an element or tag a line where it helps: no line too long to read,
    but for a long message, which cannot be broken."""
    long = [
        f"{path.relative_to(ROOT)}:{number}: {len(line)}"
        for path in _templates()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _too_long(line)
    ]
    assert long == []


def test_lines_long_for_their_message_are_few():
    long = [
        line
        for path in _templates()
        for line in path.read_text(encoding="utf-8").splitlines()
        if len(line) > LONGEST
    ]
    assert len(long) <= 10


@pytest.mark.parametrize(
    ("written", "loaded"),
    [
        # Indentation goes; two tags on two lines touch.
        ("<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n", "<ul><li>a</li><li>b</li></ul>\n"),
        (
            "<p>\n  {% if x %}\n    <b>y</b>\n  {% endif %}\n</p>",
            "<p>{% if x %}<b>y</b>{% endif %}</p>",
        ),
        # A comment is a tag too: it joins as one.
        ("<div>\n  {# why #}\n  <p>a</p>\n</div>", "<div>{# why #}<p>a</p></div>"),
        (
            "{% load i18n %}\n{# why #}\n{% translate 'a' %}",
            "{% load i18n %}{# why #}{% translate 'a' %}",
        ),
        # Text keeps its line breaks, which are spaces: beside a tag, between words.
        ("<p>\n  Hello\n</p>", "<p>\nHello\n</p>"),
        ("<p>Some words\n   and more</p>", "<p>Some words\nand more</p>"),
        ("<a>x</a>,\n<a>y</a>", "<a>x</a>,\n<a>y</a>"),
        # A variable is markup too: "Aldric, Nim", not "Aldric , Nim".
        ("<td>\n  {{ name }}\n</td>", "<td>{{ name }}</td>"),
        (
            "{% for n in ns %}\n  {{ n }}\n  {% if not forloop.last %}, {% endif %}\n{% endfor %}",
            "{% for n in ns %}{{ n }}{% if not forloop.last %}, {% endif %}{% endfor %}",
        ),
        # Words beside a variable keep their line break, which is a space.
        ("{% translate 'Fell' %}:\n{{ who }}", "{% translate 'Fell' %}:\n{{ who }}"),
        ("{{ a }}\nand more", "{{ a }}\nand more"),
        # A blocktranslate's lines are its message id, as makemessages reads the file: as
        # written (trimmed, Django joins them with a space, for both).
        (
            "<p>\n  {% blocktranslate trimmed %}\n    Two\n    lines{% endblocktranslate %}\n</p>",
            "<p>{% blocktranslate trimmed %}\n    Two\n    lines{% endblocktranslate %}</p>",
        ),
        (
            "<p>{% blocktranslate %}<b>a</b>\n<i>b</i>{% endblocktranslate %}</p>",
            "<p>{% blocktranslate %}<b>a</b>\n<i>b</i>{% endblocktranslate %}</p>",
        ),
        (
            "{% blocktranslate %}one line{% endblocktranslate %}\n<p>x</p>",
            "{% blocktranslate %}one line{% endblocktranslate %}<p>x</p>",
        ),
        # Inline elements on one line keep the space between them; on two lines they touch.
        ('<a class="b">x</a> <a class="b">y</a>', '<a class="b">x</a> <a class="b">y</a>'),
        ("<span>a</span>\n<span>b</span>", "<span>a</span><span>b</span>"),
        # Inside a tag, a line break between attributes is the one space it stands for; an
        # attribute an {% if %} adds starts the line after that tag.
        ('<a href="x"\n   class="y">z</a>', '<a href="x" class="y">z</a>'),
        (
            '<section id="r"{% if oob %}\n    hx-swap-oob="true"{% endif %}\n    role="status">',
            '<section id="r"{% if oob %} hx-swap-oob="true"{% endif %} role="status">',
        ),
        (
            '<div hx-select="#p > *"\n    class="x">\n  <p>a</p>',
            '<div hx-select="#p > *" class="x"><p>a</p>',
        ),
        ("<p>a > b\n  and c</p>", "<p>a > b\nand c</p>"),
        # Blank lines go; trailing spaces stay (a line ending in a space keeps its break).
        ("<div>\n\n  <p>a</p>\n   \n</div>", "<div><p>a</p></div>"),
        ("<b>a</b> \n<b>c</b>", "<b>a</b> \n<b>c</b>"),
        # <pre>, <textarea>, <script> and <style> keep their lines as written.
        (
            "<div>\n  <pre>\n  a\n    b\n  </pre>\n  <p>c</p>\n</div>",
            "<div><pre>\n  a\n    b\n  </pre><p>c</p></div>",
        ),
        (
            "<form>\n  <textarea name=t>\n  x\n</textarea>\n</form>",
            "<form><textarea name=t>\n  x\n</textarea></form>",
        ),
        (
            "<div>\n  <pre>one line</pre>\n  <p>c</p>\n</div>",
            "<div><pre>one line</pre><p>c</p></div>",
        ),
        (
            "<script>\n  if (a <\n    b) {}\n</script>\n<p>x</p>",
            "<script>\n  if (a <\n    b) {}\n</script><p>x</p>",
        ),
        ("<style>\n  p > b {}\n</style>", "<style>\n  p > b {}\n</style>"),
        # The last line break is the template's: kept, as an include's output ends with it.
        ("{% if a %}\n  x\n{% endif %}\n", "{% if a %}\nx\n{% endif %}\n"),
        ("<p>x</p>", "<p>x</p>"),
        ("", ""),
    ],
)
def test_the_loader_strips_indentation_by_its_rules(written, loaded):
    assert strip_indentation(written) == loaded


def test_a_long_message_spans_lines_with_trimmed_and_keeps_its_id():
    written = (
        "{% load i18n %}<p>\n  {% blocktranslate trimmed count n=n %}\n    {{ n }} round,"
        "\n    at last\n  {% plural %}\n    {{ n }} rounds,\n    at last\n"
        "  {% endblocktranslate %}\n</p>"
    )
    template = engines["django"].from_string(strip_indentation(written))
    assert template.render({"n": 2}) == "<p>2 rounds, at last</p>"


def test_a_loaded_template_renders_as_if_written_on_one_line():
    template = engines["django"].from_string(
        strip_indentation("<ul>\n  {% for x in xs %}\n    <li>{{ x }}</li>\n  {% endfor %}\n</ul>")
    )
    assert template.render({"xs": ["a", "b"]}) == "<ul><li>a</li><li>b</li></ul>"


def _text(html: str) -> str:
    """What a reader gets of inline HTML: its words, spaced as a browser spaces them."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def test_words_and_inline_elements_keep_the_spaces_between_them():
    """Where a line break used to make the space between two inline elements, the
    indented template writes it: a seat's name and its button, a monster's entries, a file
    field and its button."""
    seat = SimpleNamespace(pk=1, name="Anna")
    encounter = SimpleNamespace(slug="s")
    rows = [{"seat": seat, "plays": [], "offer": []}]
    context = {"seats": [seat], "seat_rows": rows, "encounter": encounter}
    seats = render_to_string("combat/_seats.html", context)
    assert "Anna</strong> <form" in seats
    rows = [{"seat": seat, "plays": ["Aldric", "Nim"], "offer": [(3, "Brina", None)]}]
    seats = render_to_string("combat/_seats.html", context | {"seat_rows": rows})
    assert "Anna</strong> <span" in seats and "Aldric, Nim</span> <form" in seats
    assert "</form> <form" in seats
    brute = SimpleNamespace(pk=7, movement="90 ft", xp=65, special_notes="Hates light.")
    viewer = SimpleNamespace(is_referee=True)
    context = {"combatant": brute, "controlled_ids": {7}, "viewer": viewer}
    row = render_to_string("combat/_monster_row.html", context)
    assert _text(row) == "MV 90 ft XP 65 Hates light."
    form = render_to_string("combat/_transfer_import.html", {})
    assert "</label> <button" in form


def test_fray_s_templates_are_loaded_stripped_and_only_fray_s():
    cached = engines["django"].engine.template_loaders[0]
    ours, theirs = cached.loaders
    assert isinstance(ours, Loader) and not isinstance(theirs, Loader)
    folders = [Path(folder) for folder in ours.get_dirs()]
    assert ROOT / "templates" in folders
    assert ROOT / "combat" / "systems" / "becmi" / "templates" in folders
    assert all(
        folder.is_relative_to(ROOT / "templates") or folder.is_relative_to(ROOT / "combat")
        for folder in folders
    )
    for name in ("combat/_round.html", "becmi/_odds.html"):
        template = get_template(name).template
        written = Path(template.origin.name).read_text(encoding="utf-8")
        assert template.source == strip_indentation(written)


@pytest.mark.parametrize(
    ("name", "as_written"),
    [
        ("combat/_log_round.jinja", False),
        ("becmi/_special_log.jinja", False),
        ("combat/log/_attack.jinja", True),  # written for combat.fragments.tidy
        ("dolmenwood/_log_attack.jinja", True),  # extends it
    ],
)
def test_the_log_s_jinja_templates_are_read_by_the_same_rules(name, as_written):
    env = engines["jinja2"].env
    source, filename, _ = env.loader.get_source(env, name)
    written = Path(filename).read_text(encoding="utf-8")
    assert source == (written if as_written else strip_indentation(written))


def test_a_trans_block_over_several_lines_is_kept_as_written():
    """Jinja's blocktranslate: its lines are its message id, as makemessages reads it."""
    written = (
        "<p>\n  {% trans trimmed n=n %}\n    {{ n }} round,\n    at last\n  {% endtrans %}\n</p>"
    )
    loaded = "<p>{% trans trimmed n=n %}\n    {{ n }} round,\n    at last\n  {% endtrans %}</p>"
    assert strip_indentation(written) == loaded
    assert engines["jinja2"].from_string(loaded).render({"n": 2}) == "<p>2 round, at last</p>"
