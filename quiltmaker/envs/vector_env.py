"""A Gymnasium ``VectorEnv`` of N games of Patchwork, stepped by the batched environment's one compiled call.

Each copy is :class:`~quiltmaker.envs.gymnasium_env.PatchworkEnv`: one agent
against an opponent, the same observation space, action indices, rewards
and seeding (copy ``i`` of ``reset(seed=s)`` plays ``Position.initial(s + i)``,
as Gymnasium's ``SyncVectorEnv`` would seed ``PatchworkEnv`` copies), but the
copies are rows of a :class:`~quiltmaker.envs.batched.PatchworkBatch`
rather than N Python environments. It is the vector entry point of
``quiltmaker/Patchwork-v0``::

    import gymnasium as gym
    import quiltmaker.envs.gymnasium_env  # noqa: F401  (registers the id)

    envs = gym.make_vec("quiltmaker/Patchwork-v0", num_envs=1024, opponent="greedy")

Autoreset follows Gymnasium's default, ``NEXT_STEP``: the step after a game
ends ignores that copy's action and returns its next game's first
observation (reward 0). ``autoreset_mode=AutoresetMode.SAME_STEP`` restarts
it in the same step and puts the last observation in ``infos["final_obs"]``.

Info holds ``seat`` (the agent's seat in each copy) on every step and, for
copies whose game ended, ``winner``, ``scores`` (the agent's first) and
``margin``, and for those whose game ended on an illegal action
``illegal_action`` (any integer, -1 too), each with its ``_key`` mask
(under ``final_info`` in ``SAME_STEP`` mode). Unlike ``PatchworkEnv`` there is
no position text or ``opponent_actions`` per step: building strings for
1,024 games a step would cost more than the step; ``env.batch.position(i)``
and ``env.batch.replies(i)`` give them on demand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("quiltmaker.envs.vector_env needs Gymnasium: pip install 'quiltmaker[envs]'") from error

from ..core.components import DEFAULT_VARIANT
from ..core.moves import ACTION_COUNT
from ..core.seeds import check_seed
from .batched import PatchworkBatch
from .gymnasium_env import observation_space

Observations = dict[str, np.ndarray]
"""A batch of observations: ``observation`` (float32[N, 864]) and ``action_mask`` (int8[N, 7431])."""


class PatchworkVectorEnv(gym.vector.VectorEnv[Observations, np.ndarray, np.ndarray]):
    """``num_envs`` copies of ``PatchworkEnv`` in one batch.

    Args:
        num_envs: The number of copies.
        opponent: ``"random"``, ``"greedy"`` (both played inside the
            compiled call) or any player specification (played from Python,
            one player a copy); the default, as for ``PatchworkEnv``, is
            ``"beginner"``.
        seat: As for ``PatchworkEnv``.
        variant: As for ``PatchworkEnv``.
        illegal_action: As for ``PatchworkEnv`` (``"lose"`` or ``"raise"``).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (the default) or ``SAME_STEP``.
        copy: Return copies of the observation arrays (the default, as
            ``SyncVectorEnv`` does); ``False`` returns the batch's own
            arrays, overwritten by the next step, and saves a copy a step.

    Attributes:
        batch: The :class:`PatchworkBatch` underneath.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    """Gymnasium's metadata: the autoreset mode (next-step by default, as Gymnasium's own vector environments; same-step on request)."""

    def __init__(
        self,
        num_envs: int,
        opponent: str = "beginner",
        seat: int | None = None,
        variant: str = DEFAULT_VARIANT,
        illegal_action: str = "lose",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
    ) -> None:
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode must be NEXT_STEP or SAME_STEP: a game that ended restarts by itself")
        self.batch = PatchworkBatch(
            num_envs,
            opponent=opponent,
            seat=seat,
            variant=variant,
            autoreset=mode == AutoresetMode.SAME_STEP,
            illegal_action=illegal_action,
        )
        """The batched games it steps (PatchworkBatch), for reading what the wrapper does not return."""
        self.num_envs = num_envs
        """N, the number of games."""
        self.autoreset_mode = mode
        """NEXT_STEP (a game that ended restarts at the next step) or SAME_STEP (in the step that ended it, as pgx)."""
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.copy = copy
        """Whether step and reset return copies of the arrays (else views the next step overwrites)."""
        self.single_observation_space = observation_space()
        """One game's observation space."""
        self.single_action_space = spaces.Discrete(ACTION_COUNT)
        """One game's action space: Discrete(7431)."""
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        """The batch's observation space."""
        self.action_space = batch_space(self.single_action_space, num_envs)
        """The batch's action space: MultiDiscrete of N times 7431."""
        self._restart = np.zeros(num_envs, np.bool_)  # NEXT_STEP: the copies whose game ended last step

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None) -> tuple[Observations, dict[str, Any]]:
        """Start new games in every copy (or, with ``options={"reset_mask": mask}``, in the masked ones)."""
        if isinstance(seed, int):
            seed = check_seed(seed)  # before Gymnasium's own seeding, so a bad seed changes nothing
        super().reset(seed=seed if isinstance(seed, int) else None)
        rows = None if not options or "reset_mask" not in options else np.asarray(options["reset_mask"], np.bool_)
        if seed is None and rows is None:
            seed = int(self.np_random.integers(2**63))
        self.batch.reset(seed, rows=rows)
        self._restart[rows if rows is not None else slice(None)] = False
        return self._observations(), self._infos(np.zeros(self.num_envs, np.bool_))

    def step(self, actions: Any) -> tuple[Observations, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action in each game; returns observations, rewards, terminations, truncations and infos, as Gymnasium's vector API does."""
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"actions must hold one action for each of the {self.num_envs} copies, not shape {chosen.shape}")
        if self.autoreset_mode == AutoresetMode.NEXT_STEP and self._restart.any():
            playing = ~self._restart
            self.batch.step(chosen[playing], rows=playing)
            self.batch.reset(rows=self._restart)
        else:
            self.batch.step(chosen)
        ended = self.batch.terminated.copy()
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._restart = ended
        rewards = self.batch.agent_rewards.astype(np.float64)
        observations = self._observations()
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            infos = self._infos(np.zeros(self.num_envs, np.bool_))  # the seats; the ended games go under final_info
            if ended.any():
                final = np.full(self.num_envs, None, dtype=object)
                for row in np.flatnonzero(ended):
                    final[row] = {
                        "observation": self.batch.final_observation[row].copy(),
                        "action_mask": np.zeros(ACTION_COUNT, np.int8),
                    }
                # The copy already plays its next game, maybe from the other seat: the ended game's seat is kept apart.
                final_info = self._infos(ended, self.batch.final_seat.copy())
                infos.update(final_obs=final, _final_obs=ended, final_info=final_info, _final_info=ended)
        else:
            infos = self._infos(ended)
        return observations, rewards, ended, np.zeros(self.num_envs, np.bool_), infos

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the opponents' outside engines, if any (the compiled games need no closing)."""
        self.batch.close()

    # Helpers --------------------------------------------------------------------------------

    def _observations(self) -> Observations:
        observation = self.batch.observation
        mask = self.batch.legal_action_mask.view(np.int8)
        if self.copy:
            return {"observation": observation.copy(), "action_mask": mask.copy()}
        return {"observation": observation, "action_mask": mask}

    def _infos(self, ended: np.ndarray, seats: np.ndarray | None = None) -> dict[str, Any]:
        seat = self.batch.seat.copy() if seats is None else seats
        infos: dict[str, Any] = {"seat": seat, "_seat": np.ones(self.num_envs, np.bool_)}
        if ended.any():
            scores = self.batch.final_scores
            side = np.where(ended, seat, 0)  # a copy still playing may have no ended game's seat (-1)
            own = scores[np.arange(self.num_envs), side]
            other = scores[np.arange(self.num_envs), 1 - side]
            illegal = ended & self.batch.final_illegal  # as PatchworkEnv, which has the key only then
            infos.update(
                winner=np.where(ended, self.batch.final_winner, -1),
                _winner=ended,
                scores=np.where(ended[:, None], np.stack([own, other], axis=1), 0),
                _scores=ended,
                margin=np.where(ended, own - other, 0),
                _margin=ended,
                illegal_action=np.where(illegal, self.batch.illegal, 0),
                _illegal_action=illegal,
            )
        return infos
