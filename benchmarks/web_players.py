"""People playing online at a human pace: N players find each other by quick match, play with clocks and chat.

Run: ``python benchmarks/web_players.py [--players 1000] [--think 3] [--moves 16] [--processes 1] [--direct]
[--clients 1] [--server-cpus 1] [--postgres] [--nginx]``.

Starts ``--processes`` real ``quiltmaker serve`` processes on one fresh
SQLite database (``--postgres``: a throwaway PostgreSQL server) and, for more
than one, a real Redis between them; ``--nginx`` puts deploy/nginx.conf in
front of them, and every player goes through it. Once the servers are idle
(their AI workers have loaded the search: ``settled_s`` says how long that
took), every player arrives at a
random moment over ``--arrive`` seconds, joins the quick-match queue for
``10+5`` and polls each second, as the page does, until the server pairs
them (``--direct``: the games are made over HTTP first, and each player just
opens its socket when it arrives); the pairing time is from joining the
queue to holding a seat. Then each player, when the state says it is their
turn, thinks for a random time around ``--think`` seconds and sends a random
legal move, and every ``--chat-every`` moves of a game says something in its
chat. It measures, for every move, the time from sending it to its ``ack``
(checked, committed with an fsync, broadcast) and until the *opponent's*
socket has the new state (across processes when the two sit on different
ones), and the server processes' CPU time per move.

The players run in ``--clients`` processes of their own (aiohttp on uvloop).
``--server-cpus N`` keeps the servers and the services beside them (Redis,
PostgreSQL, nginx) on the first N CPUs and the players on the others, so that
the players' work does not count against the server's; the clients' CPU
share is printed, to show they were not the bottleneck. ``--players 200
--arrive 0 --moves 0`` is a burst of 200 seeks at once. Prints one JSON
object; docs/benchmarks.md ("Capacity") quotes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import uvloop
from web_load import legal_texts  # the page's way of listing moves: from the state, no rules

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPOSITORY / "tests"), str(REPOSITORY / "tests" / "web")]
from services import RedisServer, nginx, postgres  # noqa: E402  (the tests' real services, started the same way)
from web_helpers import start_server  # noqa: E402

LIMITS = [  # one address for all
    "--create-limit", "1000000/minute", "--intent-limit", "1000000/second", "--chat-limit", "1000000/minute",
    "--hello-limit", "1000000/second", "--offer-limit", "1000000/second", "--sockets-per-client", "1000000",
]
CHAT = ["good luck", "thinking…", "nice patch", "well played"]


class Figures:
    """What one client process saw; merged across processes (their perf_counter is the machine's monotonic clock)."""

    def __init__(self) -> None:
        self.pairing: list[float] = []
        self.chat = 0
        self.ack: list[float] = []
        self.ack_sent: list[float] = []  # when each move of ``ack`` was sent (perf_counter), to tell the arrival from the rest
        self.errors: list[str] = []
        self.sent: dict[str, float] = {}  # "game/version the move makes" -> when it was sent
        self.arrived: dict[str, float] = {}  # the same key -> when the opponent's socket had it
        self.probes: list[tuple[float, float]] = []  # (sent, seconds to answer) of a trivial request every 0.1 s


async def post(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> dict[str, Any]:
    """A POST, tried again (as a browser does) when a kept-alive connection turns out closed before any answer."""
    for attempt in range(3):
        try:
            async with session.post(url, json=body) as response:
                return await response.json()  # type: ignore[no-any-return]
        except aiohttp.ClientConnectionError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


async def paired(session: aiohttp.ClientSession, url: str, figures: Figures) -> tuple[str, str, int]:
    """Join the quick-match queue for 10+5 and wait to be paired, polling as the page does (the server holds a poll up to a second)."""
    asked = time.perf_counter()
    seek = await post(session, f"http://{url}/api/quickmatch", {"clock": "10+5"})
    if seek.get("paired"):  # someone was waiting for exactly this: the seat came with the answer, as the page takes it
        figures.pairing.append(time.perf_counter() - asked)
        return seek["paired"]["game"], seek["paired"]["token"], seek["paired"]["seat"]
    while True:
        answer = await post(session, f"http://{url}/api/quickmatch/{seek['seek']}/poll", {"secret": seek["secret"]})
        if answer.get("matched"):
            figures.pairing.append(time.perf_counter() - asked)
            return answer["game"], answer["token"], answer["seat"]
        await asyncio.sleep(0.1)


async def player(
    session: aiohttp.ClientSession, url: str, game: str, token: str, seat: int, options: dict[str, Any], rng: random.Random, figures: Figures
) -> None:
    """Play one seat: a random legal move some seconds after each state that gives this seat the turn."""
    moves, think, chat_every = options["moves"], options["think"], options["chat_every"]
    async with session.ws_connect(f"ws://{url}/ws/games/{game}", max_msg_size=2**22) as ws:
        await ws.send_str(json.dumps({"type": "hello", "token": token}))
        state: dict[str, Any] | None = None
        moved_at = -1
        while True:
            message = json.loads(await ws.receive_str())
            kind = message["type"]
            if kind == "state":
                # (The first state greets the socket: a move made before this player arrived is not news arriving.)
                if state is not None and message["state"]["moves"] and message["state"]["moves"][-1]["player"] != seat:
                    figures.arrived.setdefault(f"{game}/{message['state']['version']}", time.perf_counter())
                state = message["state"]
            elif kind == "error":
                figures.errors.append(f"{message['code']}: {message['message']}")
                if message["code"] not in ("stale",):
                    return
            if state is None:
                continue
            if state["result"] is not None or len(state["moves"]) >= moves:
                return
            if state["to_move"] != seat or state["version"] == moved_at or state["status"] != "playing":
                continue
            moved_at = state["version"]
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
            if chat_every and len(state["moves"]) % chat_every == seat:
                await ws.send_str(json.dumps({"type": "chat", "text": rng.choice(CHAT)}))
                figures.chat += 1
            move = rng.choice(legal_texts(state))
            started = time.perf_counter()
            figures.sent[f"{game}/{state['version'] + 1}"] = started
            await ws.send_str(json.dumps({"type": "move", "move": move, "version": state["version"], "id": f"{game}-{state['version']}"}))
            while True:
                reply = json.loads(await ws.receive_str())
                if reply["type"] == "ack":
                    figures.ack.append(time.perf_counter() - started)
                    figures.ack_sent.append(started)
                    break
                if reply["type"] == "error":
                    figures.errors.append(f"{reply['code']}: {reply['message']}")
                    break
                if reply["type"] == "state":
                    state = reply["state"]


async def probe(session: aiohttp.ClientSession, url: str, figures: Figures, until: asyncio.Event) -> None:
    """A trivial request (the catalogue) every tenth of a second: how long the server takes to answer anything, over time."""
    while not until.is_set():
        sent = time.perf_counter()
        with contextlib.suppress(aiohttp.ClientError):
            async with session.get(f"http://{url}/api/catalogue") as response:
                await response.read()
                figures.probes.append((sent, time.perf_counter() - sent))
        await asyncio.sleep(max(0.0, 0.1 - (time.perf_counter() - sent)))


async def play_share(share: dict[str, Any]) -> Figures:
    """One client process's players: each arrives, is seated (by quick match, or holding a seat already) and plays."""
    figures = Figures()
    rng = random.Random(share["seed"])
    connector = aiohttp.TCPConnector(limit=0)  # as many connections as players: each is a person's browser
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=120)
    patience = share["moves"] * share["think"] * 3 + share["arrive"] + 120  # a player whose opponent stopped stops too, in the end
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()) as session:

        async def one(url: str, seat_held: tuple[str, str, int] | None, seed: float) -> None:
            own = random.Random(seed)
            try:
                async with asyncio.timeout(patience):
                    await asyncio.sleep(own.uniform(0, share["arrive"]))
                    game, token, seat = seat_held or await paired(session, url, figures)
                    await player(session, url, game, token, seat, share, own, figures)
            except (TimeoutError, aiohttp.ClientError, OSError, TypeError) as error:  # TypeError: a close, not a text frame
                figures.errors.append(f"{type(error).__name__}: {error}")

        done = asyncio.Event()
        probing = asyncio.create_task(probe(session, share["players"][0][0], figures, done)) if share["probe"] else None
        await asyncio.gather(*(one(url, None if held is None else tuple(held), rng.random()) for url, held in share["players"]))
        done.set()
        if probing:
            await probing
    return figures


def run_share(share: dict[str, Any]) -> dict[str, Any]:
    """A client process's work (in its own process, on the clients' CPUs): its figures and the CPU it took."""
    if share["cpus"]:
        os.sched_setaffinity(0, share["cpus"])
    # A thousand browsers' sockets in one process: their collector's passes (up to 139 ms seen) would count in
    # every acknowledgement this process times. The players' process is not what is measured: no collector here
    # (what it makes is freed by counting; a run's cycles are a few hundred MB at most).
    gc.disable()
    started = time.perf_counter()
    figures = uvloop.run(play_share(share))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {**vars(figures), "cpu": usage.ru_utime + usage.ru_stime, "seconds": time.perf_counter() - started}


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its waited-for children so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """A process and every process under it (AI workers, PostgreSQL's backends), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            children.setdefault(int(stat.read_text().rsplit(")", 1)[1].split()[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        process = todo.pop()
        tree.append(process)
        todo.extend(children.get(process, []))
    return tree


def pin_tree(pid: int, cpus: set[int]) -> None:
    """Keep a process, every thread of it and every process under it on ``cpus``."""
    for process in process_tree(pid):
        for task in Path(f"/proc/{process}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(int(task.name), cpus)


def settle(pids: list[int], quiet: float = 0.05, patience: float = 90.0) -> float:
    """Wait until the servers and everything under them are idle (under ``quiet`` of a CPU over half a second); the
    seconds waited. A server answers before its AI workers have loaded the search: measured in those seconds, the
    players would share the server's CPU with the workers' start-up, which is not the steady state measured here."""
    started = time.perf_counter()

    def used() -> float:
        total = 0.0
        for pid in pids:
            for process in process_tree(pid):
                with contextlib.suppress(OSError):
                    total += cpu_seconds(process)
        return total

    while time.perf_counter() - started < patience:
        before = used()
        time.sleep(0.5)
        if used() - before < quiet * 0.5:
            break
    return round(time.perf_counter() - started, 1)


def quantiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p99_ms": round(1000 * ordered[math.ceil(0.99 * len(ordered)) - 1], 1),  # the nearest rank
        "max_ms": round(1000 * ordered[-1], 1),
    }


def direct_games(urls: list[str], games: int) -> list[tuple[str, tuple[str, str, int]]]:
    """Make the games over HTTP before the clock starts; each seat's address and (game, token, seat)."""
    seats = []
    with httpx.Client(timeout=120) as client:
        for index in range(games):
            host, other = urls[index % len(urls)], urls[(index + 1) % len(urls)]
            created = client.post(f"http://{host}/api/games", json={"mode": "online", "seat": 0, "clock": "10+5"}).json()
            joined = client.post(f"http://{host}/api/games/{created['id']}/join", json={"invite": created["invite"]}).json()
            # The two players of a game on different processes when there are several: their moves cross Redis.
            seats += [(host, (created["id"], created["token"], 0)), (other, (created["id"], joined["token"], 1))]
    return seats


def write_timeline(path: Path, started: float, figures: Figures, samples: list[tuple[float, float]]) -> None:
    """Second by second from the players' start: the moves sent in it and how long their acks took, how long the
    trivial probe took to be answered, and the servers' share of a CPU. A stall shows as a second whose acks and probe
    are slow together (the server held up) or whose acks alone are (one game's path)."""
    seconds: dict[int, dict[str, Any]] = {}
    for ack, sent in zip(figures.ack, figures.ack_sent):
        seconds.setdefault(int(sent - started), {"acks": []})["acks"].append(ack)
    for sent, took in figures.probes:
        seconds.setdefault(int(sent - started), {"acks": []}).setdefault("probes", []).append(took)
    cpu: dict[int, float] = {}
    for (when, used), (then, before) in zip(samples[1:], samples):
        cpu[int(when - started)] = cpu.get(int(when - started), 0.0) + (used - before)
    with path.open("w") as out:
        for second in sorted(seconds):
            acks, probes = seconds[second]["acks"], seconds[second].get("probes", [])
            out.write(json.dumps({
                "s": second, "moves": len(acks),
                "ack_p50_ms": round(1000 * statistics.median(acks), 1) if acks else None,
                "ack_max_ms": round(1000 * max(acks), 1) if acks else None,
                "probe_max_ms": round(1000 * max(probes), 1) if probes else None,
                "server_cpu": round(cpu.get(second, 0.0), 2),
            }) + "\n")


def measure(args: argparse.Namespace, urls: list[str], pids: list[int], client_cpus: list[int]) -> dict[str, Any]:
    """Let the players play; the figures, with the servers' CPU per move."""
    rng = random.Random(args.seed)
    players: list[tuple[str, Any]] = direct_games(urls, args.players // 2) if args.direct else [
        (urls[index % len(urls)], None) for index in range(args.players)
    ]
    options = {"moves": args.moves, "think": args.think, "chat_every": args.chat_every, "arrive": args.arrive, "cpus": client_cpus}
    # Both seats of a game in one client process (the direct games come in pairs of seats).
    shares = [{**options, "seed": rng.random(), "probe": k == 0 and bool(args.timeline),
               "players": players[k * 2 :: args.clients * 2] + players[k * 2 + 1 :: args.clients * 2]}
              for k in range(args.clients)]
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    started = time.perf_counter()
    samples: list[tuple[float, float]] = []  # (when, the servers' CPU seconds so far), every quarter of a second
    sampled = threading.Event()

    def sample() -> None:
        while not sampled.wait(0.25):
            samples.append((time.perf_counter(), sum(cpu_seconds(pid) for pid in pids)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with ProcessPoolExecutor(args.clients, mp_context=get_context("spawn")) as pool:
        results = list(pool.map(run_share, shares))
    elapsed = time.perf_counter() - started
    sampled.set()
    sampler.join()
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    merged = Figures()
    for result in results:
        merged.pairing += result["pairing"]
        merged.ack += result["ack"]
        merged.ack_sent += result["ack_sent"]
        merged.errors += result["errors"]
        merged.chat += result["chat"]
        merged.sent.update(result["sent"])
        merged.arrived.update(result["arrived"])
        merged.probes += [tuple(probe) for probe in result["probes"]]
    if args.timeline:
        write_timeline(Path(args.timeline), started, merged, samples)
    seen = [merged.arrived[key] - sent for key, sent in merged.sent.items() if key in merged.arrived]
    client_cpu = sum(result["cpu"] for result in results)
    return {
        "players": args.players,
        "processes": len(pids),
        "database": "PostgreSQL" if args.postgres else "SQLite",
        "through": "nginx" if args.nginx else "direct to each process",
        "pairing": "created directly" if args.direct else "quick match",
        "pairing_time": quantiles(merged.pairing),
        "chat_lines": merged.chat,
        "think_s": args.think,
        "moves": len(merged.ack),
        "errors": len(merged.errors),
        "error_kinds": dict(Counter(error.split(":")[0] for error in merged.errors)),
        "error_examples": sorted(set(merged.errors))[:3],
        "seconds": round(elapsed, 1),
        "moves_per_s": round(len(merged.ack) / elapsed, 1),
        "ack": quantiles(merged.ack),
        # The moves sent while players still arrive (seeking, pairing and greeting their sockets), and those after.
        "ack_while_arriving": quantiles([ack for ack, sent in zip(merged.ack, merged.ack_sent) if sent - started < args.arrive]),
        "ack_after_arriving": quantiles([ack for ack, sent in zip(merged.ack, merged.ack_sent) if sent - started >= args.arrive]),
        "opponent_sees": quantiles(seen),
        "server_cpu_ms_per_move": round(1000 * cpu / max(1, len(merged.ack)), 2),
        "server_cpu_share": round(cpu / elapsed / (args.server_cpus or os.cpu_count() or 1), 2),
        "client_cpu_share": round(client_cpu / elapsed / max(1, len(client_cpus) or os.cpu_count() or 1), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=16, help="moves per game (fewer if it ends first)")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds a player thinks before each move")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--direct", action="store_true", help="create the games directly instead of through the quick-match queue")
    parser.add_argument("--chat-every", type=int, default=4, help="a chat line every this many moves of a game (0: none)")
    parser.add_argument("--arrive", type=float, default=30.0, help="players arrive at random times over this many seconds")
    parser.add_argument("--clients", type=int, default=1, help="processes the players run in")
    parser.add_argument("--server-cpus", type=int, default=0, help="keep the servers on this many CPUs, the players on the rest (0: anywhere)")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server instead of SQLite")
    parser.add_argument("--nginx", action="store_true", help="every player goes through nginx (deploy/nginx.conf)")
    parser.add_argument("--timeline", help="write a line a second to this file: the acks, a trivial probe's answer time, the servers' CPU")
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if args.server_cpus and args.server_cpus >= len(cpus):
        raise SystemExit(f"--server-cpus must leave the players a CPU: this machine has {len(cpus)}")
    server_cpus, client_cpus = (set(cpus[: args.server_cpus]), cpus[args.server_cpus :]) if args.server_cpus else (set(cpus), [])
    # A socket is a file: lift this process's limit (the servers inherit it) to the hard limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as services:
        data = Path(folder)
        arguments = ["--data", str(data), *LIMITS]
        if args.postgres:
            arguments += ["--database", services.enter_context(postgres())]
        if args.processes > 1:
            redis = RedisServer()
            redis.start()
            services.callback(redis.stop)
            arguments += ["--redis", redis.url]
        servers = [start_server(arguments, data / f"server-{i}.log") for i in range(args.processes)]
        try:
            urls = [f"127.0.0.1:{port}" for _, port in servers]
            if args.nginx:
                (data / "nginx").mkdir()
                urls = [f"127.0.0.1:{services.enter_context(nginx(data / 'nginx', urls))[0]}"]
            pin_tree(os.getpid(), server_cpus)  # every service started so far; then this process goes to the players' side
            for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
                os.sched_setaffinity(int(task.name), client_cpus or server_cpus)
            pids = [process.pid for process, _ in servers]
            settled = settle(pids)
            figures = {**measure(args, urls, pids, client_cpus), "settled_s": settled}
            print(json.dumps(figures), flush=True)
            if figures["errors"]:  # the servers' logs say why
                for log in sorted(data.glob("server-*.log")):
                    print(f"--- {log.name} (end)\n{log.read_text(errors='replace')[-3000:]}", file=sys.stderr)
        finally:
            for process, _ in servers:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 15)
                process.wait(timeout=30)


if __name__ == "__main__":
    main()
