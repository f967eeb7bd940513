"""End-to-end tests of the web game in a real headless Chromium, driven by Playwright.

Each module run starts a real ``quiltmaker serve`` process on a free port (its
own SQLite database in a temporary folder) and one headless browser; every test
opens its own browser contexts (separate local storage, so separate seats).

Moves are made through the page only, by mouse and keyboard as a person would.
Which move to make is chosen from the server's state (GET /api/games/{id}, the
same ``legal`` lists the page draws from), never by sending intents ourselves,
except where a test checks that the server refuses an intent.

Screenshots of every run are kept in ``test-artifacts/screenshots/`` (ignored by
git), with a ``FAILED-...`` screenshot of each open page when a test fails, and
the server's log in ``test-artifacts/browser-server.log``.

Chromium and the fixtures: see ``conftest.py`` beside this file.
The test machine may be small and busy: expectations wait up to 30 s and poll.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow  # a real browser against a real server: `make check` leaves it to `make test`

from playwright.sync_api import Page, expect  # noqa: E402

from browser_helpers import (  # noqa: E402
    accessibility_violations,
    TIMEOUT_MS,
    Pages,
    Server,
    Turning,
    acting_or_over,
    acting_seat,
    active_testid,
    advance_by_mouse,
    covered,
    create,
    create_in_lobby,
    drag_place,
    game_id,
    ghost,
    ghost_transform,
    grid_values,
    keyboard_place,
    message,
    mouse_place,
    move_text,
    placements,
    play_until,
    point_at,
    quilt_values,
    screenshot,
    special_by_mouse,
    synced_state,
    version,
    wait_above,
    wait_version,
)
from quiltmaker.core import record as record_module  # noqa: E402
from web_helpers import BOARD, poll  # noqa: E402


# ---------------------------------------------------------------- choosing moves as a player would


def choose_placement(server: Server, state: dict[str, Any], turning: Turning) -> tuple[int, str, int] | None:
    """A legal placement, steering towards mirrored and turned orientations until the game has used both.

    Among the patches, the biggest (to fill the quilt); the lowest anchor first.
    """
    options = placements(state)
    if not options:
        return None
    if turning.flips == 0 and any(t.startswith("F") for _, t, _ in options):
        options = [o for o in options if o[1].startswith("F")]
    elif turning.turns < 4 and any(t not in ("R0", "F0") for _, t, _ in options):
        options = [o for o in options if o[1] not in ("R0", "F0")]
    size = {p["id"]: len(p["orientations"][0]["cells"]) for p in server.catalogue["patches"]}
    return max(options, key=lambda o: (size[o[0]], -o[2]))


def dropped_illegally(page: Page, server: Server, seat: int, patch: int) -> str:
    """Pick ``patch`` up by mouse and click it down where the ghost is red (over a covered square).

    Returns the page's explanation; the patch is put back with Escape.
    """
    state = synced_state(server, page)
    before = version(page)
    page.get_by_test_id(f"offer-{patch}").click()
    poll(lambda: ghost(page), 10, what="the ghost")
    covered_squares = [(r, c) for r in range(BOARD) for c in range(BOARD) if state["quilts"][seat][r][c] is not None]
    assert covered_squares, "an illegal drop needs a covered square"
    for row, col in covered_squares:
        x, y = point_at(page, seat, row, col)
        # Wait for the ghost to follow the pointer (centred on it, kept inside the quilt), then read its colour.
        transform = ghost_transform(page)
        o = server.orientation(patch, transform)
        top = min(max(row - (o["height"] - 1) // 2, 0), BOARD - o["height"])
        left = min(max(col - (o["width"] - 1) // 2, 0), BOARD - o["width"])
        aimed = move_text(patch, transform, top * BOARD + left)
        shown = poll(lambda: (g := ghost(page)) and g[0] == aimed and g, 10, what=f"the ghost to follow the pointer to {aimed}")
        if shown[1] == "false":
            break
    else:
        raise AssertionError("the ghost was never red over a covered square")
    screenshot(page, "ai-game-02-illegal-ghost")
    page.mouse.click(x, y)
    text, kind = poll(lambda: (m := message(page))[1] == "error" and m, 20, what="an error in the message area")
    assert version(page) == before, "an illegal drop must not change the game"
    assert server.state(game_id(page))["version"] == before
    screenshot(page, "ai-game-03-illegal-explained")
    page.keyboard.press("Escape")
    poll(lambda: ghost(page) is None, 10, what="Escape to put the patch back")
    return text


# ---------------------------------------------------------------- 1. a whole game against the AI, by mouse


def test_whole_game_against_the_ai_by_mouse(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    game = create_in_lobby(page, "ai", level="beginner", seat=0, names=("Ada",))
    expect(page.locator("#game-title")).to_contain_text("against quiltmaker beginner")
    expect(page.locator("#game-title")).to_contain_text("you play as Ada")
    screenshot(page, "ai-game-00-start")

    turning = Turning()
    kinds: dict[str, int] = {"buy": 0, "advance": 0, "special": 0}
    illegal_explained = ""
    first_placement_shot = False
    for turn in range(120):
        if acting_or_over(page, timeout=90) == "over":
            break
        seat = acting_seat(page)
        assert seat == 0, "the page lets the player act only in their own seat"
        state = synced_state(server, page)
        before = state["version"]
        if state["legal"]["specials"]:
            expect(page.get_by_test_id("special-banner")).to_contain_text("You earned a special patch")
            if not kinds["special"]:
                screenshot(page, "ai-game-04-special-patch")
            move = special_by_mouse(page, state, seat)
            kinds["special"] += 1
        elif (choice := choose_placement(server, state, turning)) is not None:
            patch, transform, anchor = choice
            if not illegal_explained and any(v is not None for row in state["quilts"][seat] for v in row):
                illegal_explained = dropped_illegally(page, server, seat, patch)
            move = mouse_place(page, server, seat, patch, transform, anchor, turning, ("key_r", "right_click", "wheel"))
            kinds["buy"] += 1
        else:
            advance_by_mouse(page)
            move = "A"
            kinds["advance"] += 1
        after = version(page)
        assert after > before, f"turn {turn}: {move} did not raise the version"
        stored = server.state(game)["moves"][before]
        assert stored["move"] == move and stored["player"] == 0, f"the page sent {stored['move']!r}, the test made {move!r}"
        if kinds["buy"] == 1 and not first_placement_shot:
            screenshot(page, "ai-game-01-first-placement")
            first_placement_shot = True
        if sum(kinds.values()) == 5:
            # A reload in the middle of the game, while the computer may be thinking, brings it all back.
            page.reload()
            expect(page.get_by_test_id("version")).to_have_text(re.compile(r"^v\d+$"))
            assert version(page) >= after
            acting_or_over(page, timeout=90)
            expect(page.locator("#game-title")).to_contain_text("you play as Ada")
            seen = synced_state(server, page)
            for seat in (0, 1):
                assert quilt_values(page, seat) == grid_values(seen["quilts"][seat])
    else:
        raise AssertionError("the game did not end in 120 turns")

    expect(page.get_by_test_id("over-banner")).to_contain_text("Game over")  # shown for 15 s: look first
    final = server.state(game)
    assert final["status"] == "over" and final["result"] is not None
    result = final["result"]
    panel = page.get_by_test_id("result")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Final score")
    winner_name = final["names"][result["winner"]]
    expect(panel.locator(".winner")).to_contain_text(f"{winner_name} wins")
    for seat in (0, 1):
        breakdown = result["breakdown"][seat]
        expect(page.get_by_test_id(f"result-buttons-{seat}")).to_have_text(str(breakdown["buttons"]))
        expect(page.get_by_test_id(f"result-empty-{seat}")).to_have_text(str(breakdown["empty"]))
        expect(page.get_by_test_id(f"result-total-{seat}")).to_have_text(str(breakdown["total"]).replace("-", "−"))
        assert quilt_values(page, seat) == grid_values(final["quilts"][seat])
        for stat in ("buttons", "income", "forecast"):
            expect(page.get_by_test_id(f"{stat}-{seat}")).to_have_text(str(final[stat][seat]).replace("-", "−"))
    # The turn line names the winner as the page names players there: "Ada (you) wins" when it is you.
    expect(page.get_by_test_id("turn")).to_contain_text(re.compile(rf"{re.escape(winner_name)}( \(you\))? wins"))
    expect(page.get_by_test_id("advance")).to_be_hidden()
    expect(page.get_by_test_id("replay")).to_be_visible()  # a finished game can be replayed at once
    screenshot(page, "ai-game-05-end")

    print(f"moves by the player: {kinds}; turning: {turning}")
    assert kinds["buy"] >= 3, f"too few placements to be a real game: {kinds}"
    assert turning.key_r and turning.right_click and turning.wheel, f"every way of turning the patch was used: {turning}"
    assert turning.flips, f"a patch was mirrored with F: {turning}"
    assert re.search(r"Patch \d+ does not fit at [a-i][1-9]: move it until its preview turns green\.", illegal_explained), illegal_explained
    pages.assert_no_script_errors()


# ---------------------------------------------------------------- 2. online: two players and a spectator


def cannot_act(page: Page) -> None:
    """No control of this page would make a move now."""
    expect(page.locator(".quilt-board.acting")).to_have_count(0)
    expect(page.locator(".offer[aria-disabled='false']")).to_have_count(0)
    advance = page.get_by_test_id("advance")
    if advance.is_visible():
        expect(advance).to_be_disabled()


def out_of_turn_intent(page: Page, game: str, seen_version: int, with_token: bool) -> dict[str, Any]:
    """Open a second socket from this browser (with its stored seat token, or none) and send a move; the reply."""
    reply: dict[str, Any] = page.evaluate(
        """async ({game, version, withToken}) => {
            const entry = JSON.parse(localStorage.getItem("quiltmaker.games") || "{}")[game];
            const ws = new WebSocket(`ws://${location.host}/ws/games/${game}`);
            return await new Promise((resolve) => {
                const timer = setTimeout(() => resolve({type: "timeout"}), 20000);
                ws.onopen = () => ws.send(JSON.stringify({type: "hello", token: withToken ? entry.token : null}));
                ws.onmessage = (event) => {
                    const m = JSON.parse(event.data);
                    if (m.type === "welcome") ws.send(JSON.stringify({type: "move", move: "A", version, id: "out-of-turn"}));
                    if (m.type === "ack" || (m.type === "error" && m.id === "out-of-turn")) {
                        clearTimeout(timer); ws.close(); resolve(m);
                    }
                };
            });
        }""",
        {"game": game, "version": seen_version, "withToken": with_token},
    )
    return reply


def test_online_game_between_two_browsers_with_a_spectator(pages: Pages, server: Server) -> None:
    host = pages.open("host")
    guest = pages.open("guest")
    watcher = pages.open("watcher")
    game = create_in_lobby(host, "online", seat=0, names=("Hana", "Gus"))
    invite = host.get_by_test_id("invite-link")
    expect(invite).to_be_visible()
    invite_url = invite.get_attribute("href") or ""
    assert re.search(rf"/game/{game}\?invite=.+", invite_url), invite_url
    spectate_url = host.get_by_test_id("spectate-link").get_attribute("href") or ""
    assert spectate_url.endswith(f"/game/{game}")
    expect(host.get_by_test_id("turn")).to_contain_text("Waiting for your friend")
    screenshot(host, "online-00-host-waiting")

    watcher.goto(spectate_url)
    expect(watcher.get_by_test_id("turn")).to_contain_text("Waiting for your friend")
    guest.goto(invite_url)
    expect(guest.get_by_test_id("message")).to_contain_text("You joined the game.")
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    assert "invite" not in guest.url  # the one-time code is taken out of the address
    # The game starts for everyone: the host's invitation disappears, the spectator sees whose turn it is.
    expect(host.get_by_test_id("invite-link")).to_be_hidden()
    expect(watcher.get_by_test_id("turn")).to_contain_text("to move")
    expect(watcher.get_by_test_id("turn")).to_contain_text("You are watching this game")
    expect(watcher.locator("#game-title")).to_contain_text("you are watching")
    for player in (host, guest):
        expect(player.get_by_test_id("undo")).to_be_hidden()  # no undo and no hints online
        expect(player.get_by_test_id("hint")).to_be_hidden()

    for player in (host, guest):  # moves are sent as made here; the confirmation step has its own test
        expect(player.get_by_test_id("confirm-setting")).to_be_checked()
        player.get_by_test_id("confirm-setting").uncheck()
        player.locator("body").focus()
    by_seat = {0: host, 1: guest}
    made = {0: 0, 1: 0}
    guest_refused = False
    turning = Turning()
    for _ in range(40):
        if min(made.values()) >= 3:
            break
        state = server.state(game)
        seat = state["to_move"]
        mover, other = by_seat[seat], by_seat[1 - seat]
        assert acting_or_over(mover) == "acting"
        state = synced_state(server, mover)
        before = state["version"]
        wait_version(other, lambda v: v == before)

        # Neither the other player nor the spectator can act now, in the page or past it.
        cannot_act(other)
        cannot_act(watcher)
        if seat == 0 and not guest_refused:
            guest.get_by_test_id(f"offer-{state['offered'][0]}").click(force=True)
            expect(guest.get_by_test_id("message")).to_have_text("It is not your turn.")
            guest.keyboard.press("a")
            refused = out_of_turn_intent(guest, game, before, with_token=True)
            assert refused.get("code") == "not_your_turn", refused
            watched = out_of_turn_intent(watcher, game, before, with_token=False)
            assert watched.get("code") == "forbidden", watched
            watcher.get_by_test_id(f"offer-{state['offered'][0]}").click(force=True)
            expect(watcher.get_by_test_id("message")).to_contain_text("You are watching")
            assert server.state(game)["version"] == before and version(guest) == before
            screenshot(guest, "online-01-guest-not-your-turn")
            guest_refused = True

        options = placements(state)
        if state["legal"]["specials"]:
            if seat == 0:
                special_by_mouse(mover, state, seat)
            else:
                # Keyboard: Tab onto the quilt, which puts the cursor on a free square, then Enter.
                for _ in range(80):
                    if active_testid(guest) == "quilt-1":
                        break
                    guest.keyboard.press("Tab")
                assert active_testid(guest) == "quilt-1", "Tab never reached the guest's quilt"
                expect(guest.get_by_test_id("special-cursor")).to_have_count(1)
                guest.keyboard.press("Enter")
                wait_above(guest, before)
        elif options and seat == 0:
            patch, transform, anchor = max(options, key=lambda o: (o[1] != "R0", -o[2]))
            drag_place(host, server, 0, patch, transform, anchor, turning)
        elif options and seat == 1:
            patch = options[0][0]
            keyboard_place(guest, server, state, 1, patch, turn=made[1] % 2)
        elif seat == 0:
            advance_by_mouse(host)
        else:
            guest.keyboard.press("a")
            wait_above(guest, before)
        made[seat] += 1
        now = version(mover)
        assert now == before + 1
        # Everyone sees the move: the other player, and the spectator's version and move list.
        wait_version(other, lambda v: v == now)
        wait_version(watcher, lambda v: v == now)
        expect(watcher.locator("[data-testid=moves] li.move")).to_have_count(now)
        stored = server.state(game)["moves"][-1]
        expect(watcher.locator("[data-testid=moves] li.move").last).to_contain_text(stored["move"])
        assert quilt_values(watcher, seat) == quilt_values(mover, seat)
        if sum(made.values()) == 2:
            for name, page in (("host", host), ("guest", guest), ("watcher", watcher)):
                screenshot(page, f"online-02-{name}")
    else:
        raise AssertionError(f"moves made: {made}")

    assert guest_refused, "the guest was never asked to wait for the host"
    # The guest comes back to the same seat after a reload (the invitation's token is kept).
    final_version = version(guest)
    guest.reload()
    wait_version(guest, lambda v: v == final_version)
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    assert min(made.values()) >= 3
    # The spectator never had anything to act with.
    expect(watcher.get_by_test_id("advance")).to_be_hidden()
    expect(watcher.get_by_test_id("undo")).to_be_hidden()
    expect(watcher.get_by_test_id("hint")).to_be_hidden()
    expect(watcher.locator(".offer[aria-disabled='false']")).to_have_count(0)
    expect(watcher.locator(".quilt-board.acting")).to_have_count(0)
    for name, page in (("host", host), ("guest", guest), ("watcher", watcher)):
        screenshot(page, f"online-03-{name}")
    pages.assert_no_script_errors()


# ---------------------------------------------------------------- 3. reload in the middle of a game


def snapshot(page: Page) -> dict[str, Any]:
    return {
        "version": version(page),
        "title": page.locator("#game-title").inner_text(),
        "quilts": [quilt_values(page, seat) for seat in (0, 1)],
        "moves": page.locator("[data-testid=moves] li.move").all_inner_texts(),
        "buttons": [page.get_by_test_id(f"buttons-{seat}").inner_text() for seat in (0, 1)],
        "turn": page.get_by_test_id("turn").inner_text(),
    }


def test_reload_in_the_middle_of_a_game(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    game = create_in_lobby(page, "local", names=("Ada", "Grace"))
    turning = Turning()
    bought = 0
    for _ in range(4):
        acting_or_over(page)
        state = synced_state(server, page)
        seat = acting_seat(page)
        options = placements(state)
        if options and bought < 2:
            patch, transform, anchor = options[0]
            mouse_place(page, server, seat, patch, transform, anchor, turning)
            bought += 1
        else:
            advance_by_mouse(page)
    assert bought == 2
    before = snapshot(page)
    assert before["version"] == 4 and covered(before["quilts"][0]) + covered(before["quilts"][1]) > 0
    assert "you play both seats" in before["title"]
    screenshot(page, "reload-00-before")

    page.reload()
    wait_version(page, lambda v: v == before["version"], what="the same version after the reload")
    expect(page.get_by_test_id("connection")).to_have_text("")
    poll(lambda: snapshot(page) == before, 20, what="the same seat, quilts, moves and buttons after the reload")
    assert server.state(game)["version"] == before["version"]
    screenshot(page, "reload-01-after")

    # Play continues from the same seat.
    acting_or_over(page)
    state = synced_state(server, page)
    seat = acting_seat(page)
    options = placements(state)  # the setup is random: the player to move may have nothing to buy
    if options:
        patch, transform, anchor = options[0]
        mouse_place(page, server, seat, patch, transform, anchor, turning)
    else:
        advance_by_mouse(page)
    assert version(page) == before["version"] + 1
    assert server.state(game)["moves"][-1]["player"] == seat
    screenshot(page, "reload-02-played-on")

    # The lobby lists the game as this browser's, and opening it from there is the same seat again.
    page.goto("/")
    opened = page.get_by_test_id(f"open-{game}")
    expect(opened).to_have_text("Ada vs Grace")
    expect(page.get_by_test_id("your-games")).to_contain_text("both seats")
    opened.click()
    wait_version(page, lambda v: v == before["version"] + 1, what="the game opened from the lobby")
    expect(page.locator("#game-title")).to_contain_text("you play both seats")
    expect(page.get_by_test_id("advance")).to_be_enabled()
    pages.assert_no_script_errors()


# ---------------------------------------------------------------- 4. keyboard-only placement


def test_keyboard_only_placement_in_pass_and_play(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    game = create_in_lobby(page, "local")
    acting_or_over(page)
    # The lobby's game has a random circle: advance (by the button) until a patch that turns is on offer and affordable.
    for _ in range(12):
        state = synced_state(server, page)
        turnable = [b["patch"] for b in state["legal"]["buys"] if b["affordable"] and sum(1 for o in b["orientations"] if o["anchors"]) > 1]
        if turnable:
            break
        page.get_by_test_id("advance").click()
        wait_version(page, lambda v, seen=state["version"]: v == seen + 1, what="the advance")
    assert turnable, "in twelve turns a patch that turns was on offer and affordable"
    seat = acting_seat(page)
    patch = turnable[0]
    start = state["version"]

    # The skip link leads to the patches: Tab, Enter, Tab.
    page.locator("body").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('skip-link')"), active_testid(page)
    page.keyboard.press("Enter")
    poll(lambda: active_testid(page) == "offers-heading", 10, what="the skip link to move the focus to the patches")
    move = keyboard_place(page, server, state, seat, patch, turn=1)
    screenshot(page, "keyboard-00-placed")

    played = server.state(game)
    assert played["version"] == start + 1 and played["moves"][start]["move"] == move
    assert not move.startswith(f"{patch}R0@"), f"R turned the patch: {move}"
    assert quilt_values(page, seat) == grid_values(played["quilts"][seat])
    assert covered(quilt_values(page, seat)) == len(server.patch(patch)["orientations"][0]["cells"])
    # The focus comes back to the patches (or Advance) for the next player.
    poll(lambda: active_testid(page).startswith("offer-") or active_testid(page) == "advance", 10, what="the focus back on the controls")
    pages.assert_no_script_errors()


def test_a_hint_marks_its_squares_and_says_what_it_does(pages: Pages, server: Server) -> None:
    """The hint box words the move and the quilt marks its squares, both as the server sent them."""
    from websockets.sync.client import connect

    page = pages.open("player")
    game = create_in_lobby(page, "local")
    token = stored_token(page, game)
    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        for number in range(30):  # until the hint is a purchase, playing the hinted moves meanwhile
            before = version(page)
            page.get_by_test_id("hint").click()
            box = page.get_by_test_id("hint-box")
            expect(box).to_be_visible(timeout=TIMEOUT_MS)
            move = box.locator("code").inner_text().strip()
            if move[0].isdigit():
                break
            ws.send(json.dumps({"type": "move", "move": move, "version": before, "id": f"m{number}"}))
            while json.loads(ws.recv(timeout=30))["type"] != "ack":
                pass
            wait_above(page, before)
        else:
            raise AssertionError("no purchase was hinted in thirty moves")
    patch = int(re.match(r"\d+", move).group())  # type: ignore[union-attr]
    expect(box).to_contain_text(f"buy patch {patch}")
    expect(page.get_by_test_id("hint-why")).to_contain_text("covers")  # why, in a player's words
    expect(page.get_by_test_id(f"offer-{patch}")).to_have_class(re.compile(r"\bhinted\b"))  # the patch, marked in the circle
    seat = synced_state(server, page)["to_move"]
    mark = page.get_by_test_id(f"quilt-{seat}").locator("[data-testid=hint-mark] .overlay-cell")
    expect(mark).to_have_count(len(server.patch(patch)["orientations"][0]["cells"]))
    screenshot(page, "hint-00-purchase")
    pages.assert_no_script_errors()


# ---------------------------------------------------------------- 5. replay of a finished game


@pytest.fixture(scope="module")
def finished_game(server: Server) -> dict[str, Any]:
    """A pass-and-play game played to its end over the protocol (the first legal move each time: quilts fill)."""
    created = create(server, mode="local", seed=11, names=["Ada", "Grace"])
    state = play_until(server, created, lambda s: s["result"] is not None)
    record = httpx.get(f"{server.url}/api/games/{created['id']}/record.json").json()
    return {"id": created["id"], "state": state, "record": record}


def quilts_after(record: dict[str, Any], ply: int) -> list[list[list[str]]]:
    """Both quilts after ``ply`` moves of a JSON record, in the page's terms."""
    quilts = [[[""] * BOARD for _ in range(BOARD)] for _ in range(2)]
    for move in record["moves"][:ply]:
        if move["type"] == "buy":
            for r, c in move["cells"]:
                quilts[move["player"]][r][c] = str(move["patch"])
        elif move["type"] == "special":
            r, c = move["cell"]
            quilts[move["player"]][r][c] = "S"
    return quilts


def test_replay_of_a_finished_game(pages: Pages, server: Server, finished_game: dict[str, Any]) -> None:
    page = pages.open("viewer", accept_downloads=True)
    game, record = finished_game["id"], finished_game["record"]
    total = len(record["moves"])
    assert total == finished_game["state"]["version"]
    page.goto(f"/game/{game}")
    replay = page.get_by_test_id("replay")
    expect(replay).to_be_visible()
    position = page.locator("#replay-position")
    expect(position).to_have_text(f"move {total} of {total} (current)")

    positions = record_module.from_json(record).positions

    def drawn(ply: int) -> dict[str, Any]:
        """What the page draws of a position: quilts, circle, tokens on the track, buttons."""
        return {
            "quilts": [quilt_values(page, seat) for seat in (0, 1)],
            "circle": page.eval_on_selector_all("#circle [data-patch]", "nodes => nodes.map(n => Number(n.dataset.patch))"),
            "times": page.evaluate(
                "() => [0, 1].map(p => Number(document.querySelector(`[data-testid=token-${p}]`)?.closest('.track-space')?.dataset.space))"
            ),
            "buttons": [page.get_by_test_id(f"buttons-{seat}").inner_text() for seat in (0, 1)],
            "income": [page.get_by_test_id(f"income-{seat}").inner_text() for seat in (0, 1)],
            "scores": [page.get_by_test_id(f"score-{seat}").inner_text() for seat in (0, 1)],
        }

    def shows(ply: int) -> None:
        expect(position).to_have_text((f"move {ply}" if ply else "start") + f" of {total}" + (" (current)" if ply == total else ""))
        p = positions[ply]
        want = {
            "quilts": quilts_after(record, ply),
            "circle": list(p.circle),
            "times": list(p.times),
            "buttons": [str(b) for b in p.buttons],
            "income": [str(i) for i in p.income],
            "scores": [str(p.score(seat)).replace("-", "−") for seat in (0, 1)],  # the page writes a true minus sign
        }
        try:
            poll(lambda: drawn(ply) == want, 20, what=f"the position after move {ply}")
        except AssertionError:
            assert drawn(ply) == want  # shows the difference

    # The evaluation graph comes once the server has analysed every position.
    expect(page.get_by_test_id("eval-graph")).to_be_visible(timeout=180_000)
    shows(total)
    page.get_by_test_id("replay-first").click()
    shows(0)
    assert covered(quilt_values(page, 0)) == covered(quilt_values(page, 1)) == 0
    expect(page.get_by_test_id("replay-banner")).to_contain_text("the start of the game")
    expect(page.get_by_test_id("replay-first")).to_be_disabled()
    for ply in (1, 2, 3):
        page.get_by_test_id("replay-next").click()
        shows(ply)
    screenshot(page, "replay-00-move-3")
    page.get_by_test_id("replay-prev").click()
    shows(2)
    expect(page.get_by_test_id("eval-caption")).to_contain_text("After move 2")
    first_buy = next(i for i, m in enumerate(record["moves"]) if m["type"] == "buy")
    assert covered(quilts_after(record, first_buy + 1)[record["moves"][first_buy]["player"]]) > 0
    # The arrow keys step through the replay too; Home goes to the start.
    page.keyboard.press("ArrowRight")
    shows(3)
    page.keyboard.press("Home")
    shows(0)
    page.get_by_test_id("replay-last").click()
    shows(total)
    expect(page.get_by_test_id("replay-banner")).to_have_count(0)
    assert [quilt_values(page, s) for s in (0, 1)] == [grid_values(q) for q in finished_game["state"]["quilts"]]
    screenshot(page, "replay-01-last")

    # The turning points: a marked move opens at the position before it, with the better move drawn.
    judgements = httpx.get(f"{server.url}/api/games/{game}/analysis").json()["judgements"]
    assert judgements, "a game of first legal moves has moves that cost their player dearly"
    marked = next(j for j in judgements if j["better_cells"])  # a better move with squares to draw
    page.get_by_test_id(f"judgement-{marked['ply']}").click()
    shows(marked["ply"] - 1)
    note = page.get_by_test_id("judgement-note")
    expect(note).to_contain_text(f"Move {marked['ply']}, {'an' if marked['label'] == 'inaccuracy' else 'a'} {marked['label']}")
    expect(note).to_contain_text(marked["cost"])
    expect(note).to_contain_text(f"({marked['better']})")
    better = page.get_by_test_id("better-mark")
    expect(better.locator(".overlay-cell").first).to_be_visible()
    assert page.locator(f"[data-testid=quilt-{marked['player']}] [data-testid=better-mark]").count() == 1
    assert better.locator(".overlay-cell").count() == len(marked["better_cells"])
    if marked["better"] != "A" and not marked["better"].startswith("S"):
        expect(page.locator(".offer.hinted")).to_have_attribute("data-patch", marked["better"].split("R")[0].split("F")[0])
    screenshot(page, "replay-02-turning-point")
    assert accessibility_violations(page) == []
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("better-mark")).to_have_count(0)
    page.get_by_test_id("replay-last").click()

    # The record downloads: both links answer with the record, and a click saves it.
    json_link = page.get_by_test_id("download-json")
    text_link = page.get_by_test_id("download-txt")
    response = page.request.get(json_link.get_attribute("href") or "")
    assert response.status == 200 and response.json() == record
    response = page.request.get(text_link.get_attribute("href") or "")
    assert response.status == 200 and response.text().strip()
    with page.expect_download() as download_info:
        json_link.click()
    download = download_info.value
    assert download.suggested_filename == f"quiltmaker-{game}.json"
    assert json.loads(Path(download.path()).read_text(encoding="utf-8")) == record
    pages.assert_no_script_errors()


# ---------------------------------------------------------------- regressions


def test_default_name_in_an_ai_game_reads_as_english(pages: Pages, server: Server) -> None:
    page = pages.open("player")
    create_in_lobby(page, "ai", level="beginner", seat=0)  # no name given
    assert acting_or_over(page, timeout=90) == "acting"
    reason = page.locator("#turn .turn-reason").first
    expect(reason).to_contain_text("Why:")
    screenshot(page, "default-name-turn-reason")
    assert not re.search(r"\bYou (starts|is|arrived)\b", reason.inner_text()), reason.inner_text()


# ---------------------------------------------------------------- 7. rematch


def stored_token(page: Page, game: str) -> str:
    token: str = page.evaluate("(game) => JSON.parse(localStorage.getItem('quiltmaker.games'))[game].token", game)
    return token


def finish_over_the_protocol(server: Server, game: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Play an online game to its end through one socket per seat (the first legal move each time)."""
    from websockets.sync.client import connect

    from web_helpers import first_legal_move

    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game}") as zero, connect(f"ws://{host}/ws/games/{game}") as one:
        sockets = {0: zero, 1: one}
        for seat, ws in sockets.items():
            ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
        for number in range(500):
            state = server.state(game)
            if state["result"] is not None:
                return state
            ws = sockets[state["to_move"]]
            ws.send(json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"], "id": f"m{number}"}))
            while (reply := json.loads(ws.recv(timeout=30)))["type"] in ("state", "welcome"):
                pass
            assert reply["type"] == "ack", reply
    raise AssertionError("the game did not end")


def test_rematch_between_two_browsers(pages: Pages, server: Server) -> None:
    host = pages.open("host")
    guest = pages.open("guest")
    watcher = pages.open("watcher")
    game = create_in_lobby(host, "online", seat=0, names=("Hana", "Gus"))
    guest.goto(host.get_by_test_id("invite-link").get_attribute("href") or "")
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    watcher.goto(f"/game/{game}")
    finish_over_the_protocol(server, game, {0: stored_token(host, game), 1: stored_token(guest, game)})
    for page in (host, guest):
        expect(page.get_by_test_id("result")).to_contain_text("Final score")
        expect(page.get_by_test_id("rematch")).to_be_visible()
    expect(watcher.get_by_test_id("result")).to_contain_text("Final score")
    expect(watcher.get_by_test_id("rematch")).to_have_count(0)  # spectators cannot start one

    host.get_by_test_id("rematch").click()
    rematch = poll(lambda: server.state(game)["rematch"], 30, what="the rematch to be stored")
    host.wait_for_url(re.compile(rf"/game/{rematch}$"))
    expect(host.locator("#game-title")).to_contain_text("you play as Hana")  # seats swapped, same browser token
    expect(guest.get_by_test_id("rematch-banner")).to_contain_text("Your opponent has started a rematch")
    expect(watcher.get_by_test_id("rematch-link")).to_have_text("watch it")
    screenshot(guest, "rematch-00-offered")
    guest.get_by_test_id("rematch-link").click()
    guest.wait_for_url(re.compile(rf"/game/{rematch}$"))
    expect(guest.locator("#game-title")).to_contain_text("you play as Gus")
    acting_or_over(guest)
    assert acting_seat(guest) == 0  # Gus moved second, so he starts the rematch
    assert server.state(rematch)["names"] == ["Gus", "Hana"]
    pages.assert_no_script_errors()
