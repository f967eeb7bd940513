"""Game records: an open JSON format and a human-readable text form.

JSON (``quiltmaker-record/1``) names squares, not orientations, so any tool
can replay it without our conventions::

    {"format": "quiltmaker-record/1", "variant": "revised",
     "circle": [7, 21, ..., 0], "first_player": 0,
     "players": ["you", "greedy"],
     "moves": [{"player": 0, "type": "advance"},
               {"player": 1, "type": "buy", "patch": 12, "cells": [[0, 0], [0, 1], [1, 1]]},
               {"player": 1, "type": "special", "cell": [4, 4]}],
     "result": {"by": "score", "scores": [12, -3], "winner": 0}}

``result`` is ``null`` for an unfinished game. ``by`` says how it ended:
``"score"`` when it was played out, or ``"resignation"``, ``"time"``,
``"claim"`` (a correspondence player past their days, claimed against) and
``"abort"`` (called off: ``winner`` is ``null``) when it ended before, with
the ``scores`` as they stood; a record without ``by`` ended by score.
``players`` is optional and
unknown keys are ignored. A game that begins from a position other than a
setup (an endgame study, say) adds ``"start"``: that position's one-line text,
which replay then starts from. The text form, in the spirit of PGN, has one
``[Tag "value"]`` header a line, then one move a line as
``<number>. <player> <move text>``; ``;`` starts a comment. An ending
before the game was played out is the header ``[Ending "resignation"]``
beside ``Scores`` and ``Winner`` (no ``Winner`` for an abort).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .components import DEFAULT_VARIANT, time_track
from .errors import InvalidRecordError, QuiltmakerError
from .game import ENDINGS, Ending, Game
from .moves import ADVANCE, BUY, SPECIAL, Move
from .position import Position

FORMAT = "quiltmaker-record/1"


def to_json(game: Game) -> dict[str, Any]:
    """The JSON record of a game, as a dict ready for ``json.dumps``."""
    moves: list[dict[str, Any]] = []
    for player, move in zip(game.movers, game.moves):
        entry: dict[str, Any] = {"player": player, "type": move.kind}
        if move.kind == BUY:
            entry["patch"] = move.patch
            entry["cells"] = [list(cell) for cell in move.cells]
        elif move.kind == SPECIAL:
            entry["cell"] = list(move.cells[0])
        moves.append(entry)
    result: dict[str, Any] = {
        "format": FORMAT,
        "variant": game.start.variant,
        "circle": list(game.start.circle),
        "first_player": _first_player(game.start),
    }
    if not _is_setup(game.start):
        result["start"] = game.start.text()
    result["players"] = list(game.players)
    result["moves"] = moves
    result["result"] = _result_of(game)
    return result


def _result_of(game: Game) -> dict[str, Any] | None:
    final = game.position
    if game.ending is not None:
        return {"by": game.ending.by, "scores": list(final.scores), "winner": game.ending.winner}
    return {"by": "score", "scores": list(final.scores), "winner": final.winner} if final.is_over else None


def from_json(record: Any) -> Game:
    """Replay a JSON record (a parsed dict or its text), checking every move and the result.

    Raises:
        InvalidRecordError: The record is malformed, a move is malformed or
            illegal (the message gives its number, from 1, and the reason),
            or the stated result differs from the replayed one.
    """
    if isinstance(record, (str, bytes)):
        try:
            record = json.loads(record)
        except (ValueError, RecursionError) as error:
            raise InvalidRecordError(f"not valid JSON: {error}") from None
    if not isinstance(record, Mapping):
        raise InvalidRecordError("a JSON record must be an object")
    if record.get("format", FORMAT) != FORMAT:
        raise InvalidRecordError(f"unknown record format {record.get('format')!r}: expected {FORMAT!r}")
    game = _new_game(
        record.get("variant", DEFAULT_VARIANT), record.get("circle"), record.get("first_player"), record.get("players"), record.get("start")
    )
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise InvalidRecordError("'moves' must be a list")
    for number, entry in enumerate(moves, 1):
        try:
            move = _move_from_json(entry)
            player = entry.get("player")
        except QuiltmakerError as error:
            raise InvalidRecordError(f"move {number}: {error}") from None
        _play(game, number, player, move)
    _check_result(game, record.get("result"))
    return game


def to_text(game: Game) -> str:
    """The text record of a game."""
    final = game.position
    lines = [
        f'[Format "{FORMAT}"]',
        f'[Variant "{game.start.variant}"]',
        f'[Circle "{" ".join(map(str, game.start.circle))}"]',
        f'[FirstPlayer "{_first_player(game.start)}"]',
        f'[Player0 "{_escape(game.players[0])}"]',
        f'[Player1 "{_escape(game.players[1])}"]',
    ]
    if not _is_setup(game.start):
        lines.insert(4, f'[Start "{game.start.text()}"]')
    result = _result_of(game)
    if result is not None:
        if result["by"] != "score":
            lines.append(f'[Ending "{result["by"]}"]')
        lines.append(f'[Scores "{final.scores[0]} {final.scores[1]}"]')
        if result["winner"] is not None:
            lines.append(f'[Winner "{result["winner"]}"]')
    lines.append("")
    lines.extend(f"{n}. {player} {move.text()}" for n, (player, move) in enumerate(zip(game.movers, game.moves), 1))
    return "\n".join(lines) + "\n"


_TAG_LINE = re.compile(r'\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*(?:;.*)?')
_MOVE_LINE = re.compile(r"([0-9]{1,6})\.\s+(\S+)\s+(\S+)")


def from_text(text: str) -> Game:
    """Replay a text record, checking every move and the result.

    Raises:
        InvalidRecordError: As :func:`from_json`; line numbers point at the fault.
    """
    if not isinstance(text, str):
        raise InvalidRecordError("a text record must be a string")
    tags: dict[str, str] = {}
    move_lines: list[tuple[int, str, str]] = []
    for line_number, raw in enumerate(text.splitlines(), 1):
        # A header's value may hold ';', so headers are matched before comments are cut.
        tag = _TAG_LINE.fullmatch(raw.strip())
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        if tag:
            if move_lines:
                raise InvalidRecordError(f"line {line_number}: headers must come before the moves")
            tags[tag.group(1)] = _unescape(tag.group(2))
            continue
        match = _MOVE_LINE.fullmatch(line)
        if not match:
            raise InvalidRecordError(f"line {line_number}: expected a header [Tag \"value\"] or a move '<n>. <player> <move>'")
        if int(match.group(1)) != len(move_lines) + 1:
            raise InvalidRecordError(f"line {line_number}: move number {match.group(1)}, expected {len(move_lines) + 1}")
        move_lines.append((line_number, match.group(2), match.group(3)))
    if tags.get("Format", FORMAT) != FORMAT:
        raise InvalidRecordError(f"unknown record format {tags['Format']!r}: expected {FORMAT!r}")
    if "Circle" not in tags or "FirstPlayer" not in tags:
        raise InvalidRecordError("a text record needs the headers Circle and FirstPlayer")
    circle = _int_list(tags["Circle"].split(), "Circle") if tags["Circle"] else []
    first = _int_list([tags["FirstPlayer"]], "FirstPlayer")[0]
    names = [tags.get("Player0", "player 0"), tags.get("Player1", "player 1")]
    game = _new_game(tags.get("Variant", DEFAULT_VARIANT), circle, first, names, tags.get("Start"))
    for number, (line_number, player_text, move_text) in enumerate(move_lines, 1):
        try:
            move = Move.from_text(move_text)
        except QuiltmakerError as error:
            raise InvalidRecordError(f"move {number} (line {line_number}): {error}") from None
        _play(game, number, int(player_text) if player_text in ("0", "1") else player_text, move)
    result = None
    if "Scores" in tags or "Winner" in tags or "Ending" in tags:
        scores = _int_list(tags.get("Scores", "").split(), "Scores", signed=True)
        by = tags.get("Ending", "score")
        winner = _int_list([tags.get("Winner", "")], "Winner")[0] if by != "abort" or "Winner" in tags else None
        result = {"by": by, "scores": scores, "winner": winner}
    _check_result(game, result)
    return game


def load(text: str) -> Game:
    """Replay a record in either form, telling them apart by the first character.

    Raises:
        InvalidRecordError: As :func:`from_json` and :func:`from_text`.
    """
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record must be text, not {type(text).__name__}")
    return from_json(text) if text.lstrip().startswith("{") else from_text(text)


def save(game: Game, path: str | os.PathLike[str]) -> None:
    """Write the JSON record of ``game`` to ``path`` atomically: a crash never leaves half a record.

    The record goes to a temporary file beside ``path``, which then replaces
    it in one rename.
    """
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(to_json(game)) + "\n", encoding="utf-8")
    temporary.replace(path)


def _first_player(position: Position) -> int:
    """Who acts first from a start position (for a finished one, the player on top)."""
    mover = position.to_move
    return position.on_top if mover is None else mover


def _is_setup(position: Position) -> bool:
    """Whether a position is the start of a game, so circle and first player describe it."""
    try:
        return position == Position.initial(circle=position.circle, first_player=position.on_top, variant=position.variant)
    except QuiltmakerError:
        return False


def _new_game(variant: Any, circle: Any, first_player: Any, players: Any, start_text: Any = None) -> Game:
    try:
        time_track(variant if isinstance(variant, str) else repr(variant))
    except ValueError as error:
        raise InvalidRecordError(str(error)) from None
    if not isinstance(circle, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in circle):
        raise InvalidRecordError("'circle' must be a list of patch ids")
    if first_player not in (0, 1) or isinstance(first_player, bool):
        raise InvalidRecordError(f"'first_player' must be 0 or 1, not {first_player!r}")
    if players is None:
        players = ["player 0", "player 1"]
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise InvalidRecordError("'players' must be a list of two names")
    try:
        if start_text is None:
            start = Position.initial(circle=circle, first_player=first_player, variant=variant)
        else:
            start = Position.from_text(start_text)
    except QuiltmakerError as error:
        raise InvalidRecordError(str(error)) from None
    if start_text is not None and (list(start.circle) != circle or _first_player(start) != first_player or start.variant != variant):
        raise InvalidRecordError("the record's start position disagrees with its circle, first player or variant")
    return Game(start, players)


def _move_from_json(entry: Any) -> Move:
    if not isinstance(entry, Mapping):
        raise InvalidRecordError("a move must be an object")
    kind = entry.get("type")
    if kind == ADVANCE:
        return Move.advance()
    if kind == BUY:
        return Move.buy(entry.get("patch"), entry.get("cells"))  # type: ignore[arg-type]
    if kind == SPECIAL:
        return Move.special(entry.get("cell"))  # type: ignore[arg-type]
    raise InvalidRecordError(f"unknown move type {kind!r}: expected 'advance', 'buy' or 'special'")


def _play(game: Game, number: int, player: Any, move: Move) -> None:
    to_move = game.position.to_move
    # type() rather than ==: 0.0 and False equal 0 but are not seat numbers.
    if to_move is not None and (type(player) is not int or player != to_move):
        raise InvalidRecordError(f"move {number} ({move.text()}): the record says player {player!r} moves, but player {to_move} is to move")
    try:
        game.play(move)
    except QuiltmakerError as error:
        raise InvalidRecordError(f"move {number}: {error}") from None


def _check_result(game: Game, result: Any) -> None:
    """Check the stated result against the replayed game, and give the game the ending it states."""
    if result is None:
        return
    final = game.position
    if not isinstance(result, Mapping):
        raise InvalidRecordError("'result' must be an object with 'scores' and 'winner', or null")
    by, scores, winner = result.get("by", "score"), result.get("scores"), result.get("winner")
    if by != "score" and by not in ENDINGS:
        raise InvalidRecordError(f"the record's result must say 'by' score or one of {', '.join(ENDINGS)}, not {by!r}")
    if by == "score" and not final.is_over:
        raise InvalidRecordError(f"the record gives a result by score, but the game is not over after {len(game.moves)} moves")
    if by != "score" and final.is_over:
        raise InvalidRecordError(f"the game was played out, so it ended by score, not {by}")
    if not isinstance(scores, list) or not all(type(score) is int for score in scores):
        raise InvalidRecordError("the record's result must give 'scores' as a list of two integers")
    if by == "abort" and winner is not None:
        raise InvalidRecordError(f"an aborted game has no winner, not {winner!r}")
    if by != "abort" and (type(winner) is not int or winner not in (0, 1)):
        raise InvalidRecordError(f"the record's result must give 'winner' as 0 or 1, not {winner!r}")
    stated = (scores, winner)
    replayed = (list(final.scores), final.winner if by == "score" else winner)
    if stated != replayed:
        raise InvalidRecordError(f"the record's result {stated} differs from the replayed result {replayed}")
    if by != "score":
        game.end(Ending(by, None if winner is None else 1 - winner))


def _int_list(values: list[str], tag: str, signed: bool = False) -> list[int]:
    pattern = re.compile(r"-?[0-9]{1,4}" if signed else r"[0-9]{1,4}")
    if not values or not all(pattern.fullmatch(v) for v in values):
        raise InvalidRecordError(f"header {tag} must hold {'integers' if signed else 'numbers'}")
    return [int(v) for v in values]


def _escape(value: str) -> str:
    """A header value: JSON string escapes, so that any name stays on one line and round-trips."""
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    for separator in "\x85\u2028\u2029":  # line breaks to str.splitlines() that JSON leaves bare
        escaped = escaped.replace(separator, f"\\u{ord(separator):04x}")
    return escaped


def _unescape(value: str) -> str:
    try:
        result = json.loads(f'"{value}"', strict=False)  # a hand-typed tab is fine
    except ValueError:
        raise InvalidRecordError(f"header value {value!r} has a malformed escape") from None
    assert isinstance(result, str)
    return result
