"""Showing what happened: the other side's moves one at a time, each arriving, and none of it with reduced motion."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from browser_helpers import Pages, Server, version
from web_helpers import COLUMNS, first_legal_move, poll

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

PACE_S = 0.7  # the page's PACE_MS: the least time between two of the other side's moves


def watch(pages: Pages, game: dict[str, Any], **options: Any) -> Page:
    """A spectator's page (every move is someone else's), recording when each version was shown."""
    page = pages.open("watcher", **options)
    page.goto(f"/game/{game['id']}")
    expect(page.get_by_test_id("version")).to_have_text("v0")
    page.evaluate(
        """() => {
          window.shown = [];
          new MutationObserver(() => window.shown.push([document.querySelector('[data-testid=version]').textContent, performance.now()]))
            .observe(document.querySelector('[data-testid=version]'), { childList: true, characterData: true, subtree: true });
        }"""
    )
    return page


def play_quickly(server: Server, game: dict[str, Any], moves: int, start: int = 0) -> None:
    """Play ``moves`` first-legal moves over the protocol, from version ``start``, as fast as the server takes them."""
    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game['id']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        played = acked = 0
        while acked < moves:
            reply = json.loads(ws.recv(timeout=30))
            assert reply["type"] != "error", reply
            acked += reply["type"] == "ack"
            if reply["type"] == "state" and reply["state"]["version"] == start + played and played < moves:
                state = reply["state"]
                ws.send(json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"], "id": str(start + played)}))
                played += 1


def test_the_other_sides_moves_play_out_one_by_one_and_each_arrives(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game)
    play_quickly(server, game, 4)
    poll(lambda: version(page) == 4, 30, what="the four moves to be shown")
    shown: list[list[Any]] = page.evaluate("window.shown")
    times = [t for text, t in shown if text != "v0"]
    assert len(times) >= 4, shown
    gaps = [(b - a) / 1000 for a, b in zip(times, times[1:])]
    assert min(gaps) >= PACE_S - 0.05, f"moves shown too close together: {gaps}"
    pages.assert_no_script_errors()


def test_with_reduced_motion_moves_show_at_once_and_nothing_moves(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game, reduced_motion="reduce")
    play_quickly(server, game, 4)
    poll(lambda: version(page) == 4, 30, what="the four moves to be shown")
    names = page.evaluate(
        "() => [...document.querySelectorAll('.arriving, .arriving .overlay-cell')].map(n => getComputedStyle(n).animationName)"
    )
    assert all(name == "none" for name in names), names
    assert page.evaluate("document.querySelectorAll('.arriving').length") == 0  # the page does not even mark them
    pages.assert_no_script_errors()


def test_a_move_arriving_is_animated_where_the_state_says(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game)
    # Catch the animation as it starts: every element that starts one, with its squares.
    page.evaluate(
        """() => { window.animated = [];
          document.addEventListener('animationstart', (e) => window.animated.push([e.animationName, e.target.className,
            e.target.closest('[data-testid^=last-move-]')?.dataset.testid || e.target.dataset.testid || '']), true); }"""
    )
    play_quickly(server, game, 1)  # the first legal move is a purchase whenever one is possible
    poll(lambda: version(page) == 1, 30, what="the move to be shown")
    state = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=30).json()
    last = state["last_move"]
    # The token's hop and the patch's sewing-in start a few milliseconds apart: wait for all that is expected to have started.
    expected = {"hop", "sew-in"} if last["cells"] else {"hop"}
    animated = poll(
        lambda: (a := page.evaluate("window.animated")) and expected <= {name for name, _, _ in a} and a or None, 10, what="the animations"
    )
    kinds = {name for name, _, _ in animated}
    assert "hop" in kinds, animated  # the mover's token
    if last["cells"]:
        assert "sew-in" in kinds and any(target == f"last-move-{last['player']}" for _, _, target in animated), animated
        cells = page.eval_on_selector_all(f"[data-testid=last-move-{last['player']}] .overlay-cell", "nodes => nodes.length")
        assert cells == len(last["cells"])
    pages.assert_no_script_errors()


ANIMATION_LOG = """() => { window.motions = [];
  const animate = Element.prototype.animate;
  // Every animation the page starts by script, with what it moves: a flying piece, a label, the neutral token, the bonus tag.
  Element.prototype.animate = function (...args) {
    window.motions.push(this.dataset.testid || this.className);
    return animate.apply(this, args);
  }; }"""


def test_every_kind_of_move_is_seen_travelling(pages: Pages, server: Server) -> None:
    """A whole game watched: purchases fly from the circle, special patches from the track, the neutral
    token slides, income pops up over each button space crossed, the bonus tag goes to its owner."""
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game)
    page.evaluate(ANIMATION_LOG)
    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game['id']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": game["token"]}))
        sent = -1
        for _ in range(400):
            reply = json.loads(ws.recv(timeout=30))
            assert reply["type"] != "error", reply
            if reply["type"] == "state":
                state = reply["state"]
                if state["result"] is not None:
                    break
                if state["version"] > sent:  # a state can come twice (a player arriving re-sends it)
                    sent = state["version"]
                    ws.send(json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"]}))
    total = state["version"]
    poll(lambda: version(page) == total, 120, what="every move to be shown")
    motions: list[str] = page.evaluate("window.motions")
    kinds = [entry["summary"] for entry in state["moves"]]
    assert "flying-patch" in motions and "neutral-token" in motions, motions
    assert "income-pop" in motions and any("income" in k for k in kinds), motions
    if any("special patch on" in k for k in kinds):
        assert "flying-special" in motions, motions
    if state["bonus"] != -1:
        assert any("bonus" in m for m in motions), motions
    pages.assert_no_script_errors()


def test_with_reduced_motion_nothing_travels(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game, reduced_motion="reduce")
    page.evaluate(ANIMATION_LOG)
    play_quickly(server, game, 6)
    poll(lambda: version(page) == 6, 30, what="the moves to be shown")
    assert page.evaluate("window.motions") == []
    pages.assert_no_script_errors()


SOUND_LOG = """() => { window.tones = 0;
  const create = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.tones += 1; return create.apply(this); }; }"""


def test_sound_is_off_until_turned_on_and_the_choice_is_kept(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game)
    setting = page.get_by_test_id("sound-setting")
    expect(setting).not_to_be_checked()
    page.evaluate(SOUND_LOG)
    play_quickly(server, game, 2)
    poll(lambda: version(page) == 2, 30, what="two moves to be shown")
    assert page.evaluate("window.tones") == 0, "no sound by default"
    setting.check()
    play_quickly(server, game, 1, start=2)
    poll(lambda: version(page) == 3, 30, what="the next move to be shown")
    poll(lambda: page.evaluate("window.tones") > 0 or None, 10, what="a sound for the move")
    page.reload()
    expect(page.get_by_test_id("sound-setting")).to_be_checked()
    pages.assert_no_script_errors()


def test_a_flying_patch_lands_on_the_squares_the_state_names(pages: Pages, server: Server) -> None:
    game: dict[str, Any] = httpx.post(f"{server.url}/api/games", json={"mode": "local", "seed": 5}, timeout=30).json()
    page = watch(pages, game)
    page.evaluate(
        """() => { window.flights = [];
          const animate = Element.prototype.animate;
          // Where each flying patch's box is laid out: its keyframes end at no transform, so it ends there.
          Element.prototype.animate = function (...args) {
            if (this.dataset.testid === "flying-patch") {
              window.flights.push(["left", "top", "width", "height"].map((side) => parseFloat(this.style[side])));
            }
            return animate.apply(this, args);
          }; }"""
    )
    play_quickly(server, game, 1)  # the first legal move is a purchase
    poll(lambda: version(page) == 1, 30, what="the move to be shown")
    last = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=30).json()["last_move"]
    assert last["kind"] == "buy"
    flights = poll(lambda: page.evaluate("window.flights") or None, 10, what="the patch's flight")
    names = [f"square-{last['player']}-{COLUMNS[c]}{r + 1}" for r, c in last["cells"]]
    target = page.evaluate(
        """(names) => { const rs = names.map((n) => document.querySelector(`[data-testid="${n}"]`).getBoundingClientRect());
          const left = Math.min(...rs.map((r) => r.left)), top = Math.min(...rs.map((r) => r.top));
          return [left, top, Math.max(...rs.map((r) => r.right)) - left, Math.max(...rs.map((r) => r.bottom)) - top]; }""",
        names,
    )
    assert all(abs(a - b) < 2 for a, b in zip(flights[0], target)), (flights[0], target)
    pages.assert_no_script_errors()
