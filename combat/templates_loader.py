"""A template loader that drops the indentation Fray's templates are written with.

Templates are indented for whoever reads them; the browser and the wire need none of it, and
whitespace between inline elements shows ("Aldric , Nim"). So, when a template is loaded
(once per process: the cached loader keeps the compiled result), ``strip_indentation``:

* removes each line's leading spaces and tabs, and every blank line;
* joins a line that ends with a tag to the next when that one starts with a tag, with
  nothing between them. A tag is markup: an HTML tag (``<…>``), a template tag (``{% … %}``),
  a variable (``{{ … }}``) or a comment (``{# … #}``). So ``{{ name }}`` / ``{% if not
  forloop.last %}, {% endif %}`` on two lines write "Aldric, Nim", not "Aldric , Nim";
* writes a line break between two attributes of an HTML tag as the one space it stands for
  (an attribute that an ``{% if %}`` adds starts on a line of its own after that tag:
  ``…"{% if oob %}`` / ``hx-swap-oob="true"{% endif %}>``);
* keeps every other line break, where it stands for a space: between words, between a tag
  and text;
* leaves the lines inside ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>`` as written,
  and those of a ``{% blocktranslate %}`` that spans lines: its text is its message id, which
  ``makemessages`` reads from the file as it is (``trimmed`` joins its lines, for both);
* keeps the template's last line break.

So two elements written on two lines touch, and words on a line of their own are spaced from
their neighbours: an element that needs a space before the next one keeps both on one line,
or writes the space where it is meant (``</a>, <a``). A template tag cannot span lines (it
is Django's rule); a long ``{% blocktranslate %}`` can, with ``trimmed``.

Only the project's own templates are read this way (the DIRS and the template folders of the
``combat`` apps); third-party apps' templates are read as they are, by Django's loader after
this one. The log's Jinja templates (``combat.jinja``) are read by the same rules, those
written for ``combat.fragments.tidy`` as written too (:func:`as_written`); Jinja's
blocktranslate, ``{% trans %}``, spanning lines is kept as a ``{% blocktranslate %}`` is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.apps import apps
from django.template import Origin
from django.template.loaders import filesystem

TAG_ENDS = ("%}", "}}", "#}", ">")
TAG_STARTS = ("{%", "{{", "{#", "<")
# Written as they are, line by line: the text of elements shown (or run) as written, and a
# blocktranslate's, which is its message id as makemessages reads it from the file (with
# ``trimmed``, Django joins its lines; without, their line breaks are in it).
_RAW_OPEN = re.compile(
    r"<(?P<element>pre|textarea|script|style)\b|\{%\s*(?P<tag>blocktrans(?:late)?|trans)\b",
    re.IGNORECASE,
)
_INDENT = " \t"


def _closing(raw: str) -> re.Pattern[str]:
    if raw.startswith("blocktrans"):
        return re.compile(r"\{%\s*endblocktrans(?:late)?\s*%\}")
    if raw == "trans":  # Jinja's blocktranslate (combat.jinja)
        return re.compile(r"\{%\s*endtrans\s*%\}")
    return re.compile(rf"</{raw}\s*>", re.IGNORECASE)


def _raw_after(line: str, raw: str | None) -> str | None:
    """The raw part still open after ``line`` (``raw``: the one open before it)."""
    position = 0
    while True:
        if raw is not None:
            close = _closing(raw).search(line, position)
            if close is None:
                return raw
            raw, position = None, close.end()
        opened = _RAW_OPEN.search(line, position)
        if opened is None:
            return None
        raw, position = (opened.group("element") or opened.group("tag")).lower(), opened.end()


_MARKUP = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}")


def _in_tag_after(line: str, inside: bool) -> bool:
    """Whether ``line`` ends inside an HTML tag, between its attributes (``inside``: it
    started inside one)."""
    position, quote = 0, ""
    while position < len(line):
        markup = _MARKUP.match(line, position)
        if markup:
            position = markup.end()
            continue
        char = line[position]
        if quote:
            quote = "" if char == quote else quote
        elif inside and char in "\"'":
            quote = char
        elif char == "<" and line[position + 1 : position + 2].isalpha():
            inside = True
        elif char == ">":
            inside = False
        position += 1
    return inside and not quote


def strip_indentation(source: str) -> str:
    """``source`` without its indentation, by the rules of this module's docstring."""
    body, ending = (source[:-1], "\n") if source.endswith("\n") else (source, "")
    out: list[str] = []
    raw: str | None = None
    joinable = False  # the last line kept ends with a tag, outside a raw element
    in_tag = False  # ...or it ends between the attributes of an HTML tag
    for line in body.split("\n"):
        if raw is not None:  # inside a raw element: as written, its line break too
            out.append("\n" + line)
            raw = _raw_after(line, raw)
            joinable = raw is None and line.endswith(TAG_ENDS)
            continue
        text = line.lstrip(_INDENT)
        if not text.strip():
            continue
        if out and not (joinable and text.startswith(TAG_STARTS)):
            out.append(" " if in_tag else "\n")
        out.append(text)
        raw = _raw_after(text, None)
        joinable = raw is None and text.endswith(TAG_ENDS)
        in_tag = raw is None and _in_tag_after(text, in_tag)
    return "".join(out) + ending


def own_template_dirs() -> list[Path]:
    """The template folders of Fray's own apps (``combat`` and its rules systems)."""
    return [
        Path(app.path) / "templates"
        for app in apps.get_app_configs()
        if (app.name == "combat" or app.name.startswith("combat."))
        and (Path(app.path) / "templates").is_dir()
    ]


# Templates written for whoever draws them with one space between tags (``combat.fragments.tidy``:
# log entries and rows) or for Django's form renderer: read as written, their line breaks being
# where that space goes.
AS_WRITTEN = ("combat/log/", "combat/forms/", "django/forms/", "combat/_combatant.html")
# A rules system's attack, extending combat/log/'s.
AS_WRITTEN_ENDINGS = ("/_log_attack.html", "/_log_attack.jinja")


def as_written(name: str) -> bool:
    return name.startswith(AS_WRITTEN) or name.endswith(AS_WRITTEN_ENDINGS)


class Loader(filesystem.Loader):
    """Django's filesystem loader over the project's folders (``DIRS``) and its own apps'
    template folders, each template's indentation stripped as it is read (but those
    :data:`AS_WRITTEN`)."""

    def get_dirs(self) -> list[Any]:
        return [*super().get_dirs(), *own_template_dirs()]

    def get_contents(self, origin: Origin) -> str:
        source = super().get_contents(origin)
        return source if as_written(origin.template_name or "") else strip_indentation(source)
