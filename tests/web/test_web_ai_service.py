"""The worker pool of the AI under the server: a killed worker, shared hints, bounded optional work."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from web_client import (
    TEST_QUOTAS,
    connect,
    create,
    play_against_the_beginner,
    snapshot,
)
from web_helpers import poll

from quiltmaker.web.ai.service import ANALYSIS_PIECE, OptionalWork
from quiltmaker.web.app import Settings, create_app


def test_a_worker_killed_under_the_server_is_replaced(tmp_path: Path) -> None:
    """The real process pool: a dead worker costs one request an 'internal' error, then hints work again."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, **TEST_QUOTAS)
    with TestClient(create_app(settings)) as own_client:
        game = create(own_client, mode="local", seed=3)
        with connect(own_client, game["id"], game["token"]) as player:
            assert player.intent("hint")["type"] == "hint"
            server = own_client.app.state.server  # type: ignore[attr-defined]
            for process in list(server.ai.lanes["advice"].executor._processes.values()):  # hints are the advice pool's work
                process.kill()
                process.join()
            player.play_first_legal()  # a new version: the hint before is not reused
            assert player.intent("hint")["code"] == "internal"
            assert player.intent("hint")["type"] == "hint"


class CountingExecutor(ThreadPoolExecutor):
    """A one-thread pool that counts the jobs it is given."""

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.jobs += 1
        return super().submit(*args, **kwargs)


def test_a_hint_is_searched_once_per_version_and_shared(tmp_path: Path) -> None:
    executor = CountingExecutor()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=executor)) as own_client:
        game = create(own_client, mode="local", seed=5)
        with connect(own_client, game["id"], game["token"]) as first, connect(own_client, game["id"], game["token"]) as second:
            jobs = executor.jobs
            hints = [first.intent("hint", id="a"), second.intent("hint", id="b"), first.intent("hint", id="c")]
            assert executor.jobs == jobs + 1
            assert [h["id"] for h in hints] == ["a", "b", "c"]
            assert len({(h["version"], h["best_move"], h["win_probability"], h["expected_margin"]) for h in hints}) == 1
            first.play_first_legal()
            assert first.intent("hint")["version"] == hints[0]["version"] + 1
            assert executor.jobs == jobs + 2


def test_hints_and_analyses_past_the_limit_wait_and_change_nothing(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, analysis_iterations=20, optional_work_limit=0, **TEST_QUOTAS
    )
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as own_client:
        server = own_client.app.state.server  # type: ignore[attr-defined]
        local = create(own_client, mode="local", seed=5)
        before = snapshot(own_client, local["id"])
        with connect(own_client, local["id"], local["token"]) as player:
            busy = player.intent("hint", id="h")
            assert busy["type"] == "error" and busy["code"] == "busy" and busy["id"] == "h"
            assert snapshot(own_client, local["id"]) == before
            finished = play_against_the_beginner(own_client)
            url = f"/api/games/{finished['id']}/analysis"
            waiting = own_client.get(url)
            assert waiting.status_code == 202 and waiting.json()["status"] == "waiting"
            server.settings.optional_work_limit = 2  # room again: both are served
            assert player.intent("hint")["type"] == "hint"
            assert own_client.get(url).json()["status"] in ("computing", "done")
            poll(lambda: own_client.get(url).status_code == 200, timeout=120, what="the analysis")
            assert server.ai.optional.taken == 0


def test_a_hint_running_never_holds_up_another_players_ai_move(tmp_path: Path) -> None:
    """Issue 26: hints and analyses went to the AI's one worker first come, first served: 8 looping hints made every AI
    reply wait 8 s. Advice has a pool of its own: the AI answers while a long hint is still being searched."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=8.0, **TEST_QUOTAS)
    with TestClient(create_app(settings)) as own_client:  # the real pools: one worker for moves, one for advice
        server = own_client.app.state.server  # type: ignore[attr-defined]
        helped = create(own_client, mode="local", seed=5)
        victim = create(own_client, mode="ai", level="beginner", seat=0, seed=3)
        with connect(own_client, helped["id"], helped["token"]) as asker, connect(own_client, victim["id"], victim["token"]) as player:
            asker.ws.send_text(json.dumps({"type": "hint", "version": asker.state["version"], "id": "long"}))  # not waited for
            poll(lambda: server.ai.lanes['advice'].queue.running, timeout=30, what="the hint to start")
            player.play_first_legal()
            player.wait_for(lambda s: s["to_move"] == 0 and s["version"] >= 2, "the AI's reply")
            assert server.ai.lanes['advice'].queue.running, "the AI moved while the hint was still being searched"
            assert asker.reply()["type"] == "hint"


def test_long_searches_never_hold_up_a_quick_levels_move(tmp_path: Path) -> None:
    """Issue 26: one client's dozen max games made another player's casual reply wait 59 s. The levels bounded by
    playouts have a lane of their own: a casual reply comes while a max move is still being searched."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", **TEST_QUOTAS)
    with TestClient(create_app(settings)) as own_client:  # the real pools
        server = own_client.app.state.server  # type: ignore[attr-defined]
        long = create(own_client, mode="ai", level="max", seat=1, seed=3)  # the computer moves first: 5 s
        victim = create(own_client, mode="ai", level="casual", seat=0, seed=4)
        with connect(own_client, long["id"], long["token"]), connect(own_client, victim["id"], victim["token"]) as player:
            poll(lambda: server.ai.lanes["moves"].queue.running, timeout=30, what="max to start thinking")
            player.play_first_legal()
            player.wait_for(lambda s: s["to_move"] == 0 and s["version"] >= 2, "casual's reply")
            assert server.ai.lanes["moves"].queue.running, "casual moved while max was still thinking"


class RecordingExecutor(ThreadPoolExecutor):
    """A one-thread pool that writes down each job it is given: the function's name and its first argument."""

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs: list[tuple[str, Any]] = []

    def submit(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        self.jobs.append((function.__name__, args[0] if args else None))
        return super().submit(function, *args, **kwargs)


def test_an_analysis_goes_to_the_worker_a_few_positions_at_a_time_and_a_hint_takes_its_turn_between(tmp_path: Path) -> None:
    """8 analyses held another player's AI reply 35 s: each was one job of a whole game. Now each piece takes its turn."""
    executor = RecordingExecutor()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, analysis_iterations=400, **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=executor)) as own_client:
        finished = play_against_the_beginner(own_client)
        helped = create(own_client, mode="local", seed=5)
        executor.jobs.clear()
        own_client.get(f"/api/games/{finished['id']}/analysis")
        with connect(own_client, helped["id"], helped["token"]) as asker:  # a hint asked for meanwhile
            poll(lambda: executor.jobs, timeout=30, what="the analysis's first piece")
            assert asker.intent("hint")["type"] == "hint"
        poll(lambda: own_client.get(f"/api/games/{finished['id']}/analysis").status_code == 200, timeout=120, what="the analysis")
    kinds = [name for name, _ in executor.jobs]
    pieces = [argument for name, argument in executor.jobs if name == "analyse_positions"]
    assert all(len(piece) <= ANALYSIS_PIECE for piece in pieces) and sum(map(len, pieces)) == len(finished["state"]["moves"]) + 1
    assert kinds.index("hint") < len(kinds) - 1, f"the hint waited for the whole analysis: {kinds}"


def test_one_client_s_analyses_leave_room_for_everyone_else_s_hints() -> None:
    """One address that asked for the analyses of 8 games took all 8 places: another's hints were 'busy' five times over 36 s."""
    places = OptionalWork(Settings(database_url="sqlite://", optional_work_limit=8))
    taken = [places.take("10.0.0.66", hint=False) for _ in range(8)]
    assert taken == [True, True, False, False, False, False, False, False], "a client's share: a quarter of the places"
    assert places.take("10.0.0.66", hint=True) is False, "its hints too, while its share is taken"
    others = [places.take(f"10.0.1.{n}", hint=False) for n in range(6)]
    assert others == [True, True, True, True, False, False], "analyses leave a quarter of the places to hints"
    assert places.take("10.0.2.1", hint=True) and places.take("10.0.2.2", hint=True), "another player's hint is served"
    assert places.take("10.0.2.3", hint=True) is False and places.taken == 8
    places.give_back("10.0.0.66")
    assert places.take("10.0.2.3", hint=True) and places.by_client["10.0.0.66"] == 1
