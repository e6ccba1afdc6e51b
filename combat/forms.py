"""Forms: every input validated into clear messages in the user's language.

Forms only check and convert input; the rules engine decides outcomes. Choices of combatants
are limited to what the viewer may see or control, so a forged id is just an invalid choice.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.db import models
from django.forms.models import model_to_dict
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat import body_fields, bounded, classes, monsters, registry, table
from combat.access import Viewer
from combat.classes import ABILITY_FIELDS, CHARACTER_FIELDS
from combat.dice_input import EnteredDiceField, local_dice
from combat.errors import Refused, message_for
from combat.labels import ABILITIES, SAVES
from combat.models import (
    ABILITY_MAX,
    ABILITY_MIN,
    HP_FLOOR,
    HP_LIMIT,
    MORALE_MAX,
    MORALE_MIN,
    SAVE_MAX,
    SAVE_MIN,
    Combatant,
    Encounter,
    Kind,
    Side,
)
from combat.systems import common as systems
from rules import dice, ose
from rules.core import Modifier
from rules.errors import RulesError

SAVE_FIELDS = ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells")
MODIFIER_LIMIT = 20
SHIP_FIELDS = (
    "speed",
    "crew",
    "rowers",
    "rowers_lost",
)  # ships (a rules system's naval combat)
MONSTER_FIELDS = ("attacks", "movement", "xp", "special_notes")  # combat.monsters
# Fields of the model only some rules systems show (an ascending attack bonus, WIS for saves,
# skills, immunities): a system's ``adapt_combatant_form`` keeps those it uses.
OPTIONAL_FIELDS = ("attack_bonus", "wis_score", "skills", "immunities")


class OnceMixin:
    """Every action form carries a one-time key: the server applies a key once, so a double
    tap or a browser's retry of a request whose answer was lost changes nothing twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["once"] = forms.CharField(
            widget=forms.HiddenInput, required=False, max_length=64
        )
        if not self.is_bound:
            self.initial["once"] = secrets.token_urlsafe(16)


def _plain(value: Any) -> Any:
    """A field's value as JSON keeps it: a row by its id, a decimal as its digits."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value.pk if isinstance(value, models.Model) else value


NOT_OPENED = _(
    "This form was sent without the values it showed when opened (from an old page or a "
    "restored tab), so your changes cannot be told from out-of-date values: nothing was "
    "saved. Open the form again and make your changes there; what you typed is still below."
)


class MergingForm(OnceMixin, forms.ModelForm):
    """An edit form that writes only what its user changed.

    It remembers the values it was opened with; on saving, a field the user left alone is not
    written (someone else may have changed it meanwhile), and a field both the user and someone
    else changed is a conflict: the form comes back showing the current value instead of
    overwriting it.

    Without those opening values (an old page, a tab restored from the browser's cache, a
    script) a value cannot be told from a stale one, so such an edit is refused and writes
    nothing. A field in ``unchanged_when_empty`` left empty is not written at all: it is never
    filled from the row as the request read it, which may be older than the row it would be
    written to.
    """

    opened = forms.CharField(widget=forms.HiddenInput, required=False)
    unchanged_when_empty: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound and self.instance.pk is not None:
            self.initial["opened"] = json.dumps(self.snapshot(self.instance))
        self.conflicts: dict[str, Any] = {}
        self.changed_meanwhile: list[str] = []

    def merged_fields(self) -> list[str]:
        return [name for name in self._meta.fields if name in self.fields]

    def snapshot(self, instance: models.Model) -> dict[str, Any]:
        return {
            name: _plain(value)
            for name, value in model_to_dict(instance, fields=self.merged_fields()).items()
        }

    def opened_values(self) -> dict[str, Any] | None:
        """The values the form was opened with, or None if it came without them: only the
        ones of fields it still has count, and one of them at least must be there."""
        try:
            opened = json.loads(self.data.get(self.add_prefix("opened")) or "")
        except ValueError:
            return None
        if not isinstance(opened, dict):
            return None
        known = {name: value for name, value in opened.items() if name in self.merged_fields()}
        return known or None

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.instance.pk is not None and self.opened_values() is None:
            self.add_error(None, ValidationError(NOT_OPENED, code="not_opened"))
        return data

    def _post_clean(self) -> None:
        # Before the row is built from the form: an empty field that means "as it is" is
        # left out, so neither the row nor ``changes`` sees a value the person did not give.
        if self.instance.pk is not None:
            for name in self.unchanged_when_empty:
                if name in self.fields and self.data.get(self.add_prefix(name)) in (None, ""):
                    self.cleaned_data.pop(name, None)
        super()._post_clean()

    def changes(self, current: models.Model) -> dict[str, Any]:
        """What this form changes on ``current`` (the row as it is now, locked by the caller).

        Only a field the form had when opened can change, and only from the value it was
        opened with. Fields someone else changed since the form was opened and this user
        changed too land in ``conflicts``; those only someone else changed (or left empty, so
        unchanged, here), in ``changed_meanwhile``.
        """
        now = self.snapshot(current)
        opened = self.opened_values()
        if opened is None:  # never valid without them (``clean``): write nothing
            return {}
        changes = {}
        for name in self.merged_fields():
            if name not in opened:  # not shown when the form was opened: not the user's
                continue
            was = opened[name]
            if name not in self.cleaned_data:  # left empty: as it is, whatever it is now
                if now[name] != was:
                    self.changed_meanwhile.append(name)
                continue
            mine = _plain(self.cleaned_data[name])
            if mine == was:
                if now[name] != was:
                    self.changed_meanwhile.append(name)
            elif now[name] == was:
                changes[name] = self.cleaned_data[name]
            elif now[name] != mine:
                self.conflicts[name] = now[name]
        return changes

    def with_current_values(self, current: models.Model) -> MergingForm:
        """This form again, its conflicting fields showing ``current``'s values with a note,
        and opened anew at the current row: saving it again keeps what the user meant."""
        data = self.data.copy()
        for name, value in self.conflicts.items():
            key = self.add_prefix(name)
            if isinstance(self.fields[name].widget, forms.CheckboxInput):
                if value:
                    data[key] = "on"
                else:
                    data.pop(key, None)
            else:
                data[key] = "" if value is None else str(value)
        data[self.add_prefix("opened")] = json.dumps(self.snapshot(current))
        form = type(self)(data, **self.rebuild_kwargs(current))
        form.is_valid()
        for name in self.conflicts:
            form.add_error(
                name, _("Someone changed this while you were editing: it shows the value now.")
            )
        return form

    def rebuild_kwargs(self, current: models.Model) -> dict[str, Any]:
        return {"instance": current, "prefix": self.prefix}

    def changed_labels(self) -> list[str]:
        return [str(self.fields[name].label) for name in self.changed_meanwhile]


def offer_systems(field: forms.Field) -> None:
    """An encounter's choice of rules system: those registered. The model's default is the
    registry's (a callable), which would make Django send a hidden copy of the initial value
    along with the form: the choice is drawn as any other."""
    field.choices = systems.system_choices()
    field.show_hidden_initial = False


class EncounterForm(forms.ModelForm):
    class Meta:
        model = Encounter
        fields = ["name", "system", "attack_method"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        offer_systems(self.fields["system"])
        self.fields["attack_method"].help_text = _("OSE only: Dolmenwood's AC is ascending.")


class EncounterSettingsForm(MergingForm):
    unchanged_when_empty = ("system",)  # not sent once something was rolled

    class Meta:
        model = Encounter
        fields = [
            "name",
            "attack_method",
            "show_foe_hp",
            "players_enter_dice",
            "players_adjust_hp",
            "players_claim",
            "initiative_mode",
            "reroll_ties",
            "helpless_rule",
            "hit_locations",
            "system",  # changeable until the first roll (combat.systems.common)
            "players_roll_chances",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offer_systems(self.fields["system"])
        self.fields["system"].required = False  # not sent: unchanged
        self.fields["system"].help_text = _(
            "Until the first roll. Between descending and ascending armour class, every "
            "combatant's AC and attack value are converted (19 − AC, 19 − THAC0)."
        )
        offered = registry.of(self.instance).settings
        for name in registry.system_settings() - set(offered):  # another system's own
            self.fields.pop(name)

    def clean_system(self) -> str:
        system = self.cleaned_data["system"]
        if system and system != self.instance.system and systems.has_rolled(self.instance):
            raise forms.ValidationError(
                _("The rules system cannot change once something has been rolled.")
            )
        return system


class SeatGiveForm(OnceMixin, forms.Form):
    """The referee gives a party member to a seat's player, from the list of players."""

    combatant = forms.TypedChoiceField(coerce=int, empty_value=None)

    def __init__(self, *args: Any, viewer: Viewer, seat: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.party = {c.pk: c for c in viewer.combatants if c.side == Side.PARTY}
        self.fields["combatant"].choices = [(pk, c.name) for pk, c in self.party.items()]
        self.fields["combatant"].error_messages["invalid_choice"] = _(
            "That is not a party member of this encounter."
        )
        self.fields["combatant"].error_messages["required"] = _("Choose a party member.")

    def clean_combatant(self) -> Combatant:
        return self.party[self.cleaned_data["combatant"]]


class ClaimForm(OnceMixin, forms.Form):
    """A seated player claims a party member no one plays (``combat.party.claim`` checks)."""

    combatant = forms.IntegerField(min_value=1, max_value=2**31 - 1)


class JoinForm(OnceMixin, forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=40)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Please give a name."))
        return name


def _rules_call(func, *args, **kwargs):
    """Call the engine, turning its error into a form error in the user's language."""
    try:
        return func(*args, **kwargs)
    except RulesError as error:
        raise forms.ValidationError(message_for(error)) from error


class CombatantForm(MergingForm):
    """Add or edit a combatant. A monster's THAC0 and saves come from its Hit Dice (its saves
    from what it saves as, if it does) unless the referee overrides them; a normal human uses
    the BČ row; a character's come from its class and level (``combat.character_forms``).
    A change of current hit points here is a logged correction (see ``actions``)."""

    unchanged_when_empty = ("hp",)

    hp = forms.IntegerField(
        label=_("Current hit points"), required=False, min_value=HP_FLOOR, max_value=HP_LIMIT
    )

    class Meta:
        model = Combatant
        fields = [
            "name",
            "side",
            "kind",
            "ac",
            "hp_max",
            "hp",
            "hit_dice",
            "saves_as",  # fills the saves from a class's row (combat.character_forms)
            "thac0",
            *SAVE_FIELDS,
            "str_score",
            "dex_score",
            "morale",
            "fled",
            "hidden",
            "seat",
            *body_fields.BODY_FIELDS,
            *OPTIONAL_FIELDS,  # what some systems show: popped unless the system keeps them
            *CHARACTER_FIELDS,  # class, level, abilities, notes (combat.character_forms)
            *SHIP_FIELDS,  # a ship's (a rules system's special actions): popped for anything else
            *MONSTER_FIELDS,  # attacks, movement, XP, special notes (combat.monsters)
        ]
        field_classes = {"attacks": monsters.AttacksField, "saves_as": monsters.SavesAsField}
        widgets = {"special_notes": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, encounter: Encounter, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.encounter = encounter
        # Hit locations: the body fields only when the encounter plays them.
        if encounter.hit_locations:
            self.fields["legs"] = body_fields.legs_field()
            for name in ("height_ft", "weapon_ft"):
                self.fields[name].required = False
                body_fields.localized_length(self.fields[name])
            if self.instance.pk is None and not self.is_bound:
                self.initial["height_ft"] = None  # empty: as usual for the body chosen
            body_fields.with_preview(self, encounter.slug)
        else:
            for name in body_fields.BODY_FIELDS:
                self.fields.pop(name)
        self.fields["seat"].queryset = encounter.seats.all()
        if self.instance.kind != Kind.SHIP:  # ships come through their system's "Add a ship"
            kinds = self.fields["kind"].choices
            self.fields["kind"].choices = [c for c in kinds if c[0] != Kind.SHIP]
            for name in SHIP_FIELDS:
                self.fields.pop(name)
        self.fields["seat"].empty_label = _("the referee")
        self.fields["thac0"].required = False
        self.fields["hit_dice"].help_text = _("Monsters: as written, e.g. 1-1, 2+1, 4*")
        for name in SAVE_FIELDS:
            self.fields[name].required = False
            self.fields[name].widget.attrs.update(min=SAVE_MIN, max=SAVE_MAX)
        for name in ("str_score", "dex_score"):
            self.fields[name].widget.attrs.update(min=ABILITY_MIN, max=ABILITY_MAX)
        system = registry.of(encounter)
        if system.adapt_combatant_form is not None:  # its own fields, labels and help
            system.adapt_combatant_form(self)
        else:
            for name in OPTIONAL_FIELDS:
                self.fields.pop(name, None)
        from combat import character_forms

        character_forms.adapt_combatant_form(self)  # after the systems': WIS for every system
        # Last: every number field as it is shown, in its range (a level by its class's).
        bounded.apply_to_form(self, said_better={"level"})

    def rebuild_kwargs(self, current: models.Model) -> dict[str, Any]:
        return super().rebuild_kwargs(current) | {"encounter": self.encounter}

    def clean_str_score(self) -> int:
        return self._ability("str_score")

    def clean_dex_score(self) -> int:
        return self._ability("dex_score")

    def _ability(self, name: str) -> int:
        score = self.cleaned_data[name]
        _rules_call(ose.ability_modifier, score)
        return score

    def clean(self) -> dict:
        data = super().clean()
        from combat.character_forms import clean_character, clean_saves_as

        clean_character(self, data)  # class and level fill THAC0 and saves (combat.classes)
        kind = data.get("kind")
        hit_dice = (data.get("hit_dice") or "").strip()
        data["hit_dice"] = hit_dice
        derived: dict[str, int] = {}
        if kind == Kind.MONSTER:
            if not hit_dice:
                self.add_error("hit_dice", _("A monster needs its Hit Dice."))
                return data
            try:
                derived["thac0"] = systems.monster_thac0(self.encounter.system, hit_dice)
                saves = ose.monster_saves(hit_dice)
            except RulesError as error:
                self.add_error("hit_dice", message_for(error))
                return data
        elif kind == Kind.NORMAL_HUMAN:
            derived["thac0"] = ose.monster_thac0("normal human")
            saves = classes.normal_human_saves(self.encounter.system) or ose.monster_saves(
                "normal human"
            )
        else:
            saves = {}
        saves = clean_saves_as(self, data, saves)  # "saves as Fighter 3" (combat.classes)
        clean_combatant = registry.of(self.encounter).clean_combatant
        if clean_combatant is not None:  # e.g. an attack bonus standing for THAC0
            clean_combatant(self, data)
        derived |= {f"save_{key}": value for key, value in saves.items()}
        for name in ("thac0", *SAVE_FIELDS):
            if data.get(name) is None:
                if name in derived:
                    data[name] = derived[name]
                elif name in self.fields and name not in self.errors:
                    # (A field this system's form leaves out, an attack bonus's THAC0, is
                    # worked out from another; a kind refused already says what is wrong.)
                    self.add_error(name, _("A character needs this value from its class."))
        if self.encounter.hit_locations:
            body_fields.clean_body(self, data)
        hp_max = data.get("hp_max")
        if data.get("hp") is None and hp_max is not None and self.instance.pk is None:
            data["hp"] = hp_max  # a new one starts unhurt; an edit leaves it (``MergingForm``)
        return data


class QuickAddForm(OnceMixin, forms.Form):
    """Several identical monsters at once, each with its own rolled hit points."""

    count = forms.IntegerField(label=_("How many"), min_value=1, max_value=30, initial=4)
    name = forms.CharField(label=pgettext_lazy("combatant", "Name"), max_length=50)
    ac = forms.IntegerField(label=_("Armour class"), min_value=-20, max_value=20)
    hit_dice = forms.CharField(label=_("Hit Dice"), max_length=16)
    hp_dice = forms.CharField(
        label=_("Hit points (dice)"),
        max_length=40,
        required=False,
        help_text=_("Leave empty to roll the Hit Dice as d8s."),
    )
    saves_as = monsters.SavesAsField()
    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, initial=Side.FOES)
    morale = forms.IntegerField(
        label=_("Morale"),
        min_value=MORALE_MIN,
        max_value=MORALE_MAX,
        required=False,
        help_text=_("2–12; leave empty for none."),
    )
    # The stat block's rest (combat.monsters), the same on every monster added.
    attacks = monsters.AttacksField()
    movement = forms.CharField(
        label=_("Movement"), max_length=monsters.MOVEMENT_LIMIT, required=False
    )
    xp = forms.IntegerField(label=_("XP"), min_value=0, max_value=monsters.XP_LIMIT, required=False)
    special_notes = forms.CharField(
        label=_("Special (referee only)"),
        max_length=monsters.SPECIAL_LIMIT,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    hidden = forms.BooleanField(label=_("Hidden from players"), required=False)
    keep = forms.BooleanField(  # combat.bestiary: offered again in the campaign's encounters
        label=_("Also save to the bestiary"), required=False
    )

    def __init__(self, *args: Any, encounter: Encounter | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.encounter = encounter
        self.hit_locations = bool(encounter and encounter.hit_locations)
        # The rules system whose tables fill each monster: the encounter's, else the default's.
        self.system = (registry.of(encounter) if encounter else registry.default()).key
        if not classes.has_class_tables(self.system):
            self.fields.pop("saves_as")  # a system whose classes the project does not know
        if self.hit_locations:  # the body of every monster added
            self.fields.update(body_fields.body_form_fields())
            body_fields.with_preview(self, encounter.slug)
        bounded.apply_to_form(self, Combatant)  # what each monster added stores

    def clean_hit_dice(self) -> str:
        hit_dice = self.cleaned_data["hit_dice"].strip()
        self.cleaned_data["thac0"] = _rules_call(systems.monster_thac0, self.system, hit_dice)
        self.cleaned_data["saves"] = ose.monster_saves(hit_dice)
        return hit_dice

    def clean(self) -> dict:
        data = super().clean()
        if data.get("saves_as") and "saves" in data:  # saves as a class, not by Hit Dice
            row = monsters.saves_as_row(self, self.system, data["saves_as"])
            data["saves"] = row if row is not None else data["saves"]
        if "hit_dice" in data:
            expression = (data.get("hp_dice") or "").strip() or ose.monster_hp_dice(
                data["hit_dice"]
            )
            try:
                data["hp_dice"] = dice.parse(expression)
            except RulesError as error:
                self.add_error("hp_dice", message_for(error))
            else:
                if data["hp_dice"].maximum > HP_LIMIT:
                    self.add_error(
                        "hp_dice", _("Hit points go up to %(limit)s.") % {"limit": HP_LIMIT}
                    )
        if self.hit_locations:
            body_fields.clean_body(self, data)
        return data

    def body_values(self) -> dict[str, Any]:
        """The body fields of every monster this form adds (none without hit locations)."""
        data = self.cleaned_data
        return {name: data[name] for name in body_fields.BODY_FIELDS if name in data}

    def monster_values(self) -> dict[str, Any]:
        """Attacks, movement, XP, special notes and what it saves as, of every monster this
        form adds."""
        values = {name: self.cleaned_data[name] for name in MONSTER_FIELDS}
        return values | {"saves_as": self.cleaned_data.get("saves_as", "")}


class CombatantField(forms.ChoiceField):
    """One of the combatants a viewer may choose, from a list read once (see
    ``Viewer.combatants``); it cleans to the Combatant. With ``refusal``, only the living are
    offered, and a dead one chosen anyway (a form opened before the death) is refused with
    that message rather than as an unknown choice."""

    # The message a ModelChoiceField gives, as this field was one.
    default_error_messages = {
        "invalid_choice": forms.ModelChoiceField.default_error_messages["invalid_choice"],
    }

    def __init__(self, candidates: Sequence[Combatant], label: Any, refusal: str = "") -> None:
        self.candidates = list(candidates)
        self.refusal = refusal
        self.offered = [c for c in self.candidates if c.hp > 0] if refusal else self.candidates
        super().__init__(choices=[(c.pk, str(c)) for c in self.offered], label=label)

    def find(self, value: Any) -> Combatant | None:
        """The offered combatant with id ``value``, if any."""
        return by_pk(self.offered, value)

    def prepare_value(self, value: Any) -> Any:
        return value.pk if isinstance(value, models.Model) else value

    def to_python(self, value: Any) -> Combatant | None:
        if value in self.empty_values:
            return None
        ProhibitNullCharactersValidator()(value)
        if isinstance(value, models.Model):
            value = value.pk
        found = self.find(value)
        if found is not None:
            return found
        if self.refusal and str(value).isdigit():
            dead = by_pk(self.candidates, value)
            if dead is not None and dead.dead:
                raise ValidationError(message_for(Refused(self.refusal, name=dead.name)))
        raise ValidationError(
            self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value}
        )

    def validate(self, value: Combatant | None) -> None:
        forms.Field.validate(self, value)  # required; the choice itself was checked above

    def has_changed(self, initial: Any, data: Any) -> bool:
        if self.disabled:
            return False
        initial = "" if initial is None else self.prepare_value(initial)
        return str(initial) != str("" if data is None else data)


class CombatantsField(forms.MultipleChoiceField):
    """Several of the combatants a viewer may choose, ticked in a list; cleans to the
    Combatants, each once, whatever was sent. Each id is judged as ``CombatantField`` judges
    one: a dead one chosen anyway (a form opened before the death) gets ``refusal``'s
    message, a forged or foreign id is an invalid choice."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, candidates: list[Combatant], label: Any, refusal: str) -> None:
        self.single = CombatantField(candidates, label, refusal)
        super().__init__(choices=self.single.choices, label=label, required=False)

    @property
    def offered(self) -> list[Combatant]:
        return self.single.offered

    def to_python(self, value: Any) -> list[Combatant]:
        if value in self.empty_values:
            return []
        if not isinstance(value, list | tuple):
            raise ValidationError(self.error_messages["invalid_list"], code="invalid_list")
        found: list[Combatant] = []
        errors: list[ValidationError] = []
        for item in value:
            try:
                combatant = self.single.to_python(item)
            except ValidationError as error:
                errors.extend(error.error_list)
                continue
            if combatant is not None and combatant not in found:
                found.append(combatant)
        if errors:
            raise ValidationError(errors)
        return found

    def validate(self, value: list[Combatant]) -> None:
        forms.Field.validate(self, value)  # each choice was checked above


def by_pk(combatants: Sequence[Combatant], value: Any) -> Combatant | None:
    """The combatant whose id is ``value`` read as the database reads an id (``int()``)."""
    try:
        pk = int(value)
    except (TypeError, ValueError):
        return None
    return next((c for c in combatants if c.pk == pk), None)


def combatant_field(candidates, label, refusal: str = "") -> CombatantField:
    return CombatantField(candidates, label, refusal)


def modifier_field(limit: int, help_text: str = "") -> forms.IntegerField:
    return forms.IntegerField(
        label=_("Modifier"),
        initial=0,
        required=False,
        min_value=-limit,
        max_value=limit,
        help_text=help_text,
    )


def natural_field(sides: int) -> forms.IntegerField:
    return forms.IntegerField(
        label=_("Die rolled at the table"),
        required=False,
        min_value=1,
        max_value=sides,
        help_text=_("Leave empty and the server rolls."),
    )


class DiceField(forms.CharField):
    """A dice expression (1d8+1, 2k6, 1к20), parsed by the engine."""

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        return _rules_call(dice.parse, value)


DESPITE_SURPRISE = "despite_surprise"


class ActionForm(OnceMixin, forms.Form):
    """What every action form has: its viewer, a one-time key, and which of its fields hold
    dice rolled at the table (shown only where the viewer may enter dice).

    An action in the round (``acts_in_round``: an attack, a check, a grab...) is refused to
    a side surprised in the fight's first round (``table.unsurprised``); while one is, the
    referee's form offers to rule otherwise (its ``despite_surprise`` box). Fields whose
    choices are others than whoever acts (a target) never offer the actor chosen
    (:meth:`apart_from`), and are drawn again when another is chosen (``follows``)."""

    dice_fields: tuple[str, ...] = ()
    # After a roll the next form keeps who acts and how, never amounts or entered dice.
    kept: tuple[str, ...] = ()
    acts_in_round = False

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        # The fields drawn again when a field changes (:meth:`apart_from`), by its name.
        self.follows: dict[str, tuple[str, ...]] = {}
        if self.acts_in_round and viewer.is_referee and table.caught(viewer.encounter):
            self.fields[DESPITE_SURPRISE] = forms.BooleanField(
                label=_("Let them act though surprised (the referee's ruling)"),
                required=False,
                help_text=_(
                    "A surprised side loses the fight's first round; the log says when "
                    "the referee lets one of them act."
                ),
            )

    def chosen(self, name: str = "actor") -> Combatant | None:
        """The combatant field ``name`` holds as the form stands (sent, or filled in when
        opened); None when it holds none of its choices."""
        field = self.fields.get(name)
        if not isinstance(field, CombatantField):
            return None
        value = self.data.get(self.add_prefix(name)) if self.is_bound else self.initial.get(name)
        return field.find(getattr(value, "pk", value))

    def overruled(self) -> bool:
        """Whether the referee's box says a surprised combatant acts anyway."""
        if DESPITE_SURPRISE not in self.fields:
            return False
        return bool(self[DESPITE_SURPRISE].value())

    def refusal(self) -> Refused | None:
        """Why the action would be refused before anything is rolled, as the action itself
        would refuse it, in its order (an actor paralysed, asleep or held; a surprised side
        in the fight's first round): its odds say so instead of promising a roll."""
        actor = self.chosen() if self.acts_in_round else None
        if actor is None:
            return None
        try:
            table.able(actor)
            table.unsurprised(self.viewer, actor, despite_surprise=self.overruled())
        except Refused as refused:
            return refused
        return None

    def apart_from(self, *names: str, besides: Sequence[str] = ("actor",)) -> None:
        """The choices of ``names`` (combatant fields) without whoever the fields
        ``besides`` hold (whoever acts), as the form is drawn: no one is offered as their
        own target. Another chosen in one of ``besides`` draws ``names`` again, from the
        server (``combat.views.panels.choices_view``: :meth:`redrawn`). Call once the fields
        exist; the form's ``clean`` still refuses them there (a form sent by hand, or
        before the choices were drawn again)."""
        self._wire(names, besides)
        left_out = {str(c.pk) for c in map(self.chosen, besides) if c is not None}
        for name in names:
            field = self.fields.get(name)
            if field is not None and left_out:
                field.widget.choices = [
                    (value, label) for value, label in field.widget.choices
                    if str(value) not in left_out
                ]  # fmt: skip

    def _wire(self, names: Sequence[str], besides: Sequence[str]) -> None:
        """A change of ``besides`` asks for ``names`` drawn again (swapped in by their ids)."""
        key = registry.panel_of_form(type(self))
        for trigger in besides:
            self.follows[trigger] = (*self.follows.get(trigger, ()), *names)
            field = self.fields.get(trigger)
            if key is None or field is None or "hx-get" in field.widget.attrs:
                continue
            field.widget.attrs.update(
                {
                    "hx-get": reverse("choices", args=[self.viewer.encounter.slug, key]),
                    "hx-include": "closest form",
                    "hx-params": "not csrfmiddlewaretoken",
                    "hx-swap": "none",
                    "hx-trigger": "change",
                }
            )

    def settle(self, trigger: str) -> bool:
        """After ``trigger`` changed, whether a choice of a field it draws again is one that
        field no longer offers (the target who now acts, a wrestler ticked as a helper): if
        so it gives way, in what was sent (``data``, a mutable copy), to the first of the
        other side still offered (or of anyone), or to nothing."""
        changed = False
        actor = self.chosen()
        for name in self.follows.get(trigger, ()):
            field, key = self.fields.get(name), self.add_prefix(name)
            if not isinstance(field, CombatantField | CombatantsField):
                continue
            offered = {str(value) for value, _label in field.widget.choices}
            if isinstance(field, CombatantsField):
                sent = self.data.getlist(key)
                kept = [value for value in sent if value in offered]
                if kept != sent:
                    self.data.setlist(key, kept)
                    changed = True
            elif str(self.data.get(key, "")) not in offered:
                others = [c for c in field.offered if str(c.pk) in offered]
                foes = [c for c in others if actor is None or c.side != actor.side]
                found = (foes or others or [None])[0]
                self.data[key] = str(found.pk) if found else ""
                changed = True
        return changed

    def redrawn(self, trigger: str) -> list[forms.BoundField]:
        """The fields ``trigger``'s change draws again, as the form now holds them, each
        marked to be swapped in by its id (a list of boxes by ``combat/_choices.html``)."""
        names = [n for n in self.follows.get(trigger, ()) if n in self.fields]
        for name in names:
            if not self.fields[name].widget.allow_multiple_selected:
                self.fields[name].widget.attrs["hx-swap-oob"] = "true"
        return [self[name] for name in names]

    def without_dice_fields(self) -> None:
        """Call once the fields exist: a player whom the referee asked to let the server roll
        does not see the dice fields."""
        if not self.viewer.may_enter_dice:
            for name in self.dice_fields:
                self.fields.pop(name, None)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.viewer.may_enter_dice and any(
            str(self.data.get(self.add_prefix(name), "")).strip() for name in self.dice_fields
        ):
            raise ValidationError(
                _("The referee has the server roll for players: leave the dice empty.")
            )
        return data

    def kept_values(self) -> dict[str, Any]:
        return {name: self.data[name] for name in self.kept if name in self.data}


class RollForm(ActionForm):
    """What every roll has: who acts, a modifier, the die from the table, secrecy."""

    sides = 20
    modifier_limit = MODIFIER_LIMIT
    modifier_help = ""
    field_order_extra: tuple[str, ...] = ()
    dice_fields = ("natural",)

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            viewer.controlled_list(), _("Who"), refusal="dead_cannot_act"
        )
        self.fields["modifier"] = modifier_field(self.modifier_limit, self.modifier_help)
        self.fields["natural"] = natural_field(self.sides)
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.order_fields(["actor", *self.field_order_extra, "modifier", "natural"])
        if not self.is_bound and "actor" not in self.initial:
            first = self.initial_actor()
            self.initial["actor"] = first.pk if first else None

    def initial_actor(self) -> Combatant | None:
        """Who the form starts with: the one the button named, else the first controlled."""
        field = self.fields["actor"]
        wanted = str(self.initial.get("actor", ""))
        if wanted.isdigit():
            return field.find(wanted)
        return field.offered[0] if field.offered else None

    def clean_modifier(self) -> int:
        return self.cleaned_data.get("modifier") or 0


class AttackForm(RollForm):
    acts_in_round = True
    field_order_extra = ("target", "mode")
    dice_fields = ("natural", "damage_dice")
    # "attack": the monster's attack a button chose (combat.monsters), kept for its next roll
    kept = ("actor", "target", "mode", "damage", "secret", "direction", "attack")
    mode = forms.ChoiceField(
        label=_("Attack"),
        choices=[
            ("melee", pgettext_lazy("attack", "Melee (STR)")),
            ("missile", pgettext_lazy("attack", "Missile (DEX)")),
        ],
        initial="melee",
    )
    damage = DiceField(label=_("Damage"), max_length=40, required=False, initial="1d6")
    damage_dice = EnteredDiceField(
        label=_("Damage dice rolled at the table"), max_length=200, required=False
    )

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["target"] = combatant_field(
            viewer.visible_list(), _("Target"), refusal="target_is_dead"
        )
        self.fields["damage"].initial = local_dice("1d6")
        if not self.is_bound and not self._standing(self.initial.get("target")):
            # No target named, or the one kept from the last roll has died of it.
            self.initial["target"] = self._first_opponent()
        actor = self.initial_actor() if not self.is_bound else None
        if actor is not None and str(self.initial.get("target")) == str(actor.pk):
            self.initial["target"] = self._first_opponent()  # never one's own target
        if viewer.encounter.hit_locations:
            self._hit_location_fields()
        monsters.adapt_attack_form(self)  # a monster's attack button fills in its damage
        order = ("actor", "target", "mode", "modifier", "natural", *self.LOCATION_FIELDS)
        self.order_fields([*order, "damage", "damage_dice"])
        self.without_dice_fields()
        self.apart_from("target")
        if "direction" in self.fields:  # the target may change with the attacker: its body too
            self.follows["actor"] = (*self.follows["actor"], "direction")

    def refusal(self) -> Refused | None:
        """As every action's (:meth:`ActionForm.refusal`), then what only an attack refuses,
        in the attack's order (``table.Attack.run``): wounds that forbid attacking (hit
        locations: ``table.armed``)."""
        found = super().refusal()
        actor = self.chosen() if found is None else None
        if actor is None:
            return found
        try:
            table.armed(self.viewer, actor)
        except Refused as refused:
            return refused
        return None

    def hit_notes(self, values: dict[str, Any]) -> tuple[str, ...]:
        """What the odds say of any hit, rolled or automatic on a helpless target
        (combat.odds): in OSE, nothing; another system says what its hit depends on."""
        return ()

    # --- hit locations: the direction, heights and the location die ------------------------
    LOCATION_FIELDS = (
        "direction",
        "posture",
        "attacker_ft",
        "weapon_ft",
        "location",
        *body_fields.WOUND_FIELDS,
        *body_fields.SPECIAL_FIELDS,
    )
    # The target's posture and the wound's dice reach the attack action; a subclass for
    # another rules system (its package's forms) calls its own action, and offers them once
    # that action takes ``posture`` and ``wound_dice`` too: it says so by setting this True.
    location_extras: bool | None = None

    def _offers_extras(self) -> bool:
        extras = self.location_extras
        return type(self) is AttackForm if extras is None else extras

    def _hit_location_fields(self) -> None:
        wanted = self.data.get("target") if self.is_bound else self.initial.get("target")
        target = self.fields["target"].find(wanted)
        # A target chosen anew brings the directions its body allows (combat.views.zones).
        self.fields["target"].widget.attrs.update(
            {
                "hx-get": reverse("zone_directions", args=[self.viewer.encounter.slug]),
                "hx-include": "closest form",
                "hx-target": "#id_direction",
                "hx-swap": "outerHTML",
                "hx-trigger": "change",
            }
        )
        directions = body_fields.directions_for(target)
        self.fields["direction"] = forms.ChoiceField(
            label=_("Direction of the attack"), choices=directions
        )
        # Whose body the choices are for: the field swapped in for a new target says so too.
        self.fields["direction"].widget.attrs["data-target"] = target.pk if target else ""
        if not self.is_bound and self.initial.get("direction") not in dict(directions):
            keys = [key for key, _label in directions]
            self.initial["direction"] = "front" if "front" in keys else keys[0]
        self.fields["attacker_ft"] = body_fields.length_field(
            _("Attacker's height (ft)"), body_fields.MIN_HEIGHT
        )
        self.fields["weapon_ft"] = body_fields.length_field(_("Weapon length (ft)"), Decimal(0))
        self.fields["location"] = body_fields.location_field()
        if self._offers_extras():
            self.fields["posture"] = body_fields.posture_field()
            self.fields["wound_dice"] = body_fields.wound_dice_field()
        # Which attacker the heights were filled in for: another chosen since keeps its own.
        self.fields["measured"] = forms.CharField(widget=forms.HiddenInput, required=False)
        self.dice_fields = (*self.dice_fields, "location", *body_fields.WOUND_FIELDS)
        if any(c.kind == Kind.MONSTER for c in self.fields["actor"].offered):
            self.fields.update(body_fields.special_attack_fields())
            self.dice_fields = (*self.dice_fields, "escape")
        actor = None if self.is_bound else self.initial_actor()
        if actor is not None:
            self.initial.setdefault("attacker_ft", actor.height_ft)
            self.initial.setdefault("weapon_ft", actor.weapon_ft)
            self.initial["measured"] = f"{actor.pk}:{actor.height_ft}:{actor.weapon_ft}"

    def _clean_location(self, data: dict[str, Any]) -> None:
        """Heights left as filled in for another attacker than the one chosen are that one's
        own; None leaves the attacker's remembered values."""
        actor = data.get("actor")
        pk, _sep, rest = (data.get("measured") or "").partition(":")
        height, _sep, weapon = rest.partition(":")
        if actor is not None and pk and pk != str(actor.pk):
            try:
                same = data.get("attacker_ft") == Decimal(height) and (
                    data.get("weapon_ft") == Decimal(weapon)
                )
            except ArithmeticError:
                same = False
            if same:
                data["attacker_ft"] = data["weapon_ft"] = None
        data.pop("measured", None)

    def _standing(self, pk: Any) -> bool:
        return str(pk).isdigit() and self.fields["target"].find(pk) is not None

    def _first_opponent(self) -> int | None:
        """Preselect the first one standing on the other side, so the odds show at once."""
        actor = self.initial_actor()
        for combatant in self.fields["target"].offered:  # the living only
            if actor is None or combatant.side != actor.side:
                return combatant.pk
        return None

    def clean(self) -> dict:
        data = super().clean()
        refuse_self_target(self, data)
        if data.get("damage_dice") and not data.get("damage"):
            self.add_error("damage", _("Give the damage dice to enter their results."))
        if "direction" in self.fields:
            self._clean_location(data)
            body_fields.clean_posture(self, data)
        if data.get("special") and data.get("actor") and data["actor"].kind != Kind.MONSTER:
            self.add_error("special", _("Only monsters make special attacks."))
        monsters.clean_attack(self, data)  # the attack's name, for the log
        return data


def refuse_self_target(form: forms.Form, data: dict[str, Any]) -> None:
    """An attack's target is never its attacker: said on the target field (the form may
    have been drawn for another attacker, or sent by hand)."""
    actor, target = data.get("actor"), data.get("target")
    if actor is not None and target is not None and actor.pk == target.pk:
        form.add_error("target", message_for(Refused("attacks_itself", name=actor.name)))


SAVE_CHOICES = list(SAVES.items())


class SaveForm(RollForm):
    field_order_extra = ("category", "magical")
    kept = ("actor", "category", "magical", "secret")
    category = forms.ChoiceField(label=_("Saving throw"), choices=SAVE_CHOICES)
    magical = forms.BooleanField(
        label=_("Against magic: WIS counts"),
        required=False,
        help_text=_("The WIS stored on the combatant adds its modifier."),
    )
    damage = forms.IntegerField(
        label=_("Damage of the effect"),
        required=False,
        min_value=0,
        max_value=9999,
        help_text=_("Halved on a successful save, rounded down."),
    )

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()


ABILITY_CHOICES = list(ABILITIES.items())


class StoredScore:
    """An ability check's form: an empty score is the one stored on the combatant (any of
    the six), and asked for only when none is."""

    def clean(self) -> dict:
        data = super().clean()
        actor, ability = data.get("actor"), data.get("ability")
        if actor is not None and ability in ABILITY_FIELDS and data.get("score") is None:
            data["score"] = getattr(actor, ABILITY_FIELDS[ability])
        if ability and data.get("score") is None and "score" not in self.errors:
            self.add_error("score", _("Enter the ability score."))
        return data


class CheckForm(StoredScore, RollForm):
    acts_in_round = True
    field_order_extra = ("ability", "score")
    kept = ("actor", "ability", "score", "secret")
    ability = forms.ChoiceField(label=_("Ability"), choices=ABILITY_CHOICES)
    score = forms.IntegerField(
        label=_("Score"),
        min_value=3,
        max_value=18,
        required=False,
        help_text=_("Leave empty to use the score stored on the combatant."),
    )

    modifier_limit = 4
    modifier_help = _("−4 is relatively easy, +4 very hard.")

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()


class HitPointsForm(ActionForm):
    """Damage or healing by hand."""

    kept = ("actor", "action")

    action = forms.ChoiceField(
        label=_("What"),
        choices=[("damage", _("Damage")), ("heal", _("Magical healing"))],
    )
    amount = forms.IntegerField(label=_("How many hit points"), min_value=0, max_value=HP_LIMIT)

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(viewer.controlled_list(), _("Who"))
        self.order_fields(["actor", "action", "amount"])


class RestForm(ActionForm):
    """Natural healing: 1d3 for each full day of rest; an interrupted day heals nothing."""

    dice_fields = ("day_dice",)
    kept = ("actor",)

    days = forms.IntegerField(label=_("Days of full rest"), min_value=1, max_value=60, initial=1)
    interrupted = forms.IntegerField(
        label=_("Of them interrupted"), min_value=0, max_value=60, initial=0, required=False
    )
    day_dice = EnteredDiceField(
        label=_("d3 results rolled at the table"), max_length=300, required=False
    )

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["actor"] = combatant_field(
            viewer.controlled_list(), _("Who"), refusal="dead_cannot_act"
        )
        self.order_fields(["actor", "days", "interrupted", "day_dice"])
        self.without_dice_fields()

    def clean(self) -> dict:
        data = super().clean()
        days, interrupted = data.get("days"), data.get("interrupted") or 0
        data["interrupted"] = interrupted
        if days is not None and interrupted > days:
            self.add_error("interrupted", _("More interrupted days than days of rest."))
        return data


class FreeRollForm(ActionForm):
    dice_fields = ("entered",)
    kept = ("expression", "label", "secret")

    expression = DiceField(label=_("Dice"), max_length=60, initial="1d6")
    label = forms.CharField(label=_("What for"), max_length=60, required=False)
    entered = EnteredDiceField(label=_("Dice rolled at the table"), max_length=300, required=False)

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["expression"].initial = local_dice("1d6")
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.without_dice_fields()

    def clean_expression(self):
        expression = self.cleaned_data.get("expression")
        if expression is None:
            raise forms.ValidationError(_("Give a dice expression, e.g. 2d6."))
        return expression


# --- shared by the rules systems' roll forms --------------------------------------------------

CHECK_MODIFIER_HELP = _("Usually −2 (very hard) to +2 (very easy).")
ROLL_MODIFIER_HELP = _("Usually −4 (very hard) to +4 (very easy).")


@dataclass(frozen=True)
class SystemOdds:
    """What ``combat/_odds.html`` shows (``needed``+ · chance), and notes under it. As for
    OSE, ``needed`` is the total the roll must reach (what the log will say it needed); the
    chance counts the modifiers and the naturals that always fail or succeed."""

    needed: int
    chance: Fraction
    under: bool = False
    notes: tuple[str, ...] = ()
    matrix: None = None
    location: Any = None


# The reason key the engines give the referee's adjustment to a roll.
SITUATIONAL = "situational"


def situational(value: int) -> tuple[Modifier, ...]:
    return (Modifier(value, SITUATIONAL),) if value else ()


def form_values(form: forms.Form) -> dict[str, Any]:
    """The form's valid values so far, whether it was posted or only prefilled: what the odds
    before a roll are worked out from (``combat.odds``)."""
    if form.is_bound and hasattr(form, "cleaned_data"):  # validated: a probe would agree
        return form.cleaned_data
    probed = form.__dict__.get("_probed")
    if probed is not None:  # probed before: the odds ask (a helpless target, then the roll)
        return probed
    if form.is_bound:
        data = form.data
    else:
        data = {
            name: form.get_initial_for_field(field, name) for name, field in form.fields.items()
        }
        data = {k: getattr(v, "pk", v) for k, v in data.items() if v is not None}
    probe = type(form)(data, viewer=form.viewer)
    probe.is_valid()
    form._probed = probe.cleaned_data
    return probe.cleaned_data


def rules_error(form: forms.Form, field: str | None, error: RulesError) -> None:
    form.add_error(field, message_for(error))
