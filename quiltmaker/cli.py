"""The ``quiltmaker`` command line: play, replay, simulate, perft, bench, match, selfplay, puzzles and the rest.

Bad input (a malformed record, position or option) ends with a one-line
message and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import i18n
from .core.components import BONUS_SIZE, DEFAULT_VARIANT
from .core.errors import InvalidMoveError, InvalidPlayerError, InvalidPositionError, InvalidRecordError, InvalidSeedError, QuiltmakerError
from .core.seeds import check_seed, derived_seed
from .guides import TOPICS, see

# The guide that explains what a failing command's input should have been, by the kind of error.
ERROR_GUIDES: dict[type[QuiltmakerError], str] = {
    InvalidMoveError: "notation", InvalidPositionError: "notation", InvalidRecordError: "records", InvalidPlayerError: "strength",
    InvalidSeedError: "notation",
}  # fmt: skip

# The game's own words (not the notation, nor the tools for researchers) come in the players' languages.
LANGUAGE_HELP = "the language of the game's words (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG; else English)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return status
    except BrokenPipeError:
        # The reader has gone (`quiltmaker analyse ... --json | head -1`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so that the exit's flush says nothing either
        return 141  # 128 + SIGPIPE: what a shell reports for a tool stopped by a closed pipe
    except (QuiltmakerError, OSError, UnicodeDecodeError) as error:
        topic = next((t for kind, t in ERROR_GUIDES.items() if isinstance(error, kind)), None)
        pointer = f" (see: {see(topic)})" if topic else ""
        print(f"quiltmaker {args.command}: {error}{pointer}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiltmaker",
        description="Patchwork: rules engine, players and tools.",
        epilog="Each command's --help says more. The guides come with the package: 'quiltmaker docs' lists them "
        f"({', '.join(TOPICS)}) and 'quiltmaker docs TOPIC' shows one; 'quiltmaker docs reference [NAME]' shows the "
        "API reference, read from the docstrings (the reference site that 'make docs' builds from a checkout holds the same).",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser(
        "play",
        help="play a game in the terminal, full-screen, against an AI player or two people on one keyboard",
        description=f"Opens the full-screen game (see: {see('terminal')}) when run in a terminal; with --plain, "
        "or when standard input is not a terminal, plays line by line, reading moves in the text notation.",
    )
    play.add_argument(
        "--opponent", default="greedy", help="the AI: a level (beginner, casual, strong, expert, max), random, greedy or mcts:... (default: greedy)"
    )
    play.add_argument("--two-players", action="store_true", help="two people on one keyboard instead of the AI (full-screen game)")
    play.add_argument("--plain", action="store_true", help="line-based play: a printout and a move prompt (automatic without a terminal)")
    play.add_argument("--seat", choices=["0", "1", "random"], default="random", help="your seat against the AI (default: random)")
    play.add_argument("--seed", type=_seed, help="seed for the setup and the AI")
    play.add_argument("--variant", default=DEFAULT_VARIANT, help="time track printing: revised (default) or original")
    play.add_argument("--save", type=Path, default=Path("quiltmaker-game.json"), help="record file saved after every move")
    play.add_argument("--resume", type=Path, help="continue the game in this record file")
    play.add_argument("--lang", choices=list(i18n.LANGUAGES), help=LANGUAGE_HELP)
    play.set_defaults(run=_play)

    replay = commands.add_parser("replay", help="check a game record move by move and print the final position")
    replay.add_argument("record", type=Path, help="a record file, JSON or text")
    replay.add_argument("--format", choices=["summary", "json", "text"], default="summary", help="what to print")
    replay.add_argument("--lang", choices=list(i18n.LANGUAGES), help=LANGUAGE_HELP)
    replay.set_defaults(run=_replay)

    simulate = commands.add_parser("simulate", help="play many games between AI players")
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--seed", type=_seed, default=0)
    simulate.add_argument("--players", default="random,greedy", help="two players separated by '/' or ',' (levels, random, greedy, mcts:...)")
    simulate.add_argument("--variant", default=DEFAULT_VARIANT)
    simulate.add_argument("--records", type=Path, help="write one JSON record per game into this folder")
    simulate.set_defaults(run=_simulate)

    perft = commands.add_parser("perft", help="count move sequences to a depth")
    perft.add_argument("depth", type=int)
    perft.add_argument("--position", help="position text (default: the start from --seed)")
    perft.add_argument("--seed", type=_seed, default=0)
    perft.add_argument("--divide", action="store_true", help="count per first move")
    perft.set_defaults(run=_perft)

    analyse = commands.add_parser("analyse", aliases=["analyze"], help="best move, win probability and expected margin")
    analyse.add_argument("target", help="a record file, or a position's one-line text")
    limits = analyse.add_mutually_exclusive_group()
    limits.add_argument("--time", type=float, default=1.0, help="seconds of search per position (default 1)")
    limits.add_argument("--iterations", type=int, help="playouts per position instead of a time")
    analyse.add_argument("--seed", type=_seed, default=0)
    analyse.add_argument("--json", action="store_true", help="print JSON lines, one per position")
    analyse.set_defaults(run=_analyse)

    match = commands.add_parser("match", help="play a match between two players and estimate the Elo difference")
    match.add_argument(
        "a",
        help="player A: a level (beginner, casual, strong, expert, max), random, greedy, mcts, mcts:OPTIONS, "
        f"or engine:COMMAND, any program that speaks the engine protocol (see: {see('engine-protocol')}), e.g. 'engine:./mybot --fast'",
    )
    match.add_argument("b", help="player B, likewise")
    match.add_argument("--games", type=int, default=100, help="games, played in pairs with seats swapped (default 100)")
    match.add_argument(
        "--time", help="time per move for a bare 'mcts' player and for every engine:COMMAND (sent as 'go time'), e.g. 1s or 250ms; levels keep their own"
    )
    match.add_argument("--iterations", type=int, help="playouts per move for a bare 'mcts' player")
    match.add_argument("--seed", type=_seed, default=0, help="seed of the setups and the players' searches (default 0): a match replays from it")
    match.add_argument("--workers", type=int, help="parallel games (default: one per core)")
    match.add_argument("--ray", metavar="ADDRESS", help="run the games on a Ray cluster ('local' starts one here)")
    match.add_argument(
        "--records", type=Path, default=Path("match-records"), help="folder for the game records, one JSON record per game (default ./match-records)"
    )
    match.add_argument("--variant", default=DEFAULT_VARIANT)
    match.add_argument("--resume", action="store_true", help="count the games already in --records instead of playing them again")
    match.add_argument("--json", action="store_true", help="print the summary as JSON")
    match.set_defaults(run=_match)

    selfplay = commands.add_parser(
        "selfplay", help="a player plays itself; write every position's observation, mask, visits and result as training arrays"
    )
    selfplay.add_argument("player", help="what plays both seats: a level (beginner .. max), mcts:OPTIONS, greedy or random")
    selfplay.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    selfplay.add_argument("--out", type=Path, default=Path("selfplay.npz"), help=f"the .npz file to write (default ./selfplay.npz; format: {see('environments')})")
    selfplay.add_argument("--seed", type=_seed, default=0, help="seed of the setups and the searches (default 0): a run replays from it")
    selfplay.add_argument("--workers", type=int, help="parallel games (default: one per core)")
    selfplay.add_argument("--ray", metavar="ADDRESS", help="run the games on a Ray cluster ('local' starts one here)")
    selfplay.add_argument("--variant", default=DEFAULT_VARIANT)
    selfplay.set_defaults(run=_selfplay)

    puzzles = commands.add_parser(
        "puzzles", help=f"make or check puzzles: positions where the exact solver proves the winning move (see: {see('puzzles')})"
    )
    puzzle_commands = puzzles.add_subparsers(dest="action", required=True)
    generate = puzzle_commands.add_parser(
        "generate", help="find puzzles in record files and in games between the AI levels, and write them",
        description="Takes the finished games in --records first (in name order), then the web server's (--data or --database), "
        "then plays games between the levels, "
        "and keeps the late positions the solver proves: the same seed gives the same puzzles.",
    )
    generate.add_argument("--count", type=int, default=300, help="puzzles to find (default 300)")
    generate.add_argument("--seed", type=_seed, default=0, help="seed of the generated games (default 0)")
    generate.add_argument("--out", type=Path, default=Path("puzzles.json"), help="the puzzle file to write (default ./puzzles.json)")
    generate.add_argument("--records", type=Path, help="a folder of record files (JSON or text)")
    served = generate.add_mutually_exclusive_group()
    served.add_argument("--data", type=Path, help="the web server's data folder: its finished games come next (the SQLite database there)")
    served.add_argument("--database", help="the web server's database URL instead (e.g. postgresql+psycopg://...)")
    generate.set_defaults(run=_puzzles_generate)
    verify = puzzle_commands.add_parser("verify", help="solve every puzzle of a file again and check its solutions (exit 1 if one is wrong)")
    verify.add_argument("path", nargs="?", type=Path, help="a puzzle file (default: the set that comes with the package)")
    verify.set_defaults(run=_puzzles_verify)

    engine = commands.add_parser("engine", help=f"speak the engine protocol on stdin/stdout (see: {see('engine-protocol')})")
    engine.add_argument("--seed", type=_seed, default=0)
    engine.set_defaults(run=_engine)

    serve = commands.add_parser("serve", help=f"start the web server: play in the browser (see: {see('web')})")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 takes any free port and prints it)")
    serve.add_argument("--data", type=Path, default=Path("quiltmaker-data"), help="folder of the default SQLite database")
    serve.add_argument("--database", help="SQLAlchemy database URL (default: SQLite in --data), e.g. postgresql+psycopg://...")
    serve.add_argument("--redis", help="Redis URL for pub/sub between several server processes, e.g. redis://localhost:6379/0")
    serve.add_argument("--ai-workers", type=int, default=1, help="worker processes for the moves of the levels that think for seconds (expert, max)")
    serve.add_argument("--quick-workers", type=int, default=1, help="worker processes for the quick levels' moves (beginner, casual, strong), apart from the long searches'")
    serve.add_argument("--advice-workers", type=int, default=1, help="worker processes for hints and analyses, apart from the moves'")
    serve.add_argument(
        "--create-limit", default=None, help="games one address may create, e.g. '30/minute;300/day' (the default)"
    )
    serve.add_argument(
        "--intent-limit", default=None, help="moves, undos and hints one address may send, e.g. '10/second;300/minute' (the default)"
    )
    serve.add_argument("--chat-limit", default=None, help="chat lines one address may send, e.g. '12/minute;300/day' (the default)")
    serve.add_argument(
        "--hello-limit", default=None, help="socket greetings (pages opening a game) one address may send, e.g. '10/second;120/minute' (the default)"
    )
    serve.add_argument("--offer-limit", default=None, help="lobby challenges one address may offer, e.g. '6/hour;20/day' (the default)")
    serve.add_argument("--puzzle-limit", default=None, help="puzzles one account may take, e.g. '12/minute;500/day' (the default)")
    serve.add_argument("--sockets-per-client", type=int, default=None, help="sockets one address may hold open at once (default 64)")
    serve.add_argument(
        "--check-states", action="store_true", help="check every game state against the contract before sending it (the tests do; a fifth of a move's CPU)"
    )
    serve.set_defaults(run=_serve)

    migrate = commands.add_parser(
        "migrate", help=f"bring the web server's database to this version's schema (a server does it as it starts; back up first: {see('web')})"
    )
    migrate.add_argument("--data", type=Path, default=Path("quiltmaker-data"), help="folder of the default SQLite database")
    migrate.add_argument("--database", help="SQLAlchemy database URL (default: SQLite in --data), e.g. postgresql+psycopg://...")
    migrate.add_argument("--check", action="store_true", help="only say where the database stands (exit 1 if it needs migrating)")
    migrate.add_argument("--new", metavar="MESSAGE", help="for developers: write the next migration, drafted from the schema's changes")
    migrate.set_defaults(run=_migrate)

    components = commands.add_parser(
        "components",
        help="print the component data (patches, time track, scoring) as JSON, the file the rules are built from "
        "(as shipped: its time track 'original_printing' is the variant 'original' of positions, records and the engine)",
    )
    components.add_argument("--where", action="store_true", help="print the data file's path instead")
    components.set_defaults(run=_components)

    docs = commands.add_parser(
        "docs", help="show a guide (notation, records, engine-protocol, environments, ...); with no topic, list them"
    )
    docs.add_argument("topic", nargs="?", help=f"one of: {', '.join(TOPICS)}; or reference, the API reference")
    docs.add_argument("name", nargs="?", help="with reference: a module, class or function to show (Position.play, envs.batched.PatchworkBatch)")
    docs.add_argument("--where", action="store_true", help="print the folder that holds the guides and the examples instead")
    docs.set_defaults(run=_docs)

    compile_ = commands.add_parser(
        "compile",
        help="compile the search and the batched environment now (once after installing, about half a minute), "
        "rather than at their first use; later starts load them from numba's cache",
    )
    compile_.set_defaults(run=_compile)

    bench = commands.add_parser("bench", help="measure engine speed on one core")
    bench.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    bench.add_argument("--json", action="store_true", help="print machine-readable figures")
    bench.set_defaults(run=_bench)
    return parser


def _docs(args: argparse.Namespace) -> int:
    from .guides import REFERENCE, guide, guides_folder, reference

    if args.where:
        print(guides_folder())
        return 0
    if args.topic is None:
        width = max(map(len, TOPICS))
        print("The guides (quiltmaker docs TOPIC shows one):")
        for topic, (_, about) in TOPICS.items():
            print(f"  {topic:<{width}}  {about}")
        print(f"  {REFERENCE:<{width}}  the API reference, from the docstrings: quiltmaker docs reference [NAME]")
        print(f"Examples to run: {guides_folder() / 'examples'}")
        return 0
    if args.name is not None and args.topic != REFERENCE:
        raise QuiltmakerError(f"a name goes with 'reference' only: quiltmaker docs reference {args.name}")
    if args.topic == REFERENCE:
        text = reference(args.name)
        if args.name is not None and sys.stdout.isatty():
            import pydoc

            pydoc.pager(text)
        else:
            print(text, end="")
        return 0
    text = guide(args.topic)
    if not sys.stdout.isatty():
        print(text, end="")  # the Markdown itself, to read, grep or save
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console()
    os.environ.setdefault("LESS", "-R")  # less shows the styles rather than their escape codes, as git sets it
    with console.pager(styles=True):
        console.print(Markdown(text))
    return 0


def _play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .i18n import _

    from .core import record
    from .core.game import Game
    from .tui.line import play_in_terminal

    i18n.use(args.lang or i18n.from_environment())  # before the full-screen game is imported: its keys are named then
    full_screen = not args.plain and sys.stdin.isatty() and sys.stdout.isatty()
    if args.two_players and not full_screen:
        raise QuiltmakerError("--two-players needs the full-screen game: run it in a terminal, without --plain")
    rng = random.Random(args.seed)  # checked as a seed by the parser
    human = rng.randrange(2) if args.seat == "random" else int(args.seat)
    opponent = None if args.two_players else _player(args.opponent, args.seed)
    if args.resume:
        game = record.load(args.resume.read_text(encoding="utf-8"))
        human = game.players.index("you") if "you" in game.players else human
        save = args.resume
    else:
        if opponent is None:
            names = ["player 0", "player 1"]
        else:
            names = ["you", opponent.name] if human == 0 else [opponent.name, "you"]
        game = Game.new(args.seed, variant=args.variant, players=names)
        save = args.save
    try:
        if not full_screen:
            assert opponent is not None, "two players need the full-screen game"
            play_in_terminal(opponent, human, game, save, Console(highlight=False))
            return 0
        from .tui import QuiltApp

        app = QuiltApp(game, opponent=opponent, human_seat=human, save_path=save, seed=args.seed or 0)
        app.run()
    finally:
        if opponent is not None:
            opponent.close()  # an outside engine is a process of its own
    if app.save_path is not None:
        print(_("The game is saved in {path}; continue it with: quiltmaker play --resume {path}").format(path=app.save_path))
    return 0


def _replay(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .core import record
    from .i18n import _, ngettext
    from .tui.line import render_final, render_position

    i18n.use(args.lang or i18n.from_environment())
    game = record.load(args.record.read_text(encoding="utf-8"))
    if args.format == "json":
        print(json.dumps(record.to_json(game)))
        return 0
    if args.format == "text":
        print(record.to_text(game), end="")
        return 0
    console = Console(highlight=False)
    count = len(game.moves)
    console.print(ngettext("{record}: {n} move, all legal.", "{record}: {n} moves, all legal.", count).format(record=args.record, n=count))
    console.print(render_position(game, game.players))
    console.print(_("Position: {position}").format(position=game.position.text()), soft_wrap=True)
    if game.position.is_over:
        console.print(render_final(game.position, game.players))
    else:
        scores = game.position.scores
        console.print(
            _("The game is not over; player {player} is to move. Scores now: {first} and {second}.").format(
                player=game.position.to_move, first=scores[0], second=scores[1]
            )
        )
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    from .core import record
    from .ai.players import play_game
    from .core.position import Position

    # Specifications may hold commas themselves (mcts:time=1,playouts=random), so '/' separates first.
    names = args.players.split("/") if "/" in args.players else args.players.split(",")
    if len(names) != 2:
        raise QuiltmakerError(f"--players needs two players separated by '/' or ',', not {args.players!r}")
    if args.games < 1:
        raise QuiltmakerError("--games must be at least 1")
    players = [_player(name, derived_seed(args.seed * 2 + seat)) for seat, name in enumerate(names)]
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    scores, wins = [0, 0], [0, 0]
    moves = bonus = tiebreak = 0
    console = Console(stderr=True)
    for index in track(range(args.games), description="Playing", console=console, transient=True):
        game = play_game(players, Position.initial(derived_seed(args.seed * 1_000_003 + index), variant=args.variant))
        final = game.position
        for seat in (0, 1):
            scores[seat] += final.scores[seat]
        winner = final.winner
        assert winner is not None, "play_game returns finished games"
        wins[winner] += 1
        moves += len(game.moves)
        bonus += final.bonus != -1
        tiebreak += final.decided_by_tiebreak
        if args.records:
            path = args.records / f"game-{index:05d}.json"
            path.write_text(json.dumps(record.to_json(game)) + "\n", encoding="utf-8")
    n = args.games
    table = Table(title=f"{n} games, {names[0]} (seat 0) vs {names[1]} (seat 1), seed {args.seed}")
    table.add_column("")
    table.add_column(f"seat 0: {names[0]}", justify="right")
    table.add_column(f"seat 1: {names[1]}", justify="right")
    table.add_row("mean score", *(f"{scores[s] / n:.2f}" for s in (0, 1)))
    table.add_row("wins", *(f"{wins[s]} ({100 * wins[s] / n:.1f}%)" for s in (0, 1)))
    Console(highlight=False).print(table)
    print(f"mean length: {moves / n:.1f} moves")
    print(f"{BONUS_SIZE}x{BONUS_SIZE} bonus taken: {bonus} games ({100 * bonus / n:.1f}%)")
    print(f"decided by the tie-break: {tiebreak} games")
    if args.records:
        print(f"records written to {args.records}")
    return 0


def _perft(args: argparse.Namespace) -> int:
    from .core.position import Position

    position = Position.from_text(args.position) if args.position else Position.initial(args.seed)
    if args.depth < 0:
        raise QuiltmakerError("depth must be 0 or more")
    if args.divide and args.depth > 0:
        total = 0
        for move in position.legal_moves():
            count = position.play_unchecked(move).perft(args.depth - 1)
            total += count
            print(f"{move.text()}: {count}")
        print(f"total: {total}")
    else:
        print(position.perft(args.depth))
    return 0


def _components(args: argparse.Namespace) -> int:
    from importlib import resources

    data = resources.files("quiltmaker").joinpath("data/patchwork-components.json")
    print(data if args.where else data.read_text("utf-8").rstrip())
    return 0


def _compile(args: argparse.Namespace) -> int:
    import time

    from .ai.mcts import SEARCH_CORE, warm_up
    from .ai.solver import ENDGAME_SOLVER
    from .compiled import said_elsewhere
    from .envs.batched import BATCHED_ENVIRONMENT, PatchworkBatch

    def timed(what: str, work: Callable[[], object]) -> None:
        print(f"{what}…", end=" ", flush=True)
        started = time.perf_counter()
        work()
        print(f"ready ({time.perf_counter() - started:.1f} s)", flush=True)

    for what in (SEARCH_CORE, ENDGAME_SOLVER, BATCHED_ENVIRONMENT):
        said_elsewhere(what)  # this command says it in its own words

    def batch() -> None:
        for illegal in ("lose", "raise"):
            games = PatchworkBatch(2, opponent="greedy", illegal_action=illegal, seed=0)
            games.step(games.random_actions())
            games.reset(seed=[1, 2], rows=[0, 1])

    timed("The search core and the endgame solver (quiltmaker play, analyse, engine, the web server's AI)", warm_up)
    timed("The batched environment (PatchworkBatch, the vector environment)", batch)
    print("Compiled and cached: later starts load it in about a second.")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from .bench import run_benchmarks
    from .ai.mcts import announce_search

    announce_search()
    figures = run_benchmarks(args.seconds)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value:,.0f}" if isinstance(value, (int, float)) else f"{key}: {value}")
    return 0


def _analyse(args: argparse.Namespace) -> int:
    from .core import record
    from .ai.analysis import analyse_game, analyse_position
    from .ai.players import Limit
    from .core.position import Position

    limit = Limit(iterations=args.iterations) if args.iterations else Limit(time=args.time)
    if (args.iterations is not None and args.iterations < 1) or (args.time is not None and not 0 < args.time < math.inf):
        raise QuiltmakerError("the limit must be positive and finite")
    path = Path(args.target)
    if path.is_file():
        game = record.load(path.read_text(encoding="utf-8"))
        results = analyse_game(game, limit, args.seed)
        moves = [m.text() for m in game.moves] + [None]
    else:
        results = [analyse_position(Position.from_text(args.target), limit, args.seed)]
        moves = [None]
    for number, (analysis, played) in enumerate(zip(results, moves)):
        if args.json:
            print(json.dumps({"ply": number, "played": played, **analysis.to_json()}))
            continue
        if analysis.to_move is None:
            print(f"{number:>3}. game over: margin {analysis.expected_margin_player0:+.0f} for player 0")
            continue
        print(
            f"{number:>3}. player {analysis.to_move} to move: best {analysis.best_move:<9} "
            f"win {100 * analysis.win_probability:5.1f}%  margin {analysis.expected_margin:+6.1f}  "
            f"(player 0: {100 * analysis.win_probability_player0:5.1f}%)"
            + (f"  played {played}" if played else "")
        )
    return 0


def _duration(text: str) -> float:
    """Seconds from '1s', '250ms', '1.5' or '2m'."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0}
    for suffix in ("ms", "s", "m"):
        if text.endswith(suffix):
            number, scale = text[: -len(suffix)], units[suffix]
            break
    else:
        number, scale = text, 1.0
    try:
        seconds = float(number) * scale
    except ValueError:
        raise QuiltmakerError(f"{text!r} is not a duration such as 1s or 250ms") from None
    if not 0 < seconds < math.inf:
        raise QuiltmakerError("a duration must be positive and finite")
    return seconds


def _selfplay(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress

    from .envs.selfplay import generate, save

    if args.workers is not None and args.workers < 1:
        raise QuiltmakerError("--workers must be at least 1")
    if args.out.suffix != ".npz":
        raise QuiltmakerError(f"--out must name a .npz file, not {str(args.out)!r}")
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"{args.player} against itself", total=args.games)
        arrays = generate(args.player, args.games, args.seed, args.workers, args.variant, args.ray, lambda: progress.advance(task))
    save(args.out, arrays, args.player, args.seed, args.variant)
    print(f"{args.games} games, {len(arrays['actions'])} positions: {args.out}")
    return 0


def _match(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress

    from .match import run_match

    if args.games < 1:
        raise QuiltmakerError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise QuiltmakerError("--workers must be at least 1")
    move_time = _duration(args.time) if args.time else None
    specs = []
    for spec in (args.a, args.b):
        if spec == "mcts" and move_time is None:
            if args.iterations is None:
                raise QuiltmakerError("a bare 'mcts' player needs --time or --iterations")
            spec = f"mcts:iterations={args.iterations}"
        specs.append(spec)
    console = Console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"{specs[0]} vs {specs[1]}", total=args.games)
        result = run_match(
            (specs[0], specs[1]), args.games, args.seed, args.workers, args.records, args.variant,
            on_game=lambda game: progress.advance(task), move_time=move_time, ray_address=args.ray, resume=args.resume,
        )
    if args.json:
        # JSON has no infinity: an Elo bound that a clean sweep leaves open is written as null.
        summary = {k: _finite_or_none(v) for k, v in result.summary().items()}
        print(json.dumps(summary, allow_nan=False))
        return 0
    elo, low, high = result.elo()
    margin, half = result.margin_interval()
    # The sides are A and B throughout: two players of the same name (strong against strong) stay apart.
    names = result.played_as or specs
    print(f"A: {_side(names[0], specs[0])}")
    print(f"B: {_side(names[1], specs[1])}")
    print(f"{result.games} games, seats swapped on every setup")
    print(f"  A won {result.a_wins} ({100 * result.score:.1f}%), B won {result.games - result.a_wins}")
    print(f"  A's wins by seat: {result.a_wins_by_seat[0]}/{result.games_by_seat[0]} as player 0, "
          f"{result.a_wins_by_seat[1]}/{result.games_by_seat[1]} as player 1")
    if any(result.forfeits):
        print(f"  forfeited (broke the engine protocol; see the records' 'forfeit'): A {result.forfeits[0]}, "
              f"B {result.forfeits[1]}; the margin counts only finished games")
    if not result.margins:
        print("  mean score margin: none (no game was played to its end)")
    elif math.isinf(half):
        print(f"  mean score margin: {margin:+.1f} (one finished game: no interval)")
    else:
        print(f"  mean score margin: {margin:+.1f} (95% interval +/- {half:.1f})")
    print(f"  Elo difference of A over B: {_elo_text(elo)} (95% interval {_elo_text(low)} to {_elo_text(high)})")
    print(f"  records: {args.records}")
    return 0


def _side(name: str, spec: str) -> str:
    """A side of a match as its name and, where they differ, the specification that started it."""
    return name if name == spec else f"{name} ({spec})"


def _elo_text(value: float) -> str:
    """An Elo figure, or what an infinite one means: every game won (or lost), so no finite figure fits."""
    if math.isinf(value):
        return "above any figure (every game won)" if value > 0 else "below any figure (every game lost)"
    return f"{value:+.0f}"


def _puzzles_generate(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console
    from rich.progress import Progress

    from .puzzles import KINDS, generate, save

    if args.count < 1:
        raise QuiltmakerError("--count must be at least 1")
    if args.records is not None and not args.records.is_dir():
        raise QuiltmakerError(f"--records must name a folder, not {str(args.records)!r}")
    command = f"quiltmaker puzzles generate --count {args.count} --seed {args.seed}"
    if args.records is not None:
        command += f" --records {args.records.name}"
    served = None
    if args.data is not None or args.database is not None:
        from .web.db.database import database_url_for
        from .web.round.finished import finished_games

        served = finished_games(args.database or database_url_for(args.data))
        command += " --data ..." if args.data is not None else " --database ..."
    started = time.perf_counter()
    games = 0
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("Finding puzzles", total=args.count)

        def on_game() -> None:
            nonlocal games
            games += 1
            progress.update(task, description=f"Finding puzzles ({games} games)")

        found = generate(args.count, args.seed, args.records, on_puzzle=lambda puzzle: progress.advance(task), on_game=on_game, games=served)
    save(found, args.out, command, args.seed)
    counts = ", ".join(f"{sum(p.kind == kind for p in found)} {kind}" for kind in KINDS)
    print(f"{len(found)} puzzles ({counts}) from {games + 1} games in {time.perf_counter() - started:.0f} s: {args.out}")
    return 0


def _puzzles_verify(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console
    from rich.progress import track

    from .puzzles import KINDS, load, verify

    puzzles = load(args.path)
    started = time.perf_counter()
    problems = []
    for puzzle in track(puzzles, description="Verifying", console=Console(stderr=True), transient=True):
        problems.extend(verify(puzzle))
    ids = [p.id for p in puzzles]
    if len(set(ids)) != len(ids):
        problems.append("some ids are there twice")
    for problem in problems:
        print(problem)
    counts = ", ".join(f"{sum(p.kind == kind for p in puzzles)} {kind}" for kind in KINDS)
    where = args.path or "the shipped set"
    verdict = f"{len(problems)} problems" if problems else "every solution proven"
    print(f"{where}: {len(puzzles)} puzzles ({counts}), {verdict}, in {time.perf_counter() - started:.1f} s")
    return 1 if problems else 0


def _engine(args: argparse.Namespace) -> int:
    from .engine.server import serve

    serve(seed=args.seed)
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        from .web.app import Settings, run_server
        from .web.pubsub import broker_from_url
        from .web.db.database import database_url_for
    except ImportError as error:
        raise QuiltmakerError(f"the web server needs the 'web' extra: pip install 'quiltmaker[web]' ({error})") from None

    url = args.database or database_url_for(args.data)
    settings = Settings(
        database_url=url, broker=broker_from_url(args.redis), ai_workers=max(1, args.ai_workers), quick_workers=max(1, args.quick_workers),
        advice_workers=max(1, args.advice_workers), check_states=args.check_states
    )
    try:
        from limits import parse_many

        for name in ("create_limit", "intent_limit", "chat_limit", "hello_limit", "offer_limit", "puzzle_limit"):
            if getattr(args, name):
                parse_many(getattr(args, name))  # a malformed limit is refused here, not at the first request
                setattr(settings, name, getattr(args, name))
    except ValueError as error:
        raise QuiltmakerError(f"not a rate limit: {error}") from None
    if args.sockets_per_client is not None:
        settings.sockets_per_client = max(1, args.sockets_per_client)
    run_server(settings, args.host, args.port)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    try:
        from .web.db.database import database_url_for, head, migrate, new_revision, revision_at
    except ImportError as error:
        raise QuiltmakerError(f"the web server needs the 'web' extra: pip install 'quiltmaker[web]' ({error})") from None

    if args.new:
        print(f"wrote {new_revision(args.new)}: read it, finish it, and test it (docs/web.md, 'Upgrading')")
        return 0
    url = args.database or database_url_for(args.data)
    if args.check:
        revision = revision_at(url)
        print(f"the database is at schema revision {revision or 'none (never migrated)'}; this version keeps {head()}")
        return 0 if revision == head() else 1
    applied = migrate(url)
    print(f"migrated the database to schema revision {head()}: applied {', '.join(applied)}" if applied else f"the database is at schema revision {head()} already")
    return 0


def _finite_or_none(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        return [_finite_or_none(v) for v in value]
    return value


def _seed(text: str) -> int:
    """The parser's type of every ``--seed``: the package's one rule for seeds (:func:`~quiltmaker.core.seeds.check_seed`)."""
    value: object = text
    try:
        value = int(text)
    except ValueError:
        pass  # refused below, with the same message as any other bad seed
    try:
        return check_seed(value)
    except InvalidSeedError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _player(spec: str, seed: int | None):  # type: ignore[no-untyped-def]
    from .specs import player_from_spec

    return player_from_spec(spec, seed)
