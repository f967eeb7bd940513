"""A session that ends takes with it the seats it gave to open sockets (signed out, everywhere, or by a new password)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from web_client import Player, act_as, connect, create, new_account

from quiltmaker.web.account.accounts import SESSION_COOKIE
from quiltmaker.web.protocol import SESSION_ENDED


def sign_in(client: TestClient, name: str, password: str = "correct horse") -> str:
    client.cookies.clear()
    response = client.post("/api/account/signin", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return str(client.cookies[SESSION_COOKIE])


def closed(player: Player) -> dict[str, object]:
    """Read past states and chat to what ends the socket."""
    while (message := player.receive())["type"] in ("state", "chat"):
        pass
    return message


def change_password(client: TestClient) -> None:
    assert client.post("/api/account/password", json={"current": "correct horse", "new": "battery staple"}).status_code == 200


ENDINGS: dict[str, Callable[[TestClient], None]] = {
    "a new password": change_password,
    "signed out everywhere": lambda client: client.post("/api/account/signout-everywhere").raise_for_status(),
}


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_socket_seated_by_a_session_that_ends_elsewhere_is_a_seat_no_more(fresh: TestClient, ending: str) -> None:
    first = new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0)  # Ada's seat 0, held by her account
    second = sign_in(fresh, "Ada")  # another browser
    with connect(fresh, game["id"]) as other, connect(fresh, game["id"]) as watching:
        assert other.hello(None)["seat"] == 0  # no token: the account's seat
        watching.wait_for(lambda s: s["presence"][0], "the seat here")
        act_as(fresh, first)
        ENDINGS[ending](fresh)
        assert closed(other) == {"type": "closed", "code": SESSION_ENDED}
        watching.wait_for(lambda s: not s["presence"][0], "the seat gone, for everyone watching")
    act_as(fresh, second)  # that browser again, its cookie dead: it reconnects as a spectator
    assert fresh.get("/api/account").json() is None or fresh.get("/api/account").json().get("name") is None
    with connect(fresh, game["id"]) as again:
        assert again.hello(None)["seat"] is None
        refused = again.intent("abort")
        assert refused["type"] == "error" and refused["code"] == "forbidden"


def test_signing_out_ends_that_session_s_seats_only_and_a_token_s_seat_stays(fresh: TestClient) -> None:
    first = new_account(fresh, "Ada")
    game = create(fresh, mode="online", seat=0)
    second = sign_in(fresh, "Ada")
    act_as(fresh, first)
    with connect(fresh, game["id"]) as by_session, connect(fresh, game["id"]) as by_token:
        assert by_session.hello(None)["seat"] == 0 and by_token.hello(game["token"])["seat"] == 0
        act_as(fresh, second)
        assert fresh.post("/api/account/signout").status_code == 200  # the other browser's session: not this socket's
        act_as(fresh, first)
        assert by_session.intent("resign")["code"] == "not_allowed"  # seated still (a spectator's is "forbidden"): not started
        assert fresh.post("/api/account/signout").status_code == 200  # this socket's own session
        assert closed(by_session) == {"type": "closed", "code": SESSION_ENDED}
        assert by_token.intent("abort")["type"] == "ack", "a seat its token holds is the token's, not the session's"
