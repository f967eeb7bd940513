"""The rules of Patchwork on an immutable position.

A :class:`Position` is a value: hashable, cheap to copy, and written as one
line of text that rebuilds it exactly. :meth:`Position.play` checks a move and
names the rule it breaks; :meth:`Position.play_unchecked` is the fast path for
search, which must only be given moves from :meth:`Position.legal_moves`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .components import (
    BOARD_SIZE,
    BONUS_AREAS,
    BONUS_POINTS,
    DEFAULT_VARIANT,
    EMPTY_SQUARE_PENALTY,
    INCOME_UP_TO,
    LAST_SPACE,
    OFFER_SIZE,
    PATCH_COUNT,
    PATCHES,
    SQUARES,
    STARTING_BUTTONS,
    STARTING_PATCH_ID,
    mask_to_cells,
    set_bits,
    time_track,
)
from .errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from .moves import ACTION_COUNT, ADVANCE, PLACEMENTS, SPECIAL, SPECIAL_MOVES, Move, square_name
from .seeds import seeded_random

NO_BONUS = -1
"""Position.bonus when nobody has taken the 7x7 bonus tile yet."""

# Track spaces strictly after a and up to b: the spaces a token crosses moving from a to b.
_CROSSED = [[((1 << (b + 1)) - 1) ^ ((1 << (a + 1)) - 1) if b > a else 0 for b in range(LAST_SPACE + 1)] for a in range(LAST_SPACE + 1)]


def _pair(values: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    return (value, values[1]) if player == 0 else (values[0], value)


def _earns_bonus(quilt: int) -> bool:
    return any(quilt & area == area for area in BONUS_AREAS)


class TurnCause(NamedTuple):
    """Why the player to move is to move: turns follow the time track, not alternation.

    The rules decide it here once; every interface only words it.

    Attributes:
        kind: ``"over"`` (nobody moves), ``"special"`` (a special patch just
            earned must be placed), ``"start"`` (both tokens on the start, the
            first player on top), ``"behind"`` (the player's token is behind
            the other) or ``"on_top"`` (both on one space, the last to arrive
            on top and acting first).
        player: The player to move (``None`` when the game is over).
        space: The player's space on the time track.
        other_space: The opponent's space.
        pending: Special patches still to place.
    """

    kind: str
    player: int | None
    space: int
    other_space: int
    pending: int


class Illegality(NamedTuple):
    """Why a move is illegal: the rule it breaks and the numbers that rule names.

    The rules decide it here once (:meth:`Position.illegality`); :meth:`text`
    words it in English for the library, and every interface words it in its
    reader's language from the same fields.

    Attributes:
        kind: ``"not_a_move"`` (not built by the Move constructors), ``"over"``
            (the game is over), ``"no_special"`` (no special patch to place),
            ``"special_covered"`` (the square is covered), ``"special_first"``
            (a special patch just earned must be placed first), ``"bought"``
            (the patch was bought already), ``"not_offered"`` (not among the
            next three), ``"too_dear"`` (more buttons than the player has) or
            ``"covered"`` (the patch would cover covered squares).
        player: The player to move (``None`` when the game is over).
        patch: The patch the move buys, for the rules about patches.
        squares: The covered squares it would cover again (names like ``"e5"``).
        price: The patch's price in buttons, for ``"too_dear"``.
        buttons: The buttons the player has, for ``"too_dear"``.
        offered: The patches on offer, for ``"not_offered"``.
        move: The move's fields, for ``"not_a_move"``.
    """

    kind: str
    player: int | None
    patch: int | None = None
    squares: tuple[str, ...] = ()
    price: int = 0
    buttons: int = 0
    offered: tuple[int, ...] = ()
    move: tuple[object, ...] = ()

    def text(self) -> str:
        """The rule broken, in English, players named "player 0" and "player 1"."""
        player, patch, squares = self.player, self.patch, ", ".join(self.squares)
        words = {
            "not_a_move": f"{self.move!r} is not a move of the game: use the Move constructors",
            "over": "the game is over",
            "no_special": f"player {player} has no special patch to place",
            "special_covered": f"square {squares} of player {player}'s quilt is already covered",
            "special_first": f"player {player} must first place the special patch just earned",
            "bought": f"patch {patch} has already been bought",
            "not_offered": f"patch {patch} is not among the next three patches (on offer: {', '.join(map(str, self.offered))})",
            "too_dear": f"patch {patch} costs {self.price} buttons, player {player} has {self.buttons}",
            "covered": f"patch {patch} would cover {squares}, already covered on player {player}'s quilt",
        }
        return words[self.kind]


class MoveEffect(NamedTuple):
    """What a move did, in the rules' numbers; interfaces word it and never work it out again.

    Attributes:
        move: The move.
        player: Who made it.
        after: The position it led to.
        spaces: Spaces the player's token moved.
        advance_buttons: Buttons for the spaces advanced (one a space; 0 for a purchase).
        patch: The patch bought, or ``None``.
        cost: Buttons paid for it.
        income: Buttons of income collected on the income spaces the token crossed.
        specials_earned: Special patches earned, to place next.
        bonus_earned: Whether the move completed the first 7x7 square.
        income_spaces: The income spaces the token crossed, in order; each paid ``income / len``.
        specials_taken: The track spaces whose special patch the move took, in order.
    """

    move: Move
    player: int
    after: "Position"
    spaces: int
    advance_buttons: int
    patch: int | None
    cost: int
    income: int
    specials_earned: int
    bonus_earned: bool
    income_spaces: tuple[int, ...] = ()
    specials_taken: tuple[int, ...] = ()


class Score(NamedTuple):
    """A player's score in its rows: buttons, the bonus tile's points, the empty squares and what they cost.

    Attributes:
        buttons: The buttons the player holds.
        bonus: The bonus tile's points, or 0.
        empty: The empty squares of the quilt.
        penalty: What they cost, negative: -2 a square.
    """

    buttons: int
    bonus: int
    empty: int
    penalty: int
    """Negative: -2 a square."""

    @property
    def total(self) -> int:
        """The score: buttons, plus the bonus, plus the (negative) penalty."""
        return self.buttons + self.bonus + self.penalty


class Position(NamedTuple):
    """A Patchwork position.

    Build one with :meth:`initial` or :meth:`from_text`; the fields are the
    complete state of the game:

    Attributes:
        variant: The time track's printing, ``"revised"`` or ``"original"``.
        circle: Patch ids left in the circle, the next one offered first.
        times: Each player's space on the time track, 0..53.
        buttons: Buttons each player holds.
        income: Button income printed on each player's quilt.
        quilts: Each player's quilt as a bitboard (bit ``row * 9 + col``).
        on_top: The player who moved last (the first player before any
            move): on a shared space this token is on top and acts first,
            and when both reach 53 the other one got there first.
        specials: Track spaces still holding a special patch, as a bit mask.
        bonus: The player holding the 7x7 bonus, or -1.
        pending: Special patches that ``on_top`` must place before anything else.
    """

    variant: str
    circle: tuple[int, ...]
    times: tuple[int, int]
    buttons: tuple[int, int]
    income: tuple[int, int]
    quilts: tuple[int, int]
    on_top: int
    specials: int
    bonus: int
    pending: int

    # Setup -----------------------------------------------------------------

    @classmethod
    def initial(
        cls,
        seed: int | None = None,
        *,
        circle: Sequence[int] | None = None,
        first_player: int | None = None,
        variant: str = DEFAULT_VARIANT,
    ) -> Position:
        """The starting position.

        The circle and the first player come from ``seed``, an integer from
        0 to 2**64 - 1 whose setup is fixed by this project
        (:mod:`quiltmaker.core.seeds`), or from fresh randomness without one,
        unless given explicitly. An explicit circle lists all 33 patch ids,
        the first one offered first and the 1x2 patch (id 0) last.

        >>> start = Position.initial(circle=[*range(1, 33), 0], first_player=1)
        >>> start.circle[:3], start.to_move, start.buttons
        ((1, 2, 3), 1, (5, 5))

        Raises:
            InvalidSeedError: ``seed`` is not an integer from 0 to 2**64 - 1.
            InvalidPositionError: The circle or first player is not a valid setup.
        """
        track = _track(variant)
        rng = seeded_random(seed)
        if circle is None:
            others = [p for p in range(PATCH_COUNT) if p != STARTING_PATCH_ID]
            rng.shuffle(others)
            circle = [*others, STARTING_PATCH_ID]
        circle = tuple(circle)
        # type() rather than isinstance(): True and 1.0 equal 1 but are not patch ids.
        if not all(type(p) is int for p in circle) or sorted(circle) != list(range(PATCH_COUNT)) or circle[-1] != STARTING_PATCH_ID:
            raise InvalidPositionError(
                f"the circle must hold each of the {PATCH_COUNT} patch ids once and end with patch {STARTING_PATCH_ID}"
            )
        if first_player is None:
            first_player = rng.randrange(2)
        if type(first_player) is not int or first_player not in (0, 1):
            raise InvalidPositionError(f"the first player must be 0 or 1, not {first_player!r}")
        return cls(
            track.name,
            circle,
            (0, 0),
            (STARTING_BUTTONS, STARTING_BUTTONS),
            (0, 0),
            (0, 0),
            first_player,
            track.special_mask,
            NO_BONUS,
            0,
        )

    # Whose turn ------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended: both tokens on 53 and no special patch to place."""
        return self.times[0] == LAST_SPACE and self.times[1] == LAST_SPACE and not self.pending

    @property
    def to_move(self) -> int | None:
        """The player who acts next, or ``None`` when the game is over.

        The player furthest behind acts, the token on top on a shared space,
        and a player who must place a special patch does so first.
        """
        if self.pending:
            return self.on_top
        t0, t1 = self.times
        if t0 != t1:
            return 0 if t0 < t1 else 1
        return None if t0 == LAST_SPACE else self.on_top

    @property
    def turn_cause(self) -> TurnCause:
        """Why :attr:`to_move` is to move (see :class:`TurnCause`).

        >>> Position.initial(circle=[*range(1, 33), 0], first_player=1).turn_cause
        TurnCause(kind='start', player=1, space=0, other_space=0, pending=0)
        >>> Position.initial(circle=[*range(1, 33), 0], first_player=1).play("A").turn_cause.kind
        'behind'
        """
        player = self.to_move
        if player is None:
            return TurnCause("over", None, self.times[0], self.times[1], 0)
        space, other = self.times[player], self.times[1 - player]
        if self.pending:
            kind = "special"
        elif space < other:
            kind = "behind"
        elif space == 0:
            kind = "start"
        else:
            kind = "on_top"
        return TurnCause(kind, player, space, other, self.pending)

    @property
    def offered(self) -> tuple[int, ...]:
        """The patches that may be bought now: the next three of the circle."""
        return self.circle[:OFFER_SIZE]

    # Moves -----------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, each distinct outcome once (empty when the game is over)."""
        player = self.to_move
        if player is None:
            return []
        quilt = self.quilts[player]
        if self.pending:
            return [m for m in SPECIAL_MOVES if not m.mask & quilt]
        moves = [ADVANCE_MOVE]
        buttons = self.buttons[player]
        for patch in self.circle[:OFFER_SIZE]:
            if PATCHES[patch].cost <= buttons:
                moves.extend(m for m in PLACEMENTS[patch] if not m.mask & quilt)
        return moves

    def legal_action_mask(self) -> list[bool]:
        """A list of :data:`~quiltmaker.core.moves.ACTION_COUNT` flags, true for each legal action index."""
        mask = [False] * ACTION_COUNT
        for move in self.legal_moves():
            mask[move.action] = True
        return mask

    def illegality(self, move: Move) -> Illegality | None:
        """The rule ``move`` breaks here and what it names (see :class:`Illegality`), or ``None`` when it is legal."""
        if not move.exists:
            return Illegality("not_a_move", None, move=tuple(move))
        player = self.to_move
        if player is None:
            return Illegality("over", None)
        quilt = self.quilts[player]
        if move.kind == SPECIAL:
            if not self.pending:
                return Illegality("no_special", player)
            if move.mask & quilt:
                return Illegality("special_covered", player, squares=_square_names(move.mask))
            return None
        if self.pending:
            return Illegality("special_first", player)
        if move.kind == ADVANCE:
            return None
        assert move.patch is not None
        patch = PATCHES[move.patch]
        if move.patch not in self.circle:
            return Illegality("bought", player, move.patch)
        if move.patch not in self.circle[:OFFER_SIZE]:
            return Illegality("not_offered", player, move.patch, offered=tuple(self.circle[:OFFER_SIZE]))
        if patch.cost > self.buttons[player]:
            return Illegality("too_dear", player, move.patch, price=patch.cost, buttons=self.buttons[player])
        if move.mask & quilt:
            return Illegality("covered", player, move.patch, squares=_square_names(move.mask & quilt))
        return None

    def why_illegal(self, move: Move) -> str | None:
        """Return the rule ``move`` breaks here, in English, or ``None`` when it is legal (see :meth:`illegality`)."""
        found = self.illegality(move)
        return None if found is None else found.text()

    def effect(self, move: Move | str) -> MoveEffect:
        """What ``move`` does from here (see :class:`MoveEffect`), checking every rule as :meth:`play` does.

        >>> start = Position.initial(circle=[*range(1, 33), 0], first_player=0)
        >>> effect = start.effect("A")
        >>> effect.spaces, effect.advance_buttons, effect.income, effect.patch
        (1, 1, 0, None)
        """
        return _effect(self, Move.from_text(move) if isinstance(move, str) else move)

    def play(self, move: Move | str) -> Position:
        """Return the position after ``move`` (or its text), checking every rule.

        >>> start = Position.initial(circle=[*range(1, 33), 0], first_player=0)
        >>> start.play("A").times
        (1, 0)
        >>> start.play("4R0@a1")
        Traceback (most recent call last):
        ...
        quiltmaker.IllegalMoveError: 4R0@a1 is illegal: patch 4 is not among the next three patches (on offer: 1, 2, 3)

        Raises:
            InvalidMoveError: Text that is not a move.
            IllegalMoveError: A move the rules forbid here; this position is unchanged.
        """
        if isinstance(move, str):
            move = Move.from_text(move)
        if not move.exists:
            raise InvalidMoveError(f"{tuple(move)!r} is not a move of the game: use the Move constructors")
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"{move.text()} is illegal: {reason}")
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> Position:
        """Return the position after ``move`` without checking it.

        For search: ``move`` must come from :meth:`legal_moves` of this very
        position, or the result is meaningless.
        """
        player = self.to_move
        assert player is not None, "no move can be played once the game is over"
        quilts = self.quilts
        bonus = self.bonus
        if move.kind == SPECIAL:
            quilt = quilts[player] | move.mask
            if bonus == NO_BONUS and _earns_bonus(quilt):
                bonus = player
            return self._replace(quilts=_pair(quilts, player, quilt), bonus=bonus, pending=self.pending - 1)

        start = self.times[player]
        buttons = self.buttons[player]
        income = self.income[player]
        quilt = quilts[player]
        circle = self.circle
        if move.kind == ADVANCE:
            end = min(self.times[1 - player] + 1, LAST_SPACE)
            buttons += end - start
        else:
            assert move.patch is not None
            patch = PATCHES[move.patch]
            index = circle.index(move.patch)
            circle = circle[index + 1 :] + circle[:index]
            buttons -= patch.cost
            income += patch.income
            quilt |= move.mask
            if bonus == NO_BONUS and _earns_bonus(quilt):
                bonus = player
            end = min(start + patch.time, LAST_SPACE)

        # Events of the spaces crossed: income once per income space (the
        # patch just bought counts), then any special patches still there.
        buttons += (INCOME_UP_TO[end] - INCOME_UP_TO[start]) * income
        specials = self.specials
        pending = 0
        crossed = specials & _CROSSED[start][end]
        if crossed:
            specials ^= crossed
            # Each special patch fills one square; those without a square are discarded.
            pending = min(crossed.bit_count(), SQUARES - quilt.bit_count())
        return Position(
            self.variant,
            circle,
            _pair(self.times, player, end),
            _pair(self.buttons, player, buttons),
            _pair(self.income, player, income),
            _pair(quilts, player, quilt),
            player,
            specials,
            bonus,
            pending,
        )

    # Scores ----------------------------------------------------------------

    def empty_squares(self, player: int) -> int:
        """Uncovered squares on ``player``'s quilt."""
        return SQUARES - self.quilts[player].bit_count()

    def score(self, player: int) -> int:
        """Buttons, plus 7 with the bonus tile, minus 2 per empty square (final once the game is over)."""
        return self.score_rows(player).total

    def score_rows(self, player: int) -> Score:
        """``player``'s score as the rules add it up: every interface words these rows, none adds them itself."""
        empty = self.empty_squares(player)
        return Score(self.buttons[player], BONUS_POINTS if self.bonus == player else 0, empty, -EMPTY_SQUARE_PENALTY * empty)

    def income_spaces_ahead(self, player: int) -> tuple[int, ...]:
        """The income spaces still ahead of ``player``'s token: each pays the player's income once more."""
        space = self.times[player]
        return tuple(s for s in time_track(self.variant).income_spaces if s > space)

    @property
    def scores(self) -> tuple[int, int]:
        """Both players' scores as things stand."""
        return self.score(0), self.score(1)

    @property
    def winner(self) -> int | None:
        """The winner once the game is over (else ``None``): the higher score, then whoever reached 53 first."""
        if not self.is_over:
            return None
        s0, s1 = self.scores
        if s0 != s1:
            return 0 if s0 > s1 else 1
        return 1 - self.on_top

    @property
    def decided_by_tiebreak(self) -> bool:
        """Whether the game is over with equal scores, so the tie-break decided it."""
        return self.is_over and self.scores[0] == self.scores[1]

    # Text ------------------------------------------------------------------

    def text(self) -> str:
        """The one-line text of this position; :meth:`from_text` rebuilds it exactly.

        Fields, separated by spaces: variant; circle (patch ids, next offered
        first, ``-`` when empty); player 0 and player 1 as
        ``space,buttons,income,quilt`` where the quilt is nine rows top to
        bottom joined by ``/``, each row ``x`` for covered squares and digits
        for runs of empty ones; the player on top; the track spaces still
        holding a special patch (``-`` for none); the bonus holder (``-`` for
        none); special patches pending.

        >>> Position.initial(circle=[*range(1, 33), 0], first_player=0).text()[:40]
        'revised 1,2,3,4,5,6,7,8,9,10,11,12,13,14'
        """
        circle = ",".join(map(str, self.circle)) or "-"
        players = " ".join(
            f"{self.times[p]},{self.buttons[p]},{self.income[p]},{_quilt_text(self.quilts[p])}" for p in (0, 1)
        )
        specials = ",".join(map(str, set_bits(self.specials))) or "-"
        bonus = "-" if self.bonus == NO_BONUS else str(self.bonus)
        return f"{self.variant} {circle} {players} {self.on_top} {specials} {bonus} {self.pending}"

    def _repr_svg_(self) -> str:
        """The position drawn as SVG (what Jupyter shows): see :mod:`quiltmaker.core.svg`."""
        from .svg import position_svg

        return position_svg(self)

    @classmethod
    def from_text(cls, text: str) -> Position:
        """Parse the text written by :meth:`text`.

        Raises:
            InvalidPositionError: Malformed text, or a position the rules could never reach
                in an obvious way (the message says which field).
        """
        if not isinstance(text, str):
            raise InvalidPositionError(f"position text must be a string, not {type(text).__name__}")
        fields = text.split()
        if len(fields) != 8:
            raise InvalidPositionError(
                f"position text has {len(fields)} fields, expected 8: "
                "variant circle player0 player1 on-top specials bonus pending"
            )
        variant, circle_text, p0, p1, top_text, specials_text, bonus_text, pending_text = fields
        track = _track(variant)
        circle = _parse_int_list(circle_text, "circle")
        if len(set(circle)) != len(circle) or not all(0 <= p < PATCH_COUNT for p in circle):
            raise InvalidPositionError(f"circle {circle_text!r} must list distinct patch ids 0..{PATCH_COUNT - 1}")
        players = [_parse_player(p0, 0), _parse_player(p1, 1)]
        in_circle = sum(PATCHES[p].income for p in circle)
        if players[0][2] + players[1][2] + in_circle > ALL_INCOME:
            # Buying moves a patch's income from the circle to a quilt: more than that could never be printed.
            raise InvalidPositionError(
                f"income {players[0][2]} and {players[1][2]} with {in_circle} still in the circle: more than all patches print"
            )
        times = (players[0][0], players[1][0])
        on_top = _parse_choice(top_text, ("0", "1"), "player on top")
        specials_list = _parse_int_list(specials_text, "specials")
        if len(set(specials_list)) != len(specials_list):
            raise InvalidPositionError(f"specials {specials_text!r} lists a space twice")
        if not set(specials_list) <= set(track.special_spaces):
            raise InvalidPositionError(f"specials {specials_text!r}: the {track.name} track has them only on {track.special_spaces}")
        if any(s <= max(times) for s in specials_list):
            raise InvalidPositionError("a special patch a token has already passed cannot still be on the track")
        bonus = _parse_choice(bonus_text, ("-", "0", "1"), "bonus holder")  # "-" gives NO_BONUS
        quilts = (players[0][3], players[1][3])
        for p in (0, 1):
            if bonus == NO_BONUS and _earns_bonus(quilts[p]):
                raise InvalidPositionError(f"player {p} has a covered 7x7 area, so the bonus cannot be unclaimed")
        if bonus != NO_BONUS and not _earns_bonus(quilts[bonus]):
            raise InvalidPositionError(f"player {bonus} holds the bonus without a covered 7x7 area")
        pending = _parse_number(pending_text, "pending specials")
        if pending > SQUARES - quilts[on_top].bit_count() or pending > len(track.special_spaces):
            raise InvalidPositionError(f"{pending} special patches pending do not fit player {on_top}'s quilt")
        specials = sum(1 << s for s in specials_list)
        return cls(
            track.name,
            tuple(circle),
            times,
            (players[0][1], players[1][1]),
            (players[0][2], players[1][2]),
            quilts,
            on_top,
            specials,
            bonus,
            pending,
        )

    def __repr__(self) -> str:
        return f"Position.from_text({self.text()!r})"

    def __str__(self) -> str:
        return self.text()

    # Analysis helpers --------------------------------------------------------

    def perft(self, depth: int) -> int:
        """Count the move sequences of ``depth`` moves from here (ended games count as leaves)."""
        if depth == 0 or self.is_over:
            return 1
        moves = self.legal_moves()
        if depth == 1:
            return len(moves)
        return sum(self.play_unchecked(m).perft(depth - 1) for m in moves)


ADVANCE_MOVE = Move.advance()
"""The advance move, shared."""


def _track(variant: str):  # type: ignore[no-untyped-def]
    try:
        return time_track(variant)
    except ValueError as error:
        raise InvalidPositionError(str(error)) from None


def _square_names(mask: int) -> tuple[str, ...]:
    return tuple(square_name(r, c) for r, c in mask_to_cells(mask))


# A server words each move's effect twice (the move list's sentence, the last move's marks), and positions and moves
# are values: the latest effects are kept.
@functools.lru_cache(maxsize=1024)
def _effect(self: Position, move: Move) -> MoveEffect:
    after = self.play(move)
    player = self.to_move
    assert player is not None
    spaces = after.times[player] - self.times[player]
    advance_buttons = spaces if move.kind == ADVANCE else 0
    cost = PATCHES[move.patch].cost if move.patch is not None else 0
    income = after.buttons[player] - self.buttons[player] - advance_buttons + cost
    specials = after.pending if after.pending and not self.pending else 0
    bonus = after.bonus == player and self.bonus == NO_BONUS
    track = _track(self.variant)
    crossed = _CROSSED[self.times[player]][after.times[player]]
    income_spaces = tuple(s for s in track.income_spaces if crossed >> s & 1)
    specials_taken = tuple(s for s in track.special_spaces if self.specials >> s & 1 and not after.specials >> s & 1)
    return MoveEffect(
        move, player, after, spaces, advance_buttons, move.patch, cost, income, specials, bonus, income_spaces, specials_taken
    )


def _row_text(bits: int) -> str:
    """One row of a quilt's text: ``x`` for each covered square, the length of each run of empty ones."""
    out, run = [], 0
    for col in range(BOARD_SIZE):
        if bits >> col & 1:
            if run:
                out.append(str(run))
                run = 0
            out.append("x")
        else:
            run += 1
    if run:
        out.append(str(run))
    return "".join(out)


_ROW_TEXTS = tuple(_row_text(bits) for bits in range(1 << BOARD_SIZE))  # every row's text, by its squares' bits
_ROW = (1 << BOARD_SIZE) - 1


def _quilt_text(quilt: int) -> str:
    return "/".join([_ROW_TEXTS[quilt >> shift & _ROW] for shift in range(0, SQUARES, BOARD_SIZE)])


def _parse_quilt(text: str, player: int) -> int:
    rows = text.split("/")
    if len(rows) != BOARD_SIZE:
        raise InvalidPositionError(f"player {player}'s quilt {text!r} must have {BOARD_SIZE} rows separated by '/'")
    quilt = 0
    for r, row in enumerate(rows):
        col = 0
        for ch in row:
            if ch == "x":
                if col < BOARD_SIZE:
                    quilt |= 1 << (r * BOARD_SIZE + col)
                col += 1
            elif ch in "123456789":
                col += int(ch)
            else:
                raise InvalidPositionError(f"player {player}'s quilt row {row!r}: use 'x' for covered squares, 1-9 for empty runs")
        if col != BOARD_SIZE:
            raise InvalidPositionError(f"player {player}'s quilt row {row!r} has {col} squares, not {BOARD_SIZE}")
    return quilt


def _parse_player(text: str, player: int) -> tuple[int, int, int, int]:
    parts = text.split(",")
    if len(parts) != 4:
        raise InvalidPositionError(f"player {player} {text!r} must be space,buttons,income,quilt")
    space, buttons, income = (_parse_number(p, f"player {player}'s space, buttons and income") for p in parts[:3])
    if space > LAST_SPACE:
        raise InvalidPositionError(f"player {player} is on space {space}; the track ends at {LAST_SPACE}")
    if income > ALL_INCOME:
        raise InvalidPositionError(f"player {player} has income {income}, more than all patches together")
    # The most buttons the rest of the game could still bring (a space each, all income at every income
    # space ahead) must fit the text: so every position after this one can be written and read back too.
    still = LAST_SPACE - space + ALL_INCOME * (INCOME_UP_TO[LAST_SPACE] - INCOME_UP_TO[space])
    if buttons + still > MAX_NUMBER:
        raise InvalidPositionError(
            f"player {player} holds {buttons} buttons: with what the rest of the game can bring, more than a position can hold"
        )
    return space, buttons, income, _parse_quilt(parts[3], player)


_NUMBER = re.compile(r"[0-9]{1,4}")  # ASCII only: str.isdigit() also accepts '²'
MAX_NUMBER = 9999
"""What _NUMBER reads."""
ALL_INCOME = sum(p.income for p in PATCHES)
"""The most income a quilt can print."""


def _parse_number(text: str, what: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidPositionError(f"{what}: {text!r} is not a number of at most 4 digits")
    return int(text)


def _parse_int_list(text: str, what: str) -> list[int]:
    if text == "-":
        return []
    return [_parse_number(part, what) for part in text.split(",")]


def _parse_choice(text: str, allowed: Iterable[str], what: str) -> int:
    if text not in allowed:
        raise InvalidPositionError(f"{what} {text!r} must be one of {', '.join(allowed)}")
    return int(text) if text.isdigit() else -1
