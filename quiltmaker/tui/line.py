"""Playing in the terminal: a printout of the whole position and a move prompt.

Rendering uses rich, which draws colour on a terminal and plain text
elsewhere (pipes, tests), from the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..core import record
from ..core.components import BOARD_SIZE, BONUS_POINTS, BONUS_SIZE, EMPTY_SQUARE_PENALTY, LAST_SPACE, PATCHES, TIME_TRACKS
from ..core.errors import QuiltmakerError
from ..core.game import Game
from ..core.moves import ADVANCE, COLUMNS, SPECIAL, Move, parse_square, square_name
from ..ai.players import Player
from ..core.position import Position

_PALETTE = ["red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan"]


def patch_map(game: Game) -> list[dict[tuple[int, int], int | None]]:
    """For each player, which patch covers each covered square (``None`` for a special patch)."""
    owners: list[dict[tuple[int, int], int | None]] = [{}, {}]
    for player, move in zip(game.movers, game.moves):
        for cell in move.cells:
            owners[player][cell] = move.patch
    return owners


def render_track(position: Position, names: list[str]) -> Text:
    """The time track: income spaces ($), special patches still there (*), both tokens."""
    income = set(TIME_TRACKS[position.variant].income_spaces)
    margin = " " * 16  # name, space number and "top" sit left of the track
    text = Text("Time track" + margin[10:])
    text.append("".join(f"{s // 10 if s % 10 == 0 else ' '}" for s in range(LAST_SPACE + 1)) + "\n", style="dim")
    text.append(margin)
    for space in range(LAST_SPACE + 1):
        if position.specials >> space & 1:
            text.append("*", style="bold magenta")
        elif space in income:
            text.append("$", style="bold yellow")
        else:
            text.append("·", style="dim")
    text.append("\n")
    for player in (0, 1):
        space = position.times[player]
        on_top = position.times[0] == position.times[1] and position.on_top == player
        label = f"{names[player][:9]:<9} {space:>2}{' top' if on_top else ''}"
        text.append(f"{label:<16}" + " " * space + "^\n", style=_player_style(player))
    text.append(margin + "$ pays income, * holds a special patch; top acts first", style="dim")
    return text


def render_quilt(position: Position, player: int, owners: dict[tuple[int, int], int | None]) -> Text:
    """One quilt as a 9x9 grid with square names; each patch drawn in its own colour."""
    text = Text("   " + " ".join(COLUMNS) + "\n", style="dim")
    for row in range(BOARD_SIZE):
        text.append(f"{row + 1:>2} ", style="dim")
        for col in range(BOARD_SIZE):
            if position.quilts[player] >> (row * BOARD_SIZE + col) & 1:
                patch = owners.get((row, col))
                style = "bold white" if patch is None else _PALETTE[patch % len(_PALETTE)]
                text.append("S" if patch is None else "#", style=style)
            else:
                text.append("·", style="dim")
            text.append(" ")
        text.append("\n")
    return text


def render_patch_offer(position: Position, player: int | None) -> Table:
    """The three patches on offer, each with its cost, time, income and every orientation."""
    table = Table(title="On offer (buy one of these three)", show_lines=True, title_justify="left")
    table.add_column("patch")
    table.add_column("cost / time / income")
    table.add_column("orientations (name: shape)")
    for patch_id in position.offered:
        patch = PATCHES[patch_id]
        affordable = player is not None and patch.cost <= position.buttons[player]
        figures = f"{patch.cost} buttons\n{patch.time} spaces\n{patch.income} income"
        if player is not None and not affordable:
            figures += "\n(too dear)"
        table.add_row(Text(str(patch_id), style="bold" if affordable else "dim"), figures, _orientations(patch_id))
    upcoming = ", ".join(map(str, position.circle[3:9]))
    if upcoming:
        table.caption = f"then: {upcoming}{', ...' if len(position.circle) > 9 else ''}"
    return table


def _orientations(patch_id: int) -> Text:
    patch = PATCHES[patch_id]
    drawings = []
    for orientation in patch.orientations:
        grid = [["." for _ in range(orientation.width)] for _ in range(orientation.height)]
        for r, c in orientation.cells:
            grid[r][c] = "#"
        drawings.append([orientation.transform.ljust(max(orientation.width, 2))] + ["".join(row).ljust(2) for row in grid])
    height = max(len(d) for d in drawings)
    lines = []
    for i in range(height):
        lines.append("  ".join((d[i] if i < len(d) else "").ljust(max(len(x) for x in d)) for d in drawings))
    return Text("\n".join(lines))


def render_position(game: Game, names: list[str]) -> Group:
    """Everything a player needs to see: track, both quilts, buttons, score forecast, the offer."""
    position = game.position
    owners = patch_map(game)
    quilts = Table.grid(padding=(0, 4))
    for player in (0, 1):
        quilts.add_column()
    headers = []
    for player in (0, 1):
        bonus = f" +{BONUS_SIZE}x{BONUS_SIZE} bonus" if position.bonus == player else ""
        headers.append(
            Text(
                f"{names[player]} (player {player})\n{position.buttons[player]} buttons, income {position.income[player]}"
                f"{bonus}\nscore now {position.score(player)}",
                style=_player_style(player),
            )
        )
    quilts.add_row(*headers)
    quilts.add_row(render_quilt(position, 0, owners[0]), render_quilt(position, 1, owners[1]))
    parts: list[Text | Table] = [render_track(position, names), Text(""), quilts]
    if not position.is_over:
        parts.append(render_patch_offer(position, position.to_move))
    return Group(*parts)


def describe_move(before: Position, move: Move, subject: str) -> str:
    """A sentence describing ``move`` played from ``before`` by ``subject`` ("You" or a name).

    Raises:
        IllegalMoveError: The move is not legal in ``before``.
    """
    effect = before.effect(move)
    s = "" if subject == "You" else "s"  # verb agreement: "You buy", "greedy buys"
    if move.kind == ADVANCE:
        text = f"advance{s} to space {effect.after.times[effect.player]}, earning {_buttons(effect.advance_buttons + effect.income)}"
    elif move.kind == SPECIAL:
        text = f"place{s} a special patch on {square_name(*move.cells[0])}"
    else:
        text = f"buy{s} patch {move.patch} for {_buttons(effect.cost)} and place{s} it at {move.text()}"
        if effect.income > 0:
            text += f", collecting {_buttons(effect.income)} of income"
    if effect.bonus_earned:
        text += f", and complete{s} a {BONUS_SIZE}x{BONUS_SIZE} square: +{BONUS_POINTS} bonus!"
    if effect.specials_earned:
        count = effect.specials_earned
        text += f", and take{s} {count} special 1x1 patch{'es' if count > 1 else ''} to place"
    return f"{subject} {text}."


def _buttons(count: int) -> str:
    return f"{count} button{'' if count == 1 else 's'}"


def render_final(position: Position, names: list[str]) -> Table:
    """The final scoring: buttons, bonus, empty squares, and the tie-break when it decides."""
    table = Table(title="Final scores", title_justify="left")
    table.add_column("")
    for player in (0, 1):
        table.add_column(names[player], justify="right")
    rows = [position.score_rows(p) for p in (0, 1)]  # the rules add them up; the table only words them
    table.add_row("buttons", *(str(r.buttons) for r in rows))
    table.add_row(f"{BONUS_SIZE}x{BONUS_SIZE} bonus", *(f"+{r.bonus}" if r.bonus else "0" for r in rows))
    table.add_row("empty squares", *(f"{r.empty} x -{EMPTY_SQUARE_PENALTY} = {r.penalty}" for r in rows))
    table.add_row("score", *(str(r.total) for r in rows), style="bold")
    winner = position.winner
    assert winner is not None
    caption = f"{names[winner]} wins"
    if position.decided_by_tiebreak:
        caption += f" on the tie-break: equal scores, and they reached space {LAST_SPACE} first"
    table.caption = caption
    return table


HELP = """Moves:
  A            advance past your opponent, 1 button per space moved
  12R1@e5      buy patch 12 in orientation R1 with its top-left square on e5
               (R0-R3: the printed shape turned 0-3 quarter turns clockwise,
                F0-F3: mirrored first; the offer shows each orientation)
  12@e5,e6,f6  buy patch 12 covering exactly these squares
  e5 or S@e5   place a special 1x1 patch
Commands: moves (list some legal moves), hint (the AI's advice), undo, help, quit"""


def play_in_terminal(
    opponent: Player,
    human_seat: int,
    game: Game,
    save_path: Path | None,
    console: Console,
    read_line: Callable[[str], str] = input,
) -> Game:
    """Run a game of a person against ``opponent`` until it ends or the person quits."""
    names = list(game.players)
    console.print(f"You are player {human_seat} against the {opponent.name} player. Type 'help' for the move notation.")
    if save_path is not None:
        console.print(f"The game is saved after every move to {save_path}; continue it later with --resume.")
        _save(game, save_path)  # from the start, so that --resume always finds it
    shown = -1
    while not game.position.is_over:
        position = game.position
        mover = position.to_move
        assert mover is not None
        if mover != human_seat:
            move = opponent.choose_move(position)
            console.print(Text(describe_move(position, move, names[mover]), style=_player_style(mover)))
            game.play(move)
            _save(game, save_path)
            continue
        if shown != len(game.moves):
            console.print(render_position(game, names))
            shown = len(game.moves)
        why = _why_you_move(position)
        try:
            line = read_line(f"{why} Your move: ").strip()
        except EOFError:
            console.print("\nInput ended; the game is saved." if save_path else "\nInput ended.")
            return game
        if not line:
            continue
        command = line.lower()
        if command in ("quit", "exit", "q"):
            console.print("Game left unfinished" + (f"; resume it with --resume {save_path}." if save_path else "."))
            return game
        if command in ("help", "h", "?"):
            console.print(HELP)
            continue
        if command == "undo":
            _undo_to_human(game, human_seat, console)
            _save(game, save_path)
            shown = -1
            continue
        if command == "hint":
            console.print(_hint(position))
            continue
        if command == "moves":
            console.print(_sample_moves(position))
            continue
        try:
            move = _parse_human_move(position, line)
            description = describe_move(position, move, "You")  # checks the move
            game.play(move)
        except QuiltmakerError as error:
            console.print(Text(f"Not played: {error}", style="bold red"))
            continue
        console.print(description)
        _save(game, save_path)
    console.print(render_position(game, names))
    console.print(render_final(game.position, names))
    return game


def _hint(position: Position) -> str:
    """The best move by a one-second search, with the chances it gives."""
    from ..ai.analysis import analyse_position
    from ..ai.players import Limit

    analysis = analyse_position(position, Limit(time=1.0))
    return (
        f"Hint: {analysis.best_move} (win chance {100 * analysis.win_probability:.0f}%, "
        f"expected final margin {analysis.expected_margin:+.0f})"
    )


def _parse_human_move(position: Position, line: str) -> Move:
    # While placing a special patch, a bare square is enough.
    if position.pending and len(line.strip()) == 2:
        return Move.special(parse_square(line))
    return Move.from_text(line)


def _why_you_move(position: Position) -> str:
    """Why it is the person's turn, in words (the rules decide it: :attr:`Position.turn_cause`)."""
    cause = position.turn_cause
    if cause.kind == "special":
        return "You earned a special 1x1 patch: type the square to place it (e.g. e5)."
    if cause.kind == "behind":
        return f"You are behind on the time track ({cause.space} < {cause.other_space}), so you move."
    if cause.kind == "start":
        return "You start the game."
    return "Your token is on top of your opponent's, so you move."


def _sample_moves(position: Position) -> str:
    moves = position.legal_moves()
    by_kind: dict[str, list[str]] = {}
    for move in moves:
        key = "special" if move.kind == SPECIAL else "advance" if move.kind == ADVANCE else f"patch {move.patch}"
        by_kind.setdefault(key, []).append(move.text())
    lines = [f"{len(moves)} legal moves:"]
    for key, texts in by_kind.items():
        shown = ", ".join(texts[:8])
        lines.append(f"  {key}: {shown}{f' ... ({len(texts)} in all)' if len(texts) > 8 else ''}")
    return "\n".join(lines)


def _undo_to_human(game: Game, human_seat: int, console: Console) -> None:
    """Take back moves until the person's last decision is undone."""
    if game.turn_start(human_seat) is None:
        console.print("Nothing of yours to undo yet.")
        return
    game.undo_turn(human_seat)
    console.print(f"Undone back to move {len(game.moves) + 1}.")


def _save(game: Game, path: Path | None) -> None:
    if path is not None:
        record.save(game, path)


def _player_style(player: int) -> str:
    return "bold cyan" if player == 0 else "bold yellow"
