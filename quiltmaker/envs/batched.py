"""N games of Patchwork in one compiled call: the batched environment, as plain NumPy arrays.

The array API follows pgx: a batch holds, for every game, the
``observation`` of the player to act, its ``legal_action_mask``, the
``current_player``, this step's ``rewards`` for both seats, and whether the
game ``terminated`` in this step; :meth:`PatchworkBatch.step` takes one
action per game and updates them all in place. Observations and action
indices are exactly those of the single-game adapters
(:mod:`quiltmaker.envs.observation`, :mod:`quiltmaker.core.moves`).

>>> batch = PatchworkBatch(4, seed=7)
>>> batch.observation.shape, batch.legal_action_mask.shape, batch.legal_action_mask.dtype
((4, 864), (4, 7431), dtype('bool'))
>>> batch.position(0) == Position.initial(7)
True
>>> _ = batch.step(batch.random_actions())
>>> batch.rewards.shape, batch.terminated.shape
((4, 2), (4,))

Two views:

* **two players** (``opponent=None``, the default): the caller plays both
  seats; ``current_player`` says whose move each game waits for;
* **one agent** (``opponent="random"``, ``"greedy"`` or any player
  specification, e.g. ``"mcts:iterations=200"`` or a level): the agent
  takes ``seat`` (or a seat drawn each game) and the opponent's moves are
  played inside :meth:`~PatchworkBatch.step`, however many in a row the time
  track gives it. ``random`` and ``greedy`` run inside the compiled call;
  other specifications choose in Python between compiled calls, one player
  per game.

NumPy and numba only: no environment library is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..compiled import rules as K
from ..core.components import DEFAULT_VARIANT, TIME_TRACKS
from ..core.errors import IllegalMoveError
from ..core.moves import ACTION_COUNT
from ..core.position import Position
from ..core.seeds import check_seed
from . import batch_kernel as B
from .observation import OBSERVATION_SIZE

KERNEL_OPPONENTS = {"random": B.RANDOM_OPPONENT, "greedy": B.GREEDY_OPPONENT}
"""Opponents played inside the compiled call; any other specification is played from Python."""
ILLEGAL_ACTION_POLICIES = ("lose", "raise")
"""What an action outside the mask does: "lose" (that game is lost) or "raise" (IllegalMoveError, nothing changes)."""

BATCHED_ENVIRONMENT = "the batched environment"
"""What the compiling notice calls the batch's compiled code."""


class PatchworkBatch:
    """Patchwork for ``num_games`` games at once, stepped by one compiled call.

    Args:
        num_games: N, the number of games.
        opponent: ``None`` for the two-player view, else the opponent of
            the one-agent view: ``"random"``, ``"greedy"`` or any player
            specification (``quiltmaker play --help`` lists them).
        seat: The agent's seat in the one-agent view, 0 or 1; ``None``
            draws it for each game.
        variant: The time track's printing, ``"revised"`` or ``"original"``.
        autoreset: Start a new game in a row as soon as its game ends, in
            the same step (pgx's ``auto_reset``): that step's ``rewards``,
            ``terminated`` and the ``final_*`` arrays describe the game that
            ended, the observation and mask already the new one.
            Without it a finished game stays as it ended, ignores its
            actions, and restarts only through :meth:`reset`.
        illegal_action: ``"lose"``: an action outside the mask loses that
            game at once (reward -1 for the mover, +1 for the other, and
            ``illegal`` records the action), as in the single-game
            adapters; ``"raise"``: :class:`~quiltmaker.IllegalMoveError`,
            and no game changes.
        seed: As for :meth:`reset`, which the constructor calls.

    Its arrays (the properties below) have one row a game and are
    overwritten in place by every step: copy what you keep. The ``final_*``
    arrays describe, for a row whose game ended in the last step, the game
    that ended (with autoreset the others already show the next one).
    :meth:`replies` gives the opponent's moves since the agent's last.
    """

    def __init__(
        self,
        num_games: int,
        *,
        opponent: str | None = None,
        seat: int | None = None,
        variant: str = DEFAULT_VARIANT,
        autoreset: bool = True,
        illegal_action: str = "lose",
        seed: int | Sequence[int] | None = None,
    ) -> None:
        if type(num_games) is not int or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, not {num_games!r}")
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, not {illegal_action!r}")
        if variant not in TIME_TRACKS:
            raise ValueError(f"variant must be one of {sorted(TIME_TRACKS)}, not {variant!r}")
        if opponent is None:
            kind = B.NO_OPPONENT
        else:
            kind = KERNEL_OPPONENTS.get(opponent.strip(), B.OUTSIDE_OPPONENT)
            if kind == B.OUTSIDE_OPPONENT:
                _build_player(opponent, 0).close()  # an unknown specification fails now, not at the first move
        self.num_games = num_games
        """N, the number of games."""
        self.opponent = opponent
        """The opponent's specification in the one-agent view, else None."""
        self.variant = variant
        """The time track's printing of every game."""
        self._params = B.BatchParams(
            opponent=kind,
            fixed_seat=B.NO_PLAYER if seat is None else seat,
            autoreset=autoreset,
            illegal=B.LOSE if illegal_action == "lose" else B.REFUSE,
            specials=TIME_TRACKS[variant].special_mask,
        )
        from ..compiled import announce_compiling

        announce_compiling(BATCHED_ENVIRONMENT, (B.advance_games,), "15 seconds (or run 'quiltmaker compile' once)")
        n = num_games
        self._arrays = B.BatchArrays(
            states=np.zeros((n, K.STATE_SIZE), np.int64),
            rings=np.zeros((n, K.RING_WORDS), np.int64),
            rng=np.zeros(n, np.uint64),
            game_seed=np.zeros(n, np.uint64),
            seat=np.full(n, B.NO_PLAYER, np.int64),
            observation=np.zeros((n, OBSERVATION_SIZE), np.float32),
            legal_action_mask=np.zeros((n, ACTION_COUNT), np.bool_),
            legal=np.zeros((n, K.MAX_MOVES), np.int16),
            legal_count=np.zeros(n, np.int64),
            current_player=np.full(n, B.NO_PLAYER, np.int64),
            rewards=np.zeros((n, 2), np.float32),
            terminated=np.zeros(n, np.bool_),
            moves=np.zeros(n, np.int64),
            waiting=np.zeros(n, np.bool_),
            final_observation=np.zeros((n, OBSERVATION_SIZE), np.float32),
            final_scores=np.zeros((n, 2), np.int64),
            final_winner=np.full(n, B.NO_PLAYER, np.int64),
            final_moves=np.zeros(n, np.int64),
            final_seat=np.full(n, B.NO_PLAYER, np.int64),
            final_illegal=np.zeros(n, np.bool_),
            illegal=np.full(n, -1, np.int64),
            replies=np.zeros((n, B.MAX_REPLIES), np.int16),
            reply_count=np.zeros(n, np.int64),
        )
        self.truncated = np.zeros(n, np.bool_)
        """``bool[N]``: always False, every game of Patchwork ends."""
        self._all_rows = np.arange(n, dtype=np.int64)
        self._players: list[Any] = []
        self._sampler = np.zeros(1, np.uint64)
        self.reset(seed)  # compiles the kernel that steps too, while the notice above is on screen

    # The arrays, by their pgx names ---------------------------------------------------------

    @property
    def observation(self) -> npt.NDArray[np.float32]:
        """``float32[N, 864]``: the position seen by the player to act (the agent, in the one-agent view)."""
        return self._arrays.observation

    @property
    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        """``bool[N, 7431]``: that player's legal actions (all False for a finished game)."""
        return self._arrays.legal_action_mask

    @property
    def current_player(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: the seat to act, -1 when the game is over."""
        return self._arrays.current_player

    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """``float32[N, 2]``: this step's reward of each seat: 0, or +1/-1 when the game ended."""
        return self._arrays.rewards

    @property
    def terminated(self) -> npt.NDArray[np.bool_]:
        """``bool[N]``: the game ended in this step."""
        return self._arrays.terminated

    @property
    def seat(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: the agent's seat (one-agent view), else -1."""
        return self._arrays.seat

    @property
    def game_seed(self) -> npt.NDArray[np.uint64]:
        """``uint64[N]``: the game in play is ``Position.initial(seed)``."""
        return self._arrays.game_seed

    @property
    def final_observation(self) -> npt.NDArray[np.float32]:
        """``float32[N, 864]``: the ended game's last observation (the agent's view, or the last mover's)."""
        return self._arrays.final_observation

    @property
    def final_scores(self) -> npt.NDArray[np.int64]:
        """``int64[N, 2]``: the ended game's scores, seat 0's first."""
        return self._arrays.final_scores

    @property
    def final_winner(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: the ended game's winner."""
        return self._arrays.final_winner

    @property
    def final_moves(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: how many moves the ended game took."""
        return self._arrays.final_moves

    @property
    def final_seat(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: the agent's seat in the ended game."""
        return self._arrays.final_seat

    @property
    def final_illegal(self) -> npt.NDArray[np.bool_]:
        """``bool[N]``: the ended game ended on an illegal action."""
        return self._arrays.final_illegal

    @property
    def illegal(self) -> npt.NDArray[np.int64]:
        """``int64[N]``: that illegal action; -1 where ``final_illegal`` is False (but -1 can be the illegal action too: read ``final_illegal``)."""
        return self._arrays.illegal

    def replies(self, game: int) -> list[int]:
        """The opponent's actions in game ``game`` since the agent last acted (the one-agent view)."""
        return [int(a) for a in self._arrays.replies[game, : self._arrays.reply_count[game]]]

    @property
    def agent_rewards(self) -> npt.NDArray[np.float32]:
        """``float32[N]``: this step's reward of the agent's seat (the one-agent view).

        For a game that ended this step, the seat it played (``final_seat``):
        with autoreset the next game may seat the agent on the other side.
        """
        if self._params.opponent == B.NO_OPPONENT:
            raise ValueError("the two-player view has no agent: read rewards[:, seat]")
        arrays = self._arrays
        seats = np.where(arrays.terminated, arrays.final_seat, arrays.seat)
        rewards: npt.NDArray[np.float32] = arrays.rewards[self._all_rows, seats]
        return rewards

    # Playing -----------------------------------------------------------------------------------

    def reset(self, seed: int | Sequence[int] | None = None, rows: npt.ArrayLike | None = None) -> PatchworkBatch:
        """Start new games; returns the batch.

        ``seed=s`` starts game ``i`` as ``Position.initial(s + i)``, as
        Gymnasium's vector environments seed their copies, and seeds each
        row's generator (seats, opponents, the games after it) from ``s``;
        a sequence gives each game its own seed; ``None`` draws fresh
        entropy. ``rows`` (game numbers, or N booleans) restarts only those
        games: with ``seed``, the i-th of them gets ``s + i`` (or the
        sequence's i-th); without, each takes its next game from its own
        generator, as an automatic reset does, so a seeded batch stays
        reproducible.
        """
        targets = self._all_rows if rows is None else _rows(rows, self.num_games)
        seeds = None if seed is None else _game_seeds(seed, len(targets))
        if seeds is not None or rows is None:
            entropy = np.random.SeedSequence(None if seeds is None else [int(s) for s in seeds])
            self._arrays.rng[targets] = entropy.generate_state(len(targets), np.uint64)
        if rows is None:
            for_players, for_sampler = entropy.spawn(2)
            self._sampler[:] = for_sampler.generate_state(1, np.uint64)
            self._start_players(for_players)
        waiting = B.reset_games(
            self._arrays, self._params, targets, np.zeros(len(targets), np.uint64) if seeds is None else seeds, seeds is not None
        )
        self._play_outside(waiting)
        return self

    def step(self, actions: npt.ArrayLike, rows: npt.ArrayLike | None = None) -> PatchworkBatch:
        """Play ``actions[i]`` (an action index) in game ``i``; returns the batch, its arrays updated.

        With ``rows`` (game numbers, or N booleans), only those games move,
        ``actions`` holding one action for each of them; the other rows are
        left exactly as they were.

        Raises:
            ValueError: ``actions`` is not one integer for each game.
            IllegalMoveError: with ``illegal_action="raise"``, an action outside
                its game's mask; no game has changed.
        """
        targets = self._all_rows if rows is None else _rows(rows, self.num_games)
        chosen = _actions(actions, len(targets))
        if self._params.illegal == B.REFUSE:
            at = B.first_illegal(self._arrays, self._params, targets, chosen)
            if at >= 0:
                raise IllegalMoveError(f"game {int(targets[at])}: action {int(chosen[at])} is not legal there (see legal_action_mask)")
        waiting = B.step_games(self._arrays, self._params, targets, chosen)
        self._play_outside(waiting)
        return self

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for each game (0 for a finished one), from the batch's own generator."""
        out = np.zeros(self.num_games, np.int64)
        B.random_actions(self._arrays, self._sampler, out)
        return out

    def position(self, game: int) -> Position:
        """Game ``game``'s current position, as a :class:`~quiltmaker.Position`."""
        row = int(game)
        if not 0 <= row < self.num_games:
            raise IndexError(f"game must be in 0..{self.num_games - 1}, not {game!r}")
        return K.to_position(tuple(self._arrays.states[row]), tuple(self._arrays.rings[row]), self.variant)

    def close(self) -> None:
        """Close the outside opponents (an engine opponent is a process)."""
        for player in self._players:
            player.close()
        self._players = []

    # Outside opponents ---------------------------------------------------------------------------

    def _start_players(self, entropy: np.random.SeedSequence) -> None:
        if self._params.opponent != B.OUTSIDE_OPPONENT:
            return
        assert self.opponent is not None
        self.close()
        seeds = entropy.generate_state(self.num_games, np.uint64)
        self._players = [_build_player(self.opponent, int(s)) for s in seeds]

    def _play_outside(self, waiting: int) -> None:
        """Let the outside opponents choose until every game waits for the agent (or is over)."""
        while waiting:
            rows = np.flatnonzero(self._arrays.waiting)
            actions = np.array([self._players[row].choose_move(self.position(int(row))).action for row in rows], np.int64)
            waiting = B.step_games(self._arrays, self._params, rows.astype(np.int64), actions)


def _build_player(spec: str, seed: int) -> Any:
    # Imported here: the levels pull in the compiled search, which only such an opponent needs.
    from ..specs import player_from_spec

    return player_from_spec(spec, seed=seed)


def _rows(rows: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    chosen = np.asarray(rows)
    if chosen.dtype == np.bool_ and chosen.shape == (count,):
        return np.flatnonzero(chosen).astype(np.int64)
    if chosen.ndim != 1 or not np.issubdtype(chosen.dtype, np.integer) or not np.all((chosen >= 0) & (chosen < count)):
        raise ValueError(f"rows must be game numbers in 0..{count - 1} or a mask of {count} booleans")
    return chosen.astype(np.int64)


def _game_seeds(seed: int | Sequence[int], count: int) -> npt.NDArray[np.uint64]:
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        first = check_seed(seed)
        values = [check_seed(first + i, f"game {i}'s seed (seed + {i})") for i in range(count)]
    elif isinstance(seed, Sequence) or isinstance(seed, np.ndarray):
        if len(seed) != count:
            raise ValueError(f"a sequence of seeds needs one for each of the {count} games, not {len(seed)}")
        values = [check_seed(s, f"game {i}'s seed") for i, s in enumerate(seed)]
    else:
        raise ValueError(f"seed must be an integer, a sequence of integers or None, not {seed!r}")
    return np.array(values, np.uint64)


def _actions(actions: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    chosen = np.asarray(actions)
    if chosen.shape != (count,) or not (np.issubdtype(chosen.dtype, np.integer) and chosen.dtype != np.bool_):
        raise ValueError(f"actions must be {count} integer action indices, not an array of shape {chosen.shape} and dtype {chosen.dtype}")
    return chosen.astype(np.int64, copy=False)


__all__ = ["PatchworkBatch", "KERNEL_OPPONENTS"]
