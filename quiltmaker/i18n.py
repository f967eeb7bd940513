"""The players' languages: gettext catalogues through Babel, and the language in use.

Every word a player reads is written in English in the source, marked with
:func:`_` (or :func:`ngettext` where a count changes the words: Polish has
three forms, 1 guzik, 2 guziki, 5 guzików), and looked up in the catalogue of
the language in use, ``locales/<language>/LC_MESSAGES/quiltmaker.po``.
``make messages`` extracts the marked words (``babel.cfg`` says from where:
the Python modules, the page's scripts with ``t`` and ``tn``, the page
templates) into every catalogue; tests/test_i18n.py fails while one lacks
a translation.

Placeholders are named, ``{name}``, filled after the lookup, so a translation
may put them in any order; no sentence is glued from translated fragments.

The language in use is a context variable: a web request, a socket's state
and a terminal session each set it (:func:`using`), so two players of one
game may read it in two languages. Unset, it is English, the language of the
source: a library user gets English whatever the environment says.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

from babel import Locale, UnknownLocaleError, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

# The languages a player may choose, by code, each named in itself. A third language is its
# catalogue (``make language CODE=xx``, then translated) and one line here; docs/languages.md.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "pl": "Polski",
}
SOURCE = "en"  # the language the message ids are written in: it needs no catalogue
DOMAIN = "quiltmaker"
LOCALES = Path(__file__).parent / "locales"

_language: ContextVar[str] = ContextVar("quiltmaker_language", default=SOURCE)


def catalogue_path(language: str) -> Path:
    """Where a language's catalogue is kept."""
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """A language's catalogue, read once: the ``.po`` compiled in memory (fuzzy entries left out, as gettext does)."""
    if language == SOURCE:
        return gettext.NullTranslations()
    with catalogue_path(language).open("rb") as po:
        catalogue = read_po(po, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def language() -> str:
    """The language in use (a code of :data:`LANGUAGES`)."""
    return _language.get()


@contextlib.contextmanager
def using(code: str) -> Iterator[None]:
    """Word everything in ``code`` within the block (an unknown code is English)."""
    token = _language.set(code if code in LANGUAGES else SOURCE)
    try:
        yield
    finally:
        _language.reset(token)


def use(code: str) -> None:
    """Word everything from now on in ``code``, in this context (a terminal session sets it once)."""
    _language.set(code if code in LANGUAGES else SOURCE)


def _(message: str) -> str:
    """``message`` in the language in use."""
    return translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` in the language in use (``{n}`` and the rest filled by the caller)."""
    return translations(_language.get()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogues without translating it now: a constant, translated where it is shown."""
    return message


def negotiate(accept_language: str | None) -> str:
    """The language to use for a browser's ``Accept-Language`` header (its best match, English when none is ours)."""
    preferred = []
    for part in (accept_language or "").split(","):
        tag, _semicolon, quality = part.strip().partition(";")
        weight = 1.0
        if quality.strip().startswith("q="):
            try:
                weight = float(quality.strip()[2:])
            except ValueError:
                continue
        if tag and weight > 0:
            preferred.append((weight, tag.strip()))
    preferred.sort(key=lambda pair: -pair[0])  # stable: equal weights keep the browser's order
    found = negotiate_locale([tag.replace("-", "_") for _weight, tag in preferred], list(LANGUAGES), sep="_")
    return found if found is not None and found in LANGUAGES else SOURCE


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The language the terminal asks for, read as Python's gettext reads it.

    The first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is
    set gives the choices (``LANGUAGE`` may list several: ``de:pl``), tried in
    order; ``C`` or ``POSIX`` means untranslated.
    """
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        if value := environ.get(variable):
            for choice in value.split(":"):
                code = choice.split(".")[0].split("@")[0].split("_")[0].lower()
                if code in ("c", "posix"):
                    break
                if code in LANGUAGES:
                    return code
            break
    return SOURCE


def locale() -> Locale:
    """The language in use as Babel's locale, for numbers, dates and plural categories."""
    try:
        return Locale.parse(_language.get())
    except UnknownLocaleError:  # pragma: no cover - every language of LANGUAGES is one of Babel's
        return Locale.parse(SOURCE)


def page_catalogue(code: str) -> dict[str, str | dict[str, str]]:
    """The page's words in ``code``: each message of the page's scripts, a plural one by the locale's plural categories.

    The page picks a plural form with the browser's ``Intl.PluralRules``, which
    names CLDR categories (one, few, many, other), where gettext numbers its
    forms: each category is given the form gettext picks for a number in it.
    """
    if code == SOURCE or code not in LANGUAGES:
        return {}
    with catalogue_path(code).open("rb") as po:
        catalogue = read_po(po, locale=code, domain=DOMAIN)
    plural = _plural_by_category(code)
    messages: dict[str, str | dict[str, str]] = {}
    for message in catalogue:
        if not message.id or message.fuzzy or not any(_on_page(path) for path, _line in message.locations):
            continue
        if isinstance(message.id, (tuple, list)) and isinstance(message.string, (tuple, list)):
            forms = list(message.string)
            messages[str(message.id[0])] = {category: forms[index] for category, index in plural.items() if forms[index]}
        elif isinstance(message.id, str) and isinstance(message.string, str) and message.string:
            messages[message.id] = message.string
    return messages


def _on_page(path: str) -> bool:
    return "web/static/" in path.replace(os.sep, "/") and path.endswith(".js")


def _plural_by_category(code: str) -> dict[str, int]:
    """Each CLDR plural category of a language and the gettext form its numbers take."""
    found: dict[str, int] = {}
    choose, rules = translations(code), Locale.parse(code).plural_form
    for number in range(200):
        category = rules(number)
        if category not in found:  # (counts are whole numbers: a category of fractions only, like Polish "other", is not needed)
            found[category] = _form_index(choose, number)
    return found


def _form_index(catalogue: gettext.NullTranslations, number: int) -> int:
    plural = getattr(catalogue, "plural", None)
    return int(plural(number)) if plural is not None else (0 if number == 1 else 1)
