"""The reader's language on the server: pages, the API's words and each socket's states, from a cookie, the account or the browser."""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_client import Player, connect, create

from quiltmaker.web.languages import LANGUAGE_COOKIE

POLISH = {"accept-language": "pl-PL,pl;q=0.9,en;q=0.5"}


def test_a_page_is_rendered_in_the_browsers_language_with_its_lang_and_its_scripts_words(fresh: TestClient) -> None:
    english, polish = fresh.get("/"), fresh.get("/", headers=POLISH)
    body = polish.text.split("</head>")[1]  # (the head carries the scripts' words, keyed by their English)
    assert '<html lang="en">' in english.text and "Learn to play" in english.text and "Naucz się grać" not in english.text
    assert '<html lang="pl">' in polish.text and "Naucz się grać" in body and "Learn to play" not in body
    assert polish.headers["content-language"] == "pl" and "Accept-Language" in polish.headers["vary"]
    assert '"Your turn": "Twoja tura"' in fresh.get("/game/anything", headers=POLISH).text  # the scripts' words, in the page
    assert '<option value="pl" lang="pl" selected>Polski</option>' in polish.text


def test_the_switch_keeps_the_choice_in_a_cookie_over_the_browsers_languages(fresh: TestClient) -> None:
    answer = fresh.post("/api/language", json={"language": "pl"})
    assert answer.status_code == 200 and LANGUAGE_COOKIE in answer.headers["set-cookie"]
    assert '<html lang="pl">' in fresh.get("/", headers={"accept-language": "en"}).text
    refused = fresh.post("/api/language", json={"language": "xx"})
    assert refused.status_code == 422 and "xx" in refused.text
    assert fresh.cookies[LANGUAGE_COOKIE] == "pl"  # a refused choice changes nothing


def test_a_signed_in_players_choice_follows_them_to_another_browser(fresh: TestClient) -> None:
    fresh.post("/api/account/signup", json={"name": "Ola", "password": "correct horse"})
    fresh.post("/api/language", json={"language": "pl"})
    fresh.cookies.clear()
    signed_in = fresh.post("/api/account/signin", json={"name": "Ola", "password": "correct horse"})
    assert f"{LANGUAGE_COOKIE}=pl" in signed_in.headers["set-cookie"]
    assert '<html lang="pl">' in fresh.get("/").text


def test_the_servers_words_and_refusals_are_in_the_readers_language(fresh: TestClient) -> None:
    game = create(fresh, mode="local", seed=0)
    english = fresh.get(f"/api/games/{game['id']}").json()
    polish = fresh.get(f"/api/games/{game['id']}", headers=POLISH).json()
    assert english["turn_reason"].endswith("starts the game") and polish["turn_reason"].endswith("zaczyna grę")
    assert "10 minutes + 5 seconds a move" in str(fresh.get("/api/catalogue").json()["clocks"])
    assert "10 minut + 5 sekund na ruch" in str(fresh.get("/api/catalogue", headers=POLISH).json()["clocks"])


def test_two_readers_of_one_game_each_get_its_states_in_their_own_language(fresh: TestClient) -> None:
    """A move by one player is broadcast to both sockets: each worded for its own reader."""
    game = create(fresh, mode="local", seed=0)
    with connect(fresh, game["id"], game["token"]) as mover:
        with fresh.websocket_connect(f"/ws/games/{game['id']}", headers=POLISH) as socket:
            watcher = Player(socket)
            assert "zaczyna grę" in watcher.first["state"]["turn_reason"]
            assert mover.intent("move", move="A")["type"] == "ack"
            while watcher.state.get("version", -1) < 1:
                watcher.receive()
            assert watcher.state["moves"][0]["summary"].startswith("pasuje o")
            assert mover.state["moves"][0]["summary"].startswith("advanced")
