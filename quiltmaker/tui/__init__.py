"""The full-screen terminal game (Textual): ``quiltmaker play`` in a terminal.

Import :class:`QuiltApp` from here; the line-based game stays in
:mod:`quiltmaker.tui.line` for pipes and scripts. The full-screen game is
loaded on first use (Textual and the search take most of a second to
import), so the line mode and ``quiltmaker replay`` start at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import QuiltApp

__all__ = ["QuiltApp"]


def __getattr__(name: str) -> Any:
    if name == "QuiltApp":
        from .app import QuiltApp

        return QuiltApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
