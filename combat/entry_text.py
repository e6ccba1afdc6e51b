"""What a log entry says, as HTML: the B/X kinds drawn here, the other systems' by templates.

Every change draws its new entry once per language and audience that sees it (the referee;
players in each language), so the common kinds (attacks, saves, checks, damage and healing,
rests, free rolls, undos) are written in Python; the rarer ones keep their templates
(``templates/dolmenwood/_log.html``, ``_becmi_log.html``, ``_becmi_special_log.html``,
``_zone_log.html``, ``_log_group.html``, ``_log_round.html``), which get the same context the
entry's template gave them.

Players see their own numbering (``public_seq``), and of a secret entry only what it did to
what they see. A foe's numbers (how much healing took, hit points corrected from and to) only
for who sees them. The message ids are the ones the templates used, so the catalogues are
unchanged; values are escaped as the template engine escapes them, translations are not (a
translator's text is trusted, as ``{% blocktranslate %}`` trusts it).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext, ngettext, pgettext

from combat import registry
from combat.models import LogEntry
from combat.templatetags.fray import ability_label, dice_notation, save_label
from combat.templatetags.roll_lines import die_source, hit_outcome, less, mods, roll_line, shown
from combat.unseen import for_players


class _Missing:
    """A key the entry's data lacks: prints as nothing and is false, as in a template."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return ""


MISSING: Any = _Missing()


def _at(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return MISSING
        data = data.get(key, MISSING)
    return data


def _p(value: Any) -> str:
    """A value as ``{{ value }}`` prints it (numbers never localized in the log)."""
    return "" if value is MISSING else shown(value)


def _e(translated: str) -> str:
    """A translation as ``{% translate %}`` prints it: escaped."""
    return shown(translated)


def _f(translated: str, **values: Any) -> str:
    """A translation as ``{% blocktranslate with ... %}`` prints it: as it is, its values
    escaped. (Each message is written out in a ``gettext`` call, where ``makemessages``
    finds it.)"""
    return translated % {name: _p(value) for name, value in values.items()}


def _count(count: Any) -> int | float:
    """A plural's count; one the data lacks counts as none (the template refused it)."""
    return count if isinstance(count, int | float) else 0


def _notation(expression: Any) -> str:
    """A dice expression the language's way (1d6, 1k6, 1к6)."""
    return _p(dice_notation("" if expression is MISSING else expression))


def _joined(items: Any) -> str:
    if not isinstance(items, list | tuple):
        return _p(items)
    return ", ".join(_p(item) for item in items)


def _dead(who: Any) -> str:
    said = _f(gettext("%(who)s is dead."), who=who)
    return f'<div class="outcome failure">{said}</div>'


def _dead_target(target: Any) -> str:
    said = _f(gettext("%(target)s is dead."), target=target)
    return f'<div class="outcome failure">{said}</div>'


def _alive(who: Any) -> str:
    said = _f(gettext("%(who)s is alive again."), who=who)
    return f'<div class="outcome success">{said}</div>'


def _fate(who: Any, data: Any) -> list[str]:
    """Whether a change killed its combatant or brought it back."""
    said = []
    if _at(data, "killed"):
        said.append(_dead(who))
    if _at(data, "revived"):
        said.append(_alive(who))
    return said


def _took(who: Any, amount: Any) -> str:
    n = _count(amount)
    said = ngettext(
        "%(who)s takes %(amount)s point of damage", "%(who)s takes %(amount)s points of damage", n
    )
    return _f(said, who=who, amount=n)


def _healed(who: Any, amount: Any) -> str:
    n = _count(amount)
    said = ngettext(
        "%(who)s is healed by %(amount)s hit point", "%(who)s is healed by %(amount)s hit points", n
    )
    return _f(said, who=who, amount=n)


def _success(roll: Any) -> str:
    success = _at(roll, "success")
    kind = "success" if success else "failure"
    said = gettext("Success") if success else gettext("Failure")
    return f'<div class="outcome {kind}">{_e(said)}'


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
        self.entry, self.d, self.undone = entry, entry.data, undone
        self.referee, self.show_numbers = referee, show_numbers

    def template(self, name: str, **extra: Any) -> str:
        """One of the other kinds' templates, with the context the entry's template gave."""
        context = {
            "entry": self.entry,
            "undone_seq": self.undone,
            "referee": self.referee,
            "show_numbers": self.show_numbers,
            "d": self.d,
        }
        return render_to_string(name, context | extra).strip()

    def meta(self) -> str:
        entry, referee = self.entry, self.referee
        parts = [f'<span class="seq">#{_p(entry.seq if referee else entry.public_seq)}</span>']
        if referee or not entry.secret:
            who = _e(gettext("Referee")) if entry.by_referee else _p(entry.actor)
            parts.append(f'<span class="who">{who}</span>')
        if referee and entry.secret:
            secret = _e(gettext("secret"))
            parts.append(f'<span class="badge">{secret}</span>')
        if _at(self.d, "group"):
            parts.append(self.template("combat/_log_group.html", part="badge"))
        if self.undone:
            said = (
                _f(gettext("undone by #%(seq)s"), seq=self.undone)
                if referee
                else _e(gettext("undone"))
            )
            parts.append(f'<span class="badge">{said}</span>')
        return f'<div class="meta"> {" ".join(part for part in parts if part)} </div>'

    def text(self) -> list[str]:
        entry, d, kind = self.entry, self.d, self.entry.kind
        if entry.secret and not self.referee:
            return self.secret()
        drawing = registry.drawing_entry(d) if isinstance(d, dict) else ""
        if drawing:  # a rules system's own entry (the registry says whose)
            return [self.template(drawing)]
        if kind == "attack" and _at(d, "skipped"):
            return [self.template("combat/_log_group.html", part="skipped")]
        drawn = _KINDS.get(kind)
        if drawn is not None:
            return drawn(self)
        if kind == "zone":
            return [self.template("combat/_zone_log.html", part="zone")]
        if kind in ("combat", "initiative", "turn", "morale", "condition"):
            return [self.template("combat/_log_round.html")]
        return []

    def secret(self) -> list[str]:
        """What a secret entry did to what players see, and nothing else."""
        parts = []
        public = _at(self.d, "public")
        for change in public if isinstance(public, list) else ():
            who, amount = _at(change, "who"), _at(change, "amount")
            said = _took(who, amount) if less(_at(change, "hp"), 0) else _healed(who, amount)
            parts += [f'<div class="what">{said}</div>', *_fate(who, change)]
        return parts

    def kind_attack(self) -> list[str]:
        d = self.d
        target = _at(d, "target")
        said = _f(
            gettext("%(attacker)s attacks %(target)s"), attacker=_at(d, "attacker"), target=target
        )
        name = _at(d, "attack_name")
        mode = _e(gettext("melee")) if _at(d, "mode") == "melee" else _e(gettext("missile"))
        named = f"{_p(name)}, " if name else ""
        parts = [f'<div class="what">{said} ({named}{mode})</div>']
        helpless = _at(d, "helpless")
        if helpless == "slain":
            said = _f(gettext("%(target)s is helpless and slain outright."), target=target)
            parts.append(f'<div class="outcome success">{said}</div>')
        elif helpless:
            said = _f(gettext("%(target)s is helpless: hit automatically."), target=target)
            parts.append(f'<div class="outcome success">{said}</div>')
        else:
            parts += [roll_line(_at(d, "roll")), hit_outcome(_at(d, "roll"))]
        if helpless == "slain":
            if _at(d, "killed"):
                parts.append(_dead_target(target))
        elif damage := _at(d, "damage"):
            word = _e(gettext("Damage"))
            parts.append(
                f'<div class="damage">{word} {_notation(_at(damage, "expr"))}: '
                f"[{_joined(_at(damage, 'dice'))}]{die_source(_at(damage, 'entered'))}"
                f"{mods(_at(damage, 'mods'))} = <strong>{_p(_at(damage, 'total'))}</strong></div>"
            )
            if _at(d, "location"):
                parts.append(self.template("combat/_zone_log.html", part="attack"))
            if _at(d, "killed"):
                parts.append(_dead_target(target))
        return parts

    def kind_save(self) -> list[str]:
        d = self.d
        who, roll = _at(d, "who"), _at(d, "roll")
        category = save_label(_at(d, "category"))
        said = _f(gettext("%(who)s: saving throw vs %(category)s"), who=who, category=category)
        parts = [f'<div class="what">{said}</div>', roll_line(roll), _success(roll) + "</div>"]
        damage = _at(d, "damage")
        if damage:
            if _at(damage, "negated"):
                said = self.template("combat/_log_group.html", part="negated")
            elif _at(damage, "halved"):
                said = _f(
                    gettext("Damage %(amount)s, halved (rounded down): %(taken)s"),
                    amount=_at(damage, "amount"),
                    taken=_at(damage, "taken"),
                )
            else:
                said = _f(gettext("Damage taken: %(taken)s"), taken=_at(damage, "taken"))
            parts.append(f'<div class="damage">{said}</div>')
            if _at(d, "killed"):
                parts.append(_dead(who))
        return parts

    def kind_check(self) -> list[str]:
        d = self.d
        roll = _at(d, "roll")
        said = _f(
            gettext("%(who)s: %(ability)s check (score %(score)s)"),
            who=_at(d, "who"),
            ability=ability_label(_at(d, "ability")),
            score=_at(d, "score"),
        )
        natural = _at(roll, "natural")
        note = ""
        if natural == 1:
            note = " · " + _e(gettext("a natural 1 always succeeds"))
        elif natural == 20:
            note = " · " + _e(gettext("a natural 20 always fails"))
        return [
            f'<div class="what">{said}</div>',
            roll_line(roll, under=True),
            f"{_success(roll)}{note}</div>",
        ]

    def kind_damage(self) -> list[str]:
        d = self.d
        parts = [f'<div class="what">{_took(_at(d, "who"), _at(d, "applied"))}</div>']
        if _at(d, "killed"):
            parts.append(_dead(_at(d, "who")))
        return parts

    def sees_numbers(self) -> bool:
        """Whether this audience sees how far the entry's combatant is from full."""
        return self.referee or self.show_numbers or _at(self.d, "side") == "party"

    def kind_heal(self) -> list[str]:
        d = self.d
        who = _at(d, "who")
        if not self.sees_numbers():
            # How much of a healing took tells how far from full a foe is.
            said = _f(gettext("%(who)s is healed."), who=who)
            return [f'<div class="what">{said}</div>']
        capped = ""
        if _at(d, "applied") != _at(d, "amount"):
            capped = _e(gettext("never above the maximum"))
            capped = f" <small>({capped})</small>"
        return [f'<div class="what">{_healed(who, _at(d, "applied"))}{capped}</div>']

    def kind_correct(self) -> list[str]:
        d = self.d
        who = _at(d, "who")
        if self.sees_numbers():
            said = _f(
                gettext("%(who)s: hit points corrected from %(before)s to %(after)s"),
                who=who,
                before=_shown_hp(_at(d, "before"), self.referee),
                after=_shown_hp(_at(d, "after"), self.referee),
            )
        else:
            said = _f(gettext("%(who)s: hit points corrected"), who=who)
        return [f'<div class="what">{said}</div>', *_fate(who, d)]

    def kind_rest(self) -> list[str]:
        d = self.d
        days = _count(_at(d, "days"))
        said = ngettext("%(who)s rests %(days)s day", "%(who)s rests %(days)s days", days)
        said = _f(said, who=_at(d, "who"), days=days)
        interrupted = _at(d, "interrupted")
        if interrupted:
            n = _count(interrupted)
            interruptions = _f(ngettext("%(n)s interrupted", "%(n)s interrupted", n), n=n)
            said += f" ({interruptions})"
        dice = ""
        if _at(d, "dice"):
            letter = _p(pgettext("die letter", "d"))
            dice = f"1{letter}3: [{_joined(_at(d, 'dice'))}]{die_source(_at(d, 'entered'))} · "
        amount = _count(_at(d, "healed"))
        healed = ngettext("healed %(amount)s hit point", "healed %(amount)s hit points", amount)
        healed = _f(healed, amount=amount)
        return [f'<div class="what">{said}</div>', f'<div class="roll">{dice}{healed}</div>']

    def kind_roll(self) -> list[str]:
        d = self.d
        label = _at(d, "label")
        said = f"{_p(label)}: " if label else ""
        parts = [
            f'<div class="what">{said}{_notation(_at(d, "expr"))}</div>',
            f'<div class="roll">[{_joined(_at(d, "dice"))}]{die_source(_at(d, "entered"))} = '
            f"<strong>{_p(_at(d, 'total'))}</strong></div>",
        ]
        if _at(d, "area"):
            parts.append(self.template("combat/_log_group.html", part="area"))
        return parts

    def kind_undo(self) -> list[str]:
        d = self.d
        if self.referee:
            said = _f(gettext("Undoes #%(seq)s"), seq=_at(d, "entry_seq"))
        elif _at(d, "entry_public_seq"):
            said = _f(gettext("Undoes #%(seq)s"), seq=_at(d, "entry_public_seq"))
        else:
            said = _e(gettext("Undoes an earlier entry"))
        parts = [f'<div class="what">{said}</div>']
        revived = _at(d, "revived")
        for who in revived if isinstance(revived, list) else ():
            parts.append(_alive(who))
        return parts


# The kinds drawn here; the others' templates are named in ``_Drawing.text``.
_KINDS = {
    "attack": _Drawing.kind_attack,
    "save": _Drawing.kind_save,
    "check": _Drawing.kind_check,
    "damage": _Drawing.kind_damage,
    "heal": _Drawing.kind_heal,
    "correct": _Drawing.kind_correct,
    "rest": _Drawing.kind_rest,
    "roll": _Drawing.kind_roll,
    "undo": _Drawing.kind_undo,
}


def _shown_hp(value: Any, referee: bool) -> Any:
    """Hit points as a viewer may see them: players never learn how far below zero."""
    if referee or not isinstance(value, int):
        return value
    return max(value, 0)
