"""The site as an app: its manifest in the reader's language, its service worker and the files it keeps, its offline
page (tests/browser/test_browser_install.py installs it in Chromium)."""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient

POLISH = {"accept-language": "pl-PL,pl;q=0.9"}


def test_the_manifest_names_the_app_and_its_icons_in_the_readers_language(client: TestClient) -> None:
    english, polish = client.get("/manifest.webmanifest"), client.get("/manifest.webmanifest", headers=POLISH)
    assert english.headers["content-type"].startswith("application/manifest+json") and "Accept-Language" in english.headers["vary"]
    assert english.json()["lang"] == "en" and polish.json()["lang"] == "pl"
    assert english.json()["description"] != polish.json()["description"], "the description is worded for the reader"
    manifest = english.json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.content[:8] == b"\x89PNG\r\n\x1a\n"
        width = int.from_bytes(image.content[16:20], "big")
        assert f"{width}x{width}" == icon["sizes"], icon["src"]


def test_every_page_links_the_manifest_and_the_icon_and_registers_the_worker(client: TestClient) -> None:
    for path in ("/", "/game/abcdefghijkl", "/player/nobody", "/offline"):
        page = client.get(path).text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page and 'src="/static/install.js"' in page, path
        assert client.get(re.search(r'<link rel="icon" href="([^"]+)"', page)[1]).status_code == 200  # type: ignore[index]


def test_the_service_worker_keeps_the_static_files_by_a_version_of_their_contents(client: TestClient) -> None:
    worker = client.get("/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript") and worker.headers["cache-control"] == "no-cache"
    assert "@VERSION@" not in worker.text and "@FILES@" not in worker.text
    version = re.search(r'const VERSION = "([0-9a-f]{16})";', worker.text)
    files = json.loads(json.loads(re.search(r"JSON\.parse\((\"(?:[^\"\\]|\\.)*\")\)", worker.text)[1]))  # type: ignore[index]
    assert version and "/static/game.js" in files and "/static/icons/icon-192.png" in files
    assert all(client.get(name).status_code == 200 for name in files), "every file it keeps is served"


def test_the_offline_page_says_so_in_the_readers_language(client: TestClient) -> None:
    assert "No connection" in client.get("/offline").text
    assert "No connection" not in client.get("/offline", headers=POLISH).text
