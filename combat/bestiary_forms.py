"""The bestiary's forms: add several monsters from an entry, and edit a campaign's entry."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat import bestiary, bounded, classes, monsters, starter_words
from combat.classes import SAVE_FIELDS
from combat.forms import OnceMixin
from combat.models import BestiaryEntry, Combatant, Encounter, Side
from combat.transfer import Refused


def entry_label(entry: BestiaryEntry) -> str:
    """An entry as a list offers it: the name and what tells monsters apart at a glance."""
    return _("%(name)s · HD %(hd)s · AC %(ac)s") % {
        "name": bestiary.shown_name(entry),
        "hd": starter_words.hit_dice(entry.stats.get("hit_dice", "")),
        "ac": entry.stats.get("ac", ""),
    }


class AddFromBestiaryForm(OnceMixin, forms.Form):
    """Several monsters from one entry ("3 hobgoblins"), each with its own hit points."""

    count = forms.IntegerField(
        label=_("How many"), min_value=1, max_value=bestiary.COUNT_LIMIT, initial=1
    )
    entry = forms.ChoiceField(label=pgettext_lazy("bestiary", "Monster"))
    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, initial=Side.FOES)
    hidden = forms.BooleanField(label=_("Hidden from players"), required=False)

    def __init__(self, *args: Any, encounter: Encounter, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.encounter = encounter
        own, starter = bestiary.offered(encounter)
        groups = []
        if own:
            groups.append(
                (
                    _("This campaign's bestiary"),
                    [(bestiary.starter_key(e), entry_label(e)) for e in own],
                )
            )
        if starter.entries:
            groups.append(
                (
                    _("Starter bestiary"),
                    [(bestiary.starter_key(e), entry_label(e)) for e in starter.entries],
                )
            )
        self.fields["entry"].choices = groups
        self.offers_nothing = not groups

    def clean_entry(self) -> BestiaryEntry:
        entry = bestiary.find(self.encounter, self.cleaned_data["entry"])
        if entry is None:  # removed since the form was opened
            raise forms.ValidationError(_("That entry is no longer in the bestiary."))
        return entry


class EntryForm(forms.ModelForm):
    """A campaign's entry: its name and the stat block a referee reads off a page. What the
    form does not show (a body, skills, immunities) stays as it was saved."""

    entry_name = forms.CharField(
        label=pgettext_lazy("combatant", "Name"), max_length=bestiary.NAME_LIMIT
    )

    class Meta:
        model = Combatant
        fields = [
            "ac",
            "hit_dice",
            "thac0",
            "saves_as",
            *SAVE_FIELDS,
            "morale",
            "attacks",
            "movement",
            "xp",
            "special_notes",
        ]
        field_classes = {"attacks": monsters.AttacksField, "saves_as": monsters.SavesAsField}
        widgets = {"special_notes": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args: Any, entry: BestiaryEntry, **kwargs: Any) -> None:
        self.entry = entry
        monster = bestiary.monster_from(entry.stats, Encounter(system=entry.system), entry.name)
        super().__init__(*args, instance=monster, initial={"entry_name": entry.name}, **kwargs)
        self.order_fields(["entry_name"])
        self.fields["hit_dice"].required = True
        self.fields["hit_dice"].help_text = _("As written, e.g. 1-1, 2+1, 4*")
        for name in ("thac0", *SAVE_FIELDS):  # empty: from the Hit Dice, as on the table
            self.fields[name].required = False
        if not classes.has_class_tables(entry.system):  # that system's classes are not known
            self.fields.pop("saves_as")
        bounded.apply_to_form(self)

    def clean_entry_name(self) -> str:
        name = self.cleaned_data["entry_name"].strip()
        taken = BestiaryEntry.objects.filter(
            campaign=self.entry.campaign_id, system=self.entry.system, name__iexact=name
        ).exclude(pk=self.entry.pk)
        if taken.exists():
            raise forms.ValidationError(_("The bestiary has an entry of that name already."))
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        stats = self.entry.stats | {name: data[name] for name in self._meta.fields if name in data}
        for name in ("thac0", *SAVE_FIELDS):
            if stats.get(name) is None:  # left empty: from the Hit Dice in the entry's system
                stats.pop(name, None)
        try:
            monster = bestiary.monster_from(
                stats, Encounter(system=self.entry.system), data["entry_name"]
            )
        except Refused as refused:
            raise forms.ValidationError(refused.message) from None
        self.stats = bestiary.stat_block(monster)
        return data
