"""What a new player's tryout found wrong in the browser game, each with the test that it is fixed.

The games are set up over the HTTP API and the protocol where the page is
not what is tested (a finished game, a special patch to place), then
looked at and played through the page, as a player would.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from browser_helpers import (
    create_in_lobby,
    ghost_transform,
    Pages,
    Server,
    Turning,
    create,
    open_seat,
    play_until,
    drag_place,
    ghost,
    message,
    placements,
    screenshot,
    synced_state,
    version,
    wait_above,
)
from web_helpers import poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`


def minus(number: int) -> str:
    return str(number).replace("-", "−")


def test_the_lobby_names_the_winner_with_the_winners_score_first(pages: Pages, server: Server) -> None:
    game = create(server, mode="local", seed=11, names=["Ada", "Gus"])
    final = play_until(server, game, lambda s: s["result"] is not None)
    winner, scores = final["result"]["winner"], final["result"]["scores"]
    page = pages.open("lobby")
    open_seat(page, game["id"], game["token"], "both")
    page.goto("/")
    expected = f"{['Ada', 'Gus'][winner]} won, {minus(scores[winner])} to {minus(scores[1 - winner])}"
    expect(page.locator("#your-games")).to_contain_text(expected)
    screenshot(page, "fixes-01-lobby-winner-first")
    pages.assert_no_script_errors()


def test_an_unknown_game_says_so_and_leads_back_to_the_lobby(pages: Pages) -> None:
    page = pages.open("lost")
    page.goto("/game/no-such-game-here")
    expect(page.get_by_test_id("missing")).to_be_visible()
    expect(page.locator("#game")).to_be_hidden()
    expect(page.get_by_test_id("connection")).to_have_text("")
    expect(page.locator("#game-title")).to_have_text("No such game")
    screenshot(page, "fixes-02-unknown-game")
    page.get_by_test_id("back-to-lobby").click()
    page.wait_for_url("**/")
    expect(page.get_by_test_id("create-game")).to_be_visible()
    pages.assert_no_script_errors()


@pytest.fixture
def online_game(server: Server) -> dict[str, Any]:
    """An online game with both seats taken: seat 0 (Ada) to move first."""
    game = create(server, mode="online", seat=0, seed=3, names=["Ada", "Bo"])
    joined = httpx.post(f"{server.url}/api/games/{game['id']}/join", json={"invite": game["invite"]}, timeout=30).json()
    return {**game, "tokens": {0: game["token"], 1: joined["token"]}}


def test_only_the_player_to_move_sees_what_advancing_would_bring(pages: Pages, server: Server, online_game: dict[str, Any]) -> None:
    waiting = pages.open("waiting")
    open_seat(waiting, online_game["id"], online_game["tokens"][1], 1)
    advance = waiting.get_by_test_id("advance")
    expect(advance).to_be_disabled()
    expect(advance).to_have_text("Advance")  # not the numbers of the opponent's advance
    mover = pages.open("mover")
    open_seat(mover, online_game["id"], online_game["tokens"][0], 0)
    expect(mover.get_by_test_id("advance")).to_have_text(re.compile(r"^Advance \d+ spaces? · \+\d+ buttons?$"))
    pages.assert_no_script_errors()


def test_a_seat_is_drawn_as_its_players_from_the_first_state(pages: Pages, server: Server, online_game: dict[str, Any]) -> None:
    """The server sends the state on connect, before it has read the hello: held back, the welcome shows the page
    must wait for it, or the player first sees the game as a watcher would (no Advance, "Ada to move")."""
    page = pages.open("slow-welcome")
    held: list[str | bytes] = []
    sockets: list[WebSocketRoute] = []

    def route(socket: WebSocketRoute) -> None:
        server_side = socket.connect_to_server()
        socket.on_message(server_side.send)
        # The welcome and whatever follows it are kept until the test lets them through.
        server_side.on_message(lambda text: held.append(text) if held or '"welcome"' in str(text) else socket.send(text))
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/games/"), route)
    open_seat(page, online_game["id"], online_game["tokens"][0], 0, first_state=False)
    poll(lambda: held, 30, what="the welcome, held back")
    page.wait_for_timeout(1000)  # the state came long ago: drawn now, it would be drawn without the seat
    assert version(page) == -1, "the state was drawn before the page knew whose seat it is"
    expect(page.get_by_test_id("turn")).to_have_text("Waiting for the game…")
    for text in held:
        sockets[0].send(text)
    expect(page.get_by_test_id("turn")).to_contain_text("Your turn")
    expect(page.get_by_test_id("advance")).to_have_text(re.compile(r"^Advance \d+ spaces? · \+\d+ buttons?$"))
    assert version(page) >= 0
    pages.assert_no_script_errors()


def test_advancing_out_of_turn_says_why_and_a_new_move_clears_old_words(pages: Pages, server: Server, online_game: dict[str, Any]) -> None:
    waiting = pages.open("waiting")
    open_seat(waiting, online_game["id"], online_game["tokens"][1], 1)

    def press_a() -> tuple[str, str] | None:
        # Pressed again until answered: under load the first key may come before the page has its state,
        # and pressing A out of turn changes nothing, so a second press is harmless.
        waiting.keyboard.press("a")
        return (m := message(waiting))[0] and m or None

    text, kind = poll(press_a, 20, interval=0.5, what="a word on pressing A out of turn")
    assert kind == "error" and "not your turn" in text.lower(), text
    before = version(waiting)
    play_until(server, online_game, lambda s: s["version"] > before, token=online_game["tokens"][0])
    wait_above(waiting, before)
    poll(lambda: message(waiting)[0] == "", 20, what="the old message to clear on the new move")
    pages.assert_no_script_errors()


def local_game_page(pages: Pages, server: Server) -> tuple[Page, dict[str, Any], dict[str, Any]]:
    """A pass-and-play game's page, its game and its first state."""
    game = create(server, mode="local", seed=5)
    page = pages.open("player")
    open_seat(page, game["id"], game["token"], "both")
    return page, game, synced_state(server, page)


def test_a_drop_outside_the_quilt_and_escape_are_said_on_the_page(pages: Pages, server: Server) -> None:
    page, _, state = local_game_page(pages, server)
    seat = state["to_move"]
    patch = next(b["patch"] for b in state["legal"]["buys"] if b["affordable"] and any(o["anchors"] for o in b["orientations"]))
    offer = page.get_by_test_id(f"offer-{patch}").bounding_box()
    assert offer is not None
    page.mouse.move(offer["x"] + offer["width"] / 2, offer["y"] + offer["height"] / 2)
    page.mouse.down()
    title = page.locator("#game-title").bounding_box()
    assert title is not None
    page.mouse.move(title["x"] + 10, title["y"] + 5, steps=8)
    page.mouse.up()
    poll(lambda: message(page)[0] == "Dropped outside your quilt: patch put back.", 10, what="the drop to be said")
    assert version(page) == state["version"]
    # An illegal click, then Escape: the red words go, the line says the patch went back.
    page.get_by_test_id(f"offer-{patch}").click()
    poll(lambda: ghost(page), 10, what="the ghost")
    page.keyboard.press("Escape")
    poll(lambda: message(page) == ("Patch put back.", "info"), 10, what="Escape to be said")
    assert seat in (0, 1)
    pages.assert_no_script_errors()


def test_a_pointer_placement_leaves_no_focus_ring(pages: Pages, server: Server) -> None:
    page, _, state = local_game_page(pages, server)
    patch, transform, anchor = placements(state)[0]
    drag_place(page, server, state["to_move"], patch, transform, anchor, Turning())
    ring = page.evaluate("() => document.activeElement !== document.body && document.activeElement.matches(':focus-visible')")
    assert not ring, page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")
    pages.assert_no_script_errors()


def test_turning_during_a_drag_leaves_no_focus_ring_over_the_quilt(pages: Pages, server: Server) -> None:
    """R pressed while dragging turns the patch; no ring lands on the quilt to hide its coordinates."""
    page, _, state = local_game_page(pages, server)
    seat = state["to_move"]
    patch = next(
        b["patch"]
        for b in state["legal"]["buys"]
        if b["affordable"] and any(o["anchors"] for o in b["orientations"]) and len(server.patch(b["patch"])["orientations"]) > 1
    )
    offer = page.get_by_test_id(f"offer-{patch}").bounding_box()
    board = page.get_by_test_id(f"quilt-{seat}").bounding_box()
    assert offer and board
    page.mouse.move(offer["x"] + offer["width"] / 2, offer["y"] + offer["height"] / 2)
    page.mouse.down()
    page.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2, steps=6)
    before = ghost_transform(page)
    page.keyboard.press("r")
    poll(lambda: ghost_transform(page) != before or None, 10, what="R to turn the patch in the drag")
    ringed = page.evaluate(
        """() => [...document.querySelectorAll(':focus-visible')].map(n => n.dataset.testid || n.id || n.className)"""
    )
    assert ringed == [], f"a focus ring during the drag, on {ringed}"
    outline = page.evaluate(f"() => getComputedStyle(document.querySelector('[data-testid=quilt-{seat}]')).outlineStyle")
    assert outline == "none", outline
    page.mouse.up()
    pages.assert_no_script_errors()


def test_offers_ask_for_the_special_patch_first_while_one_is_to_place(pages: Pages, server: Server) -> None:
    game = create(server, mode="local", seed=8)
    state = play_until(server, game, lambda s: s["pending"] > 0)
    page = pages.open("player")
    open_seat(page, game["id"], game["token"], "both")
    expect(page.get_by_test_id("special-banner")).to_be_visible()
    offered = page.locator(".offer").first
    expect(offered).to_contain_text("Place your special patch first")  # once the seat is taken (the welcome after the state)
    label = offered.text_content() or ""  # its accessible name: the button's own text
    assert "Place your special patch first" in label and "Not your turn" not in label, label
    page.keyboard.press("a")
    text, kind = poll(lambda: (m := message(page))[0] and m, 10, what="a word on pressing A")
    assert kind == "error" and "special patch" in text, text
    assert state["pending"] > 0
    pages.assert_no_script_errors()


def test_the_replay_calls_the_start_the_start_and_says_whose_best_move(pages: Pages, server: Server) -> None:
    game = create(server, mode="local", seed=11, names=["Ada", "Grace"])
    play_until(server, game, lambda s: s["result"] is not None)
    page = pages.open("review")
    open_seat(page, game["id"], game["token"], "both")
    caption = page.get_by_test_id("eval-caption")
    expect(caption).to_be_visible(timeout=120_000)  # the analysis of every position
    page.get_by_test_id("replay-first").click()
    expect(caption).to_contain_text("At the start: Ada")
    expect(caption).to_contain_text("best move for ")
    assert "move 0" not in caption.inner_text()
    page.get_by_test_id("replay-next").click()
    expect(caption).to_contain_text("After move 1:")
    screenshot(page, "fixes-08-replay-start")
    pages.assert_no_script_errors()


def test_online_moves_wait_for_confirmation_and_the_opponent_sees_nothing_before(pages: Pages, server: Server, online_game: dict[str, Any]) -> None:
    page = pages.open("mover")
    open_seat(page, online_game["id"], online_game["tokens"][0], 0)
    expect(page.get_by_test_id("confirm-setting")).to_be_checked()  # on by default in an online game
    start = server.state(online_game["id"])["version"]
    # Advancing by key: held for confirmation, and Escape takes it back unsent.
    page.keyboard.press("a")
    expect(page.get_by_test_id("confirm")).to_be_visible()
    expect(page.get_by_test_id("confirm-words")).to_contain_text("Advance")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("confirm")).to_be_hidden()
    assert server.state(online_game["id"])["version"] == start
    # A placement by mouse: shown, not sent, until Confirm.
    state = synced_state(server, page)
    patch, transform, anchor = placements(state)[0]
    page.get_by_test_id(f"offer-{patch}").click()
    poll(lambda: ghost(page), 10, what="the patch in hand")
    page.locator("#place").click()
    expect(page.get_by_test_id("confirm")).to_be_visible()
    words = page.get_by_test_id("confirm-words").inner_text()
    assert words.startswith(f"Place patch {patch} at "), words
    screenshot(page, "fixes-09-confirm-move", full_page=False)
    page.wait_for_timeout(300)  # were it sent, the server would have it by now
    assert server.state(online_game["id"])["version"] == start, "a move waiting for confirmation must not be sent"
    page.get_by_test_id("confirm-move").click()
    wait_above(page, start)
    assert server.state(online_game["id"])["moves"][0]["move"].startswith(f"{patch}")
    pages.assert_no_script_errors()


def test_moves_are_sent_at_once_where_the_player_turned_confirmation_off(pages: Pages, server: Server, online_game: dict[str, Any]) -> None:
    page = pages.open("mover")
    open_seat(page, online_game["id"], online_game["tokens"][0], 0)
    page.get_by_test_id("confirm-setting").uncheck()
    before = version(page)
    page.keyboard.press("a")
    wait_above(page, before)
    expect(page.get_by_test_id("confirm")).to_be_hidden()
    pages.assert_no_script_errors()


def test_the_last_move_stays_marked_and_the_neutral_token_stands_where_it_was_taken(pages: Pages, server: Server) -> None:
    page, _, state = local_game_page(pages, server)
    expect(page.get_by_test_id("neutral-token")).to_have_attribute("aria-label", re.compile("patches on offer start after it"))
    patch, transform, anchor = placements(state)[0]
    seat = state["to_move"]
    drag_place(page, server, seat, patch, transform, anchor, Turning())
    after = synced_state(server, page)
    marked = page.get_by_test_id(f"last-move-{seat}").locator(".overlay-cell")
    expect(marked).to_have_count(len(after["last_move"]["cells"]))
    last = after["last_move"]
    assert (last["player"], last["kind"], last["patch"], last["from_space"]) == (seat, "buy", patch, None)
    expect(page.get_by_test_id("neutral-token")).to_have_attribute("aria-label", re.compile(f"took patch {patch} from here"))
    # The next move moves the mark: an advance marks no squares.
    before = version(page)
    page.get_by_test_id("advance").click()
    wait_above(page, before)
    expect(page.locator("[data-testid^=last-move-] .overlay-cell")).to_have_count(0)
    pages.assert_no_script_errors()


def test_an_online_player_sees_the_other_join_leave_and_come_back(pages: Pages, server: Server) -> None:
    host = pages.open("host")
    game = create_in_lobby(host, "online", seat=0, names=("Hana", "Gus"))
    link = host.get_by_test_id("invite-link").get_attribute("href") or ""
    guest = pages.open("guest")
    guest.goto(link)
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    expect(host.get_by_test_id("presence-banner")).to_contain_text("Gus joined the game")
    expect(host.get_by_test_id("presence-1")).to_have_text("● here")
    expect(guest.get_by_test_id("presence-0")).to_have_text("● here")
    guest_url = guest.url
    guest.goto("about:blank")
    expect(host.get_by_test_id("presence-1")).to_have_text("○ away")
    expect(host.get_by_test_id("presence-banner").last).to_contain_text("Gus left the game")
    guest.goto(guest_url)
    expect(host.get_by_test_id("presence-1")).to_have_text("● here")
    expect(host.get_by_test_id("presence-banner").last).to_contain_text("Gus is back")
    assert server.state(game)["presence"] == [True, True]
    pages.assert_no_script_errors()


def test_resigning_asks_once_more_then_ends_the_game(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    game = create_in_lobby(page, "ai", level="beginner", seat=0, names=("Ada",))
    expect(page.get_by_test_id("abort")).to_be_visible()  # nobody has moved yet: it can be called off
    page.get_by_test_id("advance").click()
    poll(lambda: len(server.state(game)["moves"]) >= 2 or None, 30, what="the computer's reply")
    expect(page.get_by_test_id("resign")).to_be_visible()
    expect(page.get_by_test_id("abort")).to_be_hidden()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("ending")).to_contain_text("Resign this game? Your opponent wins.")
    page.get_by_test_id("ending-no").click()
    expect(page.get_by_test_id("ending")).to_be_hidden()
    assert server.state(game)["result"] is None, "keeping on changes nothing"
    page.get_by_test_id("resign").click()
    page.get_by_test_id("ending-yes").click()
    expect(page.get_by_test_id("turn")).to_contain_text("Ada resigned")
    expect(page.get_by_test_id("result")).to_contain_text("The scores as they stood")
    assert server.state(game)["result"]["by"] == "resignation"
    screenshot(page, "resigned")
    pages.assert_no_script_errors()


NOTIFICATION_LOG = """() => {
  window.notified = [];
  // The browser's Notification API as a page in a background tab with permission sees it, recording what it is asked.
  window.Notification = class { constructor(title, options) { window.notified.push([title, options.body]); }
    static get permission() { return "granted"; } static requestPermission() { return Promise.resolve("granted"); } };
  Object.defineProperty(document, "hidden", { configurable: true, get: () => window.backgroundTab === true });
}"""


def test_your_turn_in_a_background_tab_shows_in_the_favicon_and_a_notification(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    page.add_init_script(f"({NOTIFICATION_LOG})()")
    create_in_lobby(page, "ai", level="beginner", seat=0, names=("Ada",))
    icon = page.locator("link[rel=icon]")
    expect(icon).to_have_attribute("href", "/static/icons/icon-turn.svg")  # my turn: the dot
    page.get_by_test_id("notify-setting").check()
    page.evaluate("window.backgroundTab = true")
    before = version(page)
    page.get_by_test_id("advance").click()
    wait_above(page, before + 1)  # my move, then the computer's reply
    expect(icon).to_have_attribute("href", "/static/icons/icon-turn.svg")
    notified = poll(lambda: page.evaluate("window.notified") or None, 10, what="a notification")
    assert len(notified) == 1 and notified[0][0] == "Your turn in quiltmaker"
    pages.assert_no_script_errors()


def test_online_players_chat_as_text_and_a_spectator_sees_none(pages: Pages, server: Server) -> None:
    host = pages.open("host")
    game = create_in_lobby(host, "online", seat=0, names=("Hana", "Gus"))
    guest = pages.open("guest")
    guest.goto(host.get_by_test_id("invite-link").get_attribute("href") or "")
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    watcher = pages.open("watcher")
    watcher.goto(f"/game/{game}")
    host.get_by_role("button", name="Good luck").click()
    host.get_by_test_id("chat-text").fill('<img src=x onerror="window.pwned=1"> nice move')
    host.get_by_test_id("chat-send").click()
    lines = guest.get_by_test_id("chat-lines").locator("li")
    expect(lines).to_have_count(2)
    expect(lines.nth(0)).to_have_text("Hana: Good luck")
    expect(lines.nth(1)).to_have_text('Hana: <img src=x onerror="window.pwned=1"> nice move')
    assert guest.evaluate("window.pwned") is None and guest.locator("#chat-lines img").count() == 0
    expect(watcher.get_by_test_id("chat")).to_be_hidden()
    screenshot(guest, "chat-00-lines")
    guest.get_by_test_id("chat-off").check()
    expect(guest.get_by_test_id("chat-lines")).to_be_hidden()
    guest.reload()
    expect(guest.get_by_test_id("chat-off")).to_be_checked()
    pages.assert_no_script_errors()
