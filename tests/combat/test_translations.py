"""Every message ships translated in cs, ru and uk, and the compiled catalogues match.

The catalogue check extracts the messages afresh from the code and templates (with Django's
``makemessages``, which needs GNU gettext) into a scratch copy, so a string marked for
translation but never added to the .po files fails here too.
"""

from __future__ import annotations

import gettext
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tests.conftest import has_program, require_or_skip

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("cs", "ru", "uk")
DOMAINS = ("django", "djangojs")
PLURAL_FORMS = {
    "cs": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);",
}
PLURAL_FORMS["uk"] = PLURAL_FORMS["ru"]


def _catalogue(language: str) -> polib.POFile:
    path = ROOT / "combat" / "locale" / language / "LC_MESSAGES" / "django.po"
    assert path.exists(), f"missing {path}"
    return polib.pofile(str(path))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated(language):
    catalogue = _catalogue(language)
    untranslated = [e.msgid for e in catalogue.untranslated_entries()]
    fuzzy = [e.msgid for e in catalogue.fuzzy_entries()]
    assert not untranslated, f"{language}: untranslated {untranslated}"
    assert not fuzzy, f"{language}: fuzzy {fuzzy}"
    for entry in catalogue:
        if entry.msgid_plural:
            assert len(entry.msgstr_plural) == 3 and all(entry.msgstr_plural.values()), (
                f"{language}: {entry.msgid!r} needs three plural forms"
            )


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_forms_follow_the_glossary(language):
    header = _catalogue(language).metadata["Plural-Forms"].replace(" ", "")
    assert header == PLURAL_FORMS[language].replace(" ", "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_matches_the_source(language):
    catalogue = _catalogue(language)
    mo_path = ROOT / "combat" / "locale" / language / "LC_MESSAGES" / "django.mo"
    with mo_path.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for entry in catalogue.translated_entries():
        msgid = f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid
        if entry.msgid_plural:
            continue
        assert compiled._catalog.get(msgid) == entry.msgstr, (
            f"{language}: django.mo is stale for {entry.msgid!r}; run compilemessages"
        )


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{\{\s*(\w+)\s*\}\}")


def _placeholders(text: str) -> set[str]:
    return {named or block for named, block in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_survive_translation(language):
    for entry in _catalogue(language).translated_entries():
        wanted = _placeholders(entry.msgid)
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in translations:
            assert _placeholders(text) == wanted, f"{language}: {entry.msgid!r} -> {text!r}"


def test_no_message_in_the_code_is_missing_from_the_catalogues(tmp_path):
    require_or_skip(has_program("xgettext"), "GNU gettext (xgettext) is not installed")
    scratch = tmp_path / "tree"
    for part in ("combat", "rules", "templates"):
        shutil.copytree(
            ROOT / part, scratch / part, ignore=shutil.ignore_patterns("__pycache__", "*.mo")
        )
    shutil.copy(ROOT / "manage.py", scratch / "manage.py")
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "makemessages",
            "--no-location",
            "--no-obsolete",
            *[f"-l{language}" for language in LANGUAGES],
            "-i",
            "tests",
        ],
        cwd=scratch,
        check=True,
        capture_output=True,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "combat.site.settings",
            "FRAY_DATA_DIR": str(tmp_path / "data"),
            "SECRET_KEY": "scratch",
            "PYTHONPATH": str(scratch),
        },
    )
    for language in LANGUAGES:
        fresh = polib.pofile(
            str(scratch / "combat" / "locale" / language / "LC_MESSAGES" / "django.po")
        )
        missing = [e.msgid for e in fresh if not e.translated() or "fuzzy" in e.flags]
        assert not missing, f"{language}: not translated yet: {missing}"
        # And the other way: a message the catalogue translates that the code no longer
        # shows where makemessages looks (a helper xgettext does not know wrapping the
        # call) would be dropped, its translations with it, at the next makemessages.
        found = {(e.msgctxt, e.msgid) for e in fresh}
        lost = [
            e.msgid
            for e in _catalogue(language)
            if not e.obsolete and (e.msgctxt, e.msgid) not in found
        ]
        assert not lost, f"{language}: no longer found in the code: {lost}"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_language_menu_names_each_language_in_its_own_words(client, language):
    """A Czech page offers "English", not "anglicky": a reader looks for their own language
    by the name they know it by."""
    client.cookies["django_language"] = language
    page = client.get("/").content.decode()
    menu = page[page.index('id="language-select"') : page.index("</select>")]
    options = re.findall(r'<option value="(\w+)"[^>]*>([^<]+)</option>', menu)
    assert options == [
        ("en", "English"),
        ("cs", "Čeština"),
        ("ru", "Русский"),
        ("uk", "Українська"),
    ]


# Strings the source scan below finds that are argument names, not error codes.
NOT_CODES = {"modifier", "score", "item_bonus", "direction", "zone"}
CODE_PATTERNS = (
    r'RulesError\(\s*"([a-z0-9_]+)"',
    r'code="([a-z0-9_]+)"',
    r'_int\([^()]*?"([a-z0-9_]+)"',
    r'_enum\([^()]*?"([a-z0-9_]+)"\)',
)


def test_every_error_the_rules_engine_can_raise_is_said_in_every_language():
    """Each code a rules module raises (read from its source) has its own message, not the
    generic one, and it is translated: a refusal always says what was wrong."""
    from django.utils import translation

    from combat.errors import FALLBACK, MESSAGES

    codes = set()
    for module in sorted((ROOT / "rules").glob("*.py")):
        source = module.read_text(encoding="utf-8")
        codes |= {code for pattern in CODE_PATTERNS for code in re.findall(pattern, source)}
    codes -= NOT_CODES
    assert {"bad_die_letter", "too_many_ties", "unknown_zone", "bad_hit_dice"} <= codes
    missing = sorted(code for code in codes if code not in MESSAGES)
    assert missing == []
    for code in sorted(codes):
        english = str(MESSAGES[code])
        assert english != str(FALLBACK) or code == "bad_argument"
        for language in LANGUAGES:
            with translation.override(language):
                assert str(MESSAGES[code]) != english, (code, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalogue_passes_msgfmt_check_with_its_own_header(language):
    """``msgfmt -c`` finds nothing, not even a warning, and the header names Fray and the
    language, not gettext's template placeholders (issue 32)."""
    require_or_skip(has_program("msgfmt"), "GNU gettext (msgfmt) is not installed")
    path = ROOT / "combat" / "locale" / language / "LC_MESSAGES" / "django.po"
    checked = subprocess.run(
        ["msgfmt", "-c", "-o", "/dev/null", str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and not checked.stderr, checked.stderr
    catalogue = _catalogue(language)
    header = catalogue.header + "".join(catalogue.metadata.values())
    for placeholder in ("SOME DESCRIPTIVE TITLE", "PACKAGE", "FULL NAME", "EMAIL", "YEAR"):
        assert placeholder not in header, (language, placeholder)
    assert catalogue.metadata["Project-Id-Version"] == "Fray"


def _translations(language: str) -> list[tuple[str, str]]:
    """Each (msgid, translation) of the catalogue, every plural form apart."""
    pairs = []
    for entry in _catalogue(language).translated_entries():
        texts = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        pairs += [(entry.msgid, text) for text in texts]
    return pairs


# A number or a placeholder glued to its per cent sign ("10%", "%(percent)s%%", "{{ p }}%").
GLUED_PERCENT = re.compile(r"(\d|\)s|\}\})%")
# A decimal point between digits ("5.5"): Czech, Russian and Ukrainian write a comma.
DECIMAL_POINT = re.compile(r"\d\.\d")


@pytest.mark.parametrize("language", LANGUAGES)
def test_numbers_are_written_as_the_language_writes_them(language):
    """A space before the per cent sign and a decimal comma in every message (glossary:
    Numbers and units); the English may glue them, the translation may not."""
    glued = [text for _msgid, text in _translations(language) if GLUED_PERCENT.search(text)]
    assert not glued, f"{language}: a per cent sign with no space before it: {glued}"
    points = [
        text
        for _msgid, text in _translations(language)
        if DECIMAL_POINT.search(re.sub(r"<code>.*?</code>", "", text))  # JSON is JSON
    ]
    assert not points, f"{language}: a decimal point: {points}"


def test_ukrainian_writes_one_apostrophe():
    """The typographic apostrophe the Ukrainian Dolmenwood writes (розв’язують), never the
    typewriter one beside it."""
    mixed = [
        text
        for _msgid, text in _translations("uk")
        if re.search(r"[А-Яа-яІіЇїЄєҐґ]'[А-Яа-яІіЇїЄєҐґ]", text)
    ]
    assert not mixed, mixed


# What the native reads of issue 32 corrected, kept corrected: a calque, an order where a noun
# belongs, a term the source documents word otherwise. Searched in every translation.
CORRECTED = {
    "cs": [
        r"Spolknout vcelku",  # special attacks are nouns: Spolknutí vcelku
        r"Uchvátit a roztrhat",
        r"Zlomili se",  # morale: Morálka se zlomila
        r"\bcíl %\(needed\)s",  # needs 14+: potřeba (Cíl is the Target)
        r"z %\(max\)s životu",  # the genitive: života
        r"\bstop\b",  # feet: ft
        r"\bmrtvý\b",
        r"\buložen\b",
        r"Glamour",  # no Czech Dolmenwood keeps it in English
        r"\bWyrm",
    ],
    "ru": [
        r"Проглотить целиком",
        r"Схватить и разорвать",
        r"^Захват: %\(before\)s",  # BECMI wrestling: Борьба (not "Захват: без захвата")
        r"возрастающ",  # ascending: восходящий
        r"удушающий захват",  # the seed: удушение (констрикция)
        r"Раунд уже продвинулся",
        r"\bмёртв\b",
        r"сохранён\b",
        r"\bWyrm",
        r"\bNPC\b",
    ],
    "uk": [
        r"Проковтнути цілком",
        r"рятівн",  # the seed and glossary: рятувальні
        r"натуральн",  # the seed: природна
        r"\bпровал",  # the seed: невдача
        r"\bшкод",  # the seed: ушкодження
        r"^Захоплення: %\(before\)s",  # Боротьба
        r"зростаюч",  # ascending: висхідний
        r"Вони зламалися",
        r"Раунд уже просунувся",
        r"\bмертвий\b",
        r"\bNPC\b",
    ],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_the_native_reads_corrected_stays_corrected(language):
    found = [
        (pattern, text)
        for pattern in CORRECTED[language]
        for _msgid, text in _translations(language)
        if re.search(pattern, text)
    ]
    assert not found, found
