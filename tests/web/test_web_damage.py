"""What a server meets damaged: one game's storage, the database file's header, a port in use. Reported by name, never a raw 500 or traceback."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from web_client import TEST_QUOTAS, connect

from web_helpers import new_game, RUNNING, migrated_store

from quiltmaker.core.position import Position
from quiltmaker.web.app import Settings, create_app

PAGE = 4096  # SQLite's default page size


def stored_games(path: Path, count: int) -> list[str]:
    store = migrated_store(f"sqlite:///{path}")
    ids = []
    for seed in range(count):
        game_id = new_game(store, "local", Position.initial(seed, first_player=0), ["A", "B"]).id
        for number, move in enumerate(["A", "A", "A"]):
            store.append(game_id, number, "move", move, 0, None)
        ids.append(game_id)
    store.close()  # the last connection checkpoints the write-ahead log into the file
    return ids


def damage_the_games_pages(path: Path) -> None:
    """Overwrite the start of the games' and events' pages (their b-trees' roots, where a few games' rows all are).

    The schema itself (sqlite_master, which grows onto more pages with every
    table) stays readable, as when a disk loses some pages of the data.
    """
    with sqlite3.connect(path) as connection:
        roots = [page for (page,) in connection.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name IN ('games', 'events')")]
    data = bytearray(path.read_bytes())
    assert roots and all(page * PAGE <= len(data) for page in roots), "the tables' pages exist"
    for page in roots:
        offset = (page - 1) * PAGE
        data[offset : offset + 64] = b"\xde\xad" * 32
    path.write_bytes(bytes(data))


def test_a_damaged_game_is_reported_as_corrupt_and_the_list_keeps_working(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    ids = stored_games(path, 3)
    damage_the_games_pages(path)
    settings = Settings(database_url=f"sqlite:///{path}", **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        one = client.get(f"/api/games/{ids[0]}")
        assert one.status_code == 500 and one.json()["code"] == "corrupt" and "damaged" in one.json()["detail"]
        listed = client.get(f"/api/games?ids={','.join(ids)}")
        assert listed.status_code == 200
        assert [g["status"] for g in listed.json()["games"]] == ["corrupt"] * 3
        with connect(client, ids[1]) as watcher:
            assert watcher.first["type"] == "error" and watcher.first["code"] == "corrupt"
        assert client.get("/api/catalogue").status_code == 200  # the server itself carries on


def test_a_damaged_database_file_stops_the_server_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "quiltmaker.sqlite3"
    stored_games(path, 1)
    data = bytearray(path.read_bytes())
    data[:100] = b"not a database header " * 4 + b"...."[: 100 - 88]
    path.write_bytes(bytes(data))
    done = subprocess.run(
        [sys.executable, "-m", "quiltmaker", "serve", "--port", "0", "--data", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    assert "cannot open the games database" in done.stderr and "move it aside" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_a_port_in_use_stops_the_server_at_once_with_a_clear_message(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "quiltmaker", "serve", "--port", str(port), "--data", str(tmp_path)], capture_output=True, text=True, timeout=300
        )
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "preparing the AI" not in done.stdout, "the port is taken before the AI's preparation"
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


@pytest.mark.slow
def test_the_address_is_printed_once_the_server_answers_there(tmp_path: Path) -> None:
    """The address was printed 127-187 ms before the port listened: a program reading it met a refused connection."""
    process = subprocess.Popen(
        [sys.executable, "-m", "quiltmaker", "serve", "--port", "0", "--data", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if running := RUNNING.search(line):
                # At once (a bare connection: a client's own start-up must not give the server time), and once.
                socket.create_connection(("127.0.0.1", int(running[1])), timeout=10).close()
                assert httpx.get(f"http://127.0.0.1:{running[1]}/api/catalogue", timeout=10, trust_env=False).status_code == 200
                break
        else:
            raise AssertionError(f"the server exited with code {process.wait()} without saying where it runs")
    finally:
        process.terminate()
        process.wait(timeout=30)
