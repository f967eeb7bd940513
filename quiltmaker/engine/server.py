"""The engine side of the protocol (``quiltmaker engine``): commands in, answers out, searches in a thread.

The protocol itself is described in :mod:`quiltmaker.engine.protocol` and docs/engine-protocol.md.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from .. import __version__
from ..ai.calibration import calibrated
from ..ai.players import Limit
from ..core.errors import QuiltmakerError
from ..core.moves import Move
from ..core.position import Position
from ..core.seeds import check_seed
from .protocol import PROTOCOL_VERSION, ProtocolError, _pairs, parse_position

if TYPE_CHECKING:
    from ..ai.mcts import MCTSPlayer, SearchTree


MAX_ITERATIONS = 1 << 40
"""As 'go infinite' searches: more would never end anyway."""
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest ``go time`` accepted: a week."""
QUERIES = ("tomove", "legal", "position", "score")
"""What ``query`` answers: who is to move, the legal moves, the position, the scores."""
# The search tree's memory in megabytes (UCI's Hash): 'go infinite' grows a tree without end otherwise.
HASH_DEFAULT, HASH_MIN, HASH_MAX = 1024, 1, 1 << 16  # 1 GB holds the deepest level's 5 s search (max)


class Engine:
    """The engine side of the protocol, reading commands and writing answers."""

    def __init__(self, output: IO[str], seed: int = 0) -> None:
        self.output = output
        """Where the answers are written (standard output when run as ``quiltmaker engine``)."""
        self.seed = check_seed(seed, "the engine's seed")
        """The search's seed, given when the engine starts."""
        self.level = "expert"
        """The level that plays, from ``setoption name Level value ...`` (expert by default)."""
        self.hash_mb = HASH_DEFAULT
        """The search tree's memory in megabytes, from ``setoption name Hash value ...``."""
        self.position: Position | None = None
        """The position set by ``position``, or None before one."""
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
                self.send(f"option name Hash type spin default {HASH_DEFAULT} min {HASH_MIN} max {HASH_MAX}")
                from ..ai.mcts import warm_up

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
            elif command == "query":
                self._query(arguments)
            else:
                raise ProtocolError(f"unknown command {command!r}")
        except QuiltmakerError as error:
            self.send(f"error {error}")
        return True

    def _query(self, words: Sequence[str]) -> None:
        """What a bot author would otherwise re-derive from the rules: the core answers."""
        if len(words) != 1 or words[0] not in QUERIES:
            raise ProtocolError(f"usage: query {'|'.join(QUERIES)}")
        if self.position is None:
            raise ProtocolError("no position: send 'position ...' first")
        position = self.position
        if words[0] == "tomove":
            self.send(f"tomove {'none' if position.to_move is None else position.to_move}")
        elif words[0] == "legal":
            self.send(" ".join(["legal", *(move.text() for move in position.legal_moves())]))
        elif words[0] == "position":
            self.send(f"position {position.text()}")
        else:
            scores = position.scores  # as things stand; final once the game is over
            self.send(f"score {scores[0]} {scores[1]}" + (f" winner {position.winner}" if position.is_over else ""))

    def _set_option(self, words: Sequence[str]) -> None:
        if len(words) != 4 or words[0] != "name" or words[2] != "value":
            raise ProtocolError("usage: setoption name <name> value <value>")
        name, value = words[1], words[3]
        if name == "Level":
            from ..ai.levels import LEVELS

            if value not in LEVELS:
                raise ProtocolError(f"unknown level {value!r}: expected {', '.join(LEVELS)}")
            self.level = value
            self._player = None
        elif name == "Hash":
            if not value.isdigit() or not HASH_MIN <= int(value) <= HASH_MAX:
                raise ProtocolError(f"Hash is the search tree's megabytes, a whole number from {HASH_MIN} to {HASH_MAX}, not {value!r}")
            self.hash_mb = int(value)
            if self._player is not None:
                self._player.max_tree_nodes = self._tree_nodes()
        else:
            raise ProtocolError(f"unknown option {name!r}: expected Level or Hash")

    def _tree_nodes(self) -> int:
        from ..ai.mcts import TREE_BYTES_PER_NODE

        return self.hash_mb * (1 << 20) // TREE_BYTES_PER_NODE

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
        if (seconds is not None and seconds > MAX_SECONDS) or (iterations is not None and iterations > MAX_ITERATIONS):
            raise ProtocolError(f"limits are at most {MAX_SECONDS:g} seconds and {MAX_ITERATIONS} iterations (or 'go infinite')")
        from ..ai.levels import LEVELS, ai_player_from_spec
        from ..ai.mcts import MCTSPlayer

        if self._player is None:
            built = ai_player_from_spec(LEVELS[self.level].spec, self.seed)
            self._player = built if isinstance(built, MCTSPlayer) else None
            if self._player is None:  # a level without search answers at once
                self.send(f"bestmove {built.choose_move(self.position).text()}")
                return
            self._player.max_tree_nodes = self._tree_nodes()
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
        self._search = threading.Thread(target=self._run_search, args=(player, position, limit, infinite), daemon=True)
        self._search.start()

    def _run_search(self, player: MCTSPlayer, position: Position, limit: Limit, infinite: bool = False) -> None:
        last_info = [time.perf_counter()]

        def progress(done: int) -> None:
            if time.perf_counter() - last_info[0] >= 0.5 and player.tree is not None:
                last_info[0] = time.perf_counter()
                self._info(player.tree, position)

        try:
            # 'go iterations N' searches N more, whatever a kept tree holds; a time limit covers the whole answer.
            stats = player.analyse(position, limit, stop=self._stop.is_set, on_progress=progress, reused_visits_count=False)
            if not stats:  # stopped before the search had a move: a few playouts give one
                stats = player.analyse(position, Limit(iterations=16), reused_visits_count=False)
            best = Move.from_action(stats[0].action).text()
            report = player.last_report
            if report is not None and report.solved:
                exact = stats[0]
                self.send(f"info iterations {exact.visits} winprob {exact.win_rate:.4f} margin {exact.margin:.2f} best {best} exact")
            elif player.tree is not None:
                self._info(player.tree, position)
            if infinite:
                self._stop.wait()  # as in UCI: 'go infinite' answers only after 'stop', even when solved at once
        except Exception as error:  # a bug in a search: one error line, and the engine stays usable
            self._player = None  # a fresh search next time, not the tree it failed in
            self._searching.clear()
            self.send(f"error the search failed: {type(error).__name__}: {error}")
            return
        self._searching.clear()
        self.send(f"bestmove {best}")

    def _info(self, tree: SearchTree, position: Position) -> None:
        stats = tree.root_stats()
        if stats:
            best = stats[0]
            visits = tree.root_visits()
            win, margin = calibrated(position, best.win_rate, best.margin, visits)
            self.send(
                f"info iterations {visits} winprob {win:.4f} margin {margin:.2f} "
                f"best {Move.from_action(best.action).text()}"
            )

    def _stop_search(self) -> None:
        self._stop.set()
        if self._player is not None:
            self._player.interrupt()  # the endgame solver does not ask 'stop': it is told
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
