"""The contract's components and a game: the catalogue, the board, the state, the replay."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from ..round.kinds import AnyMode

Seat: TypeAlias = Literal[0, 1]
Pair: TypeAlias = Annotated[list[int], Field(min_length=2, max_length=2)]
Cell: TypeAlias = Annotated[list[int], Field(min_length=2, max_length=2, description="[row, col], 0-based")]
Number: TypeAlias = int | float  # a JSON number, passed on as it is (an int stays an int)
# The patch covering a quilt square, "S" (a special patch), "X" (covered at the game's start: a puzzle's earlier patches) or nothing.
Square: TypeAlias = int | Literal["S", "X"] | None


class Model(BaseModel):
    """A message's part: exactly these fields, no others (a new field is a change of the contract).

    Strict: a value of another type is refused, not converted, so what the
    views built is what the page gets.
    """

    model_config = ConfigDict(extra="forbid", strict=True)


# ---------------------------------------------------------------- the catalogue


class Orientation(Model):
    transform: str
    words: str = Field(description="the orientation as the player reads it: 'flipped and turned once'")
    cells: list[Cell]
    height: int
    width: int
    turned: int = Field(description="the index of the orientation a quarter turn clockwise")
    flipped: int = Field(description="the index of the orientation mirrored left to right")


class CataloguePatch(Model):
    id: int
    cost: int
    time: int
    income: int
    size: int
    orientations: list[Orientation]
    transforms: dict[str, int] = Field(description="each orientation's name -> its index in orientations")


class TimeTrack(Model):
    income_spaces: list[int]
    special_spaces: list[int]


class ClockPreset(Model):
    control: str
    words: str


class CustomClock(Model):
    minutes: Annotated[list[Number], Field(min_length=2, max_length=2)]
    increment: Annotated[list[Number], Field(min_length=2, max_length=2)]


class Clocks(Model):
    presets: list[ClockPreset]
    custom: CustomClock


class Level(Model):
    name: str
    description: str
    rating: int


class LessonTitle(Model):
    number: int
    title: str


class Catalogue(Model):
    """The components, sent once: the page reads sizes, costs, shapes and square names here and types none."""

    board_size: int
    columns: list[str]
    rows: list[str]
    squares: list[list[str]] = Field(description="each square's name, by row then column")
    last_space: int
    bonus_points: int
    bonus_size: int
    empty_square_penalty: int
    clocks: Clocks
    patches: list[CataloguePatch]
    tracks: dict[str, TimeTrack]
    default_variant: str
    levels: list[Level]
    lessons: list[LessonTitle]


# ---------------------------------------------------------------- a game's state


class ScoreRows(Model):
    """A score in the rules' rows (:meth:`Position.score_rows`)."""

    buttons: int
    bonus: int
    empty: int
    penalty: int
    total: int


class LastMove(Model):
    player: Seat
    kind: Literal["advance", "buy", "special"]
    patch: int | None
    cells: list[Cell]
    income_paid: list[Pair] = Field(description="[space, buttons] for each income space crossed")
    from_space: int | None


class SharedSpace(Model):
    """Both tokens on one space: whose is on top, and whether that player moves next because of it."""

    on_top: Seat
    moves_first: bool


class Board(Model):
    """What the board shows after some moves: the live state's drawing, and each step of a replay."""

    position: str
    last_move: LastMove | None
    to_move: Seat | None
    turn_reason: str
    times: list[int]
    buttons: list[int]
    income: list[int]
    on_top: Seat
    shared_space: SharedSpace | None
    specials: list[int]
    bonus: int = Field(description="the seat that has the bonus, or -1")
    pending: int
    quilts: list[list[list[Square]]]
    circle: list[int]
    offered: list[int]
    scores: list[int]
    score_breakdown: list[ScoreRows]


class Advance(Model):
    move: str
    spaces: int
    buttons: int


class Anchors(Model):
    transform: str
    anchors: list[int] = Field(description="top-left squares allowed, as row * board_size + col")


class Buy(Model):
    patch: int
    affordable: bool
    reason: str | None
    orientations: list[Anchors]


class SpecialSquare(Model):
    move: str
    square: str
    cell: Cell


class Legal(Model):
    advance: Advance | None
    buys: list[Buy]
    specials: list[SpecialSquare]


class MoveEntry(Model):
    ply: int
    player: Seat | None
    move: str
    summary: str


class Result(Model):
    winner: Seat
    by: Literal["score", "resignation", "time", "claim"]  # claim: a correspondence player past their days, claimed against
    tiebreak: bool
    scores: list[int]
    breakdown: list[ScoreRows]


class AiSeat(Model):
    level: str | None
    seat: Seat | None
    thinking: bool
    plays: bool


class LessonStep(Model):
    task: str
    done: bool


class Lesson(Model):
    number: int
    count: int
    title: str
    intro: list[str]
    steps: list[LessonStep]
    done: bool
    praise: str | None
    spotlight: str | None
    marks: list[Cell]
    next: int | None


class Clock(Model):
    control: str
    words: str
    kind: Literal["realtime", "correspondence"]
    remaining: list[Number]
    running: Seat | None
    started: bool
    deadline: str | None
    low: Number
    flagged: Seat | None
    as_of: str


class BeforeAfter(Model):
    before: int
    after: int


class PuzzleAnswer(Model):
    """A puzzle's verdict: the move played, whether it is one of the solutions (every move that wins), and the best one."""

    solved: bool
    played: str
    played_summary: str
    played_words: str = Field(description="the move as a player says it: 'patch 25, turned once, at c4', 'advancing'")
    played_outcome: str = Field(description="the played move's exact result for its mover, in words ('loses' when it is no solution)")
    solutions: list[str]
    best: str
    best_summary: str
    best_words: str
    best_outcome: str
    best_cells: list[Cell]
    player_rating: BeforeAfter | None = Field(description="the account's puzzle rating; None for a guest, whose answer rates nothing")
    puzzle_rating: BeforeAfter | None


class PuzzleView(Model):
    id: str
    kind: Literal["win", "only-move", "bonus"]
    task: str
    rating: int
    seat: Seat = Field(description="the side to move in the puzzle: the player's")
    answer: PuzzleAnswer | None


class PuzzleRating(Model):
    rating: int
    provisional: bool
    attempts: int
    solved: int


class PuzzleSet(Model):
    """The shipped puzzles, counted, and the signed-in player's puzzle rating (None for a guest or before a first answer)."""

    count: int
    kinds: dict[str, int]
    player: PuzzleRating | None


class GameRating(Model):
    family: str
    settled: bool
    unrated: Literal["moves", "address", "pair", "computer_time"] | None = Field(
        default=None, description="settled without rating anyone, and why (quiltmaker/web/rating/fairness.py)"
    )
    changes: list[Pair | None] = Field(description="each seat's rating [before, after], None for the AI's seat or until settled")


class Offer(Model):
    kind: Literal["open", "named"]
    # "for" is a Python keyword: the field keeps its wire name through an alias.
    for_: str | None = Field(alias="for")

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, serialize_by_alias=True)


class GameState(Board):
    """The whole state of a game, as every client is sent it."""

    id: str
    version: int
    mode: AnyMode
    status: Literal["waiting", "playing", "over", "aborted"]
    rematch: str | None
    rematch_seats: list[Seat] = Field(description="the seat each seat's player takes in the rematch")
    rematch_first: str = Field(description="the name of the player who moves first in the rematch")
    variant: str
    names: list[str]
    accounts: list[bool] = Field(description="whether an account holds each seat (else a guest's name, or the computer's)")
    ai: AiSeat | None
    income_spaces: list[int]
    forecast: list[int]
    legal: Legal
    moves: list[MoveEntry]
    result: Result | None
    may_move: list[bool] = Field(description="whether each seat's player may move now, by the rules (never the computer's seat)")
    may_rematch: bool = Field(description="whether a player may ask for the rematch now")
    hints: bool
    undo: bool
    can_resign: bool
    can_abort: bool
    lesson: Lesson | None
    puzzle: PuzzleView | None
    presence: list[bool]
    clock: Clock | None
    rating: GameRating | None
    offer: Offer | None
    claimable_by: Seat | None


class ReplayPosition(Board):
    ply: int


class Replay(Model):
    """Every position of a game, the start first (``GET /api/games/{id}/positions``)."""

    version: int
    variant: str
    positions: list[ReplayPosition]


class AnalysedPosition(Model):
    ply: int
    to_move: Seat | None
    times: list[int]
    buttons: list[int]
    income: list[int]
    scores: list[int]
    win_probability_player0: Number | None
    expected_margin_player0: Number | None
    best_move: str | None


class Judgement(Model):
    """A move of a finished game that lost its player something: how much, in chance and in points, and the better move."""

    ply: int
    player: Seat
    label: Literal["inaccuracy", "mistake", "blunder"]
    by: Literal["chance", "points"] = Field(description="which loss gave the label: the worse of the two")
    drop: Number = Field(description="the share of the mover's chance to win the move lost, 0 to 1")
    points: Number = Field(description="the points of the mover's expected final margin the move lost")
    cost: str = Field(description="what the move cost, in words, the loss that classed it first")
    played: str
    played_summary: str
    better: str
    better_summary: str
    better_patch: int | None
    better_cells: list[Cell]


class PlayerReview(Model):
    """One player's moves over a finished game, summed up."""

    player: Seat
    moves: int
    accuracy: Number = Field(description="the mean of the moves' accuracies, 0 to 100 (Lichess's formula, docs/web.md)")
    points_lost: Number = Field(description="points of expected final margin lost, on average a move")
    inaccuracies: int
    mistakes: int
    blunders: int


class Analysis(Model):
    """A game's analysis (``GET /api/games/{id}/analysis``): every position, evaluated once the game is over."""

    status: Literal["positions only", "waiting", "computing", "done"]
    positions: list[AnalysedPosition]
    judgements: list[Judgement] | None = None
    players: list[PlayerReview] | None = Field(default=None, description="each seat's accuracy and points lost, once done")
