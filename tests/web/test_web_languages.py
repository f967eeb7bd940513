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


def test_a_lesson_and_its_tutor_speak_the_learners_language(fresh: TestClient) -> None:
    """A lesson created by a Polish browser: its words, the tutor's name and its refusal of a move it does not ask for."""
    response = fresh.post("/api/games", json={"mode": "lesson", "lesson": 1}, headers=POLISH)
    assert response.status_code == 200, response.text
    lesson = response.json()
    state = fresh.get(f"/api/games/{lesson['id']}", headers=POLISH).json()
    assert state["names"] == ["Gracz", "Nauczyciel"]  # default names, in the creator's language, kept with the game
    assert state["lesson"]["title"] == "Kupowanie łatki"
    assert state["lesson"]["intro"][0].startswith("Patchwork to wyścig") and "(5)" in state["lesson"]["intro"][0]
    assert state["lesson"]["steps"][0]["task"].startswith("Kup jedną z trzech")
    titles = [entry["title"] for entry in fresh.get("/api/catalogue", headers=POLISH).json()["lessons"]]
    assert titles[:2] == ["Kupowanie łatki", "Czyja tura"]
    with fresh.websocket_connect(f"/ws/games/{lesson['id']}", headers=POLISH) as socket:
        learner = Player(socket)
        assert learner.hello(lesson["token"])["type"] == "welcome"
        refused = learner.intent("move", move="A")  # the lesson asks for a purchase
        assert refused["type"] == "error" and refused["code"] == "lesson"
        assert refused["message"] == "Ta lekcja jest o kupowaniu: wybierz jedną z trzech dostępnych łatek, zamiast pasować."


def test_a_refused_move_is_worded_for_the_socket_that_sent_it(fresh: TestClient) -> None:
    """The rules' refusal in the sender's language: one Polish socket and one English on the same game."""
    game = create(fresh, mode="local", seed=0)
    with fresh.websocket_connect(f"/ws/games/{game['id']}", headers=POLISH) as socket:
        player = Player(socket)
        assert player.hello(game["token"])["type"] == "welcome"
        refused = player.intent("move", move="S@e5")
        assert refused["type"] == "error" and refused["code"] == "illegal"
        assert refused["message"].startswith("S@e5 jest niedozwolony: ") and "nie ma łatki 1x1 do położenia" in refused["message"]
        nothing = player.intent("undo", count=1)
        assert nothing["type"] == "error" and nothing["message"] == "nie ma ruchu do cofnięcia"
    with connect(fresh, game["id"], game["token"]) as english:
        refused = english.intent("move", move="S@e5")
        assert refused["message"].startswith("S@e5 is illegal: ") and "has no special patch to place" in refused["message"]
