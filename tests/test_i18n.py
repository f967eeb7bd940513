"""The players' languages: every catalogue complete and in step with the source, plurals, and choosing a language."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from helpers import EARNING_PURCHASE, EARNS_A_SPECIAL

from quiltmaker import i18n, words
from quiltmaker.ai.players import GreedyPlayer, play_game
from quiltmaker.core.components import PATCHES
from quiltmaker.core.moves import Move
from quiltmaker.core.position import Position

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"\{(\w*)\}")
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.SOURCE]


def catalogue(code: str) -> Catalog:
    with i18n.catalogue_path(code).open("rb") as po:
        return read_po(po, locale=code)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The words marked in the source now, extracted as `make messages` does."""
    template = tmp_path_factory.mktemp("messages") / "quiltmaker.pot"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "messages.py"), "extract", str(template)], check=True)
    with template.open("rb") as pot:
        return read_po(pot)


def ids(messages: Catalog) -> set[str]:
    return {message.id if isinstance(message.id, str) else message.id[0] for message in messages if message.id}


def forms(message: Message) -> list[str]:
    return [message.string] if isinstance(message.string, str) else list(message.string)


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_word_marked_in_the_source_is_in_each_catalogue_and_nothing_else(code: str, extracted: Catalog) -> None:
    have, want = ids(catalogue(code)), ids(extracted)
    assert not want - have, f"not in the {code} catalogue (run make messages): {sorted(want - have)[:20]}"
    assert not have - want, f"in the {code} catalogue but no longer in the source (run make messages): {sorted(have - want)[:20]}"


def test_every_word_the_page_marks_is_extracted(extracted: Catalog) -> None:
    """Babel's JavaScript extractor skips a t() inside another's arguments: such a word would stay English. None is."""
    known = ids(extracted)
    marked = re.compile(r'\btn?\(\s*"((?:[^"\\]|\\.)*)"')
    for script in sorted((ROOT / "quiltmaker" / "web" / "static").glob("*.js")):
        for found in marked.finditer(script.read_text(encoding="utf-8")):
            word = json.loads(f'"{found.group(1)}"')
            assert word in known, f"{script.name}: {word!r} is marked but not extracted (nested in another call?)"


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_catalogue_translates_every_message_in_full(code: str) -> None:
    """No empty entry, no fuzzy one (a guess Babel made for a changed message, not yet checked), no plural form missing."""
    messages = [message for message in catalogue(code) if message.id]
    assert len(messages) > 100
    untranslated = [message.id for message in messages if not all(form.strip() for form in forms(message))]
    fuzzy = [message.id for message in messages if message.fuzzy]
    assert not untranslated, f"untranslated in {code}: {untranslated[:20]}"
    assert not fuzzy, f"fuzzy in {code} (check the translation, then remove the flag): {fuzzy[:20]}"
    plurals = catalogue(code).num_plurals
    assert all(len(forms(message)) == plurals for message in messages if isinstance(message.id, tuple))


@pytest.mark.parametrize("code", TRANSLATED)
def test_a_translation_fills_the_placeholders_of_its_message_and_no_others(code: str) -> None:
    """A misspelt {name} would show as written, or fail to format: each form has the message's placeholders.

    A plural's form may leave out the count ({n}) where the language words it ("one patch").
    """
    for message in catalogue(code):
        if not message.id:
            continue
        english = [message.id] if isinstance(message.id, str) else list(message.id)
        wanted = set().union(*(PLACEHOLDER.findall(text) for text in english))
        for form in forms(message):
            found = set(PLACEHOLDER.findall(form))
            assert found <= wanted, f"{message.id!r}: {form!r} has {found - wanted}"
            assert wanted - {"n"} <= found, f"{message.id!r}: {form!r} lacks {wanted - {'n'} - found}"
            if "<" in "".join(english):  # markup kept, so the page's ids and styles still find their elements
                assert sorted(re.findall(r"<[^>]+>", form)) == sorted(re.findall(r"<[^>]+>", english[-1])), (message.id, form)


@pytest.mark.parametrize(
    ("count", "words"),
    [(1, "1 guzik"), (2, "2 guziki"), (5, "5 guzików"), (12, "12 guzików"), (22, "22 guziki"), (25, "25 guzików")],
)
def test_polish_counts_take_their_three_forms(count: int, words: str) -> None:
    with i18n.using("pl"):
        assert i18n.ngettext("{n} button", "{n} buttons", count).format(n=count) == words
    with i18n.using("en"):
        assert i18n.ngettext("{n} button", "{n} buttons", count).format(n=count) == f"{count} button{'s' * (count != 1)}"


def test_the_page_is_given_its_plural_forms_by_the_browsers_categories() -> None:
    """Intl.PluralRules names Polish counts one (1), few (2-4, 22-24...) and many (5-21, 25...): each gets its form."""
    words = i18n.page_catalogue("pl")
    assert words["{n} button"] == {"one": "{n} guzik", "few": "{n} guziki", "many": "{n} guzików"}
    assert i18n.page_catalogue("en") == {}
    assert all(isinstance(text, (str, dict)) and text for text in words.values())


def test_a_language_in_use_holds_for_its_block_and_its_context_only() -> None:
    assert i18n.language() == "en" and i18n._("Resign") == "Resign"
    with i18n.using("pl"):
        assert i18n._("Resign") == "Poddaj się"
        with i18n.using("xx"):  # not one of ours: English
            assert i18n._("Resign") == "Resign"
        assert i18n.language() == "pl"
    assert i18n.language() == "en"


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("pl", "pl"),
        ("pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7", "pl"),
        ("en-US,en;q=0.9,pl;q=0.8", "en"),
        ("de-DE,de;q=0.9,pl;q=0.5", "pl"),  # German first, which we lack; Polish next
        ("en;q=0.2,pl;q=0.8", "pl"),  # weights, not order, decide
        ("de", "en"),
        ("", "en"),
        (None, "en"),
        ("pl;q=0", "en"),  # "not Polish"
        ("pl;q=nonsense, en", "en"),
        (";;,,q=1", "en"),
    ],
)
def test_a_browsers_languages_choose_ours(header: str | None, code: str) -> None:
    assert i18n.negotiate(header) == code


@pytest.mark.parametrize(
    ("environ", "code"),
    [
        ({"LANG": "pl_PL.UTF-8"}, "pl"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"}, "pl"),
        ({"LC_ALL": "C", "LANG": "pl_PL.UTF-8"}, "en"),  # C: untranslated
        ({"LANGUAGE": "de:pl", "LANG": "en_GB.UTF-8"}, "pl"),
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "pl_PL.UTF-8"}, "en"),  # the first variable set decides: German, which we lack
        ({}, "en"),
    ],
)
def test_the_terminal_reads_its_language_from_the_environment_as_gettext_does(environ: dict[str, str], code: str) -> None:
    assert i18n.from_environment(environ) == code



def illegal_examples() -> dict[str, tuple[Position, Move]]:
    """A position and a move that breaks each rule the core names (:class:`Illegality`)."""
    plain = [*range(1, 33), 0]
    start = Position.initial(circle=plain, first_player=0)  # patches 1, 2 and 3 on offer, 5 buttons each
    bought = start.play("1R0@a1").play("A")  # patch 1 on a1 of player 0's quilt, and player 0 to move again
    over_a_covered_square = next(
        Move.place(patch, "R0", 0, 0) for patch in bought.offered if PATCHES[patch].cost <= bought.buttons[0]
    )
    dear = max(range(33), key=lambda patch: PATCHES[patch].cost)
    rich_offer = Position.initial(circle=[dear, *(p for p in plain if p != dear)], first_player=0)
    waiting = Position.from_text(EARNS_A_SPECIAL).play(EARNING_PURCHASE)  # a special patch to place
    mover = waiting.to_move
    assert mover is not None
    covered_square = next((row, col) for row in range(9) for col in range(9) if waiting.quilts[mover] >> (row * 9 + col) & 1)
    return {
        "not_a_move": (start, Move("jump", None, 0)),
        "over": (play_game([GreedyPlayer(0), GreedyPlayer(1)], start).position, Move.advance()),
        "no_special": (start, Move.special((4, 4))),
        "special_covered": (waiting, Move.special(covered_square)),
        "special_first": (waiting, Move.advance()),
        "bought": (bought, Move.place(1, "R0", 4, 4)),
        "not_offered": (start, Move.place(20, "R0", 0, 0)),
        "too_dear": (rich_offer, Move.place(dear, "R0", 0, 0)),
        "covered": (bought, over_a_covered_square),
    }


@pytest.mark.parametrize("kind", list(illegal_examples()))
def test_every_rule_a_move_breaks_is_worded_in_every_language_with_its_numbers(kind: str) -> None:
    """The core names the rule (Position.illegality); its English text is why_illegal's, and quiltmaker.words
    words it for each language, the players named, with the numbers the rule gives."""
    position, move = illegal_examples()[kind]
    found = position.illegality(move)
    assert found is not None and found.kind == kind
    assert position.why_illegal(move) == found.text()
    names = ["Ada", "Bolek"]
    english = words.illegal(position, move, names)
    with i18n.using("pl"):
        polish = words.illegal(position, move, names)
    assert english and polish and english != polish
    for text in (english, polish):
        if found.player is not None and kind not in ("bought", "not_offered"):
            assert names[found.player] in text, text
        for number in [found.patch, *found.squares, *(found.offered or ()), *((found.price, found.buttons) if kind == "too_dear" else ())]:
            if number is not None:
                assert str(number) in text, (number, text)
