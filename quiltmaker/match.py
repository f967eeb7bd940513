"""Matches between two players: paired setups, parallel games, Elo with a 95% interval.

Every setup is played twice with the seats swapped, so neither player gains
from the first player's advantage or a lucky circle. Games run in separate
processes (one per core by default); each game's record is written as it ends.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core import record
from .core.components import DEFAULT_VARIANT
from .core.errors import IllegalMoveError, QuiltmakerError
from .core.game import Game
from .core.position import Position
from .core.seeds import check_seed, derived_seed

if TYPE_CHECKING:
    from .ai.players import Player

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class GameSpec:
    """One game of a match: which setup, and who sits where.

    Attributes:
        index: The game's number in the match, from 0.
        setup_seed: Seed of the setup (circle and first player); each is played twice.
        a_seat: The seat of player A (0 or 1).
        players: The two player specifications, A first.
        seeds: The players' own seeds, A first.
        variant: The time track.
        move_time: Seconds a move for the players that take a time (None: each its own limit).
    """

    index: int
    setup_seed: int
    a_seat: int
    players: tuple[str, str]
    seeds: tuple[int, int]
    variant: str = DEFAULT_VARIANT
    move_time: float | None = None


@dataclass
class MatchResult:
    """The tally of a match from player A's point of view.

    Attributes:
        names: The two player specifications, A first.
        games: Games counted.
        played_as: The names the players gave, A first (an engine's ``id name``, as its records have it);
            empty until a game is counted.
        a_wins: Games A won.
        margins: A's score minus B's, a finished game each (a forfeit has none).
        a_wins_by_seat: A's wins as player 0 and as player 1.
        games_by_seat: A's games as player 0 and as player 1.
        forfeits: Games lost by breaking the engine protocol, A's first.
    """

    names: tuple[str, str]
    games: int = 0
    played_as: list[str] = field(default_factory=list)
    a_wins: int = 0
    margins: list[int] = field(default_factory=list)
    a_wins_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    games_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    forfeits: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, a_seat: int, scores: list[int] | None, winner: int) -> None:
        """Count one game: finished (with its scores), or forfeited (no scores: its margin is left out)."""
        self.games += 1
        self.games_by_seat[a_seat] += 1
        won = winner == a_seat
        self.a_wins += won
        self.a_wins_by_seat[a_seat] += won
        if scores is None:
            self.forfeits[1 if won else 0] += 1  # the side that lost it broke the protocol
        else:
            self.margins.append(scores[a_seat] - scores[1 - a_seat])

    def add_record(self, game: dict[str, Any]) -> None:
        """Count one game from its record (as :func:`play_scheduled_game` returns it)."""
        a_seat = game["match"]["a_seat"]
        if not self.played_as and game.get("players"):
            self.played_as = [game["players"][a_seat], game["players"][1 - a_seat]]
        forfeit = game.get("forfeit")
        if forfeit is not None:
            self.add(a_seat, None, 1 - forfeit["player"])
        else:
            self.add(a_seat, game["result"]["scores"], game["result"]["winner"])

    @property
    def score(self) -> float:
        """A's share of the games won (Patchwork has no draws)."""
        return self.a_wins / self.games if self.games else 0.5

    def score_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of A's winning share; sound at 0% and 100% too."""
        return wilson_interval(self.a_wins, self.games)

    def elo(self) -> tuple[float, float, float]:
        """A's Elo advantage over B, with its 95% interval (infinite at 0% or 100%)."""
        low, high = self.score_interval()
        return elo_from_score(self.score), elo_from_score(low), elo_from_score(high)

    def margin_interval(self) -> tuple[float, float]:
        """Mean score margin of A over B, with the half-width of its 95% interval."""
        return mean_interval(self.margins)

    def summary(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        elo, elo_low, elo_high = self.elo()
        margin, margin_half = self.margin_interval()
        return {
            "players": list(self.names),
            "names": self.played_as or list(self.names),
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.games - self.a_wins,
            "a_score": self.score,
            "a_score_95": list(self.score_interval()),
            "a_wins_by_seat": self.a_wins_by_seat,
            "forfeits": self.forfeits,
            "games_by_seat": self.games_by_seat,
            "mean_margin": margin,
            "mean_margin_95_half_width": margin_half,
            "elo": elo,
            "elo_95": [elo_low, elo_high],
        }


def wilson_interval(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a winning share; sound at 0% and 100% too.

    Examples:
        >>> [round(x, 3) for x in wilson_interval(150, 200)]
        [0.686, 0.805]
    """
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + Z95**2 / (2 * games)) / (1 + Z95**2 / games)
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games * games)) / (1 + Z95**2 / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[int] | list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% normal interval (infinite below two values)."""
    n = len(values)
    if n < 2:
        return (float(values[0]) if n else 0.0), math.inf
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, Z95 * math.sqrt(variance / n)


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts this winning share."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def schedule(
    players: tuple[str, str], games: int, seed: int, variant: str = DEFAULT_VARIANT, move_time: float | None = None
) -> Iterator[GameSpec]:
    """The games of a match: setups in pairs with the seats swapped.

    Raises:
        InvalidSeedError: ``seed`` is not an integer from 0 to 2**64 - 1.
    """
    seed = check_seed(seed, "the match's seed")
    for index in range(games):
        setup = derived_seed(seed * 1_000_003 + index // 2)
        a_seat = index % 2
        player_seeds = (derived_seed(2 * index + 1 + seed), derived_seed(2 * index + 2 + seed))
        yield GameSpec(index, setup, a_seat, players, player_seeds, variant, move_time)


def play_scheduled_game(spec: GameSpec) -> dict[str, Any]:
    """Play one scheduled game; returns its JSON record with the match's bookkeeping.

    An outside engine that breaks the protocol (a failed handshake, an
    illegal or malformed move, an ``error`` line, no answer in time, a
    crash) forfeits the game and the match goes on: the record holds the
    moves until then, ``result`` null as for any unfinished game, and
    ``"forfeit": {"player": seat, "reason": ...}``.

    Raises:
        InvalidPlayerError: A player specification names no player, or its engine cannot be started.
    """
    from .engine.protocol import ProtocolError
    from .specs import player_from_spec

    seats: list[Player | None] = [None, None]
    names = ["", ""]
    forfeit = None
    try:
        for which, (player_spec, seed) in enumerate(zip(spec.players, spec.seeds)):
            seat = spec.a_seat if which == 0 else 1 - spec.a_seat
            # The players' names: an engine's is the one it gave with 'id name'; one that failed
            # its handshake gave none, and is named by its command line.
            names[seat] = player_spec.strip().removeprefix("engine:").strip()
            try:
                player = seats[seat] = player_from_spec(player_spec, seed, spec.move_time)
                names[seat] = player.name
            except ProtocolError as error:
                if forfeit is None:
                    forfeit = {"player": seat, "reason": str(error)}
        game = Game(Position.initial(spec.setup_seed, variant=spec.variant), names)
        while forfeit is None and (mover := game.position.to_move) is not None:
            chooser = seats[mover]
            assert chooser is not None
            try:
                game.play(chooser.choose_move(game.position))
            except (ProtocolError, IllegalMoveError) as error:
                forfeit = {"player": mover, "reason": str(error)}
    finally:
        for built in seats:
            if built is not None:
                built.close()
    result = record.to_json(game)
    result["match"] = {"game": spec.index, "setup_seed": spec.setup_seed, "a_seat": spec.a_seat, "players": list(spec.players)}
    if forfeit is not None:
        result["forfeit"] = forfeit
    return result


def run_match(
    players: tuple[str, str],
    games: int,
    seed: int = 0,
    workers: int | None = None,
    records: Path | None = None,
    variant: str = DEFAULT_VARIANT,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    move_time: float | None = None,
    ray_address: str | None = None,
    resume: bool = False,
) -> MatchResult:
    """Play a match in parallel and return the tally.

    Games run in a local process pool, or, with ``ray_address`` (``"local"``
    for a Ray instance on this machine, or a cluster's address), as Ray tasks.
    With ``resume``, games whose records are already in ``records`` (same
    match: players, setup and seats) are counted instead of played again, so
    a long match can be stopped and carried on later.

    Raises:
        QuiltmakerError: A player specification is not understood, or ``seed`` is not a seed
            (an integer from 0 to 2**64 - 1).
    """
    from .specs import player_from_spec

    specs = list(schedule(players, games, seed, variant, move_time))  # a bad seed fails here, before anything is written
    for spec in players:
        if not spec.startswith("engine:"):
            player_from_spec(spec, 0, move_time)  # fail fast, before any process starts
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    result = MatchResult(players)
    workers = workers or os.cpu_count() or 1
    if resume:
        if records is None:
            raise QuiltmakerError("resuming a match needs the folder of its records")
        done = [game for game in map(lambda spec: _recorded(records, spec), specs) if game is not None]
        for game in done:
            result.add_record(game)
            if on_game is not None:
                on_game(game)
        played = {game["match"]["game"] for game in done}
        specs = [spec for spec in specs if spec.index not in played]

    def finished(game: dict[str, Any]) -> None:
        result.add_record(game)
        if records is not None:
            path = records / f"game-{game['match']['game']:05d}.json"
            path.write_text(json.dumps(game) + "\n", encoding="utf-8")
        if on_game is not None:
            on_game(game)

    if ray_address is not None:
        run_on_ray(play_scheduled_game, specs, ray_address, finished)
        return result
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(play_scheduled_game, spec) for spec in specs]
        for future in as_completed(futures):
            finished(future.result())
    return result


def _recorded(records: Path, spec: GameSpec) -> dict[str, Any] | None:
    """The finished game of ``spec`` from an earlier run of the same match, if its record is there."""
    path = records / f"game-{spec.index:05d}.json"
    try:
        game = json.loads(path.read_text(encoding="utf-8"))
        bookkeeping = game["match"]
        same = bookkeeping == {"game": spec.index, "setup_seed": spec.setup_seed, "a_seat": spec.a_seat, "players": list(spec.players)}
        record.from_json(game)  # a record that does not replay is played again
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return game if same and (game.get("result") or game.get("forfeit")) else None


def run_on_ray(play: Callable[[Any], Any], specs: Sequence[Any], address: str, finished: Callable[[Any], None]) -> None:
    """Run ``play(spec)`` for each spec as Ray tasks, reporting each result as it ends (Ray is an optional dependency)."""
    try:
        import ray
    except ImportError:
        raise QuiltmakerError("Ray is not installed: pip install 'quiltmaker[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=None if address == "local" else address, include_dashboard=False, log_to_driver=False)
    try:
        remote_game = ray.remote(play)
        pending = [remote_game.remote(spec) for spec in specs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            finished(ray.get(done[0]))
    finally:
        if started_here:
            ray.shutdown()
