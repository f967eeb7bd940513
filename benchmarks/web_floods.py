"""One client can never slow anyone else: the floods an attack found, each run beside a victim's game.

Run: ``python benchmarks/web_floods.py [--moves 12] [--only max_games,hints] [--json]``.

Starts one real ``quiltmaker serve`` with its default settings and limits (one
worker in each AI lane) on a fresh SQLite database. A victim, on an address
of its own (127.0.0.2), plays a game against ``casual`` and measures, for
each of its moves, the time to its ``ack`` and to the computer's reply (the
state in which it is the victim's turn again). First alone (the baseline),
then beside each flood, run from other loopback addresses:

- ``max_games``: one client plays a dozen games against ``max`` at once,
  moving the instant it may (the AI queue: the victim's reply waited 59 s);
- ``hints``: one client loops hints in 8 games (every reply waited 8 s);
- ``analyses``: one client asks for the analysis of 8 finished games and
  polls them (another player's reply waited 35 s);
- ``hello``: two clients hold 55 sockets each on one game and greet it with
  a seat's token as fast as they can (each greeting re-broadcast the state:
  acknowledgements went from 10 ms to 397 ms);
- ``rematch``: one client resigns and asks for a rematch in a loop (54
  games in 25 s, past the creation quota);
- ``sign_in``: 60 addresses try wrong passwords as fast as they are answered
  (argon2, 64 MiB each: acknowledgements went from 6 ms to 460 ms);
- ``lockout``: one address tries wrong passwords for one account as fast as
  it is answered, while the account's owner signs in every 2 s from the
  address it signed up from (the owner was refused for 3,225 s); the counts
  say how the owner's sign-ins went;
- ``analysis_share``: one address asks for the analyses of 8 finished games
  while another player asks for a hint in a game of their own (that
  player's hints were ``busy`` five times in a row); the counts say how the
  hints went.

The goal: beside every flood, the victim's slowest reply is within 1 s of
its baseline median. Prints a table (or ``--json``); docs/benchmarks.md
quotes it. The clients run in this process, on the same cores as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
from web_load import legal_texts  # the page's way of listing moves: from the state, no rules
from websockets.asyncio.client import ClientConnection, connect

VICTIM = "127.0.0.2"
RUNNING = re.compile(r"quiltmaker is running: open http://[^/]+:(\d+)/")
# A flood: given the server, an event it sets once under way (its own setup done), one that says stop, and its counts.
Flood = Callable[[str, asyncio.Event, asyncio.Event, Counter[str]], Coroutine[Any, Any, None]]


def http(url: str, address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address`` (a loopback address of its own: its own quotas)."""
    return httpx.AsyncClient(
        base_url=f"http://{url}", transport=httpx.AsyncHTTPTransport(local_address=address), timeout=60, headers={"Origin": f"http://{url}"}
    )


def socket_to(url: str, game: str, address: str) -> Any:
    return connect(f"ws://{url}/ws/games/{game}", origin=f"http://{url}", local_addr=(address, 0), max_size=2**22, open_timeout=60)  # type: ignore[arg-type]


async def next_of(ws: ClientConnection, kinds: tuple[str, ...], timeout: float = 60) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] in kinds:
            return message  # type: ignore[no-any-return]


# The victim --------------------------------------------------------------------------------------


async def victim(url: str, moves: int, rng: random.Random) -> dict[str, list[float]]:
    """Play ``moves`` moves against casual; each one's time to its ack and to the computer's reply."""
    figures: dict[str, list[float]] = {"ack": [], "reply": []}
    async with http(url, VICTIM) as client:
        game = (await client.post("/api/games", json={"mode": "ai", "level": "casual", "seat": 0, "seed": rng.randrange(2**31)})).json()
    async with socket_to(url, game["id"], VICTIM) as ws:
        state = (await next_of(ws, ("state",)))["state"]
        await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        while len(figures["reply"]) < moves and state["result"] is None:
            if state["to_move"] != 0:
                state = (await next_of(ws, ("state",)))["state"]
                continue
            await asyncio.sleep(0.3)  # a quick player
            version = state["version"]
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "move": rng.choice(legal_texts(state)), "version": version, "id": f"v{version}"}))
            while True:
                message = await next_of(ws, ("state", "ack", "error"))
                if message["type"] == "ack":
                    figures["ack"].append(time.perf_counter() - sent)
                elif message["type"] == "error":
                    raise SystemExit(f"the victim's move was refused: {message}")
                else:
                    state = message["state"]
                    if state["version"] > version and (state["to_move"] == 0 or state["result"] is not None) and not state["ai"]["thinking"]:
                        figures["reply"].append(time.perf_counter() - sent)
                        break
    return figures


# The floods --------------------------------------------------------------------------------------


async def max_games(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    address = "127.0.0.3"
    async with http(url, address) as client:
        games = [(await client.post("/api/games", json={"mode": "ai", "level": "max", "seat": 1, "seed": n})).json() for n in range(12)]

    async def keep_moving(game: dict[str, Any]) -> None:
        async with socket_to(url, game["id"], address) as ws:
            await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
            while True:
                state = (await next_of(ws, ("state",), timeout=300))["state"]
                if state["to_move"] == 1 and state["result"] is None and not state["ai"]["thinking"]:
                    await ws.send(json.dumps({"type": "move", "move": legal_texts(state)[0], "version": state["version"]}))
                    counts["moves"] += 1

    await until(ready, stop, *(keep_moving(game) for game in games))


async def hints(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    address = "127.0.0.4"
    async with http(url, address) as client:
        games = [(await client.post("/api/games", json={"mode": "local", "seed": n})).json() for n in range(8)]

    await until(ready, stop, *(hints_in(url, game, address, counts, "hints") for game in games))


async def hints_in(url: str, game: dict[str, Any], address: str, counts: Counter[str], served: str, refused: str = "", think: float = 0.0) -> None:
    """Ask for a hint at each version of a game of one's own, moving on after each answer (``think`` seconds later);
    counted as ``served``, or as ``refused`` and the error's code."""
    async with socket_to(url, game["id"], address) as ws:
        state = (await next_of(ws, ("state",)))["state"]
        await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        while state["result"] is None:
            await ws.send(json.dumps({"type": "hint", "version": state["version"]}))
            answer = await next_of(ws, ("hint", "error"), timeout=300)
            counts[served if answer["type"] == "hint" else f"{refused}{answer['code']}"] += 1
            state = await move_on(ws, state)  # a new version to ask about
            await asyncio.sleep(think)


async def move_on(ws: ClientConnection, state: dict[str, Any]) -> dict[str, Any]:
    """Send a legal move (the last listed) until one is taken (waiting out the intent limit); the state after it."""
    while True:
        await ws.send(json.dumps({"type": "move", "move": legal_texts(state)[-1], "version": state["version"]}))
        answer = await next_of(ws, ("ack", "error"))
        if answer["type"] == "ack":
            while (after := (await next_of(ws, ("state",)))["state"])["version"] < answer["version"]:
                pass
            return dict(after)
        await asyncio.sleep(0.2)  # rate_limited, as a person would be


async def analyses(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    finished = await asyncio.gather(*(finished_game(url, f"127.0.2.{n + 1}", n) for n in range(8)))  # played out first, each by its own client

    async def keep_asking() -> None:
        async with http(url, "127.0.0.5") as client:
            while True:
                for game in finished:
                    answer = await client.get(f"/api/games/{game}/analysis")
                    counts[f"{answer.status_code} {answer.json().get('status', '')}".strip()] += 1
                await asyncio.sleep(2.0)  # the replay page polls every 2 s

    await until(ready, stop, keep_asking())


async def finished_game(url: str, address: str, seed: int) -> str:
    """A pass-and-play game played to its end (the last legal move listed each time)."""
    async with http(url, address) as client:
        game = (await client.post("/api/games", json={"mode": "local", "seed": seed})).json()
    async with socket_to(url, game["id"], address) as ws:
        state = (await next_of(ws, ("state",)))["state"]
        await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        while state["result"] is None:
            state = await move_on(ws, state)
    return str(game["id"])


async def hello(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    async with http(url, "127.0.0.6") as client:
        game = (await client.post("/api/games", json={"mode": "local", "seed": 1})).json()

    async def crowd(address: str) -> None:
        async with contextlib.AsyncExitStack() as stack:
            sockets = [await stack.enter_async_context(socket_to(url, game["id"], address)) for _ in range(55)]

            async def read(ws: ClientConnection, greeter: bool) -> None:  # every socket reads what it is sent, as a page does
                while True:
                    kind = json.loads(await ws.recv())["type"]
                    if greeter:
                        counts[kind] += 1
                    elif kind == "state":
                        counts["states to the crowd"] += 1

            readers = [asyncio.create_task(read(ws, index == 0)) for index, ws in enumerate(sockets)]
            try:
                while True:
                    await sockets[0].send(json.dumps({"type": "hello", "token": game["token"]}))
                    counts["hellos sent"] += 1
                    await asyncio.sleep(0.004)  # about 250 a second, as the attack sent
            finally:
                for reader in readers:
                    reader.cancel()

    await until(ready, stop, crowd("127.0.0.6"), crowd("127.0.0.7"))


async def rematch(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    address = "127.0.0.8"
    async with http(url, address) as client:
        game = (await client.post("/api/games", json={"mode": "ai", "level": "beginner", "seat": 0, "seed": 2})).json()
    await until(ready, stop, rematches(url, address, game["id"], game["token"], counts))


async def rematches(url: str, address: str, game_id: str, token: str, counts: Counter[str]) -> None:
    """Resign and ask for a rematch, again and again (the rematch keeps the seat's token)."""
    while True:
        async with socket_to(url, game_id, address) as ws:
            state = (await next_of(ws, ("state",)))["state"]
            await ws.send(json.dumps({"type": "hello", "token": token}))
            if state["result"] is None:
                await ws.send(json.dumps({"type": "resign", "version": state["version"]}))
                if (await next_of(ws, ("ack", "error")))["type"] == "ack":
                    state = (await next_of(ws, ("state",)))["state"]
            await ws.send(json.dumps({"type": "rematch", "version": state["version"]}))
            answer = await next_of(ws, ("ack", "error"))
            if answer["type"] == "error":
                counts[answer["code"]] += 1
                await asyncio.sleep(1.0)
                continue
            while not (state := (await next_of(ws, ("state",)))["state"]).get("rematch"):
                pass
            counts["rematches"] += 1
            game_id = state["rematch"]


async def sign_in(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    async def guesser(address: str, rng: random.Random) -> None:
        async with http(url, address) as client:
            while True:
                answer = await client.post("/api/account/signin", json={"name": f"Guess{rng.randrange(10**6)}", "password": "not the password"})
                counts[str(answer.status_code)] += 1
                if answer.status_code != 403:
                    await asyncio.sleep(0.2)

    await until(ready, stop, *(guesser(f"127.0.1.{n + 1}", random.Random(n)) for n in range(60)))


async def lockout(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    owner_address = "127.0.0.12"
    async with http(url, owner_address) as owner:
        signed_up = await owner.post("/api/account/signup", json={"name": "victim02", "password": "correct horse"})
        assert signed_up.status_code == 200, signed_up.text

    async def attacker() -> None:
        async with http(url, "127.0.0.13") as client:
            while True:
                answer = await client.post("/api/account/signin", json={"name": "victim02", "password": "a wrong guess"})
                counts[f"attacker {answer.status_code}"] += 1
                if answer.status_code != 403:
                    await asyncio.sleep(0.2)

    async def owner_signs_in() -> None:
        while True:
            await asyncio.sleep(2.0)
            async with http(url, owner_address) as client:
                answer = await client.post("/api/account/signin", json={"name": "victim02", "password": "correct horse"})
                counts[f"owner {answer.status_code}"] += 1

    await until(ready, stop, attacker(), owner_signs_in())


async def analysis_share(url: str, ready: asyncio.Event, stop: asyncio.Event, counts: Counter[str]) -> None:
    finished = await asyncio.gather(*(finished_game(url, "127.0.0.14", n) for n in range(8)))  # one address's 8 games
    helper_address = "127.0.0.15"
    async with http(url, helper_address) as client:
        game = (await client.post("/api/games", json={"mode": "local", "seed": 99})).json()

    async def analyses_of_one_address() -> None:
        async with http(url, "127.0.0.14") as client:
            while True:
                for game_id in finished:
                    await client.get(f"/api/games/{game_id}/analysis")
                await asyncio.sleep(2.0)

    another_players_hints = hints_in(url, game, helper_address, counts, "hint", "hint ", think=2.0)  # a player thinking
    await until(ready, stop, analyses_of_one_address(), another_players_hints)


async def until(ready: asyncio.Event, stop: asyncio.Event, *work: Coroutine[Any, Any, None]) -> None:
    """Run the flood's tasks until ``stop`` (a task that ends early, its game over, just ends); under way now."""
    tasks = [asyncio.create_task(w) for w in work]
    ready.set()
    await stop.wait()
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, Exception) and not isinstance(r, asyncio.CancelledError)]
    if failures:
        print(f"  (the flood's own clients met: {failures[0]!r})", file=sys.stderr)


FLOODS: dict[str, Flood] = {
    "max_games": max_games, "hints": hints, "analyses": analyses, "hello": hello, "rematch": rematch, "sign_in": sign_in,
    "lockout": lockout, "analysis_share": analysis_share,
}  # fmt: skip


# Running it --------------------------------------------------------------------------------------


async def scenario(url: str, flood: Flood | None, moves: int, seed: int) -> dict[str, Any]:
    ready, stop = asyncio.Event(), asyncio.Event()
    counts: Counter[str] = Counter()
    flooding = asyncio.create_task(flood(url, ready, stop, counts)) if flood else None
    if flooding:
        # Its own setup done (games made, games played out), or a failure in it, said at once.
        await asyncio.wait([asyncio.create_task(ready.wait()), flooding], timeout=300, return_when=asyncio.FIRST_COMPLETED)
        if flooding.done():
            flooding.result()
            raise SystemExit("the flood ended before it began")
        await asyncio.sleep(3.0)  # and under way before the victim starts
    try:
        figures = await victim(url, moves, random.Random(seed))
    finally:
        stop.set()
        if flooding:
            try:
                await asyncio.wait_for(flooding, 30)
            except (asyncio.TimeoutError, Exception) as error:  # its clients' own troubles are reported, not fatal
                print(f"  (the flood ended with {error!r})", file=sys.stderr)
    return {**{kind: summary(values) for kind, values in figures.items()}, "flood": dict(counts)}


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p90_ms": round(1000 * ordered[int(0.9 * (len(ordered) - 1))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


def start_server(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    log = data / "server.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "quiltmaker", "serve", "--port", "0", "--data", str(data)], stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if found := RUNNING.search(log.read_text(errors="replace")):
            return process, f"127.0.0.1:{found[1]}"
        if process.poll() is not None:
            raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=12, help="the victim's moves in each run (default 12)")
    parser.add_argument("--only", default="", help="floods to run, comma-separated (default: all): " + ", ".join(FLOODS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = [name for name in FLOODS if not args.only or name in args.only.split(",")]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            asyncio.run(victim(url, 2, random.Random(0)))  # the AI's workers warmed up (they start beside the server)
            for name in ["baseline", *chosen]:
                print(f"running {name}…", file=sys.stderr)
                results[name] = asyncio.run(scenario(url, FLOODS.get(name), args.moves, args.seed))
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    base = results["baseline"]["reply"]["p50_ms"]
    for name, result in results.items():
        result["reply_cost_ms"] = round(result["reply"]["max_ms"] - base, 1)  # the slowest reply, beyond the usual one
        result["within_goal"] = result["reply_cost_ms"] < 1000
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'flood':<14} {'reply p50':>10} {'p90':>8} {'max':>8} {'ack p50':>9} {'p90':>8} {'cost':>8}  goal  the flood's answers")
    for name, r in results.items():
        reply, ack = r["reply"], r["ack"]
        flood = ", ".join(f"{k} {v}" for k, v in sorted(r["flood"].items()))
        print(
            f"{name:<14} {reply['p50_ms']:>8.0f}ms {reply['p90_ms']:>6.0f}ms {reply['max_ms']:>6.0f}ms {ack['p50_ms']:>7.0f}ms {ack['p90_ms']:>6.0f}ms "
            f"{r['reply_cost_ms']:>6.0f}ms  {'ok' if r['within_goal'] else 'MISS'}  {flood}"
        )


if __name__ == "__main__":
    main()
