"""Patchwork as an OpenSpiel game, registered as the Python game ``python_patchwork``.

Importing this module registers the game, so OpenSpiel's algorithms and
tools can load it by name::

    import pyspiel
    import quiltmaker.envs.openspiel_game  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_patchwork")            # the setup dealt by chance nodes
    game = pyspiel.load_game("python_patchwork(seed=42)")   # the setup of Position.initial(42)

The game is sequential, zero-sum, with perfect information, and rewards only
at the end (+1 to the winner, -1 to the loser; there are no draws).
``current_player()`` follows the time track, so a player often moves several
times in a row. Actions are quiltmaker's fixed action indices
(``num_distinct_actions() == 7431``).

Setup: with the default ``seed=-1`` the game starts with chance nodes that
deal the circle, one patch at a time (31 draws, uniform over the patches
left, whose outcomes are patch ids; the last patch is then forced and the 1x2
patch goes at the end), then one chance node for the first player (outcome 0
or 1). Every order of the circle is equally likely, as with a shuffle. With
``seed=S >= 0`` there are no chance nodes: play starts from
``Position.initial(S)``. ``variant`` chooses the time track (``revised`` or
``original``).

Observation tensors are the shared encoding of :mod:`quiltmaker.envs.observation`
from the given player's side, with the views ``planes`` (5x9x9) and
``features``; they are all zeros while the setup is being dealt.
Information-state strings are the action history, as for other
perfect-information Python games.

Needs the ``envs`` extra: ``pip install 'quiltmaker[envs]'``. Python games are
slower than OpenSpiel's C++ games; algorithms that walk the tree (MCTS, say)
work, at a modest number of simulations per move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("quiltmaker.envs.openspiel_game needs OpenSpiel: pip install 'quiltmaker[envs]'") from error

from ..core.components import DEFAULT_VARIANT, LAST_SPACE, PATCH_COUNT, SQUARES, STARTING_PATCH_ID, time_track
from ..core.moves import ACTION_COUNT, Move
from ..core.position import Position
from ..core.seeds import check_seed
from .observation import MAX_SPECIALS, OBSERVATION_SIZE, PLANE_COUNT, encode, legal_actions

GAME_NAME = "python_patchwork"
"""The name the game is registered under with pyspiel."""
# Every regular move takes its player at least one space along the 53-space
# track, and at most five special patches are placed.
MAX_GAME_LENGTH = 2 * LAST_SPACE + MAX_SPECIALS
"""The most moves a game can take: every regular move advances its player a space at least, and the special patches are placed too."""
_DEALT_PATCHES = PATCH_COUNT - 2  # drawn by chance: the last is forced and the 1x2 patch is fixed
_DEFAULT_PARAMS: dict[str, Any] = {"seed": -1, "variant": DEFAULT_VARIANT}
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Patchwork (quiltmaker)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


class PatchworkGame(pyspiel.Game):  # type: ignore[misc]
    """The game: parameters ``seed`` (-1 deals by chance) and ``variant``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULT_PARAMS, **(params or {})}
        # -1 deals by chance; any other value is a seed, under the package's one rule for seeds.
        self.seed = -1 if merged["seed"] == -1 else check_seed(merged["seed"])
        """The setup seed of every game it makes, or -1: then OpenSpiel's chance nodes deal the circle."""
        self.variant = str(merged["variant"])
        """The time track's printing."""
        time_track(self.variant)  # raises ValueError for an unknown printing
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=PATCH_COUNT,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, merged)

    def new_initial_state(self) -> PatchworkState:
        """A new game: dealt by chance, or from the seed's setup."""
        return PatchworkState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The observer of :mod:`quiltmaker.envs.observation`, or the action history for perfect recall."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PatchworkObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class PatchworkState(pyspiel.State):  # type: ignore[misc]
    """A state: the circle dealt so far, then a quiltmaker :class:`Position`.

    Attributes:
        position: The position once the setup is complete, else ``None``.
    """

    def __init__(self, game: PatchworkGame) -> None:
        super().__init__(game)
        self.variant = game.variant
        """The time track's printing."""
        self.dealt: list[int] = []
        """The patches dealt into the circle so far (chance outcomes), while it is being dealt."""
        self.position: Position | None = None
        """The position once the circle is dealt (None before)."""
        if game.seed >= 0:
            self.position = Position.initial(game.seed, variant=game.variant)

    # OpenSpiel API -------------------------------------------------------------

    def current_player(self) -> int:
        """The player to move, or ``PlayerId.CHANCE`` while dealing, or ``PlayerId.TERMINAL``."""
        if self.position is None:
            return _CHANCE
        mover = self.position.to_move
        return _TERMINAL if mover is None else mover

    def _legal_actions(self, player: int) -> list[int]:
        assert self.position is not None and player == self.position.to_move
        return legal_actions(self.position)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next patch of the circle (uniform over those left), then the first player."""
        assert self.position is None, "not a chance node"
        if len(self.dealt) < _DEALT_PATCHES:
            left = self._undealt()
            return [(patch, 1.0 / len(left)) for patch in left]
        return [(0, 0.5), (1, 0.5)]

    def _apply_action(self, action: int) -> None:
        if self.position is not None:
            self.position = self.position.play(Move.from_action(int(action)))
        elif len(self.dealt) < _DEALT_PATCHES:
            self.dealt.append(int(action))
            if len(self.dealt) == _DEALT_PATCHES:
                self.dealt.extend(self._undealt())
        else:
            circle = [*self.dealt, STARTING_PATCH_ID]
            self.position = Position.initial(circle=circle, first_player=int(action), variant=self.variant)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"patch {action}" if len(self.dealt) < _DEALT_PATCHES else f"player {action} starts"
        return Move.from_action(int(action)).text()

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.position is not None and self.position.is_over

    def returns(self) -> list[float]:
        """+1 to the winner and -1 to the loser once the game is over; 0 to both before."""
        if self.position is None or (winner := self.position.winner) is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        if self.position is None:
            return f"dealing: {','.join(map(str, self.dealt)) or '-'}"
        return self.position.text()

    # Helpers ---------------------------------------------------------------------

    def _undealt(self) -> list[int]:
        dealt = set(self.dealt)
        return [p for p in range(PATCH_COUNT) if p != STARTING_PATCH_ID and p not in dealt]


class PatchworkObserver:
    """An observer in OpenSpiel's Python protocol: ``tensor``, its views in ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        """The observation as one float32 vector, filled by set_from."""
        planes = PLANE_COUNT * SQUARES
        self.dict = {"planes": self.tensor[:planes].reshape(PLANE_COUNT, 9, 9), "features": self.tensor[planes:]}
        """The same numbers as views: ``planes`` (5 planes of 9x9) and ``features``."""

    def set_from(self, state: PatchworkState, player: int) -> None:
        """Fill :attr:`tensor` (in place) with ``state`` as ``player`` sees it."""
        if state.position is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = encode(state.position, player)

    def string_from(self, state: PatchworkState, player: int) -> str:
        """The position's text (everything is public), or the deal so far."""
        del player  # perfect information: both players see the same
        return str(state)


if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_GAME_TYPE, PatchworkGame)
