"""The game socket's messages, and their one way out (:func:`wire`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter, create_model
from pydantic_core import to_json

from .game import Cell, GameState, Model, Number, Seat
from .people import Lobby


class Welcome(Model):
    type: Literal["welcome"]
    seat: Seat | Literal["both"] | None
    id: str | None = None


class StateMessage(Model):
    type: Literal["state"]
    state: GameState


# Every field of a state, each optional: what changed since the state a socket was sent last (``StateChanged``).
GameStateChanges = create_model(  # type: ignore[call-overload]
    "GameStateChanges",
    __base__=Model,
    __doc__="The fields of a game's state that changed, as in GameState; ``moves``: the entries after the ones kept.",
    **{name: (field.annotation | None, Field(default=None, description=field.description)) for name, field in GameState.model_fields.items()},  # type: ignore[operator]
)


class StateChanged(Model):
    """What changed in a game's state since the one this socket was sent last, whose version is ``since`` (the page
    applies it to that state): the fields that differ, and of the move list the first ``moves_kept`` entries, followed
    by ``changes.moves`` (when given). Sent after a move or any change; the whole state comes on connecting."""

    type: Literal["changed"]
    since: int
    version: int
    moves_kept: int
    changes: GameStateChanges  # type: ignore[valid-type]


class Ack(Model):
    type: Literal["ack"]
    version: int
    id: str | None = None


class Sent(Model):
    type: Literal["sent"]
    id: str | None = None


class Refused(Model):
    type: Literal["error"]
    code: str
    message: str
    id: str | None = None


class Hint(Model):
    type: Literal["hint"]
    version: int
    best_move: str
    win_probability: Number
    expected_margin: Number
    to_move: Seat
    best_move_cells: list[Cell]
    best_move_words: str
    best_move_patch: int | None
    best_move_why: list[str]
    id: str | None = None


class ChatLine(Model):
    id: int
    seat: Seat
    text: str
    at: str


class ChatLines(Model):
    type: Literal["chat"]
    lines: list[ChatLine]


GameMessage: TypeAlias = Annotated[
    Welcome | StateMessage | StateChanged | Ack | Sent | Refused | Hint | ChatLines, Field(discriminator="type")
]

_GAME_MESSAGE: TypeAdapter[Any] = TypeAdapter(GameMessage)
LOBBY: TypeAdapter[Lobby] = TypeAdapter(Lobby)


_STATE: TypeAdapter[GameState] = TypeAdapter(GameState)


def check_state(state: dict[str, Any]) -> None:
    """Check a game's state against the contract (``ValidationError`` if it breaks it): every state the tests make, and
    a server's when ``Settings.check_states`` says so. The text sent is the state's own JSON either way, so what the
    tests check is what a server sends."""
    _STATE.validate_python(state)


def _json(value: Any) -> str:
    return to_json(value).decode()  # (pydantic's serialiser, without a model: a third of the json module's time)


def state_text(state: dict[str, Any]) -> str:
    """The ``state`` message of a state: the whole state."""
    return f'{{"type":"state","state":{_json(state)}}}'


def changed_text(state: dict[str, Any], since: int, fields: set[str], moves_kept: int) -> str:
    """The ``changed`` message of a state for a socket whose last state had version ``since``: the ``fields``
    that differ, and the moves after the first ``moves_kept`` (:class:`StateChanged`)."""
    changes = {name: state[name] for name in fields}
    if len(state["moves"]) > moves_kept:
        changes["moves"] = state["moves"][moves_kept:]
    return f'{{"type":"changed","since":{since},"version":{state["version"]},"moves_kept":{moves_kept},"changes":{_json(changes)}}}'


def with_changes(state: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """The state a ``changed`` message makes of ``state``, the one it follows (its version is the message's ``since``),
    as the page makes it: for a client of the game socket written in Python.

    Raises:
        ValueError: ``state`` is not the one the message follows (connect again: the whole state comes first).
    """
    if state.get("version") != changed["since"]:
        raise ValueError(f"changes since version {changed['since']} to a state of version {state.get('version')}")
    fields = dict(changed["changes"])
    added = fields.pop("moves", None) or []
    return {**state, **fields, "moves": [*state["moves"][: changed["moves_kept"]], *added]}


def wire(message: dict[str, Any]) -> str:
    """The JSON text of one game-socket message, checked against the contract (``ValidationError`` if it breaks it)."""
    return _GAME_MESSAGE.dump_json(_GAME_MESSAGE.validate_python(message), by_alias=True).decode()
