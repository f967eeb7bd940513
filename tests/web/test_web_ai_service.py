"""The worker pool of the AI under the server: a killed worker, shared hints, bounded optional work."""

from __future__ import annotations

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

from quiltmaker.web.app import Settings, create_app


def test_a_worker_killed_under_the_server_is_replaced(tmp_path: Path) -> None:
    """The real process pool: a dead worker costs one request an 'internal' error, then hints work again."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", hint_seconds=0.05, **TEST_QUOTAS)
    with TestClient(create_app(settings)) as own_client:
        game = create(own_client, mode="local", seed=3)
        with connect(own_client, game["id"], game["token"]) as player:
            assert player.intent("hint")["type"] == "hint"
            server = own_client.app.state.server  # type: ignore[attr-defined]
            for process in list(server.ai.executor._processes.values()):
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
            assert server.ai.optional_work == 0
