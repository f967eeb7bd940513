"""What a list costs and what memory holds (issue 25): a finished game keeps its line when it ends
(quiltmaker/web/round/summaries.py), a profile lists its games a page at a time, and the games in memory keep to a budget."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import delete
from sqlalchemy.orm import Session
from web_client import TEST_QUOTAS, connect, create, new_account, play_against_the_beginner
from web_helpers import new_game, play_in_the_past

from quiltmaker.core.position import Position
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.live import MOVE_BYTES, game_bytes
from quiltmaker.web.account.api import ACCOUNT_GAMES
from quiltmaker.web.account.profiles import PROFILE_GAMES
from quiltmaker.web.db.schema import EventRow, SummaryRow


def test_a_finished_game_is_listed_from_the_line_it_kept_when_it_ended(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    finished = play_against_the_beginner(fresh)
    playing = create(fresh, mode="ai", level="beginner", seat=0, seed=4)
    server = fresh.app.state.server  # type: ignore[attr-defined]
    kept = server.summaries.kept([finished["id"], playing["id"]])
    assert list(kept) == [finished["id"]], "kept once over, not while played"
    before = fresh.get("/api/players/Ada").json()["games"]
    # Damage the finished game's log: a list that replayed it would now call it corrupt, or leave it out.
    with Session(server.store.engine) as session, session.begin():
        session.execute(delete(EventRow).where(EventRow.game_id == finished["id"], EventRow.number == 3))
    server.games.cache.clear()
    after = fresh.get("/api/players/Ada").json()["games"]
    assert after == before and after[1]["id"] == finished["id"] and after[1]["result"] == finished["state"]["result"]
    assert after[1]["clock"] is None and after[1]["status"] == "over"
    lobby_list = fresh.get(f"/api/games?ids={finished['id']},{playing['id']}").json()["games"]
    assert [g["id"] for g in lobby_list] == [finished["id"], playing["id"]], "the lobby's list of this browser's games too"
    assert {k: v for k, v in lobby_list[0].items() if k not in ("seat", "rating")} == {k: v for k, v in before[1].items() if k not in ("seat", "rating")}


def test_a_game_finished_before_lines_were_kept_is_summed_up_once_when_first_listed(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0, clock="5+3")
    with connect(fresh, game["id"], game["token"]) as player:
        assert player.intent("abort")["type"] == "ack"
    server = fresh.app.state.server  # type: ignore[attr-defined]
    with Session(server.store.engine) as session, session.begin():
        session.execute(delete(SummaryRow))  # as a database from before
    assert server.summaries.kept([game["id"]]) == {}
    listed = fresh.get("/api/players/Ada").json()["games"]
    assert [(g["id"], g["status"], g["clock"]) for g in listed] == [(game["id"], "aborted", "5 minutes + 3 seconds a move")]
    assert list(server.summaries.kept([game["id"]])) == [game["id"]], "kept now"
    assert fresh.get("/api/players/Ada").json()["games"] == listed


def test_a_profile_lists_its_games_a_page_at_a_time(fresh: TestClient) -> None:
    new_account(fresh, "Ada")
    server = fresh.app.state.server  # type: ignore[attr-defined]
    account = server.accounts.find("Ada")
    made = []
    for seed in range(PROFILE_GAMES * 2 + 7):
        game_id = new_game(server.store, "local", Position.initial(seed, first_player=0), ["Ada", "Ada"], accounts=(account.id, None)).id
        made.append(game_id)
    seen, before, pages = [], None, 0
    while True:
        page = fresh.get("/api/players/Ada", params={"before": before} if before else {}).json()
        seen += [g["id"] for g in page["games"]]
        pages += 1
        assert len(page["games"]) <= PROFILE_GAMES
        if page["more"] is None:
            break
        before = page["more"]
    assert pages == 3 and sorted(seen) == sorted(made) and len(set(seen)) == len(made), "every game once, newest first"
    assert seen[0] == made[-1]
    assert fresh.get("/api/players/Ada", params={"before": "nonsense!"}).json()["games"][0]["id"] == made[-1], "an unknown cursor: the first page"
    held = fresh.get("/api/account/games").json()["games"]  # the lobby's "your games": the newest, never every one
    assert [g["id"] for g in held] == made[::-1][:ACCOUNT_GAMES] and {g["seat"] for g in held} == {"both"}


def test_the_games_in_memory_keep_within_their_budget(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'budget.sqlite3'}", game_cache_mb=1, **TEST_QUOTAS)
    with TestClient(create_app(settings, executor=ThreadPoolExecutor(1))) as client:
        server = client.app.state.server  # type: ignore[attr-defined]
        made = []
        for seed in range(120):
            game_id = new_game(server.store, "local", Position.initial(seed, first_player=0), ["Ada", "Bob"]).id
            play_in_the_past(server.store, game_id, [("A", 40 - n) for n in range(10)])  # 10 moves each: some 19 KB
            made.append(game_id)
        for game_id in made:
            assert client.get(f"/api/games/{game_id}").json()["version"] == 10
        cache = server.games.cache
        assert cache.currsize <= cache.maxsize == 1024 * 1024 and 0 < len(cache) < len(made), (cache.currsize, len(cache))
        assert game_bytes(cache[made[-1]]) >= 10 * MOVE_BYTES, "the newest is kept, and counted by its moves"
        assert client.get(f"/api/games/{made[0]}").json()["version"] == 10, "a forgotten game is read again"
