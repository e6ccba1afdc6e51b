"""Dolmenwood's forms at the table: skill and ability checks on a d6, the five saves, attacks
against ascending AC, the referee's chance rolls, and its fields on the combatant form.

Each roll form has ``system_odds()``: the exact chance before the roll (``combat.odds`` asks
it), with the notes the form's user needs (an immune target, the save category the seed's
order suggests).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat.access import Viewer
from combat.errors import message_for
from combat.forms import (
    ABILITY_MAX,
    ABILITY_MIN,
    CHECK_MODIFIER_HELP,
    ROLL_MODIFIER_HELP,
    ActionForm,
    AttackForm,
    RollForm,
    StoredScore,
    SystemOdds,
    form_values,
    natural_field,
    rules_error,
    situational,
)
from combat.labels import ABILITIES, ATTACK_FORMS, IMMUNITIES
from combat.models import THAC0_MAX, THAC0_MIN, Combatant, Kind
from combat.odds import location_odds
from combat.systems.dolmenwood import terms as systems
from rules import dice, ose
from rules import dolmenwood as dw
from rules.errors import RulesError


class SkillForm(RollForm):
    """A d6 skill check against the target on the combatant's sheet."""

    acts_in_round = True
    sides = 6
    modifier_limit = 10
    modifier_help = CHECK_MODIFIER_HELP
    field_order_extra = ("skill",)
    kept = ("actor", "skill", "secret")

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        choices: dict[str, Any] = {key: label for key, label in systems.DW_SKILLS.items()}
        for combatant in self.fields["actor"].offered:
            for skill in systems.sheet_of(combatant):
                choices.setdefault(systems.skill_choice(skill), skill.name)
        self.fields["skill"] = forms.ChoiceField(
            label=pgettext_lazy("dolmenwood", "Skill"),
            choices=list(choices.items()),
            initial="listen",
        )
        self.order_fields(["actor", "skill", "modifier", "natural"])
        self.without_dice_fields()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        actor, choice = data.get("actor"), data.get("skill")
        if actor is None or not choice:
            return data
        skill = systems.find_skill(actor, choice)
        try:
            if skill is None:
                raise RulesError("skill_not_available", "", skill=choice.removeprefix("name:"))
            data["target"] = dw.skill_target_for(skill.key, systems.engine_sheet([skill]))
        except RulesError as error:
            rules_error(self, "skill", error)
            return data
        data["skill"] = skill
        return data

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        skill: systems.SheetSkill = values["skill"]
        mods = situational(values.get("modifier") or 0)
        chance = dw.skill_check_odds(skill.key, values["target"], mods)
        notes = []
        if len(skill.targets) == 2:
            notes.append(
                str(
                    _("Kindred gives %(kindred)s, class %(klass)s: the better, %(target)s.")
                    % {
                        "kindred": skill.targets[0],
                        "klass": skill.targets[1],
                        "target": values["target"],
                    }
                )
            )
        notes.append(str(_("A natural 1 always fails, a natural 6 always succeeds.")))
        return SystemOdds(values["target"], chance, notes=tuple(notes))


class AbilityCheckForm(StoredScore, RollForm):
    """A d6 ability check: 4 or more with the ability's modifier."""

    acts_in_round = True
    sides = 6
    modifier_limit = 10
    modifier_help = CHECK_MODIFIER_HELP
    field_order_extra = ("ability", "score")
    kept = ("actor", "ability", "score", "secret")
    ability = forms.ChoiceField(label=_("Ability"), choices=list(ABILITIES.items()))
    score = forms.IntegerField(
        label=_("Score"),
        min_value=ABILITY_MIN,
        max_value=ABILITY_MAX,
        required=False,
        help_text=_("Leave empty to use the score stored on the combatant."),
    )

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        mods = situational(values.get("modifier") or 0)
        chance = dw.ability_check_odds(values["ability"], values["score"], mods)
        note = str(_("A natural 1 always fails, a natural 6 always succeeds."))
        return SystemOdds(4, chance, notes=(note,))


class SaveForm(RollForm):
    """A d20 save in one of the five categories; WIS counts against magic only."""

    modifier_limit = 10
    modifier_help = ROLL_MODIFIER_HELP
    field_order_extra = ("category", "effect", "magical")
    kept = ("actor", "category", "effect", "magical", "secret")
    category = forms.ChoiceField(label=_("Saving throw"), choices=list(systems.DW_SAVES.items()))
    effect = forms.ChoiceField(
        label=_("What the effect is"),
        required=False,
        choices=[("", "—"), *systems.DW_EFFECTS.items()],
        help_text=_(
            "Not listed? Take the first category that fits, in the order Doom, Ray, Hold, "
            "Blast, Spell; for very unusual effects, Doom."
        ),
    )
    magical = forms.BooleanField(label=_("The effect is magical (WIS counts)"), required=False)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        effect = data.get("effect")
        if effect and dw.is_magical_effect([effect]):
            data["magical"] = True  # death magic, spells, Glamours, staves are magic by nature
        return data

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        actor: Combatant = values["actor"]
        category = values["category"]
        target = systems.dw_save_target(actor, category)
        mods = situational(values.get("modifier") or 0)
        magical = bool(values.get("magical"))
        chance = dw.save_odds(category, target, mods, magical=magical, wisdom=actor.wis_score)
        notes = [str(systems.DW_SAVE_COVERS[category])]
        if magical and actor.wis_score is not None:
            wis = dw.ability_modifier(actor.wis_score)
            notes.append(str(_("WIS adds %(value)+d against magic.") % {"value": wis}))
        effect = values.get("effect")
        if effect:
            fits = dw.choose_save_category([effect])
            notes.append(
                str(
                    _("%(effect)s: save vs %(category)s (the first category that fits).")
                    % {"effect": systems.DW_EFFECTS[effect], "category": systems.DW_SAVES[fits]}
                )
            )
        if magical and actor.wis_score is None:
            notes.append(str(_("No WIS score: no modifier against magic.")))
        notes.append(str(_("A natural 1 always fails, a natural 20 always succeeds.")))
        return SystemOdds(target, chance, notes=tuple(notes))


class DolmenwoodAttackForm(AttackForm):
    """An attack against ascending AC: the attack bonus, STR (melee) or DEX (missile), the
    weapon's form for immunities; hit locations as the OSE form has them."""

    modifier_limit = 10
    modifier_help = ROLL_MODIFIER_HELP
    kept = (*AttackForm.kept, "weapon")
    location_extras = True  # posture and wound dice reach the action (table.where)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["mode"].choices = [
            ("melee", pgettext_lazy("attack", "Melee (STR)")),
            ("missile", pgettext_lazy("attack", "Missile (DEX)")),
        ]
        self.fields["weapon"] = forms.ChoiceField(
            label=_("Weapon"),
            choices=list(ATTACK_FORMS.items()),
            initial="mundane",
            required=False,
        )
        self.fields["damage"].help_text = _("One kind of die, e.g. 1d8 or 2d6+1.")
        order = list(self.fields)
        order.remove("weapon")
        order.insert(order.index("mode") + 1, "weapon")
        self.order_fields(order)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        target, damage = data.get("target"), data.get("damage")
        data["weapon"] = data.get("weapon") or "mundane"
        if target is not None and target.ac < 0:
            self.add_error(
                "target",
                _("Dolmenwood's armour class is ascending: give %(name)s 0 or more.")
                % {"name": target.name},
            )
        if damage is not None:
            try:
                data["dw_dice"] = dolmenwood_dice(damage)
            except ValueError:
                self.add_error("damage", _("One kind of die, e.g. 1d8 or 2d6+1."))
        return data

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        attacker: Combatant = values["actor"]
        target: Combatant = values["target"]
        inputs = attack_inputs(attacker, values)
        chance = dw.attack_odds(systems.attack_bonus(attacker), target.ac, **inputs)
        notes = list(self.hit_notes(values))
        notes.append(str(_("A natural 1 always misses, a natural 20 always hits.")))
        odds = SystemOdds(target.ac, chance, notes=tuple(notes))
        if self.viewer.encounter.hit_locations:
            odds = SystemOdds(
                odds.needed, odds.chance, notes=odds.notes, location=location_odds(values)
            )
        return odds

    def hit_notes(self, values: dict[str, Any]) -> tuple[str, ...]:
        """An immune target takes no damage from a hit, rolled or not (dolmenwood.attack)."""
        target: Combatant = values["target"]
        weapon = values.get("weapon") or "mundane"
        if not systems.is_immune(target, weapon):
            return ()
        return (
            str(
                _("%(target)s is immune to %(weapon)s: a hit deals no damage.")
                % {"target": target.name, "weapon": IMMUNITIES[weapon]}
            ),
        )


def attack_inputs(attacker: Combatant, values: dict[str, Any]) -> dict[str, Any]:
    """What the engine's attack takes besides the bonus and AC: the kind, situational
    modifiers, and STR and DEX for a character (monsters have no ability scores)."""
    character = attacker.kind != Kind.MONSTER
    return {
        "kind": values["mode"],
        "modifiers": situational(values.get("modifier") or 0),
        "strength": attacker.str_score if character else None,
        "dexterity": attacker.dex_score if character else None,
    }


def dolmenwood_dice(expression: dice.DiceExpression) -> tuple[str, int]:
    """A damage expression as Dolmenwood rolls it: one kind of die and a bonus (``2d6+1`` ->
    ``("2d6", 1)``). ValueError for anything else (``1d6+1d4``, ``-1d6``, ``3``)."""
    terms = expression.dice_terms
    if len(terms) != 1 or terms[0].sign < 0:
        raise ValueError(str(expression))
    parsed = dw.DamageDice(terms[0].count, terms[0].sides)  # the engine's bounds
    return str(parsed), expression.constant


class ChanceForm(ActionForm):
    """The referee's chance: X-in-6 (a d6, success on X or less) or a percentage (d100)."""

    dice_fields = ("natural",)
    kept = ("kind", "chance", "label", "secret")
    kind = forms.ChoiceField(
        label=_("Chance"),
        choices=[("x_in_6", _("X-in-6 (d6)")), ("percent", _("Percentage (d100)"))],
        initial="x_in_6",
    )
    chance = forms.IntegerField(
        label=_("Chance of success"),
        min_value=1,
        max_value=100,
        initial=3,
        help_text=_("X-in-6: 3 is even odds, 1 very hard. Percentage: 50 even, 10 very hard."),
    )
    label = forms.CharField(label=_("What for"), max_length=60, required=False)

    def __init__(self, *args: Any, viewer: Viewer, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.fields["natural"] = natural_field(100)
        self.fields["natural"].help_text = _(
            "Leave empty and the server rolls; a d100's 00 is 100."
        )
        if viewer.is_referee:
            self.fields["secret"] = forms.BooleanField(label=_("Roll in secret"), required=False)
        self.without_dice_fields()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind, chance, natural = data.get("kind"), data.get("chance"), data.get("natural")
        if kind == "x_in_6":
            if chance is not None and chance > 6:
                self.add_error("chance", _("X-in-6 takes 1 to 6."))
            if natural is not None and natural > 6:
                self.add_error("natural", _("A d6 shows 1 to 6."))
        return data

    def system_odds(self) -> SystemOdds:
        values = form_values(self)
        if values["kind"] == "x_in_6":
            return SystemOdds(values["chance"], dw.x_in_6_odds(values["chance"]), under=True)
        return SystemOdds(values["chance"], dw.percentage_odds(values["chance"]), under=True)


# --- the combatant form's Dolmenwood fields --------------------------------------------------


class SkillSheetField(forms.CharField):
    """A skill sheet typed as ``Listen 5/4, Climb wall 4``; stored as a list (systems)."""

    widget = forms.Textarea(attrs={"rows": 2})

    def prepare_value(self, value: Any) -> Any:
        return systems.format_skills(value) if isinstance(value, list) else value

    def to_python(self, value: Any) -> Any:
        if isinstance(value, list):
            return value
        text = super().to_python(value)
        try:
            return systems.parse_skills(text)
        except ValueError as bad:
            raise forms.ValidationError(
                _("“%(item)s”: write a skill and its target 1 to 6, or two (Kindred/class)."),
                params={"item": str(bad)},
            ) from None


def adapt_combatant_form(form: forms.ModelForm) -> None:
    """The combatant form at a Dolmenwood table: its attack bonus, save names, WIS, skills and
    immunities instead of THAC0."""
    form.fields.pop("thac0", None)
    for key, name in systems.DW_SAVE_FIELDS.items():
        form.fields[name].label = systems.DW_SAVES[key]
    form.fields["attack_bonus"].help_text = _("Monsters: leave empty to take it from the Hit Dice.")
    form.fields["wis_score"].help_text = _("Added to saves against magic; empty for monsters.")
    form.fields["skills"] = SkillSheetField(
        label=_("Skills"),
        required=False,
        help_text=_(
            "Listen, Search and Survival are 6 unless given; class skills by name. Two "
            "targets (Kindred/class): the better is used. E.g. Listen 5/4, Climb wall 4."
        ),
    )
    form.fields["immunities"] = forms.MultipleChoiceField(
        label=_("Immune to"),
        required=False,
        choices=list(IMMUNITIES.items()),
        widget=forms.CheckboxSelectMultiple,
    )
    form.fields["ac"].help_text = _("Ascending: higher is better.")


def clean_dolmenwood_combatant(form: forms.ModelForm, data: dict[str, Any]) -> None:
    """A character needs its attack bonus; THAC0 is kept as 19 − the bonus (the same odds)."""
    bonus = data.get("attack_bonus")
    if bonus is not None:
        try:
            data["thac0"] = min(max(ose.thac0_from_bonus(bonus), THAC0_MIN), THAC0_MAX)
        except RulesError as error:  # the model's own bounds are checked only after clean()
            form.add_error("attack_bonus", message_for(error))
    elif data.get("kind") != Kind.MONSTER and "attack_bonus" not in form.errors:
        form.add_error("attack_bonus", _("A character needs this value from its class."))
        data["thac0"] = 19  # no THAC0 field to complain on: the bonus's error says it
