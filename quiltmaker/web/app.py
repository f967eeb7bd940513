"""The web application: FastAPI over HTTP and WebSockets, the server the authority.

The parts, each in its module (docs/design.md draws them): :mod:`.round`
(one game: its aggregate and its rules), :mod:`.games` (the live games and
the players' intents), :mod:`.ai.service` (the AI's worker pool, moves,
hints, analyses), the routers (:mod:`.http_api`, :mod:`.account.api`,
:mod:`.lobby.api`, :mod:`.account.profiles`, :mod:`.sockets`), :mod:`.db.schema`
and :mod:`.db.database` (the tables and their migrations), :mod:`.round.store` (the
event log), :mod:`.round.views` (the JSON the page draws), :mod:`.pubsub`
(between server processes). This module puts them together and serves them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DatabaseError

from .. import compiled
from .account import api as account_api, profiles
from . import http_api, install, languages, pages, sockets
from .pages import STATIC
from .lobby import api as lobby_api
from .puzzle import api as puzzle_api
from .games import GameServer
from ..core.errors import QuiltmakerError
from .db.database import migrate
from .guards import BoundedBodies, BoundedHeaders, SecurityHeaders
from .settings import Settings
from .round.store import StoreError

if TYPE_CHECKING:
    import uvicorn

__all__ = ["Settings", "create_app", "run_server", "uvicorn_config"]

def create_app(settings: Settings, executor: Executor | None = None) -> FastAPI:
    """The web application, its database migrated first. ``executor`` replaces the AI's process pool (tests pass a thread pool)."""
    _migrate(settings)
    server = GameServer(settings, executor)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if server.database.threads is not None:  # (asyncio.to_thread's pool: every blocking call of the server's)
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(server.database.threads, thread_name_prefix="blocking"))
        await server.start()
        # FastAPI (since 0.137) builds an included router's routes (their dependencies, their fields) when a request
        # first walks past them: 30 ms of the first request of a process. Building the schema walks them all now.
        _app.openapi()
        # What start-up made (the modules, the rules' tables, the AI's) lives as long as the process: kept out of the
        # collector's full passes, which scanned it all and held every request up to 200 ms (docs/benchmarks.md).
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 50)  # and collections rarer (what a request makes mostly dies young, freed by counting)
        try:
            yield
        finally:
            await server.stop()

    app = FastAPI(title="quiltmaker", lifespan=lifespan)
    app.add_middleware(languages.Languages)  # innermost: each request worded in its reader's language
    app.add_middleware(BoundedBodies)
    app.add_middleware(BoundedHeaders)
    app.add_middleware(SecurityHeaders)  # added last, so outermost: on every response, refusals included
    app.state.server = server
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(http_api.router)
    app.include_router(account_api.router)
    app.include_router(profiles.router)
    app.include_router(lobby_api.router)
    app.include_router(puzzle_api.router)
    app.include_router(sockets.router)
    app.include_router(languages.router)
    app.include_router(pages.router)
    app.include_router(install.router)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        # Say what is wrong without echoing the input back: it may not even encode.
        problems = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))} for e in error.errors()]
        return JSONResponse({"detail": problems}, status_code=422)

    @app.exception_handler(StoreError)
    async def store_error(_request: Request, error: StoreError) -> JSONResponse:
        status = {"corrupt": 500, "not_found": 404, "taken": 409, "malformed": 422, "forbidden": 403, "busy": 503}.get(error.code, 400)
        headers = {"Retry-After": "2"} if error.code == "busy" else None
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=status, headers=headers)

    return app


def run_server(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Take the port, prepare the AI, then serve the app with uvicorn until interrupted, after saying where to open it.

    Port 0 takes any free port, and the address printed names the one taken: a
    program that starts servers (the tests do) reads it there instead of
    guessing a free port, which another process may take in between.
    """
    import uvicorn

    from ..ai import mcts
    from ..ai.solver import ENDGAME_SOLVER

    # The port and the database first: a port in use, or a database this version cannot use, is told at once.
    listening = _listen(host, port)
    _migrate(settings)
    port = listening.getsockname()[1]
    # Before the address is shown: the first start after installing compiles the
    # search core (numba writes it to its disk cache), which must not be the
    # first player's wait. The AI's worker processes then load it from the cache.
    print("quiltmaker: preparing the AI (the first start after installing builds it: about 15 seconds)…", flush=True)
    compiled.said_elsewhere(mcts.SEARCH_CORE)
    compiled.said_elsewhere(ENDGAME_SOLVER)
    started = time.perf_counter()
    mcts.warm_up()
    print(f"quiltmaker: the AI is ready ({time.perf_counter() - started:.1f} s)", flush=True)
    app = create_app(settings)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    address = f"http://{shown}:{port}/"

    class Announcing(uvicorn.Server):
        """Says where to open the server once it answers there (the app started, the port listening), so that
        whoever reads the address, a person or a program starting servers, can use it at once."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if not self.should_exit:
                print(f"quiltmaker is running: open {address} in your browser (Ctrl+C stops it)", flush=True)

    Announcing(uvicorn_config(app)).run(sockets=[listening])


def uvicorn_config(app: FastAPI) -> uvicorn.Config:
    """How uvicorn serves the app (``quiltmaker serve``, and the tests that run a real server): public settings only.

    uvicorn has no timeout for a request's headers: a client that sends half
    of them holds its connection open for as long as it likes. That is the
    front proxy's job, as uvicorn's deployment guide says (nginx's
    ``client_header_timeout`` in deploy/nginx.conf; docs/web.md, "Limits").
    """
    import uvicorn

    return uvicorn.Config(
        app,
        # h11 rather than httptools: h11 bounds the size of a request's headers (httptools under uvicorn does not).
        http="h11",
        h11_max_incomplete_event_size=16 * 1024,  # a request whose headers pass 16 KiB is refused with 400 (h11's default, said here)
        timeout_keep_alive=5,  # an idle keep-alive connection is closed after 5 s (nginx opens its own per request)
        # ws_max_size caps a WebSocket frame before it is read; the app refuses anything over 4 KiB itself.
        # No per-message deflate: a state is a few kilobytes, and compressing every
        # one cost the server a third of its time per move (measured with cProfile).
        ws_max_size=65536,
        ws_per_message_deflate=False,
        log_level="warning",
    )


def _migrate(settings: Settings) -> None:
    """The database brought to this version's schema, or a clear error when it cannot be read."""
    try:
        migrate(settings.database_url)
    except DatabaseError as error:
        cause = str(error.orig)
        if "readonly" in cause or "read-only" in cause or "unable to open" in cause or "permission" in cause.lower():
            raise QuiltmakerError(
                f"cannot write the games database {settings.database_url}: {cause}. The server writes the database and "
                "the folder it is in (SQLite keeps its journal there): check that they exist and that the user running the "
                "server may write them."
            ) from None
        raise QuiltmakerError(
            f"cannot open the games database {settings.database_url}: {cause}. If the file is damaged, "
            "move it aside (the server then starts a new one) or restore it from a backup."
        ) from None


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (uvicorn listens on it), or a clear error when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart need not wait for TIME_WAIT
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise QuiltmakerError(
            f"cannot listen on {host}:{port}: {error.strerror or error}. Is another server using the port? Choose another with --port."
        ) from None
    return listening
