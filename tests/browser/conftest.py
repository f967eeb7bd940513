"""Fixtures of the browser tests: one real ``quiltmaker serve`` and one headless Chromium per module.

Chromium: ``$QUILTMAKER_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else the one
``playwright install chromium`` fetches. Without any, the tests are skipped locally,
but fail when the environment variable CI is set.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

DEBIAN_CHROMIUM = "/usr/bin/chromium"
IN_CI = bool(os.environ.get("CI"))

if not IN_CI:
    pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[dev]')")

from playwright.sync_api import Browser, expect, sync_playwright  # noqa: E402

from browser_helpers import SCREENSHOTS, TIMEOUT_MS, Pages, Server, running_server, screenshot  # noqa: E402

expect.set_options(timeout=TIMEOUT_MS)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", autouse=True)
def fresh_failure_screenshots() -> None:
    """Failure screenshots of an earlier run would mislead: remove them."""
    for stale in SCREENSHOTS.glob("FAILED-*.png"):
        stale.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("browser-server")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium: $QUILTMAKER_CHROMIUM, else Debian's /usr/bin/chromium, else Playwright's own.

    Without any of them the tests are skipped, except under CI, where they fail.
    """
    with sync_playwright() as playwright:
        executable = os.environ.get("QUILTMAKER_CHROMIUM") or (DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).exists() else None)
        if executable is None and not Path(playwright.chromium.executable_path).exists() and not IN_CI:
            pytest.skip(f"no Chromium: install Debian's chromium ({DEBIAN_CHROMIUM}) or set QUILTMAKER_CHROMIUM")
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def pages(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Pages]:
    failed_before = request.session.testsfailed
    opened = Pages(browser, server)
    try:
        yield opened
    finally:
        # The call's report is counted before teardown runs: a failed test leaves screenshots.
        if request.session.testsfailed > failed_before:
            for name, page in opened.opened:
                try:
                    screenshot(page, f"FAILED-{request.node.name}-{name}")
                except Exception as error:  # a crashed page must not hide the real failure
                    print(f"no failure screenshot of {name}: {error}")
            print(f"server log (tail):\n{server.log_tail()}")
        for _, page in opened.opened:
            page.context.close()
