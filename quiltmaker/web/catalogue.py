"""The components as the page draws them: every patch in every orientation, both time tracks, the clocks, levels and lessons.

Sent once (``/api/catalogue``); the page reads sizes, costs and shapes here
and never types them itself.
"""

from __future__ import annotations

from typing import Any

from ..core.components import BOARD_SIZE, BONUS_POINTS, BONUS_SIZE, DEFAULT_VARIANT, EMPTY_SQUARE_PENALTY, LAST_SPACE, PATCHES, TIME_TRACKS
from ..core.moves import square_name
from ..i18n import _
from ..tutorial import LESSONS
from ..words import orientation_words
from .round.clocks import MAX_INCREMENT, MAX_INITIAL, MIN_INITIAL, PRESETS, TimeControl


def catalogue(levels: dict[str, str]) -> dict[str, Any]:
    """The components, for drawing: patches with every orientation, and both time tracks."""
    return {
        "board_size": BOARD_SIZE,
        # The quilt's edges are labelled as the core names squares: columns above, rows beside.
        "columns": [square_name(0, col)[:1] for col in range(BOARD_SIZE)],
        "rows": [square_name(row, 0)[1:] for row in range(BOARD_SIZE)],
        "squares": [[square_name(row, col) for col in range(BOARD_SIZE)] for row in range(BOARD_SIZE)],
        "last_space": LAST_SPACE,
        "bonus_points": BONUS_POINTS,
        "bonus_size": BONUS_SIZE,
        "empty_square_penalty": EMPTY_SQUARE_PENALTY,
        # The lobby's time controls for online games, and a custom one's bounds (see clocks.py).
        "clocks": {
            "presets": [{"control": name, "words": TimeControl.parse(name).words} for name in PRESETS],
            "custom": {"minutes": [MIN_INITIAL / 60, MAX_INITIAL / 60], "increment": [0, MAX_INCREMENT]},
        },
        "patches": [
            {
                "id": patch.id,
                "cost": patch.cost,
                "time": patch.time,
                "income": patch.income,
                "size": patch.size,
                "orientations": [
                    {
                        "transform": o.transform,
                        "words": orientation_words(o.transform),
                        "cells": [list(c) for c in o.cells],
                        "height": o.height,
                        "width": o.width,
                        "turned": o.turned,
                        "flipped": o.flipped,
                    }
                    for o in patch.orientations
                ],
                "transforms": patch.transform_to_orientation,
            }
            for patch in PATCHES
        ],
        "tracks": {
            name: {"income_spaces": list(track.income_spaces), "special_spaces": list(track.special_spaces)}
            for name, track in TIME_TRACKS.items()
        },
        "default_variant": DEFAULT_VARIANT,
        "levels": [{"name": name, "description": description} for name, description in levels.items()],
        "lessons": [{"number": lesson.number, "title": _(lesson.title)} for lesson in LESSONS],
    }
