"""The engine line protocol, spoken by a real ``python -m quiltmaker engine`` subprocess.

Every read from the engine goes through a queue filled by a reader thread, so
a hung or silent engine fails the test after a timeout instead of hanging the
suite. Good commands must give the documented answers (and every move the
engine names must be legal where it was asked); malformed commands must give
exactly one ``error ...`` line and leave the engine running. ``parse_position``
is also tested in process, and :class:`EnginePlayer` is driven both against
the real engine and against small fake engines that misbehave.
"""

from __future__ import annotations

import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from quiltmaker import Position, QuiltmakerError
from quiltmaker.ai.levels import LEVELS
from quiltmaker.specs import player_from_spec
from quiltmaker.ai import mcts
from quiltmaker.core.moves import Move
from quiltmaker.ai.players import GreedyPlayer, Limit, play_game
from quiltmaker.engine.client import EnginePlayer
from quiltmaker.engine.protocol import ProtocolError, parse_position

T = TypeVar("T")

# Generous, because a cold numba cache makes the first search compile; "promptly"
# checks measure elapsed time separately, after the engine has searched once.
READ_TIMEOUT = 60.0
QUIET_TIMEOUT = 5.0
ENGINE_COMMAND = [sys.executable, "-m", "quiltmaker", "engine"]


# Helpers ------------------------------------------------------------------------


class EngineProcess:
    """A ``quiltmaker engine`` subprocess whose output is read with timeouts.

    Args:
        args: Extra command-line arguments for ``quiltmaker engine``.
    """

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONIOENCODING="utf-8")
        self.process = subprocess.Popen(
            [*ENGINE_COMMAND, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=env,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self._closed_output = False
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)  # end of output

    def _pump_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        """What the engine wrote to stderr so far (all of it once it has exited)."""
        if self.process.poll() is not None:
            self._threads[1].join(timeout=2)
        return "".join(self._stderr)

    def send(self, *lines: str) -> None:
        """Write command lines to the engine."""
        assert self.process.stdin is not None
        try:
            for line in lines:
                self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pytest.fail(f"the engine is gone (status {self.process.poll()}); stderr:\n{self.stderr}")

    def read_line(self, timeout: float = READ_TIMEOUT) -> str:
        """The engine's next output line; fails the test on a timeout or the end of output."""
        if self._closed_output:
            pytest.fail("the engine's output is already closed")
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"the engine said nothing for {timeout}s; stderr:\n{self.stderr}")
        if line is None:
            self._closed_output = True
            self.process.wait(timeout=5)
            pytest.fail(f"the engine closed its output (status {self.process.returncode}); stderr:\n{self.stderr}")
        return line

    def read_until(self, prefix: str, timeout: float = READ_TIMEOUT) -> tuple[list[str], str]:
        """Lines up to the first starting with ``prefix``: (the lines before it, that line)."""
        deadline = time.monotonic() + timeout
        before: list[str] = []
        while True:
            line = self.read_line(max(0.01, deadline - time.monotonic()))
            if line.startswith(prefix):
                return before, line
            before.append(line)

    def lines_before_readyok(self, timeout: float = READ_TIMEOUT) -> list[str]:
        """Send ``isready`` and return every line the engine wrote before ``readyok``."""
        self.send("isready")
        return self.read_until("readyok", timeout)[0]

    def assert_quiet(self, seconds: float = 0.3) -> None:
        """Fail if the engine writes anything within ``seconds``."""
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            return
        pytest.fail(f"unexpected output from the engine: {line!r}")

    def search(self, go: str, timeout: float = READ_TIMEOUT) -> tuple[list[str], str]:
        """Send a ``go`` command and return (its info lines, the move of its bestmove line)."""
        self.send(go)
        infos, best = self.read_until("bestmove", timeout)
        assert all(line.startswith("info ") for line in infos), infos
        words = best.split()
        assert len(words) == 2, f"malformed bestmove line {best!r}"
        return infos, words[1]

    def resync(self, timeout: float = 5.0) -> bool:
        """Stop any search and drain the output up to a ``readyok``; False if the engine cannot."""
        if self.process.poll() is not None or self._closed_output:
            return False
        assert self.process.stdin is not None
        try:
            self.process.stdin.write("stop\nisready\n")
            self.process.stdin.flush()
        except OSError:
            return False
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return False
            if line is None:
                return False
            if line == "readyok":
                return True

    def close(self, wait: float = 5.0) -> None:
        """Make sure the engine is gone: close its input, then kill it if it lingers."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def assert_legal(position: Position, text: str) -> Move:
    """The move ``text`` names, after checking it is legal in ``position``."""
    move = Move.from_text(text)
    reason = position.why_illegal(move)
    assert reason is None, f"the engine chose {text}, illegal here: {reason}"
    return move


def parse_info(line: str) -> dict[str, str]:
    """The fields of an ``info`` line, after checking its shape."""
    words = line.split()
    assert words[0] == "info" and len(words) % 2 == 1, line
    fields = dict(zip(words[1::2], words[2::2]))
    assert set(fields) == {"iterations", "winprob", "margin", "best"}, line
    assert int(fields["iterations"]) > 0
    assert 0.0 <= float(fields["winprob"]) <= 1.0
    float(fields["margin"])
    return fields


def within(seconds: float, function: Callable[[], T]) -> T:
    """Call ``function`` in a thread and fail the test if it takes longer than ``seconds``.

    The thread is left behind on a timeout (a daemon, blocked on a pipe); the
    fake engines end themselves after a while, which releases it.
    """
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"no answer within {seconds}s: the call hangs")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def greedy_line(seed: int, plies: int) -> tuple[Position, list[Move]]:
    """A start position and the first ``plies`` moves two greedy players make from it."""
    start = Position.initial(seed)
    players = [GreedyPlayer(seed), GreedyPlayer(seed + 1)]
    position, moves = start, []
    for _ in range(plies):
        mover = position.to_move
        assert mover is not None
        move = players[mover].choose_move(position)
        moves.append(move)
        position = position.play(move)
    return start, moves


def finished_position() -> Position:
    """The final position of a short greedy game."""
    return play_game([GreedyPlayer(1), GreedyPlayer(2)], Position.initial(5)).position


@pytest.fixture(scope="session", autouse=True)
def warm_search() -> None:
    """Compile (or load) everything the engine warms up, once, so engine subprocesses find it cached on disk."""
    mcts.warm_up()


@pytest.fixture
def engine() -> Iterator[EngineProcess]:
    """A fresh engine subprocess, ended after the test: for tests that need a fresh state."""
    process = EngineProcess()
    yield process
    process.close()


@pytest.fixture(scope="module")
def _shared_engines() -> Iterator[list[EngineProcess]]:
    engines: list[EngineProcess] = []
    yield engines
    for process in engines:
        process.close()


@pytest.fixture
def warm_engine(_shared_engines: list[EngineProcess]) -> Iterator[EngineProcess]:
    """An engine that has searched already, shared between tests to save its start-up.

    Each test leaves it idle (a ``stop`` and ``isready`` afterwards); one that
    cannot be brought back, or has died, is replaced, so a failure does not
    spread to the tests after it.
    """
    if not _shared_engines or _shared_engines[-1].process.poll() is not None:
        process = EngineProcess()
        process.send("position start seed 0")
        process.search("go iterations 20")  # loads the compiled search core
        _shared_engines.append(process)
    process = _shared_engines[-1]
    yield process
    if not process.resync():
        process.close(wait=1)


# The handshake and plain commands -----------------------------------------------


def test_protocol_handshake(engine: EngineProcess) -> None:
    engine.send("protocol")
    before, last = engine.read_until("protocolok", timeout=10)
    assert last == "protocolok"
    ids = [line for line in before if line.startswith("id ")]
    assert any(line.startswith("id name quiltmaker") for line in ids), before
    assert "id version 1" in ids
    options = [line for line in before if line.startswith("option ")]
    assert len(options) == 2 and options[1].startswith("option name Hash "), before
    words = options[0].split()
    assert words[:5] == ["option", "name", "Level", "type", "combo"]
    assert words[words.index("default") + 1] == "expert"
    # Every level people can choose is announced, and nothing else.
    announced = [words[i + 1] for i, word in enumerate(words) if word == "var"]
    assert sorted(announced) == sorted(LEVELS)
    assert len(before) == len(ids) + len(options), f"stray lines in the handshake: {before}"


def test_isready_answers_readyok(warm_engine: EngineProcess) -> None:
    assert warm_engine.lines_before_readyok(timeout=10) == []
    assert warm_engine.lines_before_readyok(timeout=10) == []


def test_newgame_and_stop_without_a_search_are_silent(warm_engine: EngineProcess) -> None:
    warm_engine.send("newgame", "stop")
    assert warm_engine.lines_before_readyok(timeout=10) == []


# Positions and searches -----------------------------------------------------------


def test_go_iterations_streams_info_then_a_legal_bestmove(engine: EngineProcess) -> None:
    engine.send("position start seed 7")
    infos, best = engine.search("go iterations 300")
    assert infos, "a search reports at least one info line before its bestmove"
    fields = [parse_info(line) for line in infos]
    # A fresh tree: the root has seen exactly the iterations asked for.
    assert int(fields[-1]["iterations"]) == 300
    assert fields[-1]["best"] == best
    position = Position.initial(7)
    for field in fields:
        assert_legal(position, field["best"])
    assert_legal(position, best)
    assert engine.lines_before_readyok() == []


def test_position_start_with_circle_and_first_player(warm_engine: EngineProcess) -> None:
    circle = [*range(32, 0, -1), 0]
    warm_engine.send(f"position start circle {','.join(map(str, circle))} first 1")
    _, best = warm_engine.search("go iterations 200")
    assert_legal(Position.initial(circle=circle, first_player=1), best)


def test_position_text_mid_game(warm_engine: EngineProcess) -> None:
    start, moves = greedy_line(11, 9)
    position = start
    for move in moves:
        position = position.play(move)
    text = position.text()
    assert len(text.split()) == 8
    warm_engine.send(f"position text {text}")
    _, best = warm_engine.search("go iterations 200")
    assert_legal(position, best)


def test_position_start_with_moves(warm_engine: EngineProcess) -> None:
    start, moves = greedy_line(7, 2)
    expected = start.play(moves[0]).play(moves[1])
    warm_engine.send(f"position start seed 7 moves {moves[0].text()} {moves[1].text()}")
    _, best = warm_engine.search("go iterations 200")
    assert_legal(expected, best)


def test_position_text_with_moves(warm_engine: EngineProcess) -> None:
    start, moves = greedy_line(3, 5)
    middle = start.play(moves[0]).play(moves[1])
    expected = middle.play(moves[2]).play(moves[3])
    warm_engine.send(f"position text {middle.text()} moves {moves[2].text()} {moves[3].text()}")
    _, best = warm_engine.search("go iterations 200")
    assert_legal(expected, best)


def test_positions_in_a_row_each_get_their_own_search(warm_engine: EngineProcess) -> None:
    # The engine keeps its tree between searches; a new position must not inherit a stale move.
    start, moves = greedy_line(9, 6)
    position = start
    for ply, move in enumerate(moves):
        warm_engine.send(f"position start seed 9 moves {' '.join(m.text() for m in moves[:ply])}".rstrip())
        _, best = warm_engine.search("go iterations 100")
        assert_legal(position, best)
        position = position.play(move)


def test_go_time_takes_about_that_long(warm_engine: EngineProcess) -> None:
    warm_engine.send("position start seed 2")
    started = time.monotonic()
    _, best = warm_engine.search("go time 0.3")
    elapsed = time.monotonic() - started
    assert 0.2 <= elapsed < 2.0, elapsed
    assert_legal(Position.initial(2), best)


def test_go_movetime_is_in_milliseconds(warm_engine: EngineProcess) -> None:
    warm_engine.send("position start seed 2")
    started = time.monotonic()
    _, best = warm_engine.search("go movetime 300")
    elapsed = time.monotonic() - started
    assert 0.2 <= elapsed < 2.0, elapsed
    assert_legal(Position.initial(2), best)


def test_isready_answers_at_once_during_a_search(warm_engine: EngineProcess) -> None:
    """As in UCI: readyok comes at once, and the search still ends with its bestmove."""
    warm_engine.send("position start seed 4", "go time 0.5", "isready")
    before, _ = warm_engine.read_until("readyok", timeout=0.4)
    assert all(line.startswith("info ") for line in before)
    infos, best = warm_engine.read_until("bestmove")
    assert all(line.startswith("info ") for line in infos)
    assert_legal(Position.initial(4), best.split()[1])


def test_go_infinite_streams_info_until_stop(warm_engine: EngineProcess) -> None:
    warm_engine.send("position start seed 5", "go infinite")
    # Info lines come about every half second while it searches, with growing counts.
    first = parse_info(warm_engine.read_line())
    second = parse_info(warm_engine.read_line())
    assert int(second["iterations"]) >= int(first["iterations"])
    started = time.monotonic()
    warm_engine.send("stop")
    infos, best = warm_engine.read_until("bestmove", timeout=5)
    assert time.monotonic() - started < 2.0, "stop must end the search promptly"
    assert all(line.startswith("info ") for line in infos)
    assert_legal(Position.initial(5), best.split()[1])
    assert warm_engine.lines_before_readyok(timeout=5) == []
    # After a stop the engine searches again as usual.
    _, again = warm_engine.search("go iterations 100")
    assert_legal(Position.initial(5), again)


def test_setoption_level_casual_searches_its_iterations(engine: EngineProcess) -> None:
    engine.send("setoption name Level value casual")
    engine.send("position start seed 6")
    assert engine.lines_before_readyok() == []  # setoption answers nothing
    infos, best = engine.search("go")
    # casual is 300 iterations a move, and a plain 'go' uses the level's limit.
    assert int(parse_info(infos[-1])["iterations"]) == 300
    assert_legal(Position.initial(6), best)


def test_setoption_level_beginner_answers_at_once(engine: EngineProcess) -> None:
    engine.send("setoption name Level value beginner", "position start seed 6")
    infos, best = engine.search("go")
    assert infos == []  # no search, so nothing to report
    assert_legal(Position.initial(6), best)


def test_quit_exits_with_status_zero(engine: EngineProcess) -> None:
    engine.send("position start seed 1", "quit")
    assert engine.process.wait(timeout=10) == 0
    assert "Traceback" not in engine.stderr


def test_quit_during_a_search_exits_promptly(engine: EngineProcess) -> None:
    engine.send("position start seed 1", "go infinite")
    parse_info(engine.read_line())  # it is searching
    started = time.monotonic()
    engine.send("quit")
    assert engine.process.wait(timeout=5) == 0
    assert time.monotonic() - started < 2.0
    assert "Traceback" not in engine.stderr


def test_end_of_input_exits_cleanly(engine: EngineProcess) -> None:
    engine.send("protocol")
    engine.read_until("protocolok", timeout=10)
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    assert engine.process.wait(timeout=10) == 0
    assert "Traceback" not in engine.stderr


def test_end_of_input_during_a_search_exits_cleanly(engine: EngineProcess) -> None:
    engine.send("position start seed 1", "go infinite")
    parse_info(engine.read_line())
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    assert engine.process.wait(timeout=5) == 0
    assert "Traceback" not in engine.stderr


# Malformed commands ---------------------------------------------------------------


def _illegal_at_start() -> str:
    """A well-formed move that is illegal at the start of seed 7: a patch that is not on offer."""
    start = Position.initial(7)
    patch = start.circle[10]
    move = Move.place(patch, "R0", 0, 0)
    assert start.why_illegal(move) is not None
    return move.text()


# Each case: commands sent to a fresh engine; only the last one is malformed.
MALFORMED: dict[str, list[str]] = {
    "unknown command": ["frobnicate the quilt"],
    "position with nothing": ["position"],
    "position neither start nor text": ["position sideways"],
    "position start without seed or circle": ["position start"],
    "position start odd pairs": ["position start seed"],
    "position start unknown key": ["position start colour red"],
    "position start non-numeric seed": ["position start seed seven"],
    "position start bad circle": ["position start circle 1,2,3"],
    "position start bad first player": ["position start seed 1 first 2"],
    "position start unknown variant": ["position start seed 1 variant deluxe"],
    "position text too few fields": ["position text revised 1,2,3"],
    "position text bad fields": ["position text a b c d e f g h"],
    "illegal move in moves": [f"position start seed 7 moves {_illegal_at_start()}"],
    "special patch not pending": ["position start seed 7 moves S@e5"],
    "malformed move in moves": ["position start seed 7 moves banana"],
    "second move illegal": ["position start seed 7 moves A S@e5"],
    "go odd pairs": ["position start seed 1", "go time"],
    "go unknown limit": ["position start seed 1", "go depth 3"],
    "go non-numeric iterations": ["position start seed 1", "go iterations many"],
    "go non-numeric time": ["position start seed 1", "go time soon"],
    "go fractional movetime": ["position start seed 1", "go movetime 1.5"],
    "go negative iterations": ["position start seed 1", "go iterations -5"],
    "go zero iterations": ["position start seed 1", "go iterations 0"],
    "go negative time": ["position start seed 1", "go time -1"],
    "go zero movetime": ["position start seed 1", "go movetime 0"],
    "go in a finished game": [f"position text {finished_position().text()}", "go iterations 10"],
    "go huge iterations": ["position start seed 1", f"go iterations {10**18}"],
    "go huge time": ["position start seed 1", "go time 1e12"],
    "setoption alone": ["setoption"],
    "setoption without value": ["setoption name Level"],
    "setoption unknown level": ["setoption name Level value godlike"],
    "setoption unknown option": ["setoption name Threads value 4"],
    "setoption misspelt keywords": ["setoption nom Level valeur casual"],
    "very long garbage word": ["x" * 200_000],
    "very long garbage line": ["garbage " * 20_000],
}


@pytest.mark.parametrize("commands", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_command_gets_one_error_and_the_engine_keeps_running(
    warm_engine: EngineProcess, commands: list[str]
) -> None:
    warm_engine.send(*commands)
    lines = warm_engine.lines_before_readyok(timeout=15)
    assert len(lines) == 1 and lines[0].startswith("error "), lines
    assert len(lines[0]) > len("error "), "the error names its reason"
    # Still alive and still searching: a valid position and go after the error work.
    warm_engine.send("position start seed 3")
    _, best = warm_engine.search("go iterations 50")
    assert_legal(Position.initial(3), best)
    assert warm_engine.lines_before_readyok() == []
    assert "Traceback" not in warm_engine.stderr


def test_a_huge_iteration_limit_near_the_end_is_bounded_for_the_solver() -> None:
    """The solver's node budget follows the iteration limit: a limit past what an int64 holds is bounded, not overflowed."""
    game = play_game([GreedyPlayer(4), GreedyPlayer(5)], Position.initial(4))
    late = next(p for p in game.positions if not p.is_over and min(p.times) >= mcts.SOLVER_FROM_SPACE + 8)
    player = player_from_spec("mcts:iterations=100", seed=1)
    assert isinstance(player, mcts.MCTSPlayer)
    stats = player.solve_endgame(late, Limit(iterations=10**18))
    assert stats is not None and stats[0].visits > 0, "solved exactly"


def test_go_infinite_in_an_endgame_waits_for_stop_and_answers_isready_meanwhile(warm_engine: EngineProcess) -> None:
    game = play_game([GreedyPlayer(4), GreedyPlayer(5)], Position.initial(4))
    late = next(p for p in game.positions if not p.is_over and min(p.times) >= mcts.SOLVER_FROM_SPACE + 8)
    warm_engine.send(f"position text {late.text()}", "go infinite")
    time.sleep(1.0)  # the solver has long answered: the engine must still wait for 'stop'
    lines = warm_engine.lines_before_readyok(timeout=10)
    assert not any(line.startswith("bestmove") for line in lines), lines
    warm_engine.send("stop")
    _, best = warm_engine.read_until("bestmove", timeout=10)
    assert_legal(late, best.split()[1])


def test_go_before_any_position(engine: EngineProcess) -> None:
    engine.send("go iterations 10")
    lines = engine.lines_before_readyok(timeout=10)
    assert len(lines) == 1 and lines[0].startswith("error "), lines
    engine.send("position start seed 3")
    _, best = engine.search("go iterations 50")
    assert_legal(Position.initial(3), best)


def test_malformed_position_keeps_the_previous_one(warm_engine: EngineProcess) -> None:
    # "changes nothing": a bad position command leaves the last good one in place.
    warm_engine.send("position start seed 8", "position start seed 8 moves S@e5")
    lines = warm_engine.lines_before_readyok()
    assert len(lines) == 1 and lines[0].startswith("error ")
    _, best = warm_engine.search("go iterations 100")
    assert_legal(Position.initial(8), best)


def test_bad_setoption_keeps_the_level(engine: EngineProcess) -> None:
    engine.send("setoption name Level value casual", "setoption name Level value godlike", "position start seed 6")
    lines = engine.lines_before_readyok()
    assert len(lines) == 1 and lines[0].startswith("error ")
    infos, _ = engine.search("go")
    assert int(parse_info(infos[-1])["iterations"]) == 300  # still casual


@pytest.mark.parametrize("line", ["", "   ", "\t"], ids=["empty", "spaces", "tab"])
def test_blank_lines_are_ignored(warm_engine: EngineProcess, line: str) -> None:
    # Blank lines carry no command; the engine skips them (as UCI engines do) without a word.
    warm_engine.send(line)
    assert warm_engine.lines_before_readyok(timeout=10) == []
    warm_engine.send("position start seed 3")
    _, best = warm_engine.search("go iterations 50")
    assert_legal(Position.initial(3), best)


@pytest.mark.parametrize(
    "command",
    ["position start seed 1", "go iterations 10", "setoption name Level value casual", "newgame", "protocol", "bogus"],
)
def test_commands_while_searching_get_an_error(warm_engine: EngineProcess, command: str) -> None:
    # 'go' marks the engine as searching before it reads the next line, so no need to wait.
    warm_engine.send("position start seed 5", "go infinite", command)
    infos, error = warm_engine.read_until("error ", timeout=5)
    assert all(line.startswith("info ") for line in infos)
    warm_engine.send("stop")
    infos, best = warm_engine.read_until("bestmove", timeout=5)
    assert all(line.startswith("info ") for line in infos), "exactly one error, no other answer"
    # The search went on in the original position: the command changed nothing.
    assert_legal(Position.initial(5), best.split()[1])
    assert warm_engine.lines_before_readyok(timeout=5) == []
    _, again = warm_engine.search("go iterations 50")
    assert_legal(Position.initial(5), again)


# Regressions ----------------------------------------------------------------------


def test_regression_position_moves_without_start_or_text() -> None:
    # parse_position checked for empty words before cutting off 'moves', so ['moves', 'A']
    # reached words[0] on an empty list: IndexError instead of a QuiltmakerError.
    with pytest.raises(QuiltmakerError):
        parse_position(["moves", "A"])


def test_regression_engine_survives_position_moves_without_start(engine: EngineProcess) -> None:
    # The IndexError above escaped Engine.handle, so 'position moves A' killed the engine
    # with a traceback (exit status 1) instead of answering one error line.
    engine.send("position moves A")
    lines = engine.lines_before_readyok(timeout=10)
    assert len(lines) == 1 and lines[0].startswith("error "), lines
    assert "Traceback" not in engine.stderr


@pytest.mark.parametrize("limit", ["time nan", "time inf", "time 1e999"])
def test_regression_non_finite_go_time(engine: EngineProcess, limit: str) -> None:
    # float('nan') <= 0 and float('inf') <= 0 are both false, so these passed the
    # 'limits must be positive' check; the search thread then died on int(nan) / int(inf)
    # with a traceback, no bestmove was ever sent and the engine stayed "searching"
    # forever, refusing every later position and go.
    engine.send("position start seed 3", f"go {limit}")
    lines = engine.lines_before_readyok(timeout=10)
    answered = len(lines) == 1 and lines[0].startswith("error ")
    searched = bool(lines) and lines[-1].startswith("bestmove")
    assert answered or searched, f"neither an error nor a bestmove: {lines}"
    assert "Traceback" not in engine.stderr
    engine.send("position start seed 4")
    _, best = engine.search("go iterations 50", timeout=10)
    assert_legal(Position.initial(4), best)


def test_regression_isready_during_infinite_search(engine: EngineProcess) -> None:
    # isready during 'go infinite' joins the search thread, which only a 'stop' ends; but
    # the engine reads no more commands while it waits, so it deadlocks: no readyok, and
    # the stop that follows is never read. (UCI answers isready at once during a search.)
    engine.send("position start seed 3", "go infinite", "isready", "stop")
    seen: list[str] = []
    deadline = time.monotonic() + 3
    try:
        while not ({"readyok", "bestmove"} <= {line.split()[0] for line in seen}):
            try:
                seen.append(engine._lines.get(timeout=max(0.01, deadline - time.monotonic())) or "EOF")
            except queue.Empty:
                answers = [line for line in seen if not line.startswith("info")]
                pytest.fail(f"no readyok and bestmove within 3 s of isready + stop; got {answers}")
    finally:
        engine.close(wait=0.5)  # a deadlocked engine would otherwise hold the teardown


# parse_position in process --------------------------------------------------------


def test_parse_position_start_seed() -> None:
    assert parse_position(["start", "seed", "7"]) == Position.initial(7)


def test_parse_position_start_circle_first_variant() -> None:
    circle = [*range(1, 33), 0]
    words = ["start", "circle", ",".join(map(str, circle)), "first", "1", "variant", "original"]
    assert parse_position(words) == Position.initial(circle=circle, first_player=1, variant="original")


def test_parse_position_text_round_trip() -> None:
    start, moves = greedy_line(4, 7)
    position = start
    for move in moves:
        position = position.play(move)
    assert parse_position(["text", *position.text().split()]) == position


def test_parse_position_applies_moves() -> None:
    start, moves = greedy_line(4, 3)
    words = ["start", "seed", "4", "moves", *(m.text() for m in moves)]
    assert parse_position(words) == start.play(moves[0]).play(moves[1]).play(moves[2])
    # 'moves' with nothing after it is the position itself.
    assert parse_position(["start", "seed", "4", "moves"]) == start


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["sideways"],
        ["text"],
        ["text", "revised"],
        ["text", *"a b c d e f g h".split()],
        ["start"],
        ["start", "seed"],
        ["start", "seed", "x"],
        ["start", "colour", "red"],
        ["start", "circle", "1,2,3"],
        ["start", "circle", "a,b"],
        ["start", "seed", "1", "first", "2"],
        ["start", "seed", "1", "first", "one"],
        ["start", "seed", "1", "variant", "deluxe"],
        ["start", "seed", "1", "moves", "banana"],
        ["start", "seed", "1", "moves", "S@e5"],
    ],
    ids=repr,
)
def test_parse_position_errors_are_quiltmaker_errors(words: list[str]) -> None:
    with pytest.raises(QuiltmakerError):
        parse_position(words)


def test_parse_position_names_the_bad_move() -> None:
    with pytest.raises(ProtocolError, match=r"move 2 \(S@e5\)"):
        parse_position(["start", "seed", "7", "moves", "A", "S@e5"])


# EnginePlayer ---------------------------------------------------------------------


def test_engine_player_against_the_real_engine() -> None:
    player = within(30, lambda: EnginePlayer(ENGINE_COMMAND, move_time=0.05, name="sub"))
    try:
        assert player.name == "sub"
        position = Position.initial(12)
        for _ in range(4):
            move = within(60, lambda: player.choose_move(position))
            assert position.why_illegal(move) is None
            position = position.play(move)
    finally:
        player.close()
    assert player._process.poll() == 0  # quit was sent and obeyed


def test_engine_spec_builds_an_engine_player() -> None:
    player = player_from_spec(f"engine:{shlex.join(ENGINE_COMMAND)}", move_time=0.05)
    try:
        assert isinstance(player, EnginePlayer)
        assert player.move_time == 0.05
        position = Position.initial(13)
        assert position.why_illegal(within(60, lambda: player.choose_move(position))) is None
    finally:
        player.close()


FAKE_ENGINE = '''
"""A fake engine that misbehaves in the way named by its first argument."""
import os
import sys
import threading

threading.Timer(30, os._exit, (0,)).start()  # never outlive a test that forgot us
mode = sys.argv[1]


def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "protocol":
        if mode == "error-handshake":
            say("error no protocol today")
        elif mode == "close-handshake":
            os.close(1)  # sys.stdout.close() would leave file descriptor 1 open
        else:
            say("id name fake")
            say("protocolok")
            if mode == "exit":
                os._exit(0)
    elif words[0] == "go":
        if mode == "advance":
            say("info iterations 1 winprob 0.5 margin 0.00 best A")
            say("bestmove A")
        elif mode == "illegal":
            say("bestmove S@e5")
        elif mode == "garbage":
            say("bestmove banana")
        elif mode == "extra":
            say("bestmove A ponder A")
        elif mode == "close":
            os.close(1)
        elif mode == "error":
            say("error I refuse")
    elif words[0] == "quit":
        os._exit(0)
'''


@pytest.fixture
def fake_engine(tmp_path: Path) -> Callable[[str], list[str]]:
    """A function giving the command line of the fake engine in a mode."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE, encoding="utf-8")
    return lambda mode: [sys.executable, str(script), mode]


def test_fake_engine_harness_works(fake_engine: Callable[[str], list[str]]) -> None:
    # The fake itself is sound: a well-behaved mode gives a legal move.
    player = within(10, lambda: EnginePlayer(fake_engine("advance"), move_time=0.01))
    try:
        assert within(10, lambda: player.choose_move(Position.initial(3))) == Move.advance()
    finally:
        player.close()


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("illegal", ProtocolError),
        ("close", ProtocolError),
        ("error", ProtocolError),
        ("extra", ProtocolError),
        ("garbage", QuiltmakerError),
    ],
)
def test_engine_player_rejects_a_misbehaving_engine(
    fake_engine: Callable[[str], list[str]], mode: str, error: type[Exception]
) -> None:
    player = within(10, lambda: EnginePlayer(fake_engine(mode), move_time=0.01))
    try:
        with pytest.raises(error):
            within(10, lambda: player.choose_move(Position.initial(3)))
    finally:
        player.close()


@pytest.mark.parametrize("mode", ["error-handshake", "close-handshake"])
def test_engine_player_rejects_a_bad_handshake(fake_engine: Callable[[str], list[str]], mode: str) -> None:
    with pytest.raises(ProtocolError):
        within(10, lambda: EnginePlayer(fake_engine(mode)))


def test_regression_engine_player_after_the_engine_exited(fake_engine: Callable[[str], list[str]]) -> None:
    # An engine that has exited makes EnginePlayer._send raise BrokenPipeError (an OSError),
    # not a QuiltmakerError; a match then dies with a traceback instead of a clear message.
    player = within(10, lambda: EnginePlayer(fake_engine("exit"), move_time=0.01))
    player._process.wait(timeout=10)
    try:
        with pytest.raises(QuiltmakerError):
            within(10, lambda: player.choose_move(Position.initial(3)))
    finally:
        player.close()


def test_regression_engine_player_that_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # Popen fails inside __init__ before _process is set; __del__ then calls close(), which
    # raises AttributeError, printed as "Exception ignored in EnginePlayer.__del__" with a
    # traceback on stderr (seen at the end of 'quiltmaker match engine:/missing ...').
    import gc

    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(OSError):
        EnginePlayer(["/nonexistent/quiltmaker-engine"])
    gc.collect()
    assert unraisable == [], [getattr(u, "exc_value", u) for u in unraisable]


# Queries for bot authors: the rules engine answers, the bot need not re-derive them ---------------------


def test_queries_answer_from_the_rules(warm_engine: EngineProcess) -> None:
    start = Position.initial(3)
    middle = start
    for _ in range(7):
        middle = middle.play(middle.legal_moves()[-1])
    warm_engine.send(f"position text {middle.text()}", "query tomove", "query legal", "query position", "query score")
    assert warm_engine.read_line() == f"tomove {middle.to_move}"
    assert warm_engine.read_line().split() == ["legal", *(m.text() for m in middle.legal_moves())]
    assert warm_engine.read_line() == f"position {middle.text()}"
    assert warm_engine.read_line() == f"score {middle.score(0)} {middle.score(1)}"
    finished = start
    while not finished.is_over:
        finished = finished.play(finished.legal_moves()[0])
    warm_engine.send(f"position text {finished.text()}", "query tomove", "query legal", "query score")
    assert warm_engine.read_line() == "tomove none"
    assert warm_engine.read_line() == "legal"
    assert warm_engine.read_line() == f"score {finished.score(0)} {finished.score(1)} winner {finished.winner}"


@pytest.mark.parametrize("command", ["query", "query moves", "query tomove now"])
def test_a_bad_query_is_one_error(warm_engine: EngineProcess, command: str) -> None:
    warm_engine.send("position start seed 1", command)
    assert warm_engine.read_line() == "error usage: query tomove|legal|position|score"
    warm_engine.send("query tomove")
    assert warm_engine.read_line() == f"tomove {Position.initial(1).to_move}"


def test_a_query_before_any_position_says_what_to_send(engine: EngineProcess) -> None:
    engine.send("query legal")
    assert engine.read_line() == "error no position: send 'position ...' first"


def test_an_engine_that_never_flushes_is_told_why_it_lost(fake_engine: Callable[[str], list[str]]) -> None:
    command = fake_engine("silent")
    player = EnginePlayer(command, move_time=0.05)
    with pytest.raises(ProtocolError, match="flush its output after each line"):
        player.choose_move(Position.initial(1))
    player.close()


def test_stop_ends_an_infinite_search_in_the_solvers_range(engine: EngineProcess) -> None:
    # From space 40 on the engine tries its exact solver first, with no node limit under 'go infinite':
    # 'stop' must reach it, and the engine answer 'isready' right after.
    position = Position.initial(8)
    player = GreedyPlayer(2)
    while min(position.times) < 40:
        position = position.play(player.choose_move(position))
    engine.send("protocol")
    engine.read_until("protocolok")
    engine.send(f"position text {position.text()}", "go infinite")
    time.sleep(0.5)
    engine.send("stop", "isready")
    before, best = engine.read_until("bestmove")
    move = Move.from_text(best.split()[1])
    assert position.why_illegal(move) is None
    assert engine.read_until("readyok")[0] == []


def test_hash_bounds_the_tree_of_an_infinite_search(engine: EngineProcess) -> None:
    engine.send("protocol")
    before, _ = engine.read_until("protocolok")
    assert "option name Hash type spin default 1024 min 1 max 65536" in before
    engine.send("setoption name Hash value 1", "position start seed 3", "go infinite")
    time.sleep(2.0)  # a megabyte holds about a thousand nodes: full long before this
    engine.send("stop")
    _, best = engine.read_until("bestmove")
    assert Position.initial(3).why_illegal(Move.from_text(best.split()[1])) is None
    engine.send("query tomove")  # still answering
    assert engine.read_line().startswith("tomove")


@pytest.mark.parametrize("value", ["0", "65537", "big", "1.5"])
def test_a_bad_hash_is_one_error(warm_engine: EngineProcess, value: str) -> None:
    warm_engine.send(f"setoption name Hash value {value}")
    assert warm_engine.read_line().startswith("error Hash is the search tree's megabytes")


def test_hash_is_the_tree_limit_the_engine_searches_with() -> None:
    import io

    from quiltmaker.ai.mcts import TREE_BYTES_PER_NODE
    from quiltmaker.engine.server import Engine

    output = io.StringIO()
    engine = Engine(output)
    for line in ("setoption name Hash value 2", "position start seed 3", "go infinite"):
        engine.handle(line)
    time.sleep(2.0)
    engine.handle("stop")
    assert "bestmove" in output.getvalue()
    player = engine._player
    assert player is not None and player.tree is not None
    limit = 2 * (1 << 20) // TREE_BYTES_PER_NODE
    assert player.max_tree_nodes == limit and player.tree.full and len(player.tree.arrays.states) <= limit
