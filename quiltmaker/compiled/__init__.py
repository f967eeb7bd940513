"""The rules again, compiled with numba for speed (:mod:`.rules`), held equal to the core by differential tests.

:mod:`.playouts` holds what search adds to them: move heuristics, a random
generator and random playouts.

numba compiles on first use and caches the machine code on disk, so the
first search after installing waits about 10 seconds, once, and the first
batched environment about 15 (``quiltmaker compile`` does it all at
install, in about half a minute). :func:`announce_compiling` says so beforehand instead of leaving a silent wait.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

_announced: set[str] = set()


def is_cached(*dispatchers: Any) -> bool:
    """Whether numba's on-disk cache already holds every one of these compiled functions.

    Reads numba's cache locator (a private detail); when it cannot, answers
    True, so at worst a message is left out.
    """
    for dispatcher in dispatchers:
        try:
            index = Path(dispatcher._cache._cache_file._index_path)
        except AttributeError:
            return True
        if not index.exists():
            return False
    return True


def announce_compiling(what: str, dispatchers: tuple[Any, ...], seconds: str, stream: TextIO | None = None) -> None:
    """Print one line on stderr (once a process) when ``dispatchers`` are about to be compiled.

    Asked once a process for each ``what``: found cached or announced, it is
    not looked up again (the solver asks before every solve).
    """
    if what in _announced:
        return
    _announced.add(what)
    if is_cached(*dispatchers):
        return
    print(f"quiltmaker: compiling {what}, once after installing: about {seconds}…", file=stream or sys.stderr, flush=True)


def said_elsewhere(what: str) -> None:
    """Count ``what`` as announced: for a caller that tells its user in its own words (the web server)."""
    _announced.add(what)
