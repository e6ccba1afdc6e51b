"""Django's ``makemessages``, which reads the log's Jinja templates (``.jinja``) too.

Django reads its own templates by rewriting each as Python calls of ``gettext`` and its kin
that ``xgettext`` reads (``templatize``), in a ``.py`` file beside it, removed afterwards. A
Jinja template is read the same way: Jinja's i18n extension lists its messages
(``Environment.extract_translations``: every ``{% trans %}`` block, ``_()``, ``gettext()``,
``ngettext()``, ``pgettext()``, ``npgettext()``), each written as that call on the line it
stands on, so a message's place in the catalogue names the template and its line.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages

from combat.jinja import EXTENSION, jinja_env

# What xgettext reads from each of Jinja's gettext calls (Django's keywords for Python):
# the messages, never the count, which is None in what Jinja lists.
_CALLS = {"_": ("gettext", 1), "gettext": ("gettext", 1), "ngettext": ("ngettext", 2)}
_CALLS |= {"pgettext": ("pgettext", 2), "npgettext": ("npgettext", 3)}


def messages_as_python(source: str) -> str:
    """``source`` (a Jinja template) as Python that calls gettext and its kin with each of
    its messages, on the line the message stands on."""
    lines = [""] * (source.count("\n") + 1)
    for line, function, message in jinja_env().extract_translations(source):  # type: ignore[attr-defined]
        name, count = _CALLS[function]
        strings = (message,) if isinstance(message, str | None) else tuple(message)[:count]
        if not all(isinstance(s, str) for s in strings):
            continue  # a message that is not a literal: nothing to translate
        call = f"{name}({', '.join(repr(s) for s in strings)})"
        lines[line - 1] = f"{lines[line - 1]}; {call}" if lines[line - 1] else call
    return "\n".join(lines) + "\n"


class BuildFile(makemessages.BuildFile):
    """A file makemessages reads: a Jinja template as :func:`messages_as_python` writes it."""

    def preprocess(self) -> None:
        if not self.path.endswith(EXTENSION):
            super().preprocess()
            return
        with open(self.path, encoding="utf-8") as handle:
            source = handle.read()
        with open(self.work_path, "w", encoding="utf-8") as handle:
            handle.write(messages_as_python(source))


class Command(makemessages.Command):
    build_file_class = BuildFile

    def handle(self, *args: Any, **options: Any) -> Any:
        if options["domain"] == "django":
            extensions = options["extensions"] or ["html", "txt", "py"]
            options["extensions"] = [*extensions, EXTENSION.lstrip(".")]
        return super().handle(*args, **options)
