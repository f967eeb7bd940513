"""The game socket's messages, and their one way out (:func:`wire`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter

from .game import Cell, GameState, Model, Number, Seat
from .people import Lobby


class Welcome(Model):
    type: Literal["welcome"]
    seat: Seat | Literal["both"] | None
    id: str | None = None


class StateMessage(Model):
    type: Literal["state"]
    state: GameState


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


GameMessage: TypeAlias = Annotated[Welcome | StateMessage | Ack | Sent | Refused | Hint | ChatLines, Field(discriminator="type")]

_GAME_MESSAGE: TypeAdapter[Any] = TypeAdapter(GameMessage)
LOBBY: TypeAdapter[Lobby] = TypeAdapter(Lobby)


def wire(message: dict[str, Any]) -> str:
    """The JSON text of one game-socket message, checked against the contract (``ValidationError`` if it breaks it)."""
    return _GAME_MESSAGE.dump_json(_GAME_MESSAGE.validate_python(message), by_alias=True).decode()
