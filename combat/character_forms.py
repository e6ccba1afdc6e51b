"""The combatant form's character part: class and level filling THAC0 and saves (as the
referee chooses them, through htmx, and again when the form is saved), the six ability scores,
and the notes a combatant's player edits from their phone.

The fill rule is :func:`combat.classes.refill`: a value still as the previous class and level
gave it (or empty) follows the new ones; a value the referee typed over is kept. The form
remembers what its values were filled from in a hidden ``filled_from`` field ("fighter:3"); a
form posted without it compares with the combatant's stored class and level.

A monster (or a normal human) that "saves as Fighter 3" fills its five saves the same way from
that class and level's row (:func:`clean_saves_as`; the hidden ``saves_filled_from`` remembers
the row for the fill as it is typed), in place of its Hit Dice row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from combat import classes, monsters
from combat.classes import SAVE_FIELDS
from combat.forms import CombatantForm, MergingForm
from combat.models import ABILITY_MAX, ABILITY_MIN, NOTES_LIMIT, Combatant, Encounter, Kind
from rules import ose
from rules.errors import RulesError

NEW_ABILITIES = ("int_score", "wis_score", "con_score", "cha_score")
CLASS_FIELDS = ("char_class", "level")


def has_classes(encounter: Encounter) -> bool:
    """Whether the encounter's rules system knows the classic classes' tables (the registry
    says)."""
    return classes.has_class_tables(encounter.system)


def adapt_combatant_form(form: CombatantForm) -> None:
    """Class and level (where the system has them), all six abilities, notes; in that order
    among the form's fields."""
    encounter = form.encounter
    if "wis_score" not in form.fields:  # a system's own fields may hold it; every one shows it
        form.fields["wis_score"] = Combatant._meta.get_field("wis_score").formfield()
    for name in ("str_score", *NEW_ABILITIES, "dex_score"):
        form.fields[name].widget.attrs.update(min=ABILITY_MIN, max=ABILITY_MAX)
    notes = form.fields["notes"]
    notes.widget = forms.Textarea(attrs={"rows": 3, "maxlength": NOTES_LIMIT})
    notes.help_text = _("Spells left, ammunition, torches… The combatant's player sees them too.")
    if has_classes(encounter):
        _class_fields(form, encounter)
    else:
        for name in (*CLASS_FIELDS, "saves_as"):
            form.fields.pop(name, None)
    names = [n for n in form.fields if n not in (*CLASS_FIELDS, *NEW_ABILITIES, "notes")]
    at = names.index("kind") + 1
    names[at:at] = [n for n in CLASS_FIELDS if n in form.fields]
    at = names.index("str_score") + 1
    names[at:at] = ["int_score", "wis_score"]
    at = names.index("dex_score") + 1
    names[at:at] = ["con_score", "cha_score"]
    form.order_fields([*names, "notes"])


def _class_fields(form: CombatantForm, encounter: Encounter) -> None:
    fill = {
        "hx-get": reverse("combatant_fill", args=[encounter.slug]),
        "hx-include": "closest form",
        "hx-swap": "none",
    }
    form.fields["char_class"].widget.attrs.update(fill, **{"hx-trigger": "change"})
    kind = form.fields["kind"].widget.attrs  # class and level chosen first, then "Character"
    if "hx-get" not in kind:
        kind.update(fill, **{"hx-trigger": "change"})
    level = form.fields["level"]
    # On change only (leaving the field): a fill asked for while typing could land after the
    # referee typed over a save, and put the table's value back.
    level.widget.attrs.update(fill, min=1, max=classes.LEVEL_MAX, **{"hx-trigger": "change"})
    level.help_text = _("Class and level fill THAC0 and the saves; values you type over stay.")
    form.fields["filled_from"] = forms.CharField(
        widget=forms.HiddenInput, required=False, max_length=20
    )
    if not form.is_bound and form.instance.pk is not None:
        form.initial["filled_from"] = classes.filled_from(
            form.instance.char_class, form.instance.level
        )
    # What a monster saves as fills its saves the same way, remembering what it filled them from.
    form.fields["saves_as"].widget.attrs.update(fill, **{"hx-trigger": "change"})
    form.fields["saves_filled_from"] = forms.CharField(
        widget=forms.HiddenInput, required=False, max_length=20
    )
    if not form.is_bound and form.instance.pk is not None:
        form.initial["saves_filled_from"] = form.instance.saves_as


def clean_character(form: CombatantForm, data: dict[str, Any]) -> None:
    """Check class and level, and fill THAC0 and the saves from them (``classes.refill``)."""
    data.pop("filled_from", None)
    if "char_class" not in form.fields:
        return
    klass, level = data.get("char_class") or "", data.get("level")
    if not klass and level is None:
        return
    if "level" in form.errors or "char_class" in form.errors:
        return
    if data.get("kind") != Kind.CHARACTER:
        form.add_error("char_class", _("Only a character has a class and level."))
        return
    if not klass:
        form.add_error("char_class", _("Choose the class for this level."))
        return
    if level is None:
        form.add_error("level", _("Give the level for this class."))
        return
    top = classes.max_level(form.encounter.system, klass) or 0
    if not 1 <= level <= top:
        form.add_error("level", _("Levels of this class: 1 to %(top)s.") % {"top": top})
        return
    data.update(
        classes.refill(
            form.encounter.system,
            _previous(form),
            (klass, level),
            {name: data.get(name) for name in classes.FILLED_FIELDS},
        )
    )


def clean_saves_as(form: CombatantForm, data: dict[str, Any], saves: dict[str, int]) -> dict:
    """What a monster (or a normal human) saves as: its row in the encounter's system stands
    for ``saves`` (those of its Hit Dice) as the values an empty save field takes. When what it
    saves as changes (or is set or cleared), a save still as the previous row gave it follows
    the new one; a save the referee typed over stays. Returns the saves that stand."""
    data.pop("saves_filled_from", None)
    key = data.get("saves_as") or ""
    if "saves_as" not in form.fields or "saves_as" in form.errors:
        return saves
    if key and data.get("kind") not in (Kind.MONSTER, Kind.NORMAL_HUMAN):
        form.add_error(
            "saves_as",
            _(
                "Only a monster or a normal human saves as a class; a character's saves come "
                "from its class and level."
            ),
        )
        return saves
    system = form.encounter.system
    row = monsters.saves_as_row(form, system, key) if key else saves
    if row is None:
        return saves
    stored = form.instance.saves_as if form.instance.pk is not None else ""
    if key != stored:
        before = classes.saves_as_saves(system, stored) if stored else saves
        data.update(classes.refill_saves(before, row, {n: data.get(n) for n in SAVE_FIELDS}))
    return row


def _previous(form: CombatantForm) -> tuple[str, int | None] | None:
    """The class and level the form's values were filled from: what its hidden field says, or
    for a form sent without it, the combatant's as stored."""
    posted = form.data.get(form.add_prefix("filled_from"))
    if posted is not None:
        return classes.parse_filled_from(posted)
    if form.instance.pk is not None and form.instance.char_class:
        return form.instance.char_class, form.instance.level
    return None


def _whole(value: Any) -> int | None:
    text = str(value or "").strip()
    sign = text[:1] == "-"
    digits = text[1:] if sign else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 3:  # not "²"
        return None
    return -int(digits) if sign else int(digits)


def fill_form(encounter: Encounter, query: Mapping[str, Any]) -> list[forms.BoundField]:
    """The fields a class and level chosen in the combatant form fill (or, for a monster or a
    normal human, what it saves as), as that form shows them (``query`` is the form as it
    stands), each marked to be swapped in by its id; none when there is nothing to fill (no
    class, no level, a level the class has not, nothing typed a stat block would write)."""
    if query.get("kind") in (Kind.MONSTER, Kind.NORMAL_HUMAN):
        return _saves_as_fill(encounter, query)
    klass, level = str(query.get("char_class") or ""), _whole(query.get("level"))
    if query.get("kind") != Kind.CHARACTER or level is None:
        return []
    if not 1 <= level <= (classes.max_level(encounter.system, klass) or 0):
        return []
    values = classes.refill(
        encounter.system,
        classes.parse_filled_from(query.get("filled_from")),
        (klass, level),
        {name: _whole(query.get(name)) for name in classes.FILLED_FIELDS},
    )
    return _swapped(encounter, values, "filled_from", classes.filled_from(klass, level))


def _saves_as_fill(encounter: Encounter, query: Mapping[str, Any]) -> list[forms.BoundField]:
    """The saves of what a monster saves as, refilled from what they were filled from (the
    hidden ``saves_filled_from``, or its Hit Dice row), as :func:`clean_saves_as` will."""
    system, typed, key = encounter.system, str(query.get("saves_as") or "").strip(), ""
    if typed:
        try:
            key = classes.saves_as_key(*classes.parse_saves_as(typed))
        except classes.SavesAsError:
            return []
    own = _own_saves(system, query)
    after = classes.saves_as_saves(system, key) if key else own
    if not after:  # a level the system's table has not, Hit Dice not yet readable
        return []
    previous = str(query.get("saves_filled_from") or "")
    before = classes.saves_as_saves(system, previous) if previous else own
    values = {name: _whole(query.get(name)) for name in SAVE_FIELDS}
    return _swapped(
        encounter, classes.refill_saves(before, after, values), "saves_filled_from", key
    )


def _own_saves(system: str, query: Mapping[str, Any]) -> dict[str, int]:
    """A monster's saves by its Hit Dice as the form stands (a normal human's row), as the
    combatant form's ``clean`` gives them; none for Hit Dice not yet readable."""
    if query.get("kind") == Kind.NORMAL_HUMAN:
        return dict(classes.normal_human_saves(system) or {})
    try:
        return ose.monster_saves(str(query.get("hit_dice") or "").strip())
    except RulesError:
        return {}


def _swapped(
    encounter: Encounter, values: dict[str, int | None], hidden: str, filled_from: str
) -> list[forms.BoundField]:
    """``values`` and the hidden field saying what they were filled from, as the combatant
    form shows them, each marked to be swapped in by its id."""
    form = CombatantForm(encounter=encounter, initial=values | {hidden: filled_from})
    names = [*values, hidden]
    for name in names:
        form.fields[name].widget.attrs["hx-swap-oob"] = "true"
    return [form[name] for name in names if name in form.fields]


class NotesForm(MergingForm):
    """A combatant's notes, edited by the referee or the combatant's player."""

    class Meta:
        model = Combatant
        fields = ["notes"]
        widgets = {"notes": forms.Textarea(attrs={"rows": 6, "maxlength": NOTES_LIMIT})}
        labels = {"notes": _("Notes")}
        help_texts = {
            "notes": _("Spells left, ammunition, torches… Only you and the referee see them.")
        }
