"""Monster entries as a referee reads them off a stat block: attacks typed as written
("2 claws 1d4, bite 1d8"), stored as a list of {name, count, damage}, and the attack buttons
that open the attack form with one attack's damage filled in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext_lazy as _

from combat import classes, starter_words
from combat.dice_input import local_dice
from combat.errors import message_for
from combat.models import MOVEMENT_LIMIT, SPECIAL_LIMIT
from rules import dice
from rules.bounds import BOUNDS
from rules.errors import RulesError

if TYPE_CHECKING:
    from combat.models import Combatant

__all__ = [
    "ATTACKS_LIMIT",
    "MOVEMENT_LIMIT",
    "SPECIAL_LIMIT",
    "XP_LIMIT",
    "AttacksField",
    "SavesAsField",
    "adapt_attack_form",
    "attack_of",
    "clean_attack",
    "format_attacks",
    "parse_attacks",
    "saves_as_row",
]

ATTACKS_LIMIT = 8  # different attacks on one stat block (a hydra's heads are one, ×N)
COUNT_LIMIT = 12  # of one attack in a round
NAME_LIMIT = 30
TEXT_LIMIT = 200  # the attacks as typed
XP_LIMIT = BOUNDS["xp"].high
_TIMES = ("×", "x", "X", "х")  # "2× claw", "2 x claw" (and a Cyrillic х typed for it)


def parse_attacks(text: str) -> list[dict[str, Any]]:
    """The attacks written as a stat block writes them, separated by commas or semicolons:
    each an optional count, a name and its damage dice ("2 claws 1d4", "bite 1к8").

    The same name and damage written twice ("claw 1d4, claw 1d4") is one attack ×2. A bad
    part raises a ``ValidationError`` naming it, in the user's language."""
    text = (text or "").strip()
    too_long = forms.ValidationError(
        _("Attacks take at most %(limit)s characters.") % {"limit": TEXT_LIMIT}
    )
    if len(text) > 2 * TEXT_LIMIT:  # before any work; what counts is the length written back
        raise too_long
    attacks: list[dict[str, Any]] = []
    for part in text.replace(";", ",").split(","):
        if not part.strip():
            continue
        name, count, damage = _one_attack(part.strip())
        same = next(
            (a for a in attacks if a["name"].lower() == name.lower() and a["damage"] == damage),
            None,
        )
        if same is not None:
            same["count"] = min(same["count"] + count, COUNT_LIMIT)
            continue
        attacks.append({"name": name, "count": count, "damage": damage})
    if len(attacks) > ATTACKS_LIMIT:
        raise forms.ValidationError(
            _("At most %(limit)s different attacks.") % {"limit": ATTACKS_LIMIT}
        )
    # Written back as the edit form shows them ("d8" as "1d8"): that must fit the form, so
    # that what is stored reads back the same (an exported encounter's check relies on it).
    if len(format_attacks(attacks)) > TEXT_LIMIT:
        raise too_long
    return attacks


def _one_attack(part: str) -> tuple[str, int, str]:
    words = part.split()
    if len(words) < 2:
        raise forms.ValidationError(
            _("“%(part)s”: give a name and its damage, e.g. “2 claws 1d4”.") % {"part": part}
        )
    try:
        damage = dice.format_expression(dice.parse(words[-1].strip("()")))
    except RulesError as error:
        raise forms.ValidationError(
            _("“%(part)s”: %(error)s") % {"part": part, "error": message_for(error)}
        ) from error
    count, words = _count(words[:-1])
    while words and words[0] in _TIMES:  # "2 × claws"; and a name never starts with one,
        words = words[1:]  # so that what is written back reads back the same
    if not 1 <= count <= COUNT_LIMIT:
        raise forms.ValidationError(
            _("“%(part)s”: from 1 to %(limit)s of one attack.")
            % {"part": part, "limit": COUNT_LIMIT}
        )
    name = " ".join(words).strip()
    if not any(letter.isalpha() for letter in name):  # "2 1d8", "1 0 0": no name at all
        raise forms.ValidationError(
            _("“%(part)s”: give a name and its damage, e.g. “2 claws 1d4”.") % {"part": part}
        )
    if len(name) > NAME_LIMIT:
        raise forms.ValidationError(
            _("“%(part)s”: an attack's name takes at most %(limit)s characters.")
            % {"part": part, "limit": NAME_LIMIT}
        )
    return name, count, damage


def _count(words: list[str]) -> tuple[int, list[str]]:
    """A leading count ("2 claws", "2× claws", "2 x claws"); none is 1."""
    first = words[0].rstrip("".join(_TIMES))
    if not (first.isascii() and first.isdigit()) or len(first) > 3:
        return 1, words
    return int(first), words[1:]


def format_attacks(attacks: Any, letter: str = "d") -> str:
    """The stored attacks as a referee writes them, with the language's die letter."""
    if not isinstance(attacks, list):
        return ""
    return ", ".join(_written(a, letter) for a in attacks)


def _written(attack: dict[str, Any], letter: str) -> str:
    damage = dice.format_expression(attack["damage"], letter=letter)
    words = attack["name"].split()
    # The count is written when there are several, or when the name starts with what would be
    # read as one ("1 12 heads"), so that what is written reads back the same.
    if attack["count"] > 1 or _count(words)[1] != words:
        return f"{attack['count']} {attack['name']} {damage}"
    return f"{attack['name']} {damage}"


class AttacksField(forms.CharField):
    """A combatant's attacks: typed as text, cleaned into the stored list."""

    def __init__(self, **kwargs: Any) -> None:
        # A JSONField's form options (its encoder, its default list) this text field has no
        # use for; its own label, help and limits whatever the model field says.
        for name in (
            "encoder",
            "decoder",
            "initial",
            "required",
            "max_length",
            "show_hidden_initial",
        ):
            kwargs.pop(name, None)
        kwargs["label"] = _("Attacks")
        kwargs["help_text"] = _("As written, e.g. 2 claws 1d4, bite 1d8")
        super().__init__(max_length=TEXT_LIMIT, required=False, **kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            letter = local_dice("1d6")[1]
            said = [a | {"name": starter_words.attack(a.get("name"))} for a in value]
            return format_attacks(said, letter=letter)
        return value

    def to_python(self, value: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        text = super().to_python(value)
        # A starter attack's name shown in the reader's language is stored as its key again,
        # so that saving an edit keeps it a key every reader sees in their own language.
        return [a | {"name": starter_words.attack_key(a["name"])} for a in parse_attacks(text)]

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return self.to_python(data) != (initial or [])
        except forms.ValidationError:
            return True


def attack_of(combatant: Combatant | None, index: Any) -> dict[str, Any] | None:
    """The combatant's attack at ``index`` (as a button sends it), or None: any other value,
    a forged or stale one included, simply names no attack."""
    if combatant is None or not isinstance(combatant.attacks, list):
        return None
    text = str(index if index is not None else "")
    if not (text.isascii() and text.isdigit()) or len(text) > 2:
        return None
    number = int(text)
    return combatant.attacks[number] if number < len(combatant.attacks) else None


# --- the attack form, in every rules system (combat.forms.AttackForm and its subclasses) ------


def adapt_attack_form(form: Any) -> None:
    """Opened from an attack button (?actor=3&attack=1): that attack's damage filled in and
    its name shown; the hidden ``attack`` field carries it to the roll and the next form."""
    form.fields["attack"] = forms.CharField(widget=forms.HiddenInput, required=False)
    if form.is_bound:
        actor = form.fields["actor"].find(str(form.data.get(form.add_prefix("actor"), "")))
        chosen = attack_of(actor, form.data.get(form.add_prefix("attack")))
    else:
        actor = form.initial_actor()
        chosen = attack_of(actor, form.initial.get("attack"))
        if chosen is not None and not form.initial.get("damage"):
            # From the button; after a roll the damage kept is what was rolled (a referee's
            # +1 for a strong one stays for the next).
            form.initial["damage"] = local_dice(chosen["damage"])
    if chosen is not None:
        said = starter_words.attack(chosen["name"])
        form.fields["damage"].label = _("Damage (%(attack)s)") % {"attack": said}


def clean_attack(form: Any, data: dict[str, Any]) -> None:
    """The attack's name goes to the log; an index that is not the chosen actor's (the form
    had another actor chosen since) names nothing rather than the wrong attack."""
    chosen = attack_of(data.get("actor"), data.pop("attack", None))
    data["attack_name"] = chosen["name"] if chosen is not None else ""


# --- saves as a class ("Save As: F3") ----------------------------------------------------------


class SavesAsField(forms.CharField):
    """What a monster saves as, typed as a stat block writes it in any of the app's languages
    ("F3", "Dwarf 2", "Bojovník 3", "Normal human"): cleans to the stored key ("fighter:3",
    ``classes.NORMAL_HUMAN``), and shows a stored key back in the user's language."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs |= {"max_length": classes.SAVES_AS_TYPED_LIMIT, "required": False}
        kwargs.setdefault("label", _("Saves as"))
        super().__init__(**kwargs)
        self.help_text = _(
            "Monsters: a class and level (Fighter 3, F3, Dwarf 2) or Normal human; fills the five "
            "saves."
        )

    def to_python(self, value: Any) -> str:
        text = super().to_python(value)
        if not text:
            return ""
        ProhibitNullCharactersValidator()(text)
        try:
            return classes.saves_as_key(*classes.parse_saves_as(text))
        except classes.SavesAsError as error:
            raise forms.ValidationError(error.message) from error

    def prepare_value(self, value: Any) -> Any:
        return classes.format_saves_as(value)


def saves_as_row(form: forms.Form, system: str, key: str) -> dict[str, int] | None:
    """The five saves (``death`` … ``spells``) of what ``key`` saves as in ``system``; None,
    with the form's error on ``saves_as``, for a level that class's table has not there."""
    klass, level = classes.split_saves_as(key) or ("", None)
    top = classes.saves_as_top(system, klass)
    if top is None or (klass != classes.NORMAL_HUMAN and not 1 <= (level or 0) <= top):
        form.add_error("saves_as", _("Levels of this class: 1 to %(top)s.") % {"top": top or 0})
        return None
    return classes.saves_as_saves(system, key)
