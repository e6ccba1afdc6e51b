"""Forms: every input validated into clear messages in the user's language.

Forms only check and convert input; the rules engine decides outcomes. Choices of combatants
are limited to what the viewer may see or control, so a forged id is just an invalid choice.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from rules import dice, ose
from rules.errors import RulesError
from rules.labels import ABILITIES, SAVES

from .access import Viewer
from .errors import message_for
from .models import Combatant, Encounter, Kind, RulesSystem, Side

PLAYABLE_SYSTEMS = {RulesSystem.OSE}
HP_LIMIT = 9999  # the most a combatant's maximum hit points may be
SAVE_FIELDS = ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells")
MODIFIER_LIMIT = 20


class EncounterForm(forms.ModelForm):
    class Meta:
        model = Encounter
        fields = ["name", "system", "attack_method"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The model knows every system; the table plays OSE until the others are wired up.
        self.fields["system"].choices = [
            (value, label) for value, label in RulesSystem.choices if value in PLAYABLE_SYSTEMS
        ]


class EncounterSettingsForm(forms.ModelForm):
    class Meta:
        model = Encounter
        fields = ["name", "attack_method", "show_foe_hp"]


class JoinForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=40)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Please give a name."))
        return name


def local_dice(expression: str) -> str:
    """A dice expression as the viewer's language writes it: 1k6 in Czech, 1к6 in Russian."""
    return dice.format_expression(expression, letter=dice.die_letter_for(get_language() or "en"))


def _rules_call(func, *args, **kwargs):
    """Call the engine, turning its error into a form error in the user's language."""
    try:
        return func(*args, **kwargs)
    except RulesError as error:
        raise forms.ValidationError(message_for(error)) from error


class CombatantForm(forms.ModelForm):
    """Add or edit a combatant. A monster's THAC0 and saves come from its Hit Dice unless
    the referee overrides them; a normal human uses the BČ row; a character's are entered."""

    hp = forms.IntegerField(
        label=_("Current hit points"), required=False, min_value=-999, max_value=9999
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
            "thac0",
            *SAVE_FIELDS,
            "str_score",
            "dex_score",
            "hidden",
            "seat",
        ]

    def __init__(self, *args, encounter: Encounter, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seat"].queryset = encounter.seats.all()
        self.fields["seat"].empty_label = _("the referee")
        self.fields["thac0"].required = False
        for name in SAVE_FIELDS:
            self.fields[name].required = False
            self.fields[name].widget.attrs["max"] = 30
        for name in ("str_score", "dex_score"):
            self.fields[name].widget.attrs.update(min=3, max=18)
        self.fields["hit_dice"].help_text = _("Monsters: as written, e.g. 1-1, 2+1, 4*")

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
        kind = data.get("kind")
        hit_dice = (data.get("hit_dice") or "").strip()
        data["hit_dice"] = hit_dice
        derived: dict[str, int] = {}
        if kind == Kind.MONSTER:
            if not hit_dice:
                self.add_error("hit_dice", _("A monster needs its Hit Dice."))
                return data
            try:
                derived["thac0"] = ose.monster_thac0(hit_dice)
                saves = ose.monster_saves(hit_dice)
            except RulesError as error:
                self.add_error("hit_dice", message_for(error))
                return data
        elif kind == Kind.NORMAL_HUMAN:
            derived["thac0"] = ose.monster_thac0("normal human")
            saves = ose.monster_saves("normal human")
        else:
            saves = {}
        derived |= {f"save_{key}": value for key, value in saves.items()}
        for name in ("thac0", *SAVE_FIELDS):
            if data.get(name) is None:
                if name in derived:
                    data[name] = derived[name]
                elif name not in self.errors:
                    self.add_error(name, _("A character needs this value from its class."))
        hp_max = data.get("hp_max")
        if data.get("hp") is None and hp_max is not None:
            data["hp"] = hp_max if self.instance.pk is None else self.instance.hp
        return data


class QuickAddForm(forms.Form):
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
    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, initial=Side.FOES)
    hidden = forms.BooleanField(label=_("Hidden from players"), required=False)

    def clean_hit_dice(self) -> str:
        hit_dice = self.cleaned_data["hit_dice"].strip()
        self.cleaned_data["thac0"] = _rules_call(ose.monster_thac0, hit_dice)
        self.cleaned_data["saves"] = ose.monster_saves(hit_dice)
        return hit_dice

    def clean(self) -> dict:
        data = super().clean()
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
        return data


def _combatant_field(queryset, label) -> forms.ModelChoiceField:
    return forms.ModelChoiceField(queryset=queryset, label=label, empty_label=None)


def _modifier_field(limit: int, help_text: str = "") -> forms.IntegerField:
    return forms.IntegerField(
        label=_("Modifier"),
        initial=0,
        required=False,
        min_value=-limit,
        max_value=limit,
        help_text=help_text,
    )


def _natural_field(sides: int) -> forms.IntegerField:
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


class EnteredDiceField(forms.CharField):
    """Physical die results typed in, separated by spaces or commas."""

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        parts = value.replace(",", " ").split()
        try:
            results = [int(part) for part in parts]
        except ValueError:
            raise forms.ValidationError(_("Type the dice as whole numbers, e.g. 3 5.")) from None
        return results


class RollForm(forms.Form):
    """What every roll has: who acts, a modifier, the die from the table, secrecy."""

    sides = 20
    modifier_limit = MODIFIER_LIMIT
    modifier_help = ""
    field_order_extra: tuple[str, ...] = ()

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        self.fields["actor"] = _combatant_field(viewer.controlled_combatants(), _("Who"))
        self.fields["modifier"] = _modifier_field(self.modifier_limit, self.modifier_help)
        self.fields["natural"] = _natural_field(self.sides)
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.order_fields(["actor", *self.field_order_extra, "modifier", "natural"])
        if not self.is_bound and "actor" not in self.initial:
            first = self.initial_actor()
            self.initial["actor"] = first.pk if first else None

    def initial_actor(self) -> Combatant | None:
        """Who the form starts with: the one the button named, else the first controlled."""
        controlled = self.fields["actor"].queryset
        wanted = str(self.initial.get("actor", ""))
        if wanted.isdigit():
            return controlled.filter(pk=int(wanted)).first()
        return controlled.first()

    def clean_modifier(self) -> int:
        return self.cleaned_data.get("modifier") or 0


class AttackForm(RollForm):
    field_order_extra = ("target", "mode")
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
        self.fields["target"] = _combatant_field(viewer.visible_combatants(), _("Target"))
        self.fields["damage"].initial = local_dice("1d6")
        if not self.is_bound and "target" not in self.initial:
            self.initial["target"] = self._first_opponent()
        self.order_fields(
            ["actor", "target", "mode", "modifier", "natural", "damage", "damage_dice"]
        )

    def _first_opponent(self) -> int | None:
        """Preselect the first one standing on the other side, so the odds show at once."""
        actor = self.initial_actor()
        for combatant in self.fields["target"].queryset:
            if actor is None or (combatant.side != actor.side and not combatant.dead):
                return combatant.pk
        return None

    def clean(self) -> dict:
        data = super().clean()
        if data.get("damage_dice") and not data.get("damage"):
            self.add_error("damage", _("Give the damage dice to enter their results."))
        return data


SAVE_CHOICES = list(SAVES.items())


class SaveForm(RollForm):
    field_order_extra = ("category",)
    category = forms.ChoiceField(label=_("Saving throw"), choices=SAVE_CHOICES)
    damage = forms.IntegerField(
        label=_("Damage of the effect"),
        required=False,
        min_value=0,
        max_value=9999,
        help_text=_("Halved on a successful save, rounded down."),
    )


ABILITY_CHOICES = list(ABILITIES.items())


class CheckForm(RollForm):
    field_order_extra = ("ability", "score")
    ability = forms.ChoiceField(label=_("Ability"), choices=ABILITY_CHOICES)
    score = forms.IntegerField(
        label=_("Score"),
        min_value=3,
        max_value=18,
        required=False,
        help_text=_("STR and DEX come from the combatant."),
    )

    modifier_limit = 4
    modifier_help = _("−4 is relatively easy, +4 very hard.")

    def clean(self) -> dict:
        data = super().clean()
        actor, ability = data.get("actor"), data.get("ability")
        if actor is not None and ability in ("str", "dex") and data.get("score") is None:
            data["score"] = actor.str_score if ability == "str" else actor.dex_score
        if ability and data.get("score") is None and "score" not in self.errors:
            self.add_error("score", _("Enter the ability score."))
        return data


class HitPointsForm(forms.Form):
    """Damage or healing by hand."""

    action = forms.ChoiceField(
        label=_("What"),
        choices=[("damage", _("Damage")), ("heal", _("Magical healing"))],
    )
    amount = forms.IntegerField(label=_("How many hit points"), min_value=0, max_value=9999)

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        self.fields["actor"] = _combatant_field(viewer.controlled_combatants(), _("Who"))
        self.order_fields(["actor", "action", "amount"])


class RestForm(forms.Form):
    """Natural healing: 1d3 for each full day of rest; an interrupted day heals nothing."""

    days = forms.IntegerField(label=_("Days of full rest"), min_value=1, max_value=60, initial=1)
    interrupted = forms.IntegerField(
        label=_("Of them interrupted"), min_value=0, max_value=60, initial=0, required=False
    )
    day_dice = EnteredDiceField(
        label=_("d3 results rolled at the table"), max_length=300, required=False
    )

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        self.fields["actor"] = _combatant_field(viewer.controlled_combatants(), _("Who"))
        self.order_fields(["actor", "days", "interrupted", "day_dice"])

    def clean(self) -> dict:
        data = super().clean()
        days, interrupted = data.get("days"), data.get("interrupted") or 0
        data["interrupted"] = interrupted
        if days is not None and interrupted > days:
            self.add_error("interrupted", _("More interrupted days than days of rest."))
        return data


class FreeRollForm(forms.Form):
    expression = DiceField(label=_("Dice"), max_length=60, initial="1d6")
    label = forms.CharField(label=_("What for"), max_length=60, required=False)
    entered = EnteredDiceField(label=_("Dice rolled at the table"), max_length=300, required=False)

    def __init__(self, *args, viewer: Viewer, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.viewer = viewer
        self.fields["expression"].initial = local_dice("1d6")
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)

    def clean_expression(self):
        expression = self.cleaned_data.get("expression")
        if expression is None:
            raise forms.ValidationError(_("Give a dice expression, e.g. 2d6."))
        return expression
