"""The site as an app: Chromium finds it installable, and with no network a page is the offline page, drawn from
the service worker's cache."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, BrowserContext

from browser_helpers import Server, screenshot


def app_context(browser: Browser, profile: Path, **options: object) -> BrowserContext:
    """A context with a profile of its own: an incognito one (the default) is never installable."""
    executable = browser.browser_type.executable_path if not Path("/usr/bin/chromium").exists() else "/usr/bin/chromium"
    return browser.browser_type.launch_persistent_context(str(profile), executable_path=executable, headless=True, args=["--no-sandbox"], **options)  # type: ignore[arg-type]


def test_the_site_installs_as_an_app_and_shows_the_offline_page_without_a_network(browser: Browser, server: Server, tmp_path: Path) -> None:
    context = app_context(browser, tmp_path / "profile", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        assert page.evaluate("() => navigator.serviceWorker.ready.then((ready) => ready.active !== null)")
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [] and manifest["url"].endswith("/manifest.webmanifest")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")  # (the worker claims the open pages)

        context.set_offline(True)
        page.goto(server.url + "/game/abcdefghijkl")
        assert page.get_by_test_id("offline").is_visible()
        assert page.locator("html").get_attribute("lang") == "en"
        # The page's own style, from the worker's cache (the network is off).
        assert page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()") == "#f4f1ea"
        screenshot(page, "offline-phone")
        context.set_offline(False)
        page.goto(server.url + "/")
        assert page.get_by_test_id("learn").is_visible(), "back online, the pages are the server's again"
    finally:
        context.close()
