"""What a reader of a page sees, and the checks a page in Czech, Russian or Ukrainian must pass
(issue 32): shared by tests/combat/test_page_language.py.

Each check takes the visible text of a page (``visible``) and answers the failures it finds, as
``(kind, snippet)``: the kind one of ``KINDS``, the snippet about 60 characters of context."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape
from html.parser import HTMLParser

from .test_log_language import LATIN_DIE, SAME_IN_CZECH, WORD

KINDS = ("english", "die", "gender", "decimal", "duplicate label", "feet")

# --- data: easy to extend ------------------------------------------------------------------

# Words that are the same in every language: rules' own names and abbreviations.
ALLOWED_EVERYWHERE = {"THAC0", "THAC", "XP", "QR", "JSON", "Esc", "Fray"}
# The standards the server dice page names (how its dice are worked out, and what runs it).
ALLOWED_EVERYWHERE |= {"SHA", "HMAC", "JavaScript"}
# Names of things that are not translated: the rules systems' own titles, and each language
# named in itself in the language menu.
PROPER = {"OSE", "BECMI", "Dolmenwood", "Old", "School", "Essentials", "Rules", "Cyclopedia"}
PROPER |= {"Blackmoor", "English", "Čeština", "Русский", "Українська", "CS", "EN", "RU", "UK"}
# Titles cited as they are printed (the source of the hit-location tables).
CITED = ("Hit Location During Melee", "Open Game License 1.0a", "Open Game License")
# Per language, beyond those: Czech words spelt as the English ones (and the glossary's Czech
# unit for feet); the Dolmenwood words the Ukrainian Dolmenwood seed keeps in English.
ALLOWED = {
    "cs": PROPER
    | SAME_IN_CZECH
    | {"to", "do", "na", "za", "li", "by", "body", "panel", "server", "text", "import", "Export"}
    | {"humanoid", "Humanoid", "Elf", "Hobgoblin", "Kobold", "Zombie", "INT", "CHA", "MB"}
    | {"old", "school"},  # "old-school hry": the Czech players' own name for them
    "ru": PROPER,
    # The Ukrainian Dolmenwood keeps these in English (its seed; the formats page names them).
    "uk": PROPER | {"Kindred", "Wyrm", "Fairy", "Glamours", "Glamour"},
}
# The file formats' own words, shown to be typed into a file as they are.
FORMAT_WORDS = {"UTF", "NUL", "json", "true", "false", "null", "SRD"}

# A participle or adjective that takes the gender of the combatant it speaks of: a name does
# not say whether it is a man's or a woman's (nor a monster's grammatical gender), so the app
# writes impersonal or neuter forms ("skryto", "скрыто", "приховано", "збережено").
GENDERED = {
    "cs": [
        "mrtvý",
        "mrtvá",
        "mrtev",
        "mrtva",
        "uložen",
        "uložena",
        "aktualizován",
        "aktualizována",
        "skrytý",
        "skrytá",
        "zabit",
        "zabita",
        "zabitý",
        "zabitá",
        "omráčen",
        "omráčena",
        "omráčený",
        "omráčená",
        "zraněný",
        "zraněná",
        "zraněn",
        "zraněna",
        "vyřazen",
        "vyřazena",
        "vyřazený",
        "vyřazená",
    ],
    "ru": [
        "мёртв",
        "мертв",
        "мертва",
        "мёртвый",
        "мертвый",
        "мёртвая",
        "мертвая",
        "сохранён",
        "сохранен",
        "сохранена",
        "обновлён",
        "обновлен",
        "обновлена",
        "скрыт",
        "скрыта",
        "скрытый",
        "скрытая",
        "убит",
        "убита",
        "убитый",
        "убитая",
        "ранен",
        "ранена",
        "раненый",
        "раненая",
        "оглушён",
        "оглушен",
        "оглушена",
        "повержен",
        "повержена",
        "с ним",
        "с ней",
    ],
    "uk": [
        "мертвий",
        "мертва",
        "збережений",
        "збережена",
        "оновлений",
        "оновлена",
        "прихований",
        "прихована",
        "убитий",
        "убита",
        "вбитий",
        "вбита",
        "поранений",
        "поранена",
        "оглушений",
        "оглушена",
        "з ним",
        "з нею",
    ],
}
# Nouns such a form may agree with, a few words before it or right after it ("Zabitý
# nepřítel", "cíl je rovnou zabit", "polovina strany vyřazena"): not a name.
GENDERED_AGREES = {
    "cs": {"nepřítel", "cíl", "polovina"},
    "ru": {"противник", "цель", "половина"},
    "uk": {"противник", "ворог", "ціль", "половина"},
}
GENDERED_RE = {
    language: re.compile(
        r"(?<![^\W_])(?:" + "|".join(map(re.escape, forms)) + r")(?![^\W_])", re.IGNORECASE
    )
    for language, forms in GENDERED.items()
}
DECIMAL = re.compile(r"\d\.\d")
PERCENT = re.compile(r"\d%")
# Feet after a number: the form the number asks for (Russian фут/фута/футов, Ukrainian
# фут/фути/футів).
FEET = re.compile(r"(?<![\d.,])(\d+)\s*(фут(?:ов|а|ів|и)?)(?![^\W_]|…)")
FEET_FORMS = {"ru": ("фут", "фута", "футов"), "uk": ("фут", "фути", "футів")}


def feet_form(language: str, number: int) -> str:
    one, few, many = FEET_FORMS[language]
    if number % 10 == 1 and number % 100 != 11:
        return one
    if 2 <= number % 10 <= 4 and not 12 <= number % 100 <= 14:
        return few
    return many


# --- what a reader sees --------------------------------------------------------------------

SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
# Not read as words: scripts and styles, what a field holds, and code (the formats page's
# keys and examples are the file's own, in no language).
HIDDEN_TAGS = {"script", "style", "textarea", "code", "pre", "kbd", "samp"}
URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:com|org|net)\b\S*")


class _Visible(HTMLParser):
    """The page's text as pieces a reader sees: text, the attributes a browser shows (a
    title, a placeholder, an aria label), and what a submit button says; never a field's
    value, a data attribute or an address."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in HIDDEN_TAGS:
            self.hidden += 1
            return
        for name in SHOWN_ATTRIBUTES:
            if a.get(name):
                self.pieces.append(a[name])
        if tag in ("input", "button") and a.get("type") in ("submit", "button") and a.get("value"):
            if tag == "input":
                self.pieces.append(a["value"])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in HIDDEN_TAGS:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN_TAGS and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.pieces.append(data)


def visible(html: str) -> str:
    """What a reader sees of ``html``, one line, pieces separated by " ¦ "."""
    reader = _Visible()
    reader.feed(html)
    reader.close()
    text = " ¦ ".join(" ".join(p.split()) for p in reader.pieces if p.strip())
    for title in CITED:
        text = text.replace(title, "‹…›")
    return URL.sub("‹…›", text)  # an address shown to be copied is not a word


def snippet(text: str, start: int, end: int, around: int = 30) -> str:
    left = max(0, start - around)
    return (
        ("…" if left else "")
        + text[left : end + around].strip()
        + ("…" if end + around < len(text) else "")
    )


# --- the checks ----------------------------------------------------------------------------


def english(
    text: str, english_text: str, language: str, allowed: set[str]
) -> list[tuple[str, str]]:
    """Words of the English rendering that survive into the translated one; in Russian and
    Ukrainian any word in Latin letters at all."""
    same = set(WORD.findall(english_text))
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for match in WORD.finditer(text):
        word = match.group()
        # An English word is in Latin letters; a word cut short ("паралі…") is a note's.
        if word in seen or word in allowed or not word.isascii():
            continue
        if text.startswith("…", match.end()):
            continue
        if word in same or language != "cs":
            seen.add(word)
            found.append(("english", f"{word}: {snippet(text, *match.span())}"))
    return found


def die(text: str, language: str) -> list[tuple[str, str]]:
    return [("die", snippet(text, *m.span())) for m in LATIN_DIE[language].finditer(text)]


def gender(text: str, language: str) -> list[tuple[str, str]]:
    found = []
    for m in GENDERED_RE[language].finditer(text):
        before = text[: m.start()].rsplit("¦", 1)[-1].casefold().split()[-4:]
        after = text[m.end() :].split("¦", 1)[0].casefold().split()[:1]
        if GENDERED_AGREES[language] & {w.strip(",.;:«»„“") for w in before + after}:
            continue
        found.append(("gender", f"{m.group()}: {snippet(text, *m.span())}"))
    return found


def decimal(text: str) -> list[tuple[str, str]]:
    found = [("decimal", f"point: {snippet(text, *m.span())}") for m in DECIMAL.finditer(text)]
    found += [("decimal", f"per cent: {snippet(text, *m.span())}") for m in PERCENT.finditer(text)]
    return found


def feet(text: str, language: str) -> list[tuple[str, str]]:
    if language not in FEET_FORMS:
        return []
    return [
        (
            "feet",
            f"{m.group()} (→ {feet_form(language, int(m.group(1)))}): {snippet(text, *m.span())}",
        )
        for m in FEET.finditer(text)
        if m.group(2) != feet_form(language, int(m.group(1)))
    ]


FORM = re.compile(r"<form\b[^>]*>(.*?)</form>", re.S)
LABEL_FOR = re.compile(r'<label\b[^>]*\bfor="([^"]+)"[^>]*>(.*?)</label>', re.S)


def _label_text(html: str) -> str:
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    return " ".join(text.replace(":", " ").split()).casefold()


def duplicate_labels(html: str) -> list[tuple[str, str]]:
    """Two different fields of one form whose labels say the same (not the options of one
    list: ``id_helpers_0``)."""
    found = []
    for form in FORM.findall(html):
        labels = {
            for_id: _label_text(text)
            for for_id, text in LABEL_FOR.findall(form)
            if not re.search(r"_\d+$", for_id)
        }
        counted = Counter(text for text in labels.values() if text)
        for text, count in counted.items():
            if count > 1:
                ids = sorted(i for i, t in labels.items() if t == text)
                found.append(("duplicate label", f"{text!r} labels {', '.join(ids)}"))
    return found


def check(html: str, english_html: str, language: str, allowed: set[str]) -> list[tuple[str, str]]:
    """Every failure of one page in ``language`` (``english_html``: the same page in English)."""
    text = visible(html)
    return (
        english(text, visible(english_html), language, allowed)
        + die(text, language)
        + gender(text, language)
        + decimal(text)
        + feet(text, language)
        + duplicate_labels(html)
    )
