"""The client side of the protocol: :class:`EnginePlayer` plays with the moves of any program that speaks it."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence

from ..ai.players import Player
from ..core.errors import InvalidMoveError
from ..core.moves import Move
from ..core.position import Position
from .protocol import ANSWER_GRACE, DEFAULT_MOVE_TIME, HANDSHAKE_TIMEOUT, ProtocolError


class EnginePlayer(Player):
    """A player that asks an outside engine, speaking this protocol, for its moves.

    Args:
        command: The engine's command line.
        move_time: Seconds per move to ask for.
        name: Name written into records; by default the one the engine gives
            with ``id name`` in its handshake, else its command line.

    Raises:
        OSError: The command cannot be started.
        ProtocolError: The engine broke the protocol in its handshake (no
            ``protocolok`` within a minute, an ``error`` line, or an exit).
            :meth:`choose_move` raises it too, for a malformed or illegal
            ``bestmove``, an ``error`` line, no answer in time or a crash.
    """

    def __init__(self, command: Sequence[str], move_time: float = DEFAULT_MOVE_TIME, name: str | None = None) -> None:
        self.name = name or " ".join(command)
        """The engine's name: the one it gave with ``id name``, else its command line."""
        named = name is not None
        self.move_time = move_time
        """Seconds a move it is asked to think."""
        self._process: subprocess.Popen[str] | None = None
        self._process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        # A reader thread, so that an engine that goes silent times out instead of hanging us.
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_lines, daemon=True).start()
        self._send("protocol")

        def identify(line: str) -> None:
            if not named and line.startswith("id name ") and line[len("id name ") :].strip():
                self.name = line[len("id name ") :].strip()

        try:
            self._read_until("protocolok", HANDSHAKE_TIMEOUT, on_line=identify)
        except ProtocolError:
            self.close()  # an engine that failed its handshake is not left running
            raise

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
                raise ProtocolError(
                    f"engine {self.name!r} sent no '{prefix}' within {timeout:.0f} s "
                    "(does it flush its output after each line? Writing to a pipe, a program buffers its output "
                    "until it flushes: print(..., flush=True) in Python, fflush(stdout) in C)"
                ) from None
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
        """Send the position and ``go time``, and read the engine's ``bestmove``; a malformed or illegal one, or none in time, is a ProtocolError."""
        self._send(f"position text {position.text()}")
        self._send(f"go time {self.move_time}")
        answer = self._read_until("bestmove", 2 * self.move_time + ANSWER_GRACE).split()
        if len(answer) != 2:
            raise ProtocolError(f"engine {self.name!r} answered {' '.join(answer)!r}")
        try:
            move = Move.from_text(answer[1])
        except InvalidMoveError as error:
            # Breaking the protocol, like an illegal move: the caller (a match) forfeits the game.
            raise ProtocolError(f"engine {self.name!r} played a malformed move {answer[1]!r}: {error}") from None
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
