"""Accounts: sign up, in and out (here and everywhere), the password, guest games claimed, and the Origin checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect
from web_client import act_as, connect, create, get_state, join, new_account

from quiltmaker.web.account.accounts import SESSION_COOKIE, AccountRow, SessionRow

OTHER_SITE = {"origin": "https://evil.example"}


def sign_up(client: TestClient, name: str = "Ada", password: str = "correct horse") -> dict:
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return response.json()


def test_signing_up_sets_an_httponly_samesite_session_and_keeps_only_hashes(fresh: TestClient) -> None:
    response = fresh.post("/api/account/signup", json={"name": "Ada", "password": "correct horse"})
    assert response.json() == {"account": {"name": "Ada"}}
    cookie = response.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    assert fresh.get("/api/account").json() == {"account": {"name": "Ada"}}
    token = fresh.cookies[SESSION_COOKIE]
    with Session(fresh.app.state.server.store.engine) as session:  # type: ignore[attr-defined]
        row = session.scalar(select(AccountRow))
        assert row is not None and "correct horse" not in row.password_hash and row.password_hash.startswith("$argon2")
        assert token not in {s.token_hash for s in session.scalars(select(SessionRow))}


def test_names_are_unique_whatever_their_case_and_must_be_well_formed(fresh: TestClient) -> None:
    sign_up(fresh)
    taken = fresh.post("/api/account/signup", json={"name": "ADA", "password": "another one"})
    assert taken.status_code == 409 and "taken" in taken.json()["detail"]
    assert fresh.post("/api/account/signup", json={"name": "a b", "password": "long enough"}).status_code == 422
    assert fresh.post("/api/account/signup", json={"name": "Grace", "password": "short"}).status_code == 422


def test_signing_in_with_a_wrong_password_or_name_is_refused_alike(fresh: TestClient) -> None:
    sign_up(fresh)
    fresh.post("/api/account/signout")
    wrong = fresh.post("/api/account/signin", json={"name": "Ada", "password": "wrong horse"})
    unknown = fresh.post("/api/account/signin", json={"name": "Nobody", "password": "correct horse"})
    assert wrong.status_code == unknown.status_code == 403 and wrong.json() == unknown.json()
    assert fresh.post("/api/account/signin", json={"name": "ada", "password": "correct horse"}).json() == {"account": {"name": "Ada"}}


def test_signing_out_everywhere_ends_every_session(fresh: TestClient, tmp_path: Path) -> None:
    sign_up(fresh)
    first = fresh.cookies[SESSION_COOKIE]
    fresh.cookies.clear()
    fresh.post("/api/account/signin", json={"name": "Ada", "password": "correct horse"})
    assert fresh.post("/api/account/signout-everywhere").json() == {"account": None}
    act_as(fresh, first)
    assert fresh.get("/api/account").json() == {"account": None}, "the other browser's session ended too"


def test_changing_the_password_needs_the_current_one_and_ends_the_other_sessions(fresh: TestClient) -> None:
    sign_up(fresh)
    other = fresh.cookies[SESSION_COOKIE]
    refused = fresh.post("/api/account/password", json={"current": "not it", "new": "battery staple"})
    assert refused.status_code == 403
    assert fresh.post("/api/account/password", json={"current": "correct horse", "new": "battery staple"}).status_code == 200
    assert fresh.get("/api/account").json() == {"account": {"name": "Ada"}}, "this browser stays signed in"
    mine = fresh.cookies[SESSION_COOKIE]
    act_as(fresh, other)
    assert fresh.get("/api/account").json() == {"account": None}
    act_as(fresh, mine)
    fresh.post("/api/account/signout")
    assert fresh.post("/api/account/signin", json={"name": "Ada", "password": "correct horse"}).status_code == 403
    assert fresh.post("/api/account/signin", json={"name": "Ada", "password": "battery staple"}).status_code == 200


def test_a_guests_games_are_claimed_with_their_tokens_and_only_with_them(fresh: TestClient) -> None:
    mine = create(fresh, mode="ai", level="beginner", seat=0)
    someone_elses = create(fresh, mode="local")
    sign_up(fresh)
    claims = [{"id": mine["id"], "token": mine["token"]}, {"id": someone_elses["id"], "token": "not-its-token"}]
    assert fresh.post("/api/account/claim", json={"games": claims}).json() == {"claimed": [mine["id"]]}
    signed_in = create(fresh, mode="ai", level="beginner", seat=1)
    listed = fresh.get("/api/account/games").json()["games"]
    assert {(g["id"], g["seat"]) for g in listed} == {(mine["id"], 0), (signed_in["id"], 1)}
    names = fresh.get(f"/api/games/{signed_in['id']}").json()["names"]
    assert names[1] == "Ada", "a signed-in player plays under the account's name"


def test_cookie_writes_from_another_sites_page_are_refused(fresh: TestClient) -> None:
    sign_up(fresh)
    assert fresh.post("/api/account/signout", headers=OTHER_SITE).status_code == 403
    assert fresh.post("/api/games", json={"mode": "local"}, headers=OTHER_SITE).status_code == 403
    assert fresh.get("/api/account").json() == {"account": {"name": "Ada"}}, "nothing changed"
    own = {"origin": "http://testserver"}
    assert fresh.post("/api/games", json={"mode": "local"}, headers=own).status_code == 200


def test_a_websocket_from_another_sites_page_is_refused(fresh: TestClient) -> None:
    game = create(fresh, mode="local")
    with pytest.raises(WebSocketDisconnect) as refused:
        with fresh.websocket_connect(f"/ws/games/{game['id']}", headers=OTHER_SITE):
            pass
    assert refused.value.code == 4403
    with fresh.websocket_connect(f"/ws/games/{game['id']}", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"
    with connect(fresh, game["id"], game["token"]) as player:  # no Origin: not a browser, as before
        assert player.state["version"] == 0


def test_an_accounts_seat_is_taken_from_any_browser_signed_in_to_it(fresh: TestClient) -> None:
    sign_up(fresh)
    game = create(fresh, mode="ai", level="beginner", seat=0)
    session = fresh.cookies[SESSION_COOKIE]
    fresh.cookies.clear()  # another browser: no seat token, not signed in
    with connect(fresh, game["id"]) as watcher:
        assert watcher.hello(None)["seat"] is None
    act_as(fresh, session)  # the same account signed in there: its seat, without the token
    with connect(fresh, game["id"]) as player:
        assert player.hello(None)["seat"] == 0
        assert player.move("A")["type"] == "ack"


def test_a_guest_cannot_take_an_account_s_name_or_a_lookalike_of_it_and_the_state_says_who_is_an_account(fresh: TestClient) -> None:
    """A guest played online as `sessuser` (an account's name) and as `Аda` (a Cyrillic A), and the state did not say
    which seats were accounts."""
    new_account(fresh, "sessuser")
    fresh.cookies.clear()
    for typed in ("sessuser", "SessUser", "ｓｅｓｓｕｓｅｒ", "Аda"):
        refused = fresh.post("/api/games", json={"mode": "online", "seat": 0, "names": [typed, "Bob"]})
        assert refused.status_code == 422, typed
    for name in (["Łukasz", "Zoë 李"], ["山田カオリ", "김철수"], ["abc漢字", "東京タワー"]):  # one way of writing a word each
        assert fresh.post("/api/games", json={"mode": "online", "seat": 0, "names": name}).status_code == 200, name
    assert fresh.post("/api/games", json={"mode": "ai", "seat": 0, "names": ["Аda"]}).status_code == 422, "mixed scripts, anywhere"
    new_account(fresh, "Ada")
    mine = create(fresh, mode="online", seat=0, names=["Ada", "Friend"])  # an account may type its own name
    assert get_state(fresh, mine["id"])["accounts"] == [True, False]
    fresh.cookies.clear()
    assert join(fresh, mine).status_code == 200  # a guest takes the other seat
    state = get_state(fresh, mine["id"])
    assert state["status"] == "playing" and state["accounts"] == [True, False]
