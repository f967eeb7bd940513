"""The contract between the server and the page: every message the server sends, as Pydantic models.

The views (:mod:`..round.views`, :mod:`..catalogue`, the lobby and the profile) build
plain dictionaries; these models are where their shape is stated once. The
HTTP routes name them as ``response_model``, the sockets send through
:func:`wire`, and ``make types`` exports their JSON Schema, from which
the page's JSDoc types (``static/contract.d.ts``) are generated: a field the
server adds, drops or renames is refused here (``extra="forbid"``) and fails
the page's type check until the types are made again.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, TypeAdapter

from .game import Analysis, Catalogue, GameState, PuzzleSet, Replay
from .messages import LOBBY, Ack, ChatLines, Hint, Refused, Sent, StateChanged, StateMessage, Welcome, changed_text, check_state, state_text, wire, with_changes
from .people import AccountGames, AccountView, Claimed, GameList, Leaderboard, Lobby, Paired, Profile, SeatTaken, Seek, Waiting, Withdrawn

ANALYSIS: TypeAdapter[Analysis] = TypeAdapter(Analysis)

__all__ = [
    "ANALYSIS", "LOBBY", "AccountGames", "AccountView", "Analysis", "Catalogue", "Claimed", "GameList", "GameState", "Leaderboard",
    "Lobby", "Paired", "Profile", "PuzzleSet", "Replay", "SeatTaken", "Seek", "StateChanged", "Waiting", "Withdrawn", "changed_text",
    "check_state", "schema", "schema_text", "state_text", "wire", "with_changes",
]  # fmt: skip


def schema() -> dict[str, Any]:
    """The JSON Schema of every message, for the page's generated types (``make types``)."""
    messages: tuple[type[BaseModel], ...] = (
        *(Catalogue, GameState, Replay, Analysis, GameList, Lobby, Profile, Leaderboard, PuzzleSet),
        *(SeatTaken, AccountView, Claimed, AccountGames, Seek, Waiting, Paired, Withdrawn),
        *(Welcome, StateMessage, StateChanged, Ack, Sent, Refused, Hint, ChatLines),
    )
    definitions: dict[str, Any] = {}
    for model in messages:
        found = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}", mode="serialization")
        definitions.update(found.pop("$defs", {}))
        definitions[model.__name__] = found
    definitions = _untitled(definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "QuiltmakerContract",
        "description": "What the quiltmaker server sends the page (generated from quiltmaker.web.contract).",
        "$defs": definitions,
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name in sorted(definitions)],
    }


def _untitled(node: Any) -> Any:
    """The schema without the titles Pydantic gives each field (which would become a type name each)."""
    if isinstance(node, dict):
        return {key: _untitled(value) for key, value in node.items() if not (key == "title" and isinstance(value, str) and "properties" not in node)}
    if isinstance(node, list):
        return [_untitled(value) for value in node]
    return node


def schema_text() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"
