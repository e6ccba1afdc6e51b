"""The log's template engine: Jinja2, through Django's own backend (``TEMPLATES``' second).

Every change draws its new log entry once per audience and language (the referee, players, in
four languages), on the live path; Django's template engine spent about a quarter of the
server's CPU drawing them. Jinja2 compiles a template to Python and draws the same entry in a
fraction of the time (measured: see ``combat.entry_text``), so the log's templates are Jinja's
(``.jinja``, in ``templates/jinja2/`` and each rules system's ``jinja2/`` folder), and every
other template stays Django's.

The environment (:func:`environment`) draws them as Django would have:

* ``{{ value }}`` is localized and escaped as Django's ``{{ }}`` (``finalize``: a Czech
  decimal comma, Django's escaping); a missing value is "" (``ChainableUndefined``), and
  ``is none`` holds for it as Django's ``is None`` does;
* ``{% trans %}`` is Django's ``blocktranslate``: the same message ids, Django's catalogues
  (``gettext``/``ngettext``/``pgettext``/``npgettext``, new style), its values localized
  and escaped alike;
* every installed Django template library's filters and simple tags are there, by their
  names (a rules system's own, from its ``templatetags``, too, unnamed here), but for a name
  Jinja has already (``default``, ``join``, ``length``...: Jinja's own); a tag whose first
  parameter is ``context`` gets the template's context. ``url`` is Django's ``reverse``;
* templates are read as ``combat.templates_loader`` reads Django's: indentation stripped, but
  those written for ``combat.fragments.tidy`` (``as_written``).

:func:`render` draws a template by its name's extension: ``.jinja`` by Jinja, anything else
by Django (a rules system may name either for its log).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any

import jinja2
from django.conf import settings
from django.template import engines
from django.template.library import Library
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, SafeString, mark_safe
from markupsafe import Markup

from combat.templates_loader import as_written, strip_indentation

EXTENSION = ".jinja"


def shown(value: Any) -> Any:
    """``value`` as Django's ``{{ value }}`` writes it: localized, then escaped (Django's
    escaping: the same bytes as its templates)."""
    kind = type(value)
    if kind is str:  # the common cases first: a name, a number without separators
        return SafeString(html.escape(value))
    if kind is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    value = localize(value)
    if not isinstance(value, str):
        value = str(value)
    return conditional_escape(value)


def _shown(values: dict[str, Any]) -> dict[str, Any]:
    return {name: shown(value) for name, value in values.items()}


# Jinja's new-style gettext callables, over Django's catalogues: the message is translated,
# then filled with its values as Django's blocktranslate fills them (:func:`shown`), the
# message's own text not escaped (Django's neither). Jinja's own wrappers do the same with
# its escaping, one call deeper.
def gettext(message: str, **values: Any) -> Markup:
    return Markup(translation.gettext(message) % _shown(values))


def ngettext(singular: str, plural: str, number: int, **values: Any) -> Markup:
    values.setdefault("num", number)
    return Markup(translation.ngettext(singular, plural, number) % _shown(values))


def pgettext(context: str, message: str, **values: Any) -> Markup:
    values.setdefault("context", context)
    return Markup(translation.pgettext(context, message) % _shown(values))


def npgettext(context: str, singular: str, plural: str, number: int, **values: Any) -> Markup:
    values.setdefault("context", context)
    values.setdefault("num", number)
    return Markup(translation.npgettext(context, singular, plural, number) % _shown(values))


class Loader(jinja2.FileSystemLoader):
    """Jinja's filesystem loader, each template's indentation stripped as it is read, as
    ``combat.templates_loader`` reads Django's (but those it reads as written)."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        source, filename, uptodate = super().get_source(environment, template)
        return (source if as_written(template) else strip_indentation(source)), filename, uptodate


class Environment(jinja2.Environment):
    """Jinja's environment, each template's globals one plain dict: Jinja's own are a chain
    of the template's over the environment's, which every template and include it draws
    copies key by key into its context (a chain iterates slowly; the live path draws a few
    of them per audience and change). The environment's globals are all set before any
    template loads, so a copy misses nothing."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}


class Context(jinja2.runtime.Context):
    """Jinja's template context, which finds the Django libraries' simple tags after the
    template's values and the globals: they are kept apart from the globals, which Jinja
    copies into the context of every template and include it draws."""

    def resolve_or_missing(self, key: str) -> Any:
        value = super().resolve_or_missing(key)
        if value is jinja2.utils.missing:
            return self.environment.django_tags.get(key, value)  # type: ignore[attr-defined]
        return value


def _is_none(value: Any) -> bool:
    """Django's ``is None``: a missing value is None."""
    return value is None or isinstance(value, jinja2.Undefined)


def _filter(function: Callable[..., Any]) -> Callable[..., Any]:
    """A Django filter as Jinja calls it: with ``autoescape`` when it asks, its output safe
    when it keeps safe input safe (``is_safe``), as Django's engine does."""
    needs_autoescape = getattr(function, "needs_autoescape", False)
    is_safe = getattr(function, "is_safe", False)
    if not needs_autoescape and not is_safe:
        return function

    def call(value: Any, *args: Any) -> Any:
        out = (
            function(value, *args, autoescape=True) if needs_autoescape else function(value, *args)
        )
        if is_safe and isinstance(value, SafeData) and isinstance(out, str):
            return mark_safe(out)
        return out

    return call


def _simple_tag(compiled: Callable[..., Any]) -> Callable[..., Any] | None:
    """The function behind a Django ``simple_tag`` (its compile function wraps it), or None
    for a tag of another kind."""
    function = getattr(compiled, "__wrapped__", None)
    made_by = getattr(getattr(compiled, "__code__", None), "co_qualname", "")
    if function is None or not made_by.startswith("Library.simple_tag."):
        return None
    code = getattr(function, "__code__", None)
    if code is not None and code.co_argcount and code.co_varnames[0] == "context":

        @jinja2.pass_context
        def with_context(context: jinja2.runtime.Context, *args: Any, **kwargs: Any) -> Any:
            return function(context, *args, **kwargs)

        return with_context
    return function


def _libraries() -> Iterator[Library]:
    """Django's built-in template libraries, then every installed one (the project's and
    each rules system's ``templatetags``)."""
    engine = engines["django"].engine  # type: ignore[attr-defined]
    yield from engine.template_builtins
    yield from engine.template_libraries.values()


def django_filters_and_tags() -> tuple[dict[str, Any], dict[str, Any]]:
    """Every installed Django library's filters and simple tags, by name."""
    filters: dict[str, Any] = {}
    tags: dict[str, Any] = {}
    for library in _libraries():
        for name, function in library.filters.items():
            filters[name] = _filter(function)
        for name, compiled in library.tags.items():
            function = _simple_tag(compiled)
            if function is not None:
                tags[name] = function
    return filters, tags


def url(name: str, *args: Any, **kwargs: Any) -> str:
    """Django's ``{% url %}``."""
    return reverse(name, args=args or None, kwargs=kwargs or None)


def environment(**options: Any) -> jinja2.Environment:
    """The log's Jinja environment (``TEMPLATES``' Jinja2 backend builds it): see the
    module's docstring."""
    folders = options.pop("loader").searchpath
    env = Environment(
        **options
        | {
            "loader": Loader(folders),
            "autoescape": True,
            "undefined": jinja2.ChainableUndefined,
            "finalize": shown,
            "keep_trailing_newline": True,  # as Django: an include ends with its line break
            "extensions": ["jinja2.ext.i18n"],
        }
    )
    # New style: a {% trans %} block's values go to the gettext call, which fills them in.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext,
        translation.ngettext,
        newstyle=True,
        pgettext=translation.pgettext,
        npgettext=translation.npgettext,
    )
    # ...by Django's rules (this module's gettext and its kin), and ``_`` is gettext itself.
    env.globals.update(
        gettext=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext, _=gettext
    )
    env.tests["none"] = _is_none
    filters, tags = django_filters_and_tags()
    env.filters.update({k: v for k, v in filters.items() if k not in env.filters})
    env.globals.setdefault("url", url)
    env.extend(django_tags={k: v for k, v in tags.items() if k not in env.globals})
    env.context_class = Context
    return env


def jinja_env() -> jinja2.Environment:
    return engines["jinja2"].env  # type: ignore[attr-defined,no-any-return]


def render(name: str, context: Mapping[str, Any]) -> str:
    """The template ``name`` drawn with ``context``: by Jinja for a ``.jinja`` one, else by
    Django's engine."""
    if name.endswith(EXTENSION):
        return jinja_env().get_template(name).render(context)
    return render_to_string(name, dict(context))
