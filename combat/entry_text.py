"""What a log entry says, as HTML: which template draws it, and with what.

Every entry is drawn by templates: its first line by ``combat/log/_meta.jinja``; its text by
its kind's template (``combat/log/_<kind>.jinja``: attacks, saves, checks, damage and healing,
corrections, rests, free rolls, undos, a change of system's conversion), its rules system's
(the registry says which: each system's package holds its own), or the round's, hit
locations' and group rolls' (``_log_round.jinja``, ``_zone_log.jinja``, ``_log_group.jinja``).
Each gets the same context: ``entry``, ``d`` (its data, typed: ``combat.payloads``),
``referee``, ``show_numbers``, ``undone_seq``.

They are Jinja2 templates (``templates/jinja2/``, each system's ``jinja2/``), drawn through
Django's Jinja2 backend as Django's engine drew them, byte for byte (``combat.jinja``): every
change draws its entry on the live path once per audience and language, and Django's engine
spent about a quarter of the server's CPU there. Measured on the samples of
``tests/combat/test_log_language.py`` (CPU time per entry, the best of several runs), an
entry's text took about 195 µs with Django's templates and takes about 115 µs with Jinja's, and
its list item (``fray_live.entry_html``) 100 µs and 60 µs. A rules system may still name a
Django template for its log: the name's extension says which engine draws it.

Players see their own numbering (``public_seq``), and of a secret entry only what it did to
what they see. A foe's numbers (how much healing took, hit points corrected from and to) only
for who sees them. A change draws its entry once per language and audience, and the live views
keep what they drew (``combat.templatetags.fray_live.entry_body``).
"""

from __future__ import annotations

import copy
from typing import Any

from combat import payloads, registry
from combat.fragments import tidy
from combat.jinja import render
from combat.models import LogEntry
from combat.unseen import for_players

# The kinds drawn by a template of their own, ``combat/log/_<kind>.jinja``.
KINDS = frozenset(
    {"attack", "save", "check", "damage", "heal", "correct", "rest", "roll", "undo", "convert"}
)


def body_html(entry: LogEntry, *, undone: int | None, referee: bool, show_numbers: bool) -> str:
    """The entry's meta line and text, in the active language."""
    draw = _Drawing(entry, undone=undone, referee=referee, show_numbers=show_numbers)
    return " ".join(part for part in (draw.meta(), *draw.text()) if part)


class _Drawing:
    def __init__(
        self, entry: LogEntry, *, undone: int | None, referee: bool, show_numbers: bool
    ) -> None:
        if not referee:  # what players may read of it (hidden names left out: combat.unseen)
            seen = for_players(entry.data)
            if seen is not entry.data:
                entry = copy.copy(entry)
                entry.data = seen
        self.entry, self.d, self.undone = entry, payloads.read(entry.kind, entry.data), undone
        self.referee, self.show_numbers = referee, show_numbers

    def template(self, name: str, **extra: Any) -> str:
        """``name`` drawn with the entry's context (and ``extra``), its indentation gone."""
        context = {
            "entry": self.entry,
            "undone_seq": self.undone,
            "referee": self.referee,
            "show_numbers": self.show_numbers,
            "d": self.d,
        }
        return tidy(render(name, context | extra))

    def meta(self) -> str:
        return self.template("combat/log/_meta.jinja")

    def text(self) -> list[str]:
        entry, d, kind = self.entry, self.d, self.entry.kind
        if entry.secret and not self.referee:
            # What a secret entry did to what players see, and nothing else.
            return [self.template("combat/log/_secret.jinja")]
        data = entry.data
        drawing = registry.drawing_entry(data) if isinstance(data, dict) else ""
        if drawing:  # a rules system's own entry (the registry says whose)
            return [self.template(drawing)]
        if kind == "attack" and d.get("skipped"):
            return [self.template("combat/_log_group.jinja", part="skipped")]
        if kind in KINDS:
            return [self.template(f"combat/log/_{kind}.jinja")]
        if kind == "zone":
            return [self.template("combat/_zone_log.jinja", part="zone")]
        if kind in ("combat", "initiative", "turn", "morale", "condition"):
            return [self.template("combat/_log_round.jinja")]
        return []
