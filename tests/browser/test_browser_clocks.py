"""Clocks in the browser: chosen in the lobby, drawn beside each player, counting down, low, and the end on time.

The server keeps the time; the page counts the running clock down between
two states. A clock's past is set by writing a game's first moves with
earlier times to the server's database (as after the server was down), so
a correspondence game can be days late without waiting days.
"""

from __future__ import annotations

import json
import re

import httpx
from browser_helpers import PHONE, Pages, Server, create, open_seat, screenshot
from playwright.sync_api import expect
from web_helpers import play_in_the_past
from websockets.sync.client import connect

from quiltmaker.web.db.database import database_url_for
from quiltmaker.web.round.store import GameStore



def clocked_game(server: Server, clock: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    game = create(server, mode="online", seat=0, names=["Hana", "Gus"], clock=clock)
    guest = httpx.post(f"{server.url}/api/games/{game['id']}/join", json={"invite": game["invite"]}, timeout=30).json()
    return game, guest["token"]


def advance(server: Server, game_id: str, token: str, version: int) -> None:
    """One advancing move over the protocol, as the other browser would send it."""
    with connect(f"ws://{server.url.removeprefix('http://')}/ws/games/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "move", "move": "A", "version": version, "id": f"advance-{version}"}))
        while (reply := json.loads(ws.recv(timeout=30)))["type"] not in ("ack", "error"):
            pass
        assert reply["type"] == "ack", reply


def test_the_lobby_offers_the_time_controls_and_a_game_shows_both_clocks(pages: Pages) -> None:
    page = pages.open("host")
    page.goto("/")
    page.get_by_test_id("mode").select_option("online")
    clock = page.get_by_test_id("clock")
    expect(clock).to_be_visible()
    expect(clock.locator("option[value='10+5']")).to_have_text("10 minutes + 5 seconds a move")
    expect(clock.locator("option[value='2d']")).to_have_text("2 days a move")
    clock.select_option("custom")
    page.get_by_test_id("clock-minutes").fill("3")
    page.get_by_test_id("clock-increment").fill("2")
    page.get_by_test_id("seat").select_option("0")
    page.get_by_test_id("create-game").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    for seat in (0, 1):
        expect(page.get_by_test_id(f"clock-{seat}")).to_have_text("3:00")
    expect(page.get_by_test_id("clock-0")).to_have_attribute("title", re.compile(r"3 minutes \+ 2 seconds a move\): the clocks start once each side has moved"))
    page.goto("/")
    expect(page.locator("[data-game]").first).to_contain_text("online (3 minutes + 2 seconds a move)")
    pages.assert_no_script_errors()


def test_a_real_time_clock_counts_down_warns_when_low_and_the_game_ends_on_time(pages: Pages, server: Server) -> None:
    game, guest_token = clocked_game(server, "0.25+0")  # 15 seconds each; low under 1.5 s
    host = pages.open("host")
    open_seat(host, game["id"], game["token"], 0)
    guest = pages.open("guest", **PHONE)
    open_seat(guest, game["id"], guest_token, 1)
    advance(server, game["id"], game["token"], 0)
    advance(server, game["id"], guest_token, 1)  # each side has moved: the host's clock runs
    clock = host.get_by_test_id("clock-0")
    expect(clock).to_have_class(re.compile(r"\brunning\b"))
    expect(guest.get_by_test_id("clock-0")).to_have_class(re.compile(r"\brunning\b"))
    expect(host.get_by_test_id("clock-1")).to_have_text("0:15")
    first = clock.inner_text()
    expect(clock).not_to_have_text(first)  # it counts down between states
    screenshot(host, "clocks-01-running")
    expect(clock).to_have_class(re.compile(r"\blow\b"), timeout=20_000)
    expect(host.get_by_test_id("banners")).to_contain_text("Your clock:")
    screenshot(host, "clocks-02-low")
    for page in (host, guest):
        expect(page.locator("#turn")).to_contain_text("Gus (you) wins on time: Hana ran out of time" if page is guest else "Gus wins on time: Hana ran out of time", timeout=20_000)
        expect(page.get_by_test_id("clock-0")).to_have_text("0.0")
        expect(page.get_by_test_id("resign")).to_be_hidden()
    # The warning was news while the clock ran: the result replaces it (it would otherwise stay its 6 seconds).
    expect(host.get_by_test_id("banners")).not_to_contain_text("Your clock:")
    expect(host.get_by_test_id("over-banner")).to_be_visible()
    screenshot(guest, "clocks-03-over-phone")
    assert server.state(game["id"])["result"]["by"] == "time"
    pages.assert_no_script_errors()


def test_a_correspondence_player_past_their_days_can_be_claimed_against(pages: Pages, server: Server) -> None:
    game, guest_token = clocked_game(server, "1d")
    store = GameStore(database_url_for(server.log.parent))
    try:
        play_in_the_past(store, game["id"], [("A", 2 * 86400 + 60), ("A", 2 * 86400)])  # Hana, to move, is a day late
    finally:
        store.close()
    late = pages.open("late")
    open_seat(late, game["id"], game["token"], 0)
    waiting = pages.open("waiting", **PHONE)
    open_seat(waiting, game["id"], guest_token, 1)
    expect(waiting.get_by_test_id("claimable")).to_contain_text("Hana is past their time (1 day a move): you may claim the win")
    expect(late.get_by_test_id("clock-0")).to_have_text("0.0")
    expect(late.get_by_test_id("clock-1")).to_have_text("1 day 0 h")
    expect(late.get_by_test_id("claim")).to_be_hidden()
    screenshot(waiting, "clocks-04-claimable-phone")
    waiting.get_by_test_id("claim").click()
    for page in (late, waiting):
        expect(page.locator("#turn")).to_contain_text("wins: Hana went past the days for a move")
    expect(waiting.get_by_test_id("claim")).to_be_hidden()
    pages.assert_no_script_errors()
