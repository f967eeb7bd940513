"""What makes the site an app: its manifest (in the reader's language), its service worker, and its offline page.

The service worker (``static/worker/service-worker.js``) is served from the
site's root, ``/sw.js``, so that it may see every page; it keeps the static
files it is told of when it installs, named by a hash of their contents, so
that a new version of any of them installs a new worker and a fresh cache.
The icons are drawn by ``scripts/make-icons.py``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse, Response

from .. import i18n
from ..i18n import _
from .pages import STATIC, THEME_COLOUR, render

WORKER = STATIC / "worker" / "service-worker.js"
BACKGROUND_COLOUR = "#f4f1ea"  # the page's background (static/style.css's --bg): the app's splash screen
ICONS = [
    {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
    {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
    {"src": "/static/icons/maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
]

router = APIRouter(include_in_schema=False)


def manifest() -> dict[str, Any]:
    """The web app manifest in the language in use."""
    return {
        "name": "quiltmaker",
        "short_name": "quiltmaker",
        "description": _("Patchwork, the quilt game for two: against the computer, at one table, or online."),
        "lang": i18n.language(),
        "dir": "ltr",
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": BACKGROUND_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": ICONS,
        "categories": ["games"],
    }


@functools.cache
def worker_script() -> str:
    """The service worker with its version (a hash of the static files) and the list of files to keep filled in."""
    files = sorted(path for path in STATIC.rglob("*") if path.is_file() and path.suffix in {".js", ".css", ".png", ".svg"} and path.parent.name != "worker")
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(STATIC).as_posix().encode())
        digest.update(path.read_bytes())
    served = [f"/static/{path.relative_to(STATIC).as_posix()}" for path in files]
    script = WORKER.read_text(encoding="utf-8")
    return script.replace('"@VERSION@"', json.dumps(digest.hexdigest()[:16])).replace('"@FILES@"', json.dumps(json.dumps(served)))


@router.get("/manifest.webmanifest")
async def manifest_file() -> JSONResponse:
    # Worded for this reader, as the pages are: a shared cache must not hand it to a reader of another language.
    return JSONResponse(manifest(), media_type="application/manifest+json", headers={"Vary": "Cookie, Accept-Language"})


@router.get("/sw.js")
async def service_worker() -> Response:
    # Asked for again at every visit (no-cache): a new version of the site is found at once.
    return Response(worker_script(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/offline")
async def offline_page() -> HTMLResponse:
    return render("offline.html")
