"""A Gymnasium environment: one agent against a quiltmaker opponent.

The agent takes one seat; the opponent, a level (``"beginner"`` ..
``"max"``), any player specification or a :class:`~quiltmaker.ai.players.Player`,
takes the other. Patchwork's turns follow the time track, so after the agent's
action the opponent may move several times, or not at all, before the agent
acts again; :meth:`PatchworkEnv.step` plays those moves itself and returns
when the agent is next to act or the game is over.

Importing this module registers ``quiltmaker/Patchwork-v0`` with Gymnasium::

    import gymnasium as gym
    import quiltmaker.envs.gymnasium_env  # noqa: F401  (registers the id)

    env = gym.make("quiltmaker/Patchwork-v0", opponent="casual")

Needs the ``envs`` extra: ``pip install 'quiltmaker[envs]'``.
"""

from __future__ import annotations

from typing import Any, SupportsInt

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("quiltmaker.envs.gymnasium_env needs Gymnasium: pip install 'quiltmaker[envs]'") from error

from ..core.components import DEFAULT_VARIANT
from ..core.errors import IllegalMoveError
from ..core.game import Game
from ..core.moves import ACTION_COUNT, Move
from ..ai.players import Player
from ..core.position import Position
from ..core.seeds import check_seed
from .observation import OBSERVATION_HIGH, OBSERVATION_SIZE, action_mask, encode, outcome, render_text

ENV_ID = "quiltmaker/Patchwork-v0"
"""The id registered with Gymnasium."""

ILLEGAL_ACTION_POLICIES = ("lose", "raise")
"""What an action outside the mask does: "lose" (the agent loses the game) or "raise" (IllegalMoveError, nothing changes)."""

Observation = dict[str, Any]
"""``{"observation": float32 array, "action_mask": int8 array}``."""


def observation_space() -> spaces.Dict:
    """The observation space: the encoded position and the legal-action mask (see ``docs/environments.md``)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(np.zeros(OBSERVATION_SIZE, np.float32), OBSERVATION_HIGH.copy(), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8),
        }
    )


class PatchworkEnv(gym.Env[Observation, np.int64]):
    """Patchwork for one agent against a chosen opponent, with action masks.

    Observations are ``{"observation": float32[864], "action_mask": int8[7431]}``
    from the agent's side; actions are the fixed action indices of
    :mod:`quiltmaker.core.moves` (``Discrete(7431)``). The reward is 0 until the
    game ends, then +1 for a win and -1 for a loss. The final ``info`` holds
    ``scores`` (agent's first), ``margin``, ``winner`` and ``tie_break``;
    every ``info`` holds ``position`` (its text), ``seat`` and
    ``opponent_actions``, the opponent's actions since the agent last acted.

    An illegal action (one the mask rules out) loses the game at once with a
    reward of -1 and ``info["illegal_action"]``, by default: generic agents
    and Gymnasium's own checker sample the whole ``Discrete`` space, and a
    forfeit is a signal they can learn from. ``illegal_action="raise"``
    raises :class:`~quiltmaker.IllegalMoveError` instead, for code that
    should never send one.

    Args:
        opponent: A level or player specification (built afresh, seeded from
            the environment, at each reset) or a ready :class:`Player`.
        seat: The agent's seat, 0 or 1; ``None`` draws it at each reset.
        variant: The time track's printing, ``"revised"`` or ``"original"``.
        illegal_action: ``"lose"`` or ``"raise"``, as above.
        render_mode: ``None`` or ``"ansi"`` (:meth:`render` returns text).

    ``reset(seed=s)`` starts the game ``Position.initial(s)`` (circle and
    first player); ``reset()`` without a seed draws one from the
    environment's generator. ``options`` may hold ``"seat"`` (0 or 1) for that
    game and ``"position"``, a :class:`Position` or its text, to start from.

    Attributes:
        game: The game so far, as a :class:`~quiltmaker.Game` (for records:
            ``quiltmaker.record.to_json(env.game)``).
        position: The current position.
        agent_seat: The agent's seat in this game.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}
    """Gymnasium's metadata: the render modes ("ansi": the position as text)."""

    def __init__(
        self,
        opponent: str | Player = "beginner",
        seat: int | None = None,
        variant: str = DEFAULT_VARIANT,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, not {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, not {render_mode!r}")
        Position.initial(0, variant=variant)  # rejects an unknown variant now rather than at reset
        if isinstance(opponent, str) and not opponent.strip().startswith("engine:"):
            _build_opponent(opponent, 0).close()  # likewise an unknown specification (an engine would start a process)
        self.opponent_spec = opponent
        """The opponent: its player specification, or a Player object."""
        self.seat = seat
        """The agent's seat asked for: 0, 1, or None to draw it at each reset."""
        self.variant = variant
        """The time track's printing."""
        self.illegal_action = illegal_action
        """What an action outside the mask does (ILLEGAL_ACTION_POLICIES)."""
        self.render_mode = render_mode
        """Gymnasium's render mode: "ansi" (render returns the position as text) or None."""
        self.observation_space = observation_space()
        """A Dict of the observation and the action mask."""
        self.action_space = spaces.Discrete(ACTION_COUNT)
        """Discrete(7431): the fixed action index of quiltmaker.core.moves."""
        self.position: Position | None = None
        """The game's position now (a Position)."""
        self.game: Game | None = None
        """The whole game so far (a Game), for records and replays."""
        self.agent_seat = 0 if seat is None else seat
        """The agent's seat in the game in play."""
        self._opponent: Player | None = None
        self._finished = False

    # Gymnasium API ---------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Start a new game; returns the first observation and its info.

        ``seed`` fixes the setup, the seat and the opponent's play; ``options``
        may give a ``position`` to start from (a Position or its text) and a
        ``seat`` for this game.
        """
        if seed is not None:
            seed = check_seed(seed)  # before Gymnasium's own seeding, so a bad seed changes nothing
        super().reset(seed=seed)
        options = options or {}
        game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
        start = options.get("position")
        if start is None:
            self.position = Position.initial(game_seed, variant=self.variant)
        else:
            self.position = start if isinstance(start, Position) else Position.from_text(start)
        # Always draw, so a fixed seat does not change what follows from the generator.
        drawn_seat = int(self.np_random.integers(2))
        seat = options.get("seat", self.seat)
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None, not {seat!r}")
        self.agent_seat = drawn_seat if seat is None else seat
        opponent_seed = int(self.np_random.integers(2**63))
        if isinstance(self.opponent_spec, str):
            if self._opponent is not None:
                self._opponent.close()
            self._opponent = _build_opponent(self.opponent_spec, opponent_seed)
        else:
            self._opponent = self.opponent_spec
        names = ["agent", getattr(self._opponent, "name", "opponent")]
        self.game = Game(self.position, names if self.agent_seat == 0 else names[::-1])
        self._finished = False
        replies = self._play_opponent()
        info = self._info(replies)
        if self.position.is_over:
            # Only a given position can already be over, or end before the agent acts.
            self._finished = True
            result = outcome(self.position, self.agent_seat)
            del result["reward"]
            info.update(result)
        return self._observation(), info

    def step(self, action: SupportsInt) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponent's replies until the agent is to act or the game is over; returns Gymnasium's five values."""
        if self.position is None:
            raise RuntimeError("call reset() before step()")
        if self._finished:
            raise RuntimeError("the game is over: call reset() to start another")
        index = int(action)
        move = Move.from_action(index) if 0 <= index < ACTION_COUNT else None
        reason = "not an action index" if move is None else self.position.why_illegal(move)
        if reason is not None:
            if self.illegal_action == "raise":
                raise IllegalMoveError(f"action {index} is illegal: {reason}")
            self._finished = True
            info = self._info([])
            info.update(illegal_action=index, reason=reason, winner=1 - self.agent_seat)
            return self._observation(), -1.0, True, False, info
        assert move is not None and self.game is not None
        self.game.play(move)
        self.position = self.game.position
        replies = self._play_opponent()
        info = self._info(replies)
        reward = 0.0
        if self.position.is_over:
            self._finished = True
            result = outcome(self.position, self.agent_seat)
            reward = result.pop("reward")
            info.update(result)
        return self._observation(), reward, self._finished, False, info

    def render(self) -> str | None:
        """The position as text (render mode "ansi"), or None without a render mode."""
        if self.render_mode != "ansi" or self.position is None:
            return None
        return render_text(self.position)

    def close(self) -> None:
        """Stop the opponent's outside engine, if it is one."""
        if isinstance(self.opponent_spec, str) and self._opponent is not None:
            self._opponent.close()
        self._opponent = None

    # Helpers -----------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (the method name sb3-contrib's maskable algorithms call)."""
        if self.position is None or self._finished:
            return np.zeros(ACTION_COUNT, bool)
        return action_mask(self.position).astype(bool)

    def _play_opponent(self) -> list[int]:
        assert self.position is not None and self._opponent is not None and self.game is not None
        actions = []
        while (mover := self.position.to_move) is not None and mover != self.agent_seat:
            move = self._opponent.choose_move(self.position)
            actions.append(move.action)
            self.game.play(move)  # checked: the opponent may be an outside engine
            self.position = self.game.position
        return actions

    def _observation(self) -> Observation:
        assert self.position is not None
        mask = np.zeros(ACTION_COUNT, np.int8) if self._finished else action_mask(self.position)
        return {"observation": encode(self.position, self.agent_seat), "action_mask": mask}

    def _info(self, opponent_actions: list[int]) -> dict[str, Any]:
        assert self.position is not None
        return {"position": self.position.text(), "seat": self.agent_seat, "opponent_actions": opponent_actions}


def _build_opponent(spec: str, seed: int) -> Player:
    # Imported here: the levels pull in the compiled search, which only an opponent needs.
    from ..specs import player_from_spec

    return player_from_spec(spec, seed=seed)


if ENV_ID not in gym.registry:
    # gym.make_vec builds the batched vector environment (quiltmaker.envs.vector_env) rather than N copies.
    gym.register(id=ENV_ID, entry_point=f"{__name__}:PatchworkEnv", vector_entry_point="quiltmaker.envs.vector_env:PatchworkVectorEnv")
