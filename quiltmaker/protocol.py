"""The engine protocol: a line protocol over stdin/stdout, in the spirit of UCI.

``quiltmaker engine`` speaks it (:func:`serve`), and :class:`EnginePlayer`
drives any program that speaks it, so bots can play ours and ours can play
them. One command a line; the engine answers with the lines shown:

====================================================  ===========================================
client                                                engine
====================================================  ===========================================
``protocol``                                          ``id name ...``, ``id version ...``,
                                                      ``option ...`` lines, then ``protocolok``
``isready``                                           ``readyok`` at once, even during a search
``newgame``                                           (forgets its search tree)
``setoption name <name> value <value>``               (``Level`` or an MCTS option)
``position start [seed S] [circle a,b,..] [first P]   (sets the position; ``moves`` plays moves
[variant V] [moves M ...]``                           from it, in the move notation)
``position text <8 fields> [moves M ...]``
``go [time S] [movetime MS] [iterations N]            ``info iterations N winprob P margin M
[infinite]``                                          best MOVE`` lines, then ``bestmove MOVE``
``stop``                                              ends a search: ``bestmove MOVE``
``quit``                                              exits
====================================================  ===========================================

``winprob`` and ``margin`` are for the player to move; an ``info`` line that
ends with ``exact`` comes from the endgame solver. Anything malformed gets
one line ``error <reason>`` and changes nothing; the engine keeps running.
Blank lines are ignored, as in UCI.
"""

from __future__ import annotations

import math
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

from . import __version__
from .components import DEFAULT_VARIANT
from .errors import QuiltmakerError
from .moves import Move
from .players import Limit, Player
from .position import Position

if TYPE_CHECKING:
    from .ai.mcts import MCTSPlayer, SearchTree

PROTOCOL_VERSION = 1
DEFAULT_MOVE_TIME = 1.0
HANDSHAKE_TIMEOUT = 60.0  # a first start may compile the search core
ANSWER_GRACE = 10.0  # seconds an engine may overrun its move time before we give up


class ProtocolError(QuiltmakerError):
    """A malformed command, or an engine that broke the protocol."""


def parse_position(words: Sequence[str]) -> Position:
    """The position of a ``position`` command's arguments.

    Raises:
        QuiltmakerError: Malformed arguments, an invalid position or an illegal move.
    """
    moves: list[str] = []
    if "moves" in words:
        split = list(words).index("moves")
        words, moves = words[:split], list(words[split + 1 :])
    if not words:
        raise ProtocolError("position needs 'start' or 'text'")
    if words[0] == "text":
        if len(words) != 9:
            raise ProtocolError("position text needs the 8 fields of a position's text")
        position = Position.from_text(" ".join(words[1:]))
    elif words[0] == "start":
        options = _pairs(words[1:], {"seed", "circle", "first", "variant"})
        try:
            seed = int(options["seed"]) if "seed" in options else None
            circle = [int(p) for p in options["circle"].split(",")] if "circle" in options else None
            first = int(options["first"]) if "first" in options else None
        except ValueError:
            raise ProtocolError("seed, circle and first take integers") from None
        if seed is None and circle is None:
            raise ProtocolError("position start needs a seed or a circle")
        position = Position.initial(seed, circle=circle, first_player=first, variant=options.get("variant", DEFAULT_VARIANT))
    else:
        raise ProtocolError(f"position {words[0]!r}: expected 'start' or 'text'")
    for number, text in enumerate(moves, 1):
        try:
            position = position.play(text)
        except QuiltmakerError as error:
            raise ProtocolError(f"move {number} ({text}): {error}") from None
    return position


def _pairs(words: Sequence[str], allowed: set[str]) -> dict[str, str]:
    if len(words) % 2:
        raise ProtocolError(f"expected pairs of a name and a value, got {' '.join(words)!r}")
    pairs = dict(zip(words[::2], words[1::2]))
    unknown = set(pairs) - allowed
    if unknown:
        raise ProtocolError(f"unknown {', '.join(sorted(unknown))}: expected {', '.join(sorted(allowed))}")
    return pairs


class Engine:
    """The engine side of the protocol, reading commands and writing answers."""

    def __init__(self, output: IO[str], seed: int = 0) -> None:
        self.output = output
        self.seed = seed
        self.level = "expert"
        self.options: dict[str, str] = {}
        self.position: Position | None = None
        self._player: MCTSPlayer | None = None  # built lazily: the search core loads on first use
        self._search: threading.Thread | None = None
        self._stop = threading.Event()
        # Cleared just before 'bestmove' is sent, so a client may send its next command at once.
        self._searching = threading.Event()
        self._lock = threading.Lock()

    def send(self, line: str) -> None:
        """Write one line and flush it, from any thread."""
        with self._lock:
            self.output.write(line + "\n")
            self.output.flush()

    def handle(self, line: str) -> bool:
        """Handle one command line; returns False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, arguments = words[0], words[1:]
        try:
            if command == "quit":
                self._stop_search()
                return False
            if command == "stop":
                self._stop_search()
            elif command == "isready":
                self.send("readyok")  # at once, as in UCI, even while a search runs
            elif self._searching.is_set():
                raise ProtocolError(f"'{command}' while searching: send 'stop' first")
            elif command == "protocol":
                self.send(f"id name quiltmaker {__version__}")
                self.send(f"id version {PROTOCOL_VERSION}")
                self.send("option name Level type combo default expert var beginner var casual var strong var expert var max")
                from .ai.mcts import warm_up

                warm_up()  # so that the first 'go time' is not spent loading the search core
                self.send("protocolok")
            elif command == "newgame":
                self._player = None
            elif command == "setoption":
                self._set_option(arguments)
            elif command == "position":
                self.position = parse_position(arguments)
            elif command == "go":
                self._go(arguments)
            else:
                raise ProtocolError(f"unknown command {command!r}")
        except QuiltmakerError as error:
            self.send(f"error {error}")
        return True

    def _set_option(self, words: Sequence[str]) -> None:
        if len(words) != 4 or words[0] != "name" or words[2] != "value":
            raise ProtocolError("usage: setoption name <name> value <value>")
        name, value = words[1], words[3]
        if name == "Level":
            from .ai.levels import LEVELS

            if value not in LEVELS:
                raise ProtocolError(f"unknown level {value!r}: expected {', '.join(LEVELS)}")
            self.level = value
        else:
            raise ProtocolError(f"unknown option {name!r}: expected Level")
        self._player = None

    def _go(self, words: Sequence[str]) -> None:
        if self.position is None:
            raise ProtocolError("no position: send 'position' first")
        if self.position.is_over:
            raise ProtocolError("the game is over in this position")
        infinite = "infinite" in words
        options = _pairs([w for w in words if w != "infinite"], {"time", "movetime", "iterations"})
        try:
            seconds = float(options["time"]) if "time" in options else None
            if "movetime" in options:
                seconds = int(options["movetime"]) / 1000
            iterations = int(options["iterations"]) if "iterations" in options else None
        except ValueError:
            raise ProtocolError("time takes seconds, movetime milliseconds, iterations an integer") from None
        if (seconds is not None and not 0 < seconds < math.inf) or (iterations is not None and iterations <= 0):
            raise ProtocolError("limits must be positive and finite")
        from .ai.levels import LEVELS, player_from_spec
        from .ai.mcts import MCTSPlayer

        if self._player is None:
            built = player_from_spec(LEVELS[self.level].spec, self.seed)
            self._player = built if isinstance(built, MCTSPlayer) else None
            if self._player is None:  # a level without search answers at once
                self.send(f"bestmove {built.choose_move(self.position).text()}")
                return
        player = self._player
        if infinite:
            limit = Limit(time=None, iterations=1 << 40)
        elif seconds is None and iterations is None:
            limit = player.limit
        else:
            limit = Limit(time=seconds, iterations=iterations)
        position = self.position
        self._wait_search()
        self._stop.clear()
        self._searching.set()
        self._search = threading.Thread(target=self._run_search, args=(player, position, limit), daemon=True)
        self._search.start()

    def _run_search(self, player: MCTSPlayer, position: Position, limit: Limit) -> None:
        last_info = [time.perf_counter()]

        def progress(done: int) -> None:
            if time.perf_counter() - last_info[0] >= 0.5 and player.tree is not None:
                last_info[0] = time.perf_counter()
                self._info(player.tree)

        # 'go iterations N' searches N more, whatever a kept tree holds; a time limit covers the whole answer.
        stats = player.analyse(position, limit, stop=self._stop.is_set, on_progress=progress, reused_visits_count=False)
        best = Move.from_action(stats[0].action).text()
        report = player.last_report
        if report is not None and report.solved:
            exact = stats[0]
            self.send(f"info iterations {exact.visits} winprob {exact.win_rate:.4f} margin {exact.margin:.2f} best {best} exact")
        elif player.tree is not None:
            self._info(player.tree)
        self._searching.clear()
        self.send(f"bestmove {best}")

    def _info(self, tree: SearchTree) -> None:
        stats = tree.root_stats()
        if stats:
            best = stats[0]
            visits = int(tree.node_visits[tree.root])
            self.send(
                f"info iterations {visits} winprob {best.win_rate:.4f} margin {best.margin:.2f} "
                f"best {Move.from_action(best.action).text()}"
            )

    def _stop_search(self) -> None:
        self._stop.set()
        self._wait_search()

    def _wait_search(self) -> None:
        if self._search is not None:
            self._search.join()
            self._search = None


def serve(input_stream: IO[str] = sys.stdin, output: IO[str] = sys.stdout, seed: int = 0) -> None:
    """Run the engine until ``quit`` or the end of input."""
    engine = Engine(output, seed)
    for line in input_stream:
        if not engine.handle(line.strip()):
            return
    engine._stop_search()


class EnginePlayer(Player):
    """A player that asks an outside engine, speaking this protocol, for its moves.

    Args:
        command: The engine's command line.
        move_time: Seconds per move to ask for.
        name: Name written into records.
    """

    def __init__(self, command: Sequence[str], move_time: float = DEFAULT_MOVE_TIME, name: str | None = None) -> None:
        self.name = name or " ".join(command)
        self.move_time = move_time
        self._process: subprocess.Popen[str] | None = None
        self._process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        # A reader thread, so that an engine that goes silent times out instead of hanging us.
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_lines, daemon=True).start()
        self._send("protocol")
        self._read_until("protocolok", HANDSHAKE_TIMEOUT)

    def _read_lines(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line.strip())
        self._lines.put(None)  # end of output

    def _send(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise ProtocolError(f"engine {self.name!r} no longer reads its input: {error}") from None

    def _read_until(self, prefix: str, timeout: float, on_line: Callable[[str], None] | None = None) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ProtocolError(f"engine {self.name!r} sent no '{prefix}' within {timeout:.0f} s") from None
            if line is None:
                self._lines.put(None)  # keep reporting the end to later reads
                raise ProtocolError(f"engine {self.name!r} closed its output before '{prefix}'")
            if line.startswith("error"):
                raise ProtocolError(f"engine {self.name!r}: {line}")
            if line.startswith(prefix):
                return line
            if on_line is not None:
                on_line(line)

    def choose_move(self, position: Position) -> Move:
        self._send(f"position text {position.text()}")
        self._send(f"go time {self.move_time}")
        answer = self._read_until("bestmove", 2 * self.move_time + ANSWER_GRACE).split()
        if len(answer) != 2:
            raise ProtocolError(f"engine {self.name!r} answered {' '.join(answer)!r}")
        move = Move.from_text(answer[1])
        reason = position.why_illegal(move)
        if reason is not None:
            raise ProtocolError(f"engine {self.name!r} played an illegal move {answer[1]}: {reason}")
        return move

    def close(self) -> None:
        """Ask the engine to quit and wait for it (also on garbage collection)."""
        if self._process is not None and self._process.poll() is None:
            try:
                self._send("quit")
                self._process.wait(timeout=5)
            except (ProtocolError, subprocess.TimeoutExpired):
                self._process.kill()

    def __del__(self) -> None:
        self.close()
