"""The full-screen terminal game (Textual): ``quiltmaker play`` in a terminal.

Import :class:`QuiltApp` from here; the line-based game stays in
:mod:`quiltmaker.tui.line` for pipes and scripts.
"""

from .app import QuiltApp

__all__ = ["QuiltApp"]
