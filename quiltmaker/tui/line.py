"""Playing in the terminal: a printout of the whole position and a move prompt.

Rendering uses rich, which draws colour on a terminal and plain text
elsewhere (pipes, tests), from the same code. The words are in the language
in use (:mod:`quiltmaker.i18n`); the move notation is the same in every language.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..core import record
from ..core.components import BOARD_SIZE, BONUS_SIZE, EMPTY_SQUARE_PENALTY, LAST_SPACE, PATCHES, TIME_TRACKS
from ..core.errors import QuiltmakerError
from ..core.game import Game
from ..core.moves import ADVANCE, COLUMNS, SPECIAL, Move, parse_square
from ..ai.players import Player
from ..core.position import Position
from .. import i18n
from ..i18n import N_, _, ngettext
from ..words import buttons, illegal, move_summary, percent, spaces
from .model import shown_names

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
    top = _("top")
    width = max(16, 14 + len(top))  # name, space number and "top" sit left of the track
    margin = " " * width
    text = Text(_("Time track")[: width - 1].ljust(width))
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
        label = f"{names[player][:9]:<9} {space:>2} {top if on_top else ''}"
        text.append(f"{label:<{width}}" + " " * space + "^\n", style=_player_style(player))
    text.append(margin + _("$ pays income, * holds a special patch; top acts first"), style="dim")
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
    table = Table(title=_("On offer (buy one of these three)"), show_lines=True, title_justify="left")
    table.add_column(_("patch"))
    table.add_column(_("cost / time / income"))
    table.add_column(_("orientations (name: shape)"))
    for patch_id in position.offered:
        patch = PATCHES[patch_id]
        affordable = player is not None and patch.cost <= position.buttons[player]
        figures = "\n".join([buttons(patch.cost), spaces(patch.time), _("{n} income").format(n=patch.income)])
        if player is not None and not affordable:
            figures += "\n" + _("(too dear)")
        table.add_row(Text(str(patch_id), style="bold" if affordable else "dim"), figures, _orientations(patch_id))
    upcoming = ", ".join(map(str, position.circle[3:9]))
    if upcoming:
        table.caption = _("then: {patches}").format(patches=upcoming + (", ..." if len(position.circle) > 9 else ""))
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
        lines = [
            _("{name} (player {player})").format(name=names[player], player=player),
            _("{buttons}, income {income}").format(buttons=buttons(position.buttons[player]), income=position.income[player]),
            _("score now {score}").format(score=position.score(player)),
        ]
        if position.bonus == player:
            lines[1] += " " + _("+{size}x{size} bonus").format(size=BONUS_SIZE)
        headers.append(Text("\n".join(lines), style=_player_style(player)))
    quilts.add_row(*headers)
    quilts.add_row(render_quilt(position, 0, owners[0]), render_quilt(position, 1, owners[1]))
    parts: list[Text | Table] = [render_track(position, names), Text(""), quilts]
    if not position.is_over:
        parts.append(render_patch_offer(position, position.to_move))
    return Group(*parts)


def describe_move(before: Position, move: Move, name: str) -> str:
    """A line saying what ``move``, played from ``before`` by the player called ``name``, did: the name, then its summary.

    Raises:
        IllegalMoveError: The move is not legal in ``before``.
    """
    summary = move_summary(before, move)  # checks the move
    return _("{name}: {summary} ({move}).").format(name=name, summary=summary, move=move.text())


def render_final(position: Position, names: list[str]) -> Table:
    """The final scoring: buttons, bonus, empty squares, and the tie-break when it decides."""
    table = Table(title=_("Final scores"), title_justify="left")
    table.add_column("")
    for player in (0, 1):
        table.add_column(names[player], justify="right")
    rows = [position.score_rows(p) for p in (0, 1)]  # the rules add them up; the table only words them
    table.add_row(_("buttons"), *(str(r.buttons) for r in rows))
    table.add_row(_("{size}x{size} bonus").format(size=BONUS_SIZE), *(f"+{r.bonus}" if r.bonus else "0" for r in rows))
    table.add_row(_("empty squares"), *(f"{r.empty} x -{EMPTY_SQUARE_PENALTY} = {r.penalty}" for r in rows))
    table.add_row(_("score"), *(str(r.total) for r in rows), style="bold")
    winner = position.winner
    assert winner is not None
    if position.decided_by_tiebreak:
        caption = _("{name} wins on the tie-break: equal scores, and {name} reached space {space} first")
    else:
        caption = _("{name} wins")
    table.caption = caption.format(name=names[winner], space=LAST_SPACE)
    return table


HELP = N_("""Moves:
  A            advance past your opponent, 1 button per space moved
  12R1@e5      buy patch 12 in orientation R1 with its top-left square on e5
               (R0-R3: the printed shape turned 0-3 quarter turns clockwise,
                F0-F3: mirrored first; the offer shows each orientation)
  12@e5,e6,f6  buy patch 12 covering exactly these squares
  e5 or S@e5   place a special 1x1 patch
Commands: moves (list some legal moves), hint (the AI's advice), undo, help, quit""")
def _seat_names() -> list[str]:
    """"player 0" and "player 1", for the rules' refusals: the person was told which player they are."""
    return [_("player {n}").format(n=seat) for seat in (0, 1)]


# The commands, in English and in the language in use: a player may type either.
COMMANDS = {"quit": (N_("quit"), "exit", "q"), "help": (N_("help"), "h", "?"), "undo": (N_("undo"),), "hint": (N_("hint"),), "moves": (N_("moves"),)}


def play_in_terminal(
    opponent: Player,
    human_seat: int,
    game: Game,
    save_path: Path | None,
    console: Console,
    read_line: Callable[[str], str] = input,
) -> Game:
    """Run a game of a person against ``opponent`` until it ends or the person quits."""
    names = shown_names(game.players)
    console.print(_("You are player {seat} against the {opponent} player. Type 'help' for the move notation.").format(seat=human_seat, opponent=opponent.name))
    if save_path is not None:
        console.print(_("The game is saved after every move to {path}; continue it later with --resume.").format(path=save_path))
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
            line = read_line(_("{why} Your move: ").format(why=why)).strip()
        except EOFError:
            console.print("\n" + (_("Input ended; the game is saved.") if save_path else _("Input ended.")))
            return game
        if not line:
            continue
        command = _command(line)
        if command == "quit":
            if save_path:
                console.print(_("Game left unfinished; resume it with --resume {path}.").format(path=save_path))
            else:
                console.print(_("Game left unfinished."))
            return game
        if command == "help":
            console.print(_(HELP))
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
            reason = illegal(position, move, _seat_names())
            if reason is not None:
                reason = _("{move} is illegal: {reason}").format(move=move.text(), reason=reason)
            else:
                description = describe_move(position, move, _("You"))
                game.play(move)
        except QuiltmakerError as error:  # not a move of the notation at all
            # The notation's own diagnosis is the core's, in English; another language gets a shorter one of its own.
            same = i18n.language() == i18n.SOURCE
            reason = str(error) if same else _("{text} is not a move: type 'help' for the notation").format(text=repr(line))
        if reason is not None:
            console.print(Text(_("Not played: {reason}").format(reason=reason), style="bold red"))
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
    return _("Hint: {move} (win chance {chance}, expected final margin {margin})").format(
        move=analysis.best_move, chance=percent(analysis.win_probability), margin=f"{analysis.expected_margin:+.0f}"
    )


def _command(line: str) -> str | None:
    """The command ``line`` names (in English or the language in use), or ``None`` for a move."""
    typed = line.strip().lower()
    return next((command for command, words in COMMANDS.items() if typed in {*words, _(words[0]).lower()}), None)


def _parse_human_move(position: Position, line: str) -> Move:
    # While placing a special patch, a bare square is enough.
    if position.pending and len(line.strip()) == 2:
        return Move.special(parse_square(line))
    return Move.from_text(line)


def _why_you_move(position: Position) -> str:
    """Why it is the person's turn, in words (the rules decide it: :attr:`Position.turn_cause`)."""
    cause = position.turn_cause
    if cause.kind == "special":
        return _("You earned a special 1x1 patch: type the square to place it (e.g. e5).")
    if cause.kind == "behind":
        return _("You are behind on the time track ({space} < {other}), so you move.").format(space=cause.space, other=cause.other_space)
    if cause.kind == "start":
        return _("You start the game.")
    return _("Your token is on top of your opponent's, so you move.")


def _sample_moves(position: Position) -> str:
    moves = position.legal_moves()
    by_kind: dict[str, list[str]] = {}
    for move in moves:
        key = _("special patch") if move.kind == SPECIAL else _("advance") if move.kind == ADVANCE else _("patch {patch}").format(patch=move.patch)
        by_kind.setdefault(key, []).append(move.text())
    lines = [ngettext("{n} legal move:", "{n} legal moves:", len(moves)).format(n=len(moves))]
    for key, texts in by_kind.items():
        shown = ", ".join(texts[:8])
        if len(texts) > 8:
            shown = _("{moves} ... ({n} in all)").format(moves=shown, n=len(texts))
        lines.append(f"  {key}: {shown}")
    return "\n".join(lines)


def _undo_to_human(game: Game, human_seat: int, console: Console) -> None:
    """Take back moves until the person's last decision is undone."""
    if game.turn_start(human_seat) is None:
        console.print(_("Nothing of yours to undo yet."))
        return
    game.undo_turn(human_seat)
    console.print(_("Undone back to move {number}.").format(number=len(game.moves) + 1))


def _save(game: Game, path: Path | None) -> None:
    if path is not None:
        record.save(game, path)


def _player_style(player: int) -> str:
    return "bold cyan" if player == 0 else "bold yellow"
