"""The floods an attack on the online service found (issue 26), each reproduced: past its limit it is refused,
says how long to wait, and changes nothing for anyone else."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from starlette.websockets import WebSocketDisconnect
from web_client import act_as, age_account, apart, connect, create, new_account
from web_helpers import migrated_store, play_in_the_past

from quiltmaker.web.dependencies import client_address
from quiltmaker.web.account.accounts import PasswordWork
from quiltmaker.web.app import Settings, create_app
from quiltmaker.web.protocol import TOO_MANY_SOCKETS
from quiltmaker.web.db.schema import GameRow
from quiltmaker.web.round.store import StoreError


def app_with(tmp_path: Path, **limits: Any) -> Any:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'floods.sqlite3'}", hint_seconds=0.05, **limits)
    return create_app(settings, executor=ThreadPoolExecutor(1))


@pytest.fixture
def limited(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    with TestClient(app_with(tmp_path, **request.param)) as client:
        yield client


@pytest.mark.parametrize("limited", [{"hello_limit": "4/minute"}], indirect=True)
def test_greetings_past_their_limit_are_refused(limited: TestClient) -> None:
    """246 hellos a second from one client took others' acknowledgements from 10 ms to 397 ms."""
    game = create(limited, mode="local", seed=2)
    with connect(limited, game["id"], game["token"]) as player:  # the first greeting
        replies = [player.hello(game["token"]) for _ in range(4)]
    assert [r.get("code", r["type"]) for r in replies] == ["welcome"] * 3 + ["rate_limited"]
    assert "wait" in replies[-1]["message"]


def test_a_repeated_greeting_sends_nobody_a_state(tmp_path: Path) -> None:
    """Each seated hello used to send every socket of the game its state again: 49 a second fanned out to 110 sockets."""
    with TestClient(app_with(tmp_path, hello_limit="1000/second")) as client:
        game = create(client, mode="local", seed=2)
        with connect(client, game["id"]) as watcher, connect(client, game["id"], game["token"]) as player:
            seated = watcher.receive()  # the one state a seat coming sends
            assert seated["type"] == "state" and seated["state"]["version"] == 0
            for _ in range(20):
                assert player.hello(game["token"])["type"] == "welcome"
            player.play_first_legal()
            after = watcher.receive()
            assert after["type"] == "state" and after["state"]["version"] == 1, "no state came between the move's and the seat's"


@pytest.mark.parametrize("limited", [{"create_limit": "3/minute"}], indirect=True)
def test_resigning_and_asking_for_a_rematch_counts_as_creating_a_game(limited: TestClient) -> None:
    """Resign and rematch made 54 games in 25 s with the quota untouched."""
    game = create(limited, mode="ai", level="beginner", seat=0, seed=4)
    codes = []
    for _ in range(3):
        with connect(limited, game["id"], game["token"]) as player:
            assert player.intent("resign")["type"] == "ack"
            reply = player.intent("rematch")
            codes.append(reply.get("code", reply["type"]))
            if reply["type"] == "ack":
                game = {**game, "id": player.state["rematch"]}
    assert codes == ["ack", "ack", "rate_limited"], codes


def test_games_resigned_or_aborted_before_any_move_expire_like_unstarted_ones(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'expiry.sqlite3'}"
    with TestClient(create_app(Settings(database_url=url), executor=ThreadPoolExecutor(1))) as client:
        resigned = create(client, mode="ai", level="beginner", seat=0, seed=4)
        with connect(client, resigned["id"], resigned["token"]) as player:
            assert player.intent("resign")["type"] == "ack"
        played = create(client, mode="ai", level="beginner", seat=0, seed=5)
        with connect(client, played["id"], played["token"]) as player:
            player.play_first_legal()
            assert player.intent("resign")["type"] == "ack"
    store = migrated_store(url)
    with store.engine.begin() as connection:
        connection.execute(update(GameRow).values(created=datetime.now(timezone.utc) - timedelta(days=10)))
    assert store.delete_unstarted(datetime.now(timezone.utc) - timedelta(days=7)) == 1
    assert not store.exists(resigned["id"]) and store.exists(played["id"])
    store.close()


@pytest.mark.parametrize("limited", [{"new_place_failures": "3/minute", "account_limit": "1000/minute"}], indirect=True)
def test_failed_sign_ins_from_new_places_are_limited_together_and_the_owner_s_places_are_not(limited: TestClient) -> None:
    """Sign-ins from many addresses each passed their address's limit: nothing bounded the guesses at one account."""
    new_account(limited, "Ada")  # from the test client's own address: a place Ada is known from
    new_account(limited, "Grace")
    limited.cookies.clear()
    for port, guess in enumerate(["a wrong guess", "another one", "a third"]):
        elsewhere = TestClient(limited.app, client=(f"10.0.0.{port + 1}", 4000))
        assert elsewhere.post("/api/account/signin", json={"name": "ada", "password": guess}).status_code == 403
    right = TestClient(limited.app, client=("10.0.0.9", 4000)).post("/api/account/signin", json={"name": "Ada", "password": "correct horse"})
    assert right.status_code == 429 and "failed sign-ins to this account from new places" in right.json()["detail"]
    assert int(right.headers["retry-after"]) > 0
    owner = limited.post("/api/account/signin", json={"name": "Ada", "password": "correct horse"})
    assert owner.status_code == 200, "from where Ada signed in before, she signs in"
    other = TestClient(limited.app, client=("10.0.0.9", 4000)).post("/api/account/signin", json={"name": "Grace", "password": "correct horse"})
    assert other.status_code == 200, "another account is not held up"


@pytest.mark.parametrize("limited", [{"account_limit": "1000/minute"}], indirect=True)
def test_nobody_locks_an_owner_out_by_failing_to_sign_in_as_them(limited: TestClient) -> None:
    """Five wrong passwords a minute from one address locked the account for its owner elsewhere (429, Retry-After 3,225 s)."""
    new_account(limited, "victim02")
    limited.cookies.clear()
    attacker = TestClient(limited.app, client=("10.0.0.66", 4000))
    codes = [attacker.post("/api/account/signin", json={"name": "victim02", "password": f"guess {n}"}).status_code for n in range(12)]
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, "the attacker's own address is held up"
    owner = limited.post("/api/account/signin", json={"name": "victim02", "password": "correct horse"})
    assert owner.status_code == 200, owner.text
    travelling = TestClient(limited.app, client=("10.0.0.77", 4000))  # the owner from a new place: five failures are not twenty
    assert travelling.post("/api/account/signin", json={"name": "victim02", "password": "correct horse"}).status_code == 200


def test_an_ipv6_client_is_counted_by_its_64_network() -> None:
    """A client rotating its address within its /64 escaped every quota and the same-address farming rule."""
    assert client_address("2001:db8:1:2::1") == client_address("2001:db8:1:2:ffff:abcd::9") == "2001:db8:1:2::/64"
    assert client_address("2001:db8:1:3::1") != client_address("2001:db8:1:2::1")
    assert client_address("192.0.2.7") == "192.0.2.7" == client_address("::ffff:192.0.2.7")
    assert client_address("testclient") == "testclient"


@pytest.mark.parametrize("limited", [{"create_limit": "3/minute"}], indirect=True)
def test_addresses_of_one_ipv6_network_share_its_quota(limited: TestClient) -> None:
    made = [
        TestClient(limited.app, client=(f"2001:db8:1:2::{n}", 4000)).post("/api/games", json={"mode": "local"}).status_code for n in range(1, 6)
    ]
    assert made == [200, 200, 200, 429, 429]
    assert TestClient(limited.app, client=("2001:db8:1:3::1", 4000)).post("/api/games", json={"mode": "local"}).status_code == 200


def test_password_checks_run_one_at_a_time_and_past_the_queue_are_refused_unhashed() -> None:
    """Nine argon2 checks a second from many addresses took both cores: one runs at a time, a few wait, the rest are busy."""

    async def main() -> tuple[int, list[str]]:
        work = PasswordWork(queue=2)
        release = threading.Event()
        running = 0
        most = 0
        lock = threading.Lock()

        def check(tag: str) -> str:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            release.wait(5)
            time.sleep(0.01)
            with lock:
                running -= 1
            return tag

        tasks = [asyncio.create_task(work.run(check, f"check {n}")) for n in range(3)]  # one runs, two wait
        await asyncio.sleep(0.05)
        with pytest.raises(StoreError) as refused:
            await work.run(check, "one too many")
        assert refused.value.code == "busy"
        release.set()
        return most, list(await asyncio.gather(*tasks))

    most, done = asyncio.run(main())
    assert most == 1 and done == ["check 0", "check 1", "check 2"]


@pytest.mark.parametrize("limited", [{"offer_limit": "2/hour", "create_limit": "1000/minute", "account_limit": "1000/minute"}], indirect=True)
def test_new_accounts_and_one_address_cannot_fill_the_lobby(limited: TestClient) -> None:
    """34 throwaway accounts with 102 challenges pushed a real player's challenge out of everyone's lobby."""
    offer = {"mode": "online", "seat": 0, "clock": "5+3", "offer": "open"}
    new_account(limited, "Throwaway1")
    assert limited.post("/api/games", json=offer).status_code == 200
    second = limited.post("/api/games", json=offer)
    assert second.status_code == 429 and "1 challenge waiting" in second.json()["detail"], second.text
    new_account(limited, "Throwaway2")
    assert limited.post("/api/games", json=offer).status_code == 200
    new_account(limited, "Throwaway3")
    third = limited.post("/api/games", json=offer)
    assert third.status_code == 429 and "too many challenges from your address" in third.json()["detail"], third.text
    real = TestClient(limited.app, client=("10.0.0.7", 4000))
    new_account(real, "RealPlayer")
    assert real.post("/api/games", json=offer).status_code == 200
    lobby = real.get("/api/lobby").json()
    assert sorted(c["by"] for c in lobby["challenges"]) == ["RealPlayer", "Throwaway1", "Throwaway2"]


@pytest.mark.parametrize("limited", [{"sockets_per_client": 2}], indirect=True)
def test_one_client_holds_a_bounded_number_of_sockets(limited: TestClient) -> None:
    """15,104 idle sockets from one client were accepted (727 MB)."""
    game = create(limited, mode="local", seed=2)
    with connect(limited, game["id"]), connect(limited, game["id"]):
        with pytest.raises(WebSocketDisconnect) as refused, limited.websocket_connect(f"/ws/games/{game['id']}"):
            pass
        assert refused.value.code == TOO_MANY_SOCKETS
        with pytest.raises(WebSocketDisconnect) as lobby_refused, limited.websocket_connect("/ws/lobby"):
            pass
        assert lobby_refused.value.code == TOO_MANY_SOCKETS
        other = TestClient(limited.app, client=("10.0.0.3", 4000))
        with connect(other, game["id"]) as someone_else:
            assert someone_else.first["type"] == "state"
    with connect(limited, game["id"]) as again:  # closed sockets are given back
        assert again.first["type"] == "state"


def test_a_profile_shows_games_by_private_invitation_to_their_player_alone(fresh: TestClient) -> None:
    """`GET /api/players/NAME` listed private invitation games, which anyone could then watch."""
    ada = new_account(fresh, "Ada")
    private = create(fresh, mode="online", seat=0, clock="10+5", rated=True)
    age_account(fresh, "Ada")
    public = create(fresh, mode="online", seat=0, clock="10+5", rated=True, offer="open")
    bob = new_account(fresh, "Bob")
    for game in (private, public):
        taken = fresh.post(f"/api/games/{game['id']}/join", json={"invite": game["invite"]}) if game is private else fresh.post(f"/api/games/{game['id']}/accept")
        assert taken.status_code == 200, taken.text
        play_in_the_past(fresh.app.state.server.store, game["id"], [("A", 3), ("A", 2)])  # type: ignore[attr-defined]  # both moved: rated
        apart(fresh)
        with connect(fresh, game["id"], taken.json()["token"]) as player:
            assert player.intent("resign")["type"] == "ack"
    carol = new_account(fresh, "Carol")
    for viewer, listed in ((carol, [public["id"]]), (None, [public["id"]]), (bob, [public["id"]]), (ada, [public["id"], private["id"]])):
        act_as(fresh, viewer)
        profile = fresh.get("/api/players/Ada").json()
        assert [g["id"] for g in profile["games"]] == listed, viewer
        assert sorted(filter(None, (h["game"] for h in profile["history"]))) == sorted(listed), "the rating history names no private game either"
        assert len(profile["history"]) == 2


def test_a_level_is_rated_only_on_a_clock_that_leaves_it_its_thinking_time(fresh: TestClient) -> None:
    """max kept its fixed rating on any clock, though on 0.25+0 it searched 2k playouts a move and lost to expert 2 of 10."""
    new_account(fresh, "Ada")
    for level, clock, rated, allowed in [
        ("max", "0.25+0", True, False),
        ("max", "1+0", True, False),  # a fortieth of a minute: 1.5 s of its 5
        ("max", "2+2", True, False),  # 3 s + 1.6 s: 4.6 s
        ("max", "3+2", True, True),  # 4.5 s + 1.6 s
        ("max", "5+0", True, True),
        ("expert", "0.25+0", True, False),
        ("expert", "0.5+1", True, True),
        ("strong", "0.25+0", True, True),  # bounded by playouts: a fraction of a second
        ("max", "0.25+0", False, True),  # casual: any clock
        ("max", "1d", True, True),
    ]:
        answer = fresh.post("/api/games", json={"mode": "ai", "level": level, "seat": 0, "clock": clock, "rated": rated})
        assert (answer.status_code == 200) == allowed, (level, clock, rated, answer.text)
        if not allowed:
            assert f"quiltmaker {level} is rated only on a clock" in answer.json()["detail"]
