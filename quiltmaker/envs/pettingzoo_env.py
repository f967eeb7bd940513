"""A PettingZoo AEC environment: both players are agents.

Agents are ``"player_0"`` and ``"player_1"`` (the seats of
:class:`~quiltmaker.Position`). ``agent_selection`` follows the time track,
not a fixed order: the player behind moves, so one agent often acts several
times in a row; always read ``env.agent_selection`` (or iterate with
``env.agent_iter()``). Observations are the shared encoding from the
observing agent's side with its legal-action mask::

    from quiltmaker.envs.pettingzoo_env import env as patchwork_env

    game = patchwork_env()
    game.reset(seed=42)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        if termination or truncation:
            action = None
        else:
            action = game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

Needs the ``envs`` extra: ``pip install 'quiltmaker[envs]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("quiltmaker.envs.pettingzoo_env needs PettingZoo: pip install 'quiltmaker[envs]'") from error

from ..core.components import DEFAULT_VARIANT
from ..core.errors import IllegalMoveError
from ..core.game import Game
from ..core.moves import ACTION_COUNT, Move
from ..core.position import Position
from ..core.seeds import check_seed
from .observation import OBSERVATION_HIGH, OBSERVATION_SIZE, action_mask, encode, outcome, render_text

AGENTS = ("player_0", "player_1")
"""The two agents, player_0 moving as seat 0."""
ILLEGAL_ACTION_POLICIES = ("lose", "raise")
"""What an action outside the mask does: "lose" (the mover loses) or "raise" (IllegalMoveError, nothing changes)."""

Observation = dict[str, np.ndarray]
"""An agent's observation: ``observation`` (float32[864]) and ``action_mask`` (int8[7431])."""


class PatchworkAECEnv(AECEnv[str, Observation, "int | None"]):  # type: ignore[misc]  # PettingZoo is untyped
    """Patchwork for two agents, turn by turn along the time track.

    Rewards are 0 until the game ends, then +1 to the winner and -1 to the
    loser (no draws: equal scores go to whoever reached the last space
    first). The final ``infos`` hold each agent's ``scores`` (its own first),
    ``margin``, ``winner`` and ``tie_break``; every info holds ``position``,
    the position's text. The game always ends within 111 moves, so nothing is
    truncated.

    Args:
        variant: The time track's printing, ``"revised"`` or ``"original"``.
        illegal_action: ``"lose"`` (the default) ends the game with -1 for
            the agent that sent an action its mask ruled out and +1 for the
            other, with ``illegal_action`` in the infos; ``"raise"`` raises
            :class:`~quiltmaker.IllegalMoveError`.
        render_mode: ``None`` or ``"ansi"`` (:meth:`render` returns text).

    ``reset(seed=s)`` starts the game ``Position.initial(s)``; without a seed
    it draws one from the environment's generator. ``options`` may hold
    ``"position"``, a :class:`Position` or its text, to start from.
    :meth:`state` is the whole position (all of it is public) encoded from
    ``player_0``'s side, for centralised critics.

    Attributes:
        game: The game so far, as a :class:`~quiltmaker.Game` (for records).
        position: The current position.
    """

    metadata: dict[str, Any] = {"name": "quiltmaker_patchwork_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    """PettingZoo's metadata: the name and render modes."""

    def __init__(self, variant: str = DEFAULT_VARIANT, illegal_action: str = "lose", render_mode: str | None = None) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, not {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, not {render_mode!r}")
        Position.initial(0, variant=variant)  # rejects an unknown variant now rather than at reset
        self.variant = variant
        """The time track's printing."""
        self.illegal_action = illegal_action
        """What an action outside the mask does (ILLEGAL_ACTION_POLICIES)."""
        self.render_mode = render_mode
        """The render mode: "ansi" (render returns the position as text) or None."""
        self.possible_agents = list(AGENTS)
        """Both agents, player_0 first."""
        vector = spaces.Box(np.zeros(OBSERVATION_SIZE, np.float32), OBSERVATION_HIGH.copy(), dtype=np.float32)
        obs_space = spaces.Dict({"observation": vector, "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8)})
        self.state_space = vector
        """The space of :meth:`state`: the whole position, encoded from player_0's side."""
        # The same space objects every call, as PettingZoo requires (their seeding lives in them).
        self.observation_spaces = {agent: obs_space for agent in AGENTS}
        """Each agent's observation space."""
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in AGENTS}
        """Each agent's action space: Discrete(7431)."""
        self._rng = np.random.default_rng()
        self.position = Position.initial(0, variant=variant)
        """The game's position now (a Position)."""
        self.game = Game(self.position, AGENTS)
        """The whole game so far (a Game), for records and replays."""
        self._finished = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space (the same object at every call, as PettingZoo requires)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space: Discrete(7431)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (``seed`` fixes the setup; ``options`` may give a ``position`` to start from, a Position or its text)."""
        if seed is not None:
            seed = check_seed(seed)  # before anything changes
            self._rng = np.random.default_rng(seed)
        options = options or {}
        start = options.get("position")
        if start is None:
            game_seed = seed if seed is not None else int(self._rng.integers(2**63))
            self.position = Position.initial(game_seed, variant=self.variant)
        else:
            self.position = start if isinstance(start, Position) else Position.from_text(start)
        self.game = Game(self.position, AGENTS)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self._finished = False
        self._skip_agent_selection = None
        self._set_infos()
        if self.position.is_over:
            self._finish(None)
        else:
            self.agent_selection = AGENTS[self._to_move()]

    def observe(self, agent: str) -> Observation:
        """What ``agent`` sees: the position from its side and its action mask (all zero when it is not to act)."""
        seat = AGENTS.index(agent)
        acting = not self._finished and self.position.to_move == seat
        mask = action_mask(self.position) if acting else np.zeros(ACTION_COUNT, np.int8)
        return {"observation": encode(self.position, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for centralised training: the whole position, encoded from ``player_0``'s side."""
        return encode(self.position, 0)

    def step(self, action: int | None) -> None:
        """Play the selected agent's action (None once that agent is done, as PettingZoo's AEC loop passes it)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = AGENTS.index(agent)
        if action is None:
            raise ValueError(f"{agent} is still playing: None is only for agents whose game has ended")
        index = int(action)
        move = Move.from_action(index) if 0 <= index < ACTION_COUNT else None
        reason = "not an action index" if move is None else self.position.why_illegal(move)
        if reason is not None and self.illegal_action == "raise":
            raise IllegalMoveError(f"{agent}: action {index} is illegal: {reason}")
        # last() handed this agent its accumulated reward; start afresh.
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if reason is not None:
            self._set_infos()
            for info in self.infos.values():
                info.update(illegal_action=index, reason=reason, winner=1 - seat)
            self._finish(loser=seat)
        else:
            assert move is not None
            self.game.play(move)
            self.position = self.game.position
            self._set_infos()
            if self.position.is_over:
                self._finish(None)
            else:
                self.agent_selection = AGENTS[self._to_move()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The position as text (render mode "ansi"), or None without a render mode."""
        if self.render_mode != "ansi":
            return None
        return render_text(self.position)

    def close(self) -> None:
        """Nothing to release; defined because :meth:`render` is (PettingZoo asks for both)."""

    # Helpers -------------------------------------------------------------------

    def _to_move(self) -> int:
        mover = self.position.to_move
        assert mover is not None
        return mover

    def _set_infos(self) -> None:
        text = self.position.text()
        self.infos: dict[str, dict[str, Any]] = {agent: {"position": text} for agent in AGENTS}

    def _finish(self, loser: int | None) -> None:
        """End the game: the rules decide, or ``loser`` forfeits by an illegal action."""
        self._finished = True
        for seat, agent in enumerate(AGENTS):
            if loser is None:
                result = outcome(self.position, seat)
                reward = result.pop("reward")
                self.infos[agent].update(result)
            else:
                reward = -1.0 if seat == loser else 1.0
            self.rewards[agent] = reward
            self.terminations[agent] = True
        # Dead agents then step with None, in seat order, to leave the game.
        self.agent_selection = AGENTS[0]


def raw_env(**kwargs: Any) -> PatchworkAECEnv:
    """The bare environment; keyword arguments go to :class:`PatchworkAECEnv`."""
    return PatchworkAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[str, Observation, int | None]:
    """The environment as PettingZoo's own games come: wrapped to enforce the call order."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
