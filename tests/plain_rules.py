"""A deliberately plain, independent implementation of the Patchwork rules.

This module exists only as a reference for differential tests against the
fast engine in ``quiltmaker``. It shares no code with it: quilts are 9x9
lists of lists, the circle is a list, and every rule is a straightforward
loop written from ``shared/RULES.md``. Clarity matters more than speed here.

Moves are plain tuples:

* ``("advance",)``
* ``("buy", patch_id, frozenset({(r, c), ...}))``: the squares the patch covers.
* ``("special", (r, c))``: where a special 1x1 patch goes.
"""

from __future__ import annotations

BOARD_SIZE = 9
LAST_SPACE = 53
INCOME_SPACES = [5, 11, 17, 23, 29, 35, 41, 47, 53]
STARTING_BUTTONS = 5
BONUS_SIZE = 7
BONUS_POINTS = 7
EMPTY_PENALTY = 2


def shape_cells(shape: list[str]) -> list[tuple[int, int]]:
    """Turns a shape drawn as rows of '#' and '.' into a list of cells.

    Args:
        shape: Rows of the patch; '#' marks a covered square.

    Returns:
        The (row, column) of every '#', in reading order.
    """
    cells = []
    for r, row in enumerate(shape):
        for c, ch in enumerate(row):
            if ch == "#":
                cells.append((r, c))
    return cells


def normalize(cells: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Shifts cells so the smallest row and column are 0, then sorts them.

    Args:
        cells: Any list of (row, column) pairs.

    Returns:
        A sorted tuple, so equal shapes compare equal.
    """
    min_r = min(r for r, _ in cells)
    min_c = min(c for _, c in cells)
    return tuple(sorted((r - min_r, c - min_c) for r, c in cells))


def orientations(cells: list[tuple[int, int]]) -> list[tuple[tuple[int, int], ...]]:
    """Lists the distinct rotations and mirror images of a shape.

    Args:
        cells: The shape's cells.

    Returns:
        Each distinct orientation once, normalised to the top-left corner.
    """
    found = []
    current = list(cells)
    for _ in range(4):
        # Rotate a quarter turn: (r, c) -> (c, -r).
        current = [(c, -r) for r, c in current]
        for candidate in (current, [(r, -c) for r, c in current]):
            shape = normalize(candidate)
            if shape not in found:
                found.append(shape)
    return found


class PlainGame:
    """One two-player game of Patchwork, played move by move.

    Args:
        circle: All 33 patch ids; ``circle[0]`` is offered first and
            ``circle[-1]`` is patch 0 (the 1x2).
        first_player: 0 or 1, the player who starts (and counts as on top).
        special_spaces: Time-track spaces holding the special 1x1 patches.
        patches: The "patches" list of the components JSON.
    """

    def __init__(
        self,
        circle: list[int],
        first_player: int,
        special_spaces: list[int],
        patches: list[dict],
    ) -> None:
        self.patches = {}
        for patch in patches:
            self.patches[patch["id"]] = {
                "cost": patch["cost"],
                "time": patch["time"],
                "income": patch["income"],
                "orientations": orientations(shape_cells(patch["shape"])),
            }
        self.circle = list(circle)
        self.specials = sorted(special_spaces)
        self.positions = [0, 0]
        self.buttons = [STARTING_BUTTONS, STARTING_BUTTONS]
        self.income = [0, 0]
        self.quilts = [
            [[False] * BOARD_SIZE for _ in range(BOARD_SIZE)] for _ in range(2)
        ]
        self.bonus: int | None = None
        self.pending_specials = 0
        # The player who moved last; their token is on top of a shared space.
        # At the start the first player counts as on top.
        self.last_mover = first_player
        # Who reached space 53 first, for the tie-break.
        self.first_to_end: int | None = None

    # ----- whose turn ---------------------------------------------------

    def to_move(self) -> int | None:
        """Says who acts next.

        Returns:
            The acting player, or None once the game is over.
        """
        if self.pending_specials > 0:
            # The mover places their special patches before anything else.
            return self.last_mover
        if self.is_over():
            return None
        p0, p1 = self.positions
        if p0 < p1:
            return 0
        if p1 < p0:
            return 1
        # Shared space: the token that arrived last is on top.
        return self.last_mover

    def is_over(self) -> bool:
        """Says whether the game has ended.

        Returns:
            True when both tokens are on 53 and no special patch is pending.
        """
        return (
            self.positions[0] == LAST_SPACE
            and self.positions[1] == LAST_SPACE
            and self.pending_specials == 0
        )

    # ----- quilt helpers ------------------------------------------------

    def empty_squares(self, player: int) -> int:
        """Counts the uncovered squares of a player's quilt.

        Args:
            player: 0 or 1.

        Returns:
            The number of empty squares.
        """
        count = 0
        for row in self.quilts[player]:
            for covered in row:
                if not covered:
                    count += 1
        return count

    def has_full_7x7(self, player: int) -> bool:
        """Says whether any 7x7 area of a player's quilt is fully covered.

        Args:
            player: 0 or 1.

        Returns:
            True if some 7x7 area has no empty square.
        """
        quilt = self.quilts[player]
        last_start = BOARD_SIZE - BONUS_SIZE
        for top in range(last_start + 1):
            for left in range(last_start + 1):
                full = True
                for r in range(top, top + BONUS_SIZE):
                    for c in range(left, left + BONUS_SIZE):
                        if not quilt[r][c]:
                            full = False
                if full:
                    return True
        return False

    def placements(self, player: int, patch_id: int) -> set[frozenset]:
        """Lists every distinct set of squares a patch can cover.

        Args:
            player: Whose quilt.
            patch_id: Which patch.

        Returns:
            One frozenset of (row, column) per distinct legal placement.
        """
        quilt = self.quilts[player]
        result = set()
        for shape in self.patches[patch_id]["orientations"]:
            height = max(r for r, _ in shape) + 1
            width = max(c for _, c in shape) + 1
            for top in range(BOARD_SIZE - height + 1):
                for left in range(BOARD_SIZE - width + 1):
                    fits = True
                    for r, c in shape:
                        if quilt[top + r][left + c]:
                            fits = False
                            break
                    if fits:
                        cells = [(top + r, left + c) for r, c in shape]
                        # A set, so orientations covering the same squares
                        # (symmetric patches) count once.
                        result.add(frozenset(cells))
        return result

    # ----- moves --------------------------------------------------------

    def legal_moves(self) -> set[tuple]:
        """Lists the legal moves of the acting player.

        Returns:
            Every distinct move once; empty when the game is over.
        """
        player = self.to_move()
        if player is None:
            return set()
        moves: set[tuple] = set()
        if self.pending_specials > 0:
            for r in range(BOARD_SIZE):
                for c in range(BOARD_SIZE):
                    if not self.quilts[player][r][c]:
                        moves.add(("special", (r, c)))
            return moves
        moves.add(("advance",))
        # Only the next three patches of the circle are offered.
        for patch_id in self.circle[:3]:
            if self.patches[patch_id]["cost"] > self.buttons[player]:
                continue
            for cells in self.placements(player, patch_id):
                moves.add(("buy", patch_id, cells))
        return moves

    def play(self, move: tuple) -> None:
        """Plays one move for the acting player.

        Args:
            move: A move as returned by legal_moves().

        Raises:
            ValueError: If the move is not legal now; the state is unchanged.
        """
        try:
            legal = move in self.legal_moves()
        except TypeError:  # unhashable junk is simply not a legal move
            legal = False
        if not legal:
            raise ValueError(f"illegal move: {move!r}")
        player = self.to_move()
        assert player is not None
        kind = move[0]
        if kind == "special":
            r, c = move[1]
            self.quilts[player][r][c] = True
            self.pending_specials -= 1
            self.check_bonus(player)
        elif kind == "advance":
            opponent = 1 - player
            target = min(self.positions[opponent] + 1, LAST_SPACE)
            # One button per space actually moved.
            self.buttons[player] += target - self.positions[player]
            self.move_token(player, target)
        else:
            _, patch_id, cells = move
            patch = self.patches[patch_id]
            # Pay from buttons held before the move (checked by legal_moves).
            self.buttons[player] -= patch["cost"]
            index = self.circle.index(patch_id)
            self.circle = self.circle[index + 1 :] + self.circle[:index]
            for r, c in cells:
                self.quilts[player][r][c] = True
            # The patch's income counts for income crossed during this move.
            self.income[player] += patch["income"]
            self.check_bonus(player)
            target = min(self.positions[player] + patch["time"], LAST_SPACE)
            self.move_token(player, target)
        # Specials that cannot fit on the quilt are discarded.
        self.pending_specials = min(self.pending_specials, self.empty_squares(player))

    def check_bonus(self, player: int) -> None:
        """Awards the 7x7 bonus if nobody holds it and the player earned it.

        Args:
            player: The player who just placed a patch.
        """
        if self.bonus is None and self.has_full_7x7(player):
            self.bonus = player

    def move_token(self, player: int, target: int) -> None:
        """Moves a token forward and resolves every marked space crossed.

        Args:
            player: Whose token.
            target: The space it ends on (already clamped to 53).
        """
        start = self.positions[player]
        for space in range(start + 1, target + 1):
            if space in INCOME_SPACES:
                self.buttons[player] += self.income[player]
            if space in self.specials:
                # The special patch leaves the track for both players.
                self.specials.remove(space)
                self.pending_specials += 1
        self.positions[player] = target
        self.last_mover = player
        if target == LAST_SPACE and self.first_to_end is None:
            self.first_to_end = player

    # ----- results ------------------------------------------------------

    def scores(self) -> list[int]:
        """Scores both players as things stand.

        Returns:
            Buttons + 7 for the bonus - 2 per empty square, for each player.
        """
        result = []
        for player in range(2):
            score = self.buttons[player] - EMPTY_PENALTY * self.empty_squares(player)
            if self.bonus == player:
                score += BONUS_POINTS
            result.append(score)
        return result

    def winner(self) -> int:
        """Names the winner.

        Returns:
            The player with the higher score; on a tie, the one who reached
            space 53 first.
        """
        s0, s1 = self.scores()
        if s0 > s1:
            return 0
        if s1 > s0:
            return 1
        assert self.first_to_end is not None, "tie-break needs someone on 53"
        return self.first_to_end

    def snapshot(self) -> dict:
        """Describes the position in plain values, for comparisons.

        Returns:
            A dict with positions, buttons, income, quilts (frozensets of
            covered squares), circle, specials, bonus, pending_specials and
            to_move.
        """
        quilts = []
        for quilt in self.quilts:
            covered = set()
            for r in range(BOARD_SIZE):
                for c in range(BOARD_SIZE):
                    if quilt[r][c]:
                        covered.add((r, c))
            quilts.append(frozenset(covered))
        return {
            "positions": list(self.positions),
            "buttons": list(self.buttons),
            "income": list(self.income),
            "quilts": quilts,
            "circle": list(self.circle),
            "specials": sorted(self.specials),
            "bonus": self.bonus,
            "pending_specials": self.pending_specials,
            "to_move": self.to_move(),
        }
