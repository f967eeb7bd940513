"""The command line, run as a user runs it: ``python -m quiltmaker ...`` in a fresh process.

Every subcommand is driven through a real subprocess with its working folder
in a temporary directory. Good input must give the documented output; bad
input must end with exit status 2 and a one-line message on stderr, never a
traceback. ``play`` is driven through stdin, both for a scripted session
(help, mistakes, undo, quit) and for a whole game.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from helpers import EARNING_PURCHASE, EARNS_A_SPECIAL, run_cli

from quiltmaker.core import record
from quiltmaker.core.game import Game
from quiltmaker.core.moves import ADVANCE, SPECIAL, Move
from quiltmaker.ai.players import GreedyPlayer, RandomPlayer, play_game
from quiltmaker.core.position import Position
from quiltmaker.tui.line import play_in_terminal

SUBCOMMANDS = ("play", "replay", "simulate", "perft", "bench", "match", "selfplay", "analyse", "engine", "serve", "components", "compile")
# Seed 1 gives player 0 the first move, so a script for seat 0 starts from the setup itself.
HUMAN_FIRST_SEED = 1


def assert_clean_failure(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """A documented failure: status 2, one line on stderr, no traceback, naming what was wrong."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    message = result.stderr.strip()
    assert message and "\n" not in message, f"expected one line, got {result.stderr!r}"
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def final_scores(stdout: str, label: str = "score") -> tuple[int, int]:
    """The two numbers of the score row (``label``) of the final score table."""
    rows = [re.fullmatch(rf"\W*{label}[\s│|]+(-?\d+)[\s│|]+(-?\d+)[\s│|]*", line) for line in stdout.splitlines()]
    found = [m for m in rows if m]
    assert len(found) == 1, f"expected one final score row in:\n{stdout[-2000:]}"
    return int(found[0].group(1)), int(found[0].group(2))


@pytest.fixture(scope="module")
def finished_game() -> Game:
    """A finished game with named players (greedy, so the quilts are interesting)."""
    game = play_game([GreedyPlayer(1), RandomPlayer(2)], Position.initial(11))
    assert game.position.is_over and len(game.moves) > 20
    return game


@pytest.fixture
def records(tmp_path: Path, finished_game: Game) -> dict[str, Path]:
    """The finished game as a JSON record and a text record, plus an unfinished JSON record."""
    unfinished = Game(finished_game.start, finished_game.players)
    for move in finished_game.moves[:10]:
        unfinished.play(move)
    paths = {"json": tmp_path / "game.json", "text": tmp_path / "game.txt", "unfinished": tmp_path / "part.json"}
    paths["json"].write_text(json.dumps(record.to_json(finished_game)), encoding="utf-8")
    paths["text"].write_text(record.to_text(finished_game), encoding="utf-8")
    paths["unfinished"].write_text(json.dumps(record.to_json(unfinished)), encoding="utf-8")
    return paths


# Usage -------------------------------------------------------------------------


def test_help_lists_every_subcommand(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "--help")
    assert result.returncode == 0 and result.stderr == ""
    for name in SUBCOMMANDS:
        assert name in result.stdout
        sub = run_cli(tmp_path, name, "--help")
        assert sub.returncode == 0 and f"usage: quiltmaker {name}" in sub.stdout


def test_match_help_says_how_engines_play_and_where_the_records_go(tmp_path: Path) -> None:
    # argparse wraps at the terminal's width, breaking after hyphens too: join the lines back.
    words = re.sub(r"-\s+", "-", " ".join(run_cli(tmp_path, "match", "--help").stdout.split()))
    assert "engine:COMMAND" in words and "(see: quiltmaker docs engine-protocol)" in words
    assert "for every engine:COMMAND (sent as 'go time')" in words, "--time reaches engines"
    assert "one JSON record per game (default ./match-records)" in words


@pytest.mark.parametrize("args", [["nosuch"], [], ["perft"], ["perft", "two"], ["replay"], ["bench", "--seconds", "x"]])
def test_bad_usage_fails_cleanly(tmp_path: Path, args: list[str]) -> None:
    result = run_cli(tmp_path, *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("usage: quiltmaker") and "error:" in result.stderr


# replay ------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["json", "text"])
def test_replay_prints_the_final_position_and_scores(tmp_path: Path, records: dict[str, Path], finished_game: Game, form: str) -> None:
    result = run_cli(tmp_path, "replay", str(records[form]))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    final = finished_game.position
    assert f"{records[form]}: {len(finished_game.moves)} moves, all legal." in result.stdout
    assert f"Position: {final.text()}" in result.stdout
    assert "Final scores" in result.stdout
    assert final_scores(result.stdout) == final.scores
    assert final.winner is not None and f"{finished_game.players[final.winner]} wins" in result.stdout


def test_replay_reprints_records_exactly(tmp_path: Path, records: dict[str, Path], finished_game: Game) -> None:
    as_json = run_cli(tmp_path, "replay", str(records["text"]), "--format", "json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == record.to_json(finished_game)
    as_text = run_cli(tmp_path, "replay", str(records["json"]), "--format", "text")
    assert as_text.returncode == 0 and as_text.stdout == record.to_text(finished_game)


def test_replay_of_an_unfinished_game(tmp_path: Path, records: dict[str, Path], finished_game: Game) -> None:
    result = run_cli(tmp_path, "replay", str(records["unfinished"]))
    part = finished_game.positions[10]
    assert result.returncode == 0, result.stderr
    assert "10 moves, all legal." in result.stdout and f"Position: {part.text()}" in result.stdout
    assert f"The game is not over; player {part.to_move} is to move" in result.stdout
    assert "Final scores" not in result.stdout


def test_replay_of_a_game_from_a_mid_game_start(tmp_path: Path, finished_game: Game) -> None:
    # Records of endgame studies carry their start position ("start" / [Start "..."]).
    study = Game(finished_game.positions[12], ["a", "b"])
    for move in finished_game.moves[12:]:
        study.play(move)
    (tmp_path / "study.json").write_text(json.dumps(record.to_json(study)), encoding="utf-8")
    (tmp_path / "study.txt").write_text(record.to_text(study), encoding="utf-8")
    for name in ("study.json", "study.txt"):
        result = run_cli(tmp_path, "replay", name)
        assert result.returncode == 0, result.stderr
        assert f"{len(study.moves)} moves, all legal." in result.stdout
        assert f"Position: {finished_game.position.text()}" in result.stdout


def _corrupt_json(game: Game, kind: str) -> tuple[str, tuple[str, ...]]:
    """A corrupted JSON record of ``game`` and the fragments its error message must hold."""
    data = record.to_json(game)
    number = 7  # the move to corrupt, counted from 1
    before = game.positions[number - 1]
    if kind == "bad json":
        return json.dumps(data)[:-40], ("not valid JSON",)
    if kind == "illegal move":
        move = next(m for m in (Move.from_text("S@a1"), Move.advance()) if before.why_illegal(m))
        entry: dict[str, Any] = {"player": before.to_move, "type": move.kind}
        if move.kind == SPECIAL:
            entry["cell"] = [0, 0]
        data["moves"][number - 1] = entry
        return json.dumps(data), (f"move {number}", "is illegal")
    if kind == "malformed move":
        data["moves"][number - 1] = {"player": before.to_move, "type": "buy", "patch": 40, "cells": [[0, 0]]}
        return json.dumps(data), (f"move {number}", "no patch 40")
    if kind == "wrong player":
        data["moves"][number - 1]["player"] = 1 - (before.to_move or 0)
        return json.dumps(data), (f"move {number}", "is to move")
    assert kind == "wrong result"
    data["result"]["scores"][0] += 1
    return json.dumps(data), ("result",)


@pytest.mark.parametrize("kind", ["bad json", "illegal move", "malformed move", "wrong player", "wrong result"])
def test_replay_of_a_corrupt_json_record_fails_cleanly(tmp_path: Path, finished_game: Game, kind: str) -> None:
    text, fragments = _corrupt_json(finished_game, kind)
    path = tmp_path / "corrupt.json"
    path.write_text(text, encoding="utf-8")
    result = run_cli(tmp_path, "replay", str(path))
    assert_clean_failure(result, "quiltmaker replay: ", *fragments)
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("replacement", "fragments"),
    [
        ("7. {player} 12R9@e5", ("move 7 (line", "is not a move")),
        ("7. {player} S@a1", ("move 7", "is illegal")),
        ("7. {other} {move}", ("move 7", "is to move")),
        ("8. {player} {move}", ("move number 8, expected 7",)),
    ],
)
def test_replay_of_a_corrupt_text_record_fails_cleanly(
    tmp_path: Path, finished_game: Game, replacement: str, fragments: tuple[str, ...]
) -> None:
    lines = record.to_text(finished_game).splitlines()
    index = lines.index("7. " + f"{finished_game.movers[6]} {finished_game.moves[6].text()}")
    player = finished_game.movers[6]
    if "S@a1" in replacement:
        assert finished_game.positions[6].why_illegal(Move.from_text("S@a1")), "pick another move to corrupt"
    lines[index] = replacement.format(player=player, other=1 - player, move=finished_game.moves[6].text())
    path = tmp_path / "corrupt.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert_clean_failure(run_cli(tmp_path, "replay", str(path)), "quiltmaker replay: ", *fragments)


@pytest.mark.parametrize("content", ["", "hello", "{}", "[]", '{"format": "other/9"}'])
def test_replay_of_garbage_fails_cleanly(tmp_path: Path, content: str) -> None:
    path = tmp_path / "garbage.txt"
    path.write_text(content, encoding="utf-8")
    assert_clean_failure(run_cli(tmp_path, "replay", str(path)), "quiltmaker replay: ")


def test_replay_of_a_missing_file_fails_cleanly(tmp_path: Path) -> None:
    assert_clean_failure(run_cli(tmp_path, "replay", "missing.json"), "quiltmaker replay: ", "missing.json")


def test_regression_replay_of_a_non_utf8_file_fails_cleanly(tmp_path: Path) -> None:
    # Path.read_text raises UnicodeDecodeError, which cli.main does not catch: a traceback.
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe{\x00")
    assert_clean_failure(run_cli(tmp_path, "replay", str(path)), "quiltmaker replay: ")


# simulate ----------------------------------------------------------------------


def test_simulate_prints_a_summary_and_writes_records_that_replay(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "simulate", "--games", "20", "--seed", "1", "--players", "random,greedy", "--records", "recs")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    files = sorted((tmp_path / "recs").glob("*.json"))
    assert [f.name for f in files] == [f"game-{i:05d}.json" for i in range(20)]
    games = [record.from_json(f.read_text(encoding="utf-8")) for f in files]
    assert all(g.position.is_over and g.players == ["random", "greedy"] for g in games)

    # Every figure of the summary must agree with the records themselves.
    # rich wraps the table title to the table's width.
    assert "20 games, random (seat 0) vs greedy (seat 1), seed 1" in " ".join(out.split())
    means = [sum(g.position.scores[seat] for g in games) / 20 for seat in (0, 1)]
    mean_row = next(line for line in out.splitlines() if "mean score" in line)
    assert re.findall(r"-?\d+\.\d\d", mean_row) == [f"{m:.2f}" for m in means]
    wins = [sum(g.position.winner == seat for g in games) for seat in (0, 1)]
    wins_row = next(line for line in out.splitlines() if re.search(r"\bwins\b", line))
    assert re.findall(r"(\d+) \(([\d.]+)%\)", wins_row) == [(str(w), f"{100 * w / 20:.1f}") for w in wins]
    length = sum(len(g.moves) for g in games) / 20
    assert f"mean length: {length:.1f} moves" in out
    bonus = sum(g.position.bonus != -1 for g in games)
    assert f"7x7 bonus taken: {bonus} games ({100 * bonus / 20:.1f}%)" in out
    tiebreaks = sum(g.position.decided_by_tiebreak for g in games)
    assert f"decided by the tie-break: {tiebreaks} games" in out
    assert "records written to recs" in out

    # A record replays through the command line too, and the run is reproducible from its seed.
    replayed = run_cli(tmp_path, "replay", "recs/game-00013.json")
    assert replayed.returncode == 0 and "all legal." in replayed.stdout
    again = run_cli(tmp_path, "simulate", "--games", "20", "--seed", "1", "--players", "random,greedy", "--records", "again")
    assert again.returncode == 0
    assert [f.read_text() for f in files] == [(tmp_path / "again" / f.name).read_text() for f in files]


def test_simulate_original_variant(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "simulate", "--games", "2", "--variant", "original", "--players", "greedy,greedy", "--records", "r")
    assert result.returncode == 0, result.stderr
    for path in (tmp_path / "r").glob("*.json"):
        assert record.from_json(path.read_text(encoding="utf-8")).start.variant == "original"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--players", "random"], "two players"),
        (["--players", "random,nobody"], "unknown player 'nobody'"),
        (["--games", "0"], "at least 1"),
        (["--variant", "deluxe"], "unknown variant"),
    ],
)
def test_simulate_bad_options_fail_cleanly(tmp_path: Path, args: list[str], fragment: str) -> None:
    assert_clean_failure(run_cli(tmp_path, "simulate", "--games", "1", *args), "quiltmaker simulate: ", fragment)


def test_simulate_records_folder_that_is_a_file_fails_cleanly(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("", encoding="utf-8")
    assert_clean_failure(run_cli(tmp_path, "simulate", "--games", "1", "--records", "taken"), "quiltmaker simulate: ")


# perft and bench -----------------------------------------------------------------


def test_perft_matches_the_library(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "perft", "2", "--seed", "3")
    assert result.returncode == 0 and result.stdout.strip() == str(Position.initial(3).perft(2))


def test_perft_divide_and_position(tmp_path: Path, finished_game: Game) -> None:
    start = Position.initial(3)
    divide = run_cli(tmp_path, "perft", "2", "--seed", "3", "--divide").stdout.splitlines()
    assert divide[-1] == f"total: {start.perft(2)}"
    assert divide[:-1] == [f"{m.text()}: {start.play(m).perft(1)}" for m in start.legal_moves()]
    middle = finished_game.positions[15]
    result = run_cli(tmp_path, "perft", "2", "--position", middle.text())
    assert result.returncode == 0 and result.stdout.strip() == str(middle.perft(2))
    over = run_cli(tmp_path, "perft", "3", "--position", finished_game.position.text())
    assert over.stdout.strip() == "1"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [(["1", "--position", "nonsense"], "fields"), (["-1"], "depth"), (["1", "--position", "revised - a b c d e f"], "")],
)
def test_perft_bad_input_fails_cleanly(tmp_path: Path, args: list[str], fragment: str) -> None:
    assert_clean_failure(run_cli(tmp_path, "perft", *args), "quiltmaker perft: ", fragment)


def test_regression_perft_position_with_a_non_decimal_digit_fails_cleanly(tmp_path: Path) -> None:
    # Position.from_text lets "²" through str.isdigit and then int() raises a bare ValueError.
    empty = "/".join(["9"] * 9)
    text = f"revised - 0,5,0,{empty} 0,5,0,{empty} 0 - - \u00b2"
    assert_clean_failure(run_cli(tmp_path, "perft", "1", "--position", text), "quiltmaker perft: ")


@pytest.mark.slow
def test_bench_json(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "bench", "--seconds", "0.2", "--json", timeout=600)  # may compile the batched kernel
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["random_games_per_s"] > 0 and figures["movegen_per_s"] > 0
    assert figures["batched_env_steps_per_s"] > 0 and figures["gymnasium_env_vs_random_steps_per_s"] > 0
    assert {"python", "machine"} <= set(figures)


# play ------------------------------------------------------------------------------


def test_line_mode_undo_after_a_purchase_and_its_special_patch_takes_back_both() -> None:
    start = Position.from_text(EARNS_A_SPECIAL)
    game = Game(start, ["greedy", "you"])
    answers = iter([EARNING_PURCHASE, "a1", "undo"])
    seen: list[Position] = []

    def read_line(prompt: str) -> str:
        seen.append(game.position)
        return next(answers, "quit")

    out = io.StringIO()
    play_in_terminal(GreedyPlayer(0), 1, game, None, Console(file=out, width=200), read_line)
    assert seen[1].pending and len(game.moves) == 0 and game.position == start, out.getvalue()
    assert seen[-1] == start and "Undone back to move 1." in out.getvalue()


def test_play_scripted_session(tmp_path: Path) -> None:
    start = Position.initial(HUMAN_FIRST_SEED)
    assert start.to_move == 0, "the script assumes player 0 moves first"
    not_offered = start.circle[3]
    script = [
        "help",
        "12R9@e5",  # mistyped: no orientation R9
        f"{not_offered}R0@a1",  # well-formed, but not among the next three
        "S@e5",  # no special patch to place
        "moves",
        "undo",  # nothing of the player's to undo yet
        "",
        "A",
        "undo",
        "A",
        "quit",
    ]
    result = run_cli(tmp_path, "play", "--seat", "0", "--seed", str(HUMAN_FIRST_SEED), "--save", "save.json", stdin="\n".join(script) + "\n")
    out = result.stdout
    assert result.returncode == 0 and "Traceback" not in result.stderr + out, result.stderr
    assert "You are player 0 against the greedy player" in out
    assert "Moves:" in out and "Commands: moves" in out  # help
    assert "Not played: '12R9@e5' is not a move: expected 'A' (advance)" in out
    assert f"Not played: {not_offered}R0@a1 is illegal: patch {not_offered} is not among the next three patches" in out
    assert "Not played: S@e5 is illegal: player 0 has no special patch to place" in out
    assert f"{len(start.legal_moves())} legal moves:" in out
    assert "Nothing of yours to undo yet." in out
    assert "Undone back to move 1." in out
    assert out.count("You: advanced 1 space: +1 button (A).") == 2
    assert "Game left unfinished; resume it with --resume save.json." in out

    saved = record.load((tmp_path / "save.json").read_text(encoding="utf-8"))
    assert saved.players == ["you", "greedy"] and saved.start == start
    assert saved.moves[0] == Move.advance() and saved.movers[0] == 0
    assert run_cli(tmp_path, "replay", "save.json").returncode == 0

    # Resuming continues the same game from the same file.
    resumed = run_cli(tmp_path, "play", "--resume", "save.json", stdin="quit\n")
    assert resumed.returncode == 0 and "You are player 0" in resumed.stdout
    assert record.load((tmp_path / "save.json").read_text(encoding="utf-8")).moves == saved.moves


# What the line-mode game prints in English, none of which a Polish game may print (the notation aside).
ENGLISH_WORDS = ["Your move", "Not played", "legal moves", "Game left", "You are player", "is illegal", "buttons", "Final scores", "wins"]


@pytest.mark.parametrize("chosen", ["--lang", "LANG"], ids=["option", "environment"])
def test_play_in_polish_words_the_whole_session_in_polish(tmp_path: Path, chosen: str) -> None:
    """`quiltmaker play --lang pl` (or LANG=pl_PL.UTF-8): the prompt, help, refusals, move list, moves and commands in Polish."""
    start = Position.initial(HUMAN_FIRST_SEED)
    not_offered = start.circle[3]
    script = ["pomoc", "12R9@e5", f"{not_offered}R0@a1", "S@e5", "ruchy", "cofnij", "A", "wyjdź"]
    args = ["play", "--seat", "0", "--seed", str(HUMAN_FIRST_SEED), "--save", "s.json"]
    if chosen == "--lang":
        result = run_cli(tmp_path, *args, "--lang", "pl", stdin="\n".join(script) + "\n")
    else:
        result = run_cli(tmp_path, *args, stdin="\n".join(script) + "\n", environment={"LANG": "pl_PL.UTF-8"})
    out = result.stdout
    assert result.returncode == 0 and "Traceback" not in result.stderr + out, result.stderr
    assert "Jesteś graczem 0, grasz z: greedy." in out and "Twój ruch:" in out
    assert "Ruchy:" in out and "Polecenia: ruchy" in out  # the help, asked for as "pomoc"
    assert "Nie zagrano: '12R9@e5' to nie ruch" in out
    assert f"Nie zagrano: {not_offered}R0@a1 jest niedozwolony: łatki {not_offered} nie ma wśród trzech następnych łatek" in out
    assert "Nie zagrano: S@e5 jest niedozwolony: gracz 0 nie ma łatki 1x1 do położenia" in out
    assert f"{len(start.legal_moves())} dozwolonych ruchów:" in out
    assert "Nie masz jeszcze nic do cofnięcia." in out
    assert "Ty: pasuje o 1 pole: +1 guzik (A)." in out
    assert "Gra przerwana przed końcem; wznów ją przez --resume s.json." in out
    assert "Tor czasu" in out and "Dostępne (kup jedną z tych trzech)" in out
    assert [word for word in ENGLISH_WORDS if word in out] == []
    assert record.load((tmp_path / "s.json").read_text(encoding="utf-8")).players == ["you", "greedy"]  # the record is the same


def test_a_whole_game_in_polish_ends_with_the_score_table_in_polish(tmp_path: Path) -> None:
    seed = 5
    lines = ["A", "A", "a1", "b1", "c1", "d1", "e1", "f1"] * 120
    result = run_cli(tmp_path, "play", "--seat", "0", "--seed", str(seed), "--lang", "pl", stdin="\n".join(lines) + "\n")
    out = result.stdout
    assert result.returncode == 0 and "Traceback" not in result.stderr + out, result.stderr
    assert "Zdobywasz łatkę 1x1: wpisz pole" in out
    assert "Wyniki końcowe" in out and "puste pola" in out and "Wygrywa " in out
    assert final_scores(out, "wynik") == record.load((tmp_path / "quiltmaker-game.json").read_text(encoding="utf-8")).position.scores
    assert [word for word in ENGLISH_WORDS if word in out] == []
    replayed = run_cli(tmp_path, "replay", "quiltmaker-game.json", "--lang", "pl")
    assert re.search(r": \d+ ruch(y|ów)?, (wszystkie )?dozwolon", replayed.stdout) and "Wyniki końcowe" in replayed.stdout


def test_play_a_whole_game_by_advancing(tmp_path: Path) -> None:
    # Advancing is always legal, except while a special patch waits to be placed: then 'A'
    # is refused and the squares that follow are tried in turn (outside that, a bare
    # square is refused as not a move). Six squares suffice: at most five specials exist.
    # Two 'A's a round, so that some 'A' meets a waiting special patch and is refused.
    seed = 5
    lines = ["A", "A", "a1", "b1", "c1", "d1", "e1", "f1"] * 120
    result = run_cli(tmp_path, "play", "--seat", "0", "--seed", str(seed), "--save", "g.json", stdin="\n".join(lines) + "\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr + result.stdout, result.stderr
    assert "You earned a special 1x1 patch: type the square to place it" in result.stdout
    assert "Not played: A is illegal: player 0 must first place the special patch just earned" in result.stdout
    assert "Not played: 'a1' is not a move" in result.stdout
    assert "Final scores" in result.stdout

    game = record.load((tmp_path / "g.json").read_text(encoding="utf-8"))
    final = game.position
    assert final.is_over and game.start == Position.initial(seed)
    mine = [m for m, p in zip(game.moves, game.movers) if p == 0]
    assert {m.kind for m in mine} == {ADVANCE, SPECIAL}, "the seed must earn player 0 a special patch"
    assert final_scores(result.stdout) == final.scores
    assert final.winner is not None and f"{game.players[final.winner]} wins" in result.stdout


def test_play_ends_cleanly_at_end_of_input(tmp_path: Path) -> None:
    args = ["play", "--seat", "0", "--seed", str(HUMAN_FIRST_SEED), "--save", "s.json"]
    nothing = run_cli(tmp_path, *args, stdin="")
    assert nothing.returncode == 0 and "Input ended" in nothing.stdout and "Traceback" not in nothing.stderr
    one_move = run_cli(tmp_path, *args, stdin="A\n")
    assert one_move.returncode == 0 and "Input ended; the game is saved." in one_move.stdout
    assert record.load((tmp_path / "s.json").read_text(encoding="utf-8")).moves[0] == Move.advance()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--opponent", "nobody"], "unknown player 'nobody'"),
        (["--variant", "deluxe"], "unknown variant"),
        (["--resume", "missing.json"], "missing.json"),
    ],
)
def test_play_bad_options_fail_cleanly(tmp_path: Path, args: list[str], fragment: str) -> None:
    assert_clean_failure(run_cli(tmp_path, "play", *args, stdin="quit\n"), "quiltmaker play: ", fragment)


def test_regression_play_buying_an_already_bought_patch(tmp_path: Path) -> None:
    # terminal.describe_move runs play_unchecked before the move is checked, and
    # play_unchecked calls circle.index(patch): a patch already bought raises a bare
    # ValueError ("tuple.index(x): x not in tuple") and the game dies with a traceback.
    start = Position.initial(HUMAN_FIRST_SEED)
    assert start.to_move == 0
    buy = next(m for m in start.legal_moves() if m.kind != ADVANCE)
    script = f"{buy.text()}\n{buy.text()}\nquit\n"
    result = run_cli(tmp_path, "play", "--seat", "0", "--seed", str(HUMAN_FIRST_SEED), "--save", "s.json", stdin=script)
    assert "Traceback" not in result.stderr, result.stderr[-600:]
    assert result.returncode == 0
    assert f"Not played: {buy.text()} is illegal: patch {buy.patch} has already been bought" in result.stdout


def test_play_hint_names_a_legal_move(tmp_path: Path) -> None:
    """'hint' asks a one-second search and names a move that is legal, with its chances."""
    result = run_cli(tmp_path, "play", "--seat", "0", "--seed", "2", stdin="hint\nquit\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    match = re.search(r"Hint: (\S+) \(win chance (\d+)%", result.stdout)
    assert match, result.stdout[-500:]
    # The save file holds the game up to the hint: with seed 2 the AI moved first.
    game = record.load((tmp_path / "quiltmaker-game.json").read_text(encoding="utf-8"))
    assert game.position.to_move == 0 and game.position.why_illegal(Move.from_text(match.group(1))) is None
    assert 0 <= int(match.group(2)) <= 100


def test_play_two_players_needs_a_terminal(tmp_path: Path) -> None:
    # Piped input means line-based play, which has no second person at the keyboard.
    assert_clean_failure(run_cli(tmp_path, "play", "--two-players", stdin="quit\n"), "quiltmaker play: ", "--two-players needs")


def _run_in_terminal(cwd: Path, args: list[str], keys: list[bytes], ready: bytes) -> tuple[int, str]:
    """Run ``quiltmaker`` in a pseudo-terminal of 120x40, wait for ``ready`` on screen, then type ``keys``."""
    import fcntl  # POSIX only, like the pseudo-terminal itself
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen([sys.executable, "-m", "quiltmaker", *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    out = b""

    def read(until: bytes | None, seconds: float) -> None:
        nonlocal out
        deadline = time.monotonic() + seconds
        while (until is None or until not in out) and time.monotonic() < deadline:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    out += os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    return

    try:
        read(ready, 90)
        assert ready in out, out[-2000:]
        for key in keys:
            os.write(master, key)
            read(None, 0.5)
        process.wait(30)
        read(None, 0.5)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    return process.returncode, out.decode("utf-8", "replace")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")
def test_play_in_a_terminal_opens_the_full_screen_game(tmp_path: Path) -> None:
    args = ["play", "--seat", "0", "--seed", str(HUMAN_FIRST_SEED), "--opponent", "beginner", "--save", "s.json"]
    status, out = _run_in_terminal(tmp_path, args, [b"a", b"q"], b"Patch circle")
    assert status == 0 and "Traceback" not in out, out[-2000:]
    assert "The game is saved in s.json; continue it with: quiltmaker play --resume s.json" in out
    game = record.load((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert game.moves[0] == Move.advance() and game.movers[:2] == [0, 1] and game.players == ["you", "beginner"]

    # --plain keeps the line-based game, even in a terminal.
    status, out = _run_in_terminal(tmp_path, ["play", "--plain", "--resume", "s.json"], [b"quit\n"], b"Your move:")
    assert status == 0 and "You are player 0 against the greedy player" in out and "Game left unfinished" in out


def test_components_prints_the_data_the_rules_are_built_from(tmp_path: Path) -> None:
    from quiltmaker.core.components import load_component_data

    result = run_cli(tmp_path, "components")
    assert result.returncode == 0 and json.loads(result.stdout) == load_component_data()
    where = run_cli(tmp_path, "components", "--where")
    assert json.loads(Path(where.stdout.strip()).read_text(encoding="utf-8")) == load_component_data()


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path, records: dict[str, Path]) -> None:
    """`quiltmaker analyse GAME --json | head -1`: once its reader is gone the command stops without a word,
    as Unix tools do (status 141, 128 + SIGPIPE), not with a traceback or a broken-pipe error. (`true` reads
    nothing and is gone at once, so the search's first line always meets a closed pipe.)"""
    command = f"{shlex.quote(sys.executable)} -m quiltmaker analyse {shlex.quote(str(records['unfinished']))} --iterations 50 --json"
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    result = subprocess.run(["bash", "-c", f"set -o pipefail; {command} | true"], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert "Broken pipe" not in result.stderr and "Errno 32" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 141
