"""Helpers of the browser tests (tests/test_browser.py): a real server process, and
driving the game page with Playwright as a person would, by mouse and keyboard.

The page holds no rules, and neither do these helpers: which placement to make
is read from the ``legal`` lists of the server's state (GET /api/games/{id}),
but every move is then made through the page itself (clicks, pointer moves,
key presses), and the page's ghost must show it as legal before it is dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from web_helpers import TEST_LIMITS, BOARD, COLUMNS, first_legal_move, poll, square, start_server

from quiltmaker.core.components import PATCHES

from playwright.sync_api import Browser, Page, expect
from websockets.sync.client import connect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
"""A phone held upright, touched (Playwright's context options): the size the phone tests measure first."""


def on_screen(page: Page, selector: str) -> bool:
    """Whether the first match lies wholly inside the viewport (the page not scrolled)."""
    size = page.viewport_size
    assert size
    box = page.locator(selector).first.bounding_box()
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"]
    )


def a_new_tap(page: Page) -> None:
    """Chromium's touch emulation sends no click for a tap within its double-tap time of the last one: wait it out."""
    page.wait_for_timeout(800)

REPOSITORY = Path(__file__).resolve().parents[2]
ARTIFACTS = REPOSITORY / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"

# Generous: the test machine is small and busy (see the module docstring of test_browser.py).
TIMEOUT_MS = 30_000


# ---------------------------------------------------------------- the server




@dataclass
class Server:
    """A ``quiltmaker serve`` process on a free port, its database in ``data``."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path
    catalogue: dict[str, Any] = field(default_factory=dict)

    def forget_addresses(self) -> None:
        """Forget where accounts were seen from: the test's pages, all on this machine, stand for people in different
        places, whose rated games count (the rule for one address: tests/web/test_web_farming.py)."""
        with sqlite3.connect(self.log.parent / "quiltmaker.sqlite3") as database:
            database.execute("DELETE FROM account_addresses")

    def patch(self, patch_id: int) -> dict[str, Any]:
        return next(p for p in self.catalogue["patches"] if p["id"] == patch_id)

    def orientation(self, patch_id: int, transform: str) -> dict[str, Any]:
        return next(o for o in self.patch(patch_id)["orientations"] if o["transform"] == transform)

    def state(self, game_id: str) -> dict[str, Any]:
        response = httpx.get(f"{self.url}/api/games/{game_id}", timeout=30)
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]

    def log_tail(self, characters: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(encoding="utf-8", errors="replace")[-characters:]
        return ""


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """Stop the server: SIGTERM (it shuts its AI workers down), then SIGKILL to its whole process group,
    so no worker process outlives it (a worker of a killed server waits for work forever)."""
    if process.poll() is None:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # the group is the server's own (start_new_session)
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)


@contextlib.contextmanager
def running_server(data: Path, startup_seconds: float = 120.0) -> Iterator[Server]:
    """Start ``python -m quiltmaker serve`` on a free port; wait until /api/catalogue answers; kill it after."""
    data.mkdir(parents=True, exist_ok=True)
    log = data / "server.log"
    process, port = start_server(["--data", str(data), *TEST_LIMITS], log, cwd=data, timeout=startup_seconds)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        server.catalogue = httpx.get(f"{server.url}/api/catalogue", timeout=30).json()
        yield server
    finally:
        stop(process)
        # Keep the server's log beside the screenshots: it explains most failures.
        with contextlib.suppress(OSError):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, ARTIFACTS / "browser-server.log")


# ---------------------------------------------------------------- reading the page


def screenshot(page: Page, name: str, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def game_id(page: Page) -> str:
    match = re.search(r"/game/([^/?#]+)", page.url)
    assert match, f"not a game page: {page.url}"
    return match.group(1)


def version(page: Page) -> int:
    """The version the page shows ("v7" -> 7), -1 before the first state."""
    text = page.get_by_test_id("version").inner_text().strip()
    return int(text[1:]) if text.startswith("v") and text[1:].isdigit() else -1


def wait_version(page: Page, wanted: Callable[[int], bool], timeout: float = 30.0, what: str = "") -> int:
    def check() -> int | None:
        v = version(page)
        return v if wanted(v) else None

    try:
        return poll(check, timeout, what=what or "the version")
    except AssertionError as error:
        message = page.get_by_test_id("message").inner_text()
        raise AssertionError(f"{error}; the page shows v{version(page)}, message {message!r}") from None


def wait_above(page: Page, before: int, timeout: float = 30.0) -> int:
    return wait_version(page, lambda v: v > before, timeout, f"a version above {before}")


def message(page: Page) -> tuple[str, str]:
    """The message area's (text, kind), read together (a reply may land between two reads)."""
    text, kind = page.eval_on_selector(
        "[data-testid=message]", "node => [node.innerText, node.dataset.kind || '']"
    )
    return text, kind


def quilt_values(page: Page, seat: int) -> list[list[str]]:
    """What each square of a quilt shows: "" (empty), a patch id, or "S"."""
    values: list[str] = page.eval_on_selector_all(
        f"[data-testid=quilt-{seat}] .sq", "nodes => nodes.map(n => n.dataset.value)"
    )
    assert len(values) == BOARD * BOARD, f"quilt {seat} has {len(values)} squares"
    return [values[r * BOARD : (r + 1) * BOARD] for r in range(BOARD)]


def grid_values(grid: list[list[Any]]) -> list[list[str]]:
    """A state's quilt (None | patch id | "S") in the page's terms."""
    return [["" if v is None else str(v) for v in row] for row in grid]


def covered(values: list[list[str]]) -> int:
    return sum(1 for row in values for v in row if v != "")


def acting_or_over(page: Page, timeout: float = 60.0) -> str:
    """Wait until this page may move ("acting") or the game is over ("over")."""
    page.wait_for_function(
        "() => document.querySelector('.quilt-board.acting') || !document.querySelector('[data-testid=result]').hidden",
        timeout=timeout * 1000,
    )
    return "over" if page.get_by_test_id("result").is_visible() else "acting"


def acting_seat(page: Page) -> int:
    return int(page.locator(".quilt-board.acting").get_attribute("data-seat") or -1)


def synced_state(server: Server, page: Page, timeout: float = 30.0) -> dict[str, Any]:
    """The server's state of the page's game, once the page shows the same version."""

    def check() -> dict[str, Any] | None:
        state = server.state(game_id(page))
        return state if state["version"] == version(page) else None

    return poll(check, timeout, interval=0.1, what="the page and the server to agree on the version")


# ---------------------------------------------------------------- moves


def parse_move(text: str) -> tuple[int, str, int, int]:
    """``"12R1@e5"`` -> (12, "R1", row 4, col 4)."""
    match = re.fullmatch(r"(\d+)([RF][0-3])@([a-i])([1-9])", text)
    assert match, f"not a placement: {text!r}"
    return int(match.group(1)), match.group(2), int(match.group(4)) - 1, COLUMNS.index(match.group(3))


def placements(state: dict[str, Any]) -> list[tuple[int, str, int]]:
    """Every legal (patch, transform, anchor) of a state."""
    return [
        (buy["patch"], o["transform"], anchor)
        for buy in state["legal"]["buys"]
        if buy["affordable"]
        for o in buy["orientations"]
        for anchor in o["anchors"]
    ]


def move_text(patch: int, transform: str, anchor: int) -> str:
    return f"{patch}{transform}@{square(anchor)}"


def ghost(page: Page) -> tuple[str, str] | None:
    """The ghost's (move text, "true"/"false") or None without one (the page composes no move text: the test does)."""
    node = page.get_by_test_id("ghost")
    if node.count() == 0:
        return None
    patch, orientation, square = (node.get_attribute(f"data-{name}") or "" for name in ("patch", "orientation", "square"))
    return f"{patch}{orientation}@{square}", node.get_attribute("data-legal") or ""


def ghost_transform(page: Page) -> str:
    shown = poll(lambda: ghost(page), 10, what="the ghost of the patch in hand")
    return parse_move(shown[0])[1]


def square_centre(page: Page, seat: int, row: int, col: int) -> tuple[float, float]:
    box = page.get_by_test_id(f"square-{seat}-{COLUMNS[col]}{row + 1}").bounding_box()
    assert box, "the square is not displayed"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def aim_square(server: Server, patch: int, transform: str, anchor: int) -> tuple[int, int]:
    """The square to point at so that the page puts the patch's top-left at ``anchor``.

    The page centres the patch in hand on the pointer: anchor = pointer - (size - 1) // 2.
    """
    o = server.orientation(patch, transform)
    return anchor // BOARD + (o["height"] - 1) // 2, anchor % BOARD + (o["width"] - 1) // 2


# Turning and mirroring follow the rules' own successor tables (components.TURNED / FLIPPED,
# sent to the page in the catalogue): the ghost must show what they lead to.


def _turn_name(patch: dict[str, Any], transform: str) -> str:
    """The orientation a quarter turn clockwise leads to."""
    orientations = PATCHES[patch["id"]].orientations
    return orientations[orientations[_index(patch, transform)].turned].transform


def _index(patch: dict[str, Any], transform: str) -> int:
    return PATCHES[patch["id"]].transform_to_orientation[transform]


def turning_plan(patch: dict[str, Any], start: str, target: str) -> list[tuple[str, str]]:
    """The fewest quarter turns ("turn") and mirrors ("flip") from orientation ``start`` to ``target``
    of a catalogue patch, each with the orientation the ghost should show after it.
    """
    orientations = PATCHES[patch["id"]].orientations
    paths: dict[str, list[tuple[str, str]]] = {start: []}
    frontier = [start]
    while frontier and target not in paths:
        following = []
        for name in frontier:
            here = orientations[_index(patch, name)]
            for action, index in (("turn", here.turned), ("flip", here.flipped)):
                after = orientations[index].transform
                if after not in paths:
                    paths[after] = [*paths[name], (action, after)]
                    following.append(after)
        frontier = following
    assert target in paths, f"patch {patch['id']}: {target} cannot be reached from {start}"
    return paths[target]


@dataclass
class Turning:
    """How often the patch in hand was turned and mirrored, and by which means."""

    key_r: int = 0
    right_click: int = 0
    wheel: int = 0
    flips: int = 0

    @property
    def turns(self) -> int:
        return self.key_r + self.right_click + self.wheel


def turn_by(page: Page, seat: int, how: str) -> None:
    """Turn the patch in hand a quarter clockwise: the R key, a right-click on the quilt, or a wheel notch."""
    if how == "key_r":
        page.keyboard.press("r")
        return
    box = page.get_by_test_id(f"quilt-{seat}").bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    if how == "right_click":
        page.mouse.click(x, y, button="right")
    else:
        # The page turns at most once per 180 ms of wheel events (a touchpad sends a stream
        # of small ones), so a person's separate notches are further apart than that.
        time.sleep(0.25)
        page.mouse.wheel(0, 120)


def turn_to(
    page: Page, server: Server, seat: int, patch: int, target: str, turning: Turning, methods: tuple[str, ...] = ("key_r",)
) -> None:
    """Turn the patch in hand (and mirror it with F when turning alone cannot) until the ghost shows ``target``.

    The means of turning go round ``methods``; after each press the ghost must
    show the orientation the rules' successor tables lead to.
    """
    for action, expected in turning_plan(server.patch(patch), ghost_transform(page), target):
        if action == "flip":
            page.keyboard.press("f")
            turning.flips += 1
        else:
            how = methods[turning.turns % len(methods)]
            turn_by(page, seat, how)
            setattr(turning, how, getattr(turning, how) + 1)
        poll(lambda: ghost_transform(page) == expected, 10, what=f"the patch in hand to show {expected} after a {action}")
        # A screen reader hears the words the screen shows ("flipped and turned once"), not the notation.
        words = server.orientation(patch, expected)["words"]
        poll(lambda: words in (page.locator("#announce").text_content() or ""), 10, what=f"the turn announced as {words!r}")


def wait_ghost(page: Page, expected: str, legal: str = "true", timeout: float = 10.0) -> None:
    poll(lambda: ghost(page) == (expected, legal), timeout, what=f"the ghost to show {expected} as legal={legal} (shows {ghost(page)})")


def point_at(page: Page, seat: int, row: int, col: int) -> tuple[float, float]:
    """Move the mouse onto a square of a quilt (a pointer move the page sees), returning where it is."""
    page.get_by_test_id(f"quilt-{seat}").scroll_into_view_if_needed()
    x, y = square_centre(page, seat, row, col)
    page.mouse.move(x + 4, y + 4)  # two moves, so the page gets a pointer move even if it was there already
    page.mouse.move(x, y)
    return x, y


def mouse_place(
    page: Page, server: Server, seat: int, patch: int, transform: str, anchor: int, turning: Turning,
    methods: tuple[str, ...] = ("key_r",),
) -> str:
    """Buy and place by mouse: click the offer, turn it to ``transform``, point so the ghost sits at ``anchor``, click.

    Returns the move's text once the page shows a new version.
    """
    expected = move_text(patch, transform, anchor)
    page.get_by_test_id(f"offer-{patch}").click()
    poll(lambda: ghost(page), 10, what=f"the ghost of patch {patch} after clicking its offer")
    turn_to(page, server, seat, patch, transform, turning, methods)
    x, y = point_at(page, seat, *aim_square(server, patch, transform, anchor))
    wait_ghost(page, expected)
    before = version(page)
    page.mouse.click(x, y)
    wait_above(page, before)
    return expected


def drag_place(page: Page, server: Server, seat: int, patch: int, transform: str, anchor: int, turning: Turning) -> str:
    """Buy and place by dragging the offer onto the quilt, turning it with R and F on the way."""
    expected = move_text(patch, transform, anchor)
    offer = page.get_by_test_id(f"offer-{patch}")
    offer.scroll_into_view_if_needed()
    box = offer.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    board = page.get_by_test_id(f"quilt-{seat}").bounding_box()
    assert board
    page.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2, steps=6)
    turn_to(page, server, seat, patch, transform, turning, ("key_r",))
    row, col = aim_square(server, patch, transform, anchor)
    x, y = square_centre(page, seat, row, col)
    page.mouse.move(x, y, steps=3)
    wait_ghost(page, expected)
    before = version(page)
    page.mouse.up()
    wait_above(page, before)
    return expected


def active_testid(page: Page) -> str:
    return page.evaluate("() => document.activeElement?.dataset?.testid || document.activeElement?.id || ''") or ""


def tab_to_offer(page: Page, presses: int = 80) -> str:
    """Press Tab until a patch on offer has the focus; returns its test id."""
    for _ in range(presses):
        focused = active_testid(page)
        if focused.startswith("offer-"):
            return focused
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached a patch on offer (the focus is on {active_testid(page)!r})")


def arrow_to_offer(page: Page, patch: int) -> None:
    """With an offer focused, move the focus to ``offer-{patch}`` with the left and right arrow keys."""
    offers: list[str] = page.eval_on_selector_all(".offer", "nodes => nodes.map(n => n.dataset.testid)")
    wanted = f"offer-{patch}"
    steps = offers.index(wanted) - offers.index(active_testid(page))
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    assert active_testid(page) == wanted, f"the arrow keys did not reach {wanted}: the focus is on {active_testid(page)!r}"


def arrow_to(page: Page, row: int, col: int, target_row: int, target_col: int) -> None:
    for _ in range(abs(target_row - row)):
        page.keyboard.press("ArrowDown" if target_row > row else "ArrowUp")
    for _ in range(abs(target_col - col)):
        page.keyboard.press("ArrowRight" if target_col > col else "ArrowLeft")


def keyboard_place(page: Page, server: Server, state: dict[str, Any], seat: int, patch: int, turn: int = 0) -> str:
    """Buy and place by keyboard only: Tab to the offers, arrows to ``patch``, Enter, R ``turn`` times,
    arrows to a legal square (two or more steps away when there is one), Enter.

    Returns the move's text once the page shows a new version.
    """
    tab_to_offer(page)
    arrow_to_offer(page, patch)
    page.keyboard.press("Enter")
    poll(lambda: ghost(page), 10, what="the ghost after Enter on an offer")
    assert active_testid(page) == f"quilt-{seat}", f"Enter on an offer should move the focus to the quilt, not {active_testid(page)!r}"

    def anchors_of(transform: str) -> list[int]:
        return next(
            (o["anchors"] for b in state["legal"]["buys"] if b["patch"] == patch for o in b["orientations"] if o["transform"] == transform),
            [],
        )

    # Turn ``turn`` times, and on (at most a full turn more) while the orientation fits nowhere.
    for presses in range(turn + 4):
        current = ghost_transform(page)
        if presses >= turn and anchors_of(current):
            break
        page.keyboard.press("r")
        expected = _turn_name(server.patch(patch), current)
        poll(lambda: ghost_transform(page) == expected, 10, what=f"R to turn the patch in hand to {expected}")
    shown, _ = poll(lambda: ghost(page), 10, what="the ghost")
    _, transform, row, col = parse_move(shown)
    anchors = anchors_of(transform)
    assert anchors, f"patch {patch} has no legal square in orientation {transform}"

    def distance(anchor: int) -> int:
        return abs(anchor // BOARD - row) + abs(anchor % BOARD - col)

    far = [a for a in anchors if distance(a) >= 2]
    anchor = min(far or anchors, key=distance)
    arrow_to(page, row, col, anchor // BOARD, anchor % BOARD)
    expected = move_text(patch, transform, anchor)
    wait_ghost(page, expected)
    before = version(page)
    page.keyboard.press("Enter")
    wait_above(page, before)
    return expected


def advance_by_mouse(page: Page) -> None:
    before = version(page)
    page.get_by_test_id("advance").click()
    wait_above(page, before)


def special_by_mouse(page: Page, state: dict[str, Any], seat: int) -> str:
    """Place a special patch by clicking the empty square the server lists first."""
    special = state["legal"]["specials"][0]
    move, name = special["move"], special["square"]
    before = version(page)
    page.get_by_test_id(f"square-{seat}-{name}").click()
    wait_above(page, before)
    return move


# ---------------------------------------------------------------- pages and the lobby

VIEWPORT = {"width": 1280, "height": 1000}


class Pages:
    """Opens pages, each in its own browser context; remembers them for failure screenshots and errors."""

    def __init__(self, browser: Browser, server: Server) -> None:
        self.browser = browser
        self.server = server
        self.opened: list[tuple[str, Page]] = []
        self.errors: list[str] = []

    def open(self, name: str, **options: Any) -> Page:
        context = self.browser.new_context(base_url=self.server.url, **{"viewport": VIEWPORT, **options})
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{name}: {error}"))
        # The server's Content-Security-Policy is in force: anything it blocks is an error of the page.
        page.on("console", lambda message: self._policy_violation(name, message.text))
        self.opened.append((name, page))
        return page

    def _policy_violation(self, name: str, text: str) -> None:
        if "Content Security Policy" in text:
            self.errors.append(f"{name}: {text}")

    def assert_no_script_errors(self) -> None:
        assert not self.errors, f"uncaught errors in the page: {self.errors}"


def sign_up_in_lobby(page: Page, name: str, password: str = "correct horse") -> None:
    """Create an account with the lobby's account card; signed in once its name shows."""
    page.goto("/")
    page.get_by_test_id("account-name").fill(name)
    page.get_by_test_id("account-password").fill(password)
    page.get_by_test_id("sign-up").click()
    expect(page.get_by_test_id("account-shown")).to_have_text(name)


def create_in_lobby(page: Page, mode: str, *, level: str | None = None, seat: int | None = None, names: tuple[str, ...] = ()) -> str:
    """Fill in and submit the lobby's form; returns the new game's id once its page shows a version."""
    page.goto("/")
    page.get_by_test_id("mode").select_option(mode)
    if level is not None:
        page.locator(f"#level option[value='{level}']").wait_for(state="attached")  # filled from /api/catalogue
        page.get_by_test_id("level").select_option(level)
    if seat is not None:
        page.get_by_test_id("seat").select_option(str(seat))
    for index, name in enumerate(names):
        page.get_by_test_id(f"name-{index}").fill(name)
    page.get_by_test_id("create-game").click()
    page.wait_for_url(re.compile(r"/game/[^/?]+$"))
    expect(page.get_by_test_id("version")).to_have_text(re.compile(r"^v\d+$"))
    return game_id(page)


# ---------------------------------------------------------------- accessibility

AXE = REPOSITORY / "node_modules" / "axe-core" / "axe.min.js"


def accessibility_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """Run axe-core (from npm: `npm ci`, which `make test` runs) on the page; its violations of these impacts."""
    assert AXE.exists(), f"axe-core is missing ({AXE}): run `npm ci` (make test does)"
    # The page as it settles: a move's animations (a label fading in, a piece in flight) are not its colours.
    page.evaluate(
        "() => document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).forEach((a) => a.finish())"
    )
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated by the browser's tools, not added as a script: the page's policy allows only its own scripts.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    results = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:4]}"
        for v in results["violations"]
        if v["impact"] in impacts
    ]


# ---------------------------------------------------------------- games set up over the API and the protocol

def create(server: Server, **body: Any) -> dict[str, Any]:
    """A new game through the HTTP API, as the lobby creates one."""
    answer: dict[str, Any] = httpx.post(f"{server.url}/api/games", json=body, timeout=30).json()
    return answer


def play_until(
    server: Server,
    game: dict[str, Any],
    done: Callable[[dict[str, Any]], bool],
    token: str | None = None,
    seat: int | None = None,
    messages: int = 600,
    timeout: float = 30,
) -> dict[str, Any]:
    """Play the first legal move over the protocol until ``done(state)``; returns that state.

    With ``seat``, only that seat's turns are played (the computer answers the
    others by itself); at most ``messages`` are read, each within ``timeout``.
    """
    host = server.url.removeprefix("http://")
    with connect(f"ws://{host}/ws/games/{game['id']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token or game["token"]}))
        sent = -1
        for number in range(messages):
            reply = json.loads(ws.recv(timeout=timeout))
            assert reply["type"] != "error", reply
            if reply["type"] != "state":
                continue
            state: dict[str, Any] = reply["state"]
            if done(state):
                return state
            if (seat is None or state["to_move"] == seat) and state["version"] > sent:  # a state can come twice: one move each
                sent = state["version"]
                ws.send(json.dumps({"type": "move", "move": first_legal_move(state), "version": state["version"], "id": str(number)}))
    raise AssertionError("the condition never came")


def open_seat(page: Page, game_id: str, token: str, seat: int | str, first_state: bool = True) -> None:
    """Open a game's page holding a seat, as the browser that created or joined it would
    (and wait for the first state drawn, unless ``first_state`` is false)."""
    page.goto("/")
    page.evaluate(
        "([id, entry]) => localStorage.setItem('quiltmaker.games', JSON.stringify({...JSON.parse(localStorage.getItem('quiltmaker.games') || '{}'), [id]: entry}))",
        [game_id, {"token": token, "seat": seat}],
    )
    page.goto(f"/game/{game_id}")
    if first_state:
        poll(lambda: version(page) >= 0, 30, what="the first state")


def tap_into_place(page: Page, seat: int, move: str, square: tuple[int, int], still: dict[str, float] | None = None) -> None:
    """With a patch in hand on a touch screen, bring its preview to ``move`` by tapping ``square``, then tap it to sew.

    A tap on the preview sews it where it is, so when the preview already
    covers ``square`` (but lies elsewhere) a tap in the far corner moves it
    out of the way first, as a player would. With ``still``, the quilt's box
    must be that before every tap: nothing moves it while the patch is held.
    """
    row, col = square
    target = square_centre(page, seat, row, col)
    far = square_centre(page, seat, 0 if row > 4 else 8, 0 if col > 4 else 8)
    for _ in range(4):
        if still is not None:
            assert page.get_by_test_id(f"quilt-{seat}").bounding_box() == still, "the quilt moved while a patch was held"
        if ghost(page) == (move, "true"):
            page.touchscreen.tap(*target)
            return
        box = page.get_by_test_id("ghost").bounding_box()
        under = box and box["x"] <= target[0] <= box["x"] + box["width"] and box["y"] <= target[1] <= box["y"] + box["height"]
        page.touchscreen.tap(*(far if under else target))
        poll(lambda: ghost(page) is not None, 10, what="the patch still in hand")
    raise AssertionError(f"the preview never came to {move}")
