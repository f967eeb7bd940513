"""The AI's advice in a player's words: what a hinted move does, and the replay's turning points with the better move.

The AI decides (:mod:`quiltmaker.ai.judgement`: the search's best moves, what each move cost); the
rules say what each move does (:meth:`Position.effect`); this module words it
and names the squares, so the page reads no move text.
"""

from __future__ import annotations

from typing import Any

from babel.numbers import format_decimal

from ... import i18n
from ...ai.judgement import judge_every_move, review
from ...core.components import BONUS_POINTS, BONUS_SIZE, PATCHES
from ...core.game import Game
from ...core.moves import ADVANCE, BUY, SPECIAL, Move, square_name
from ...core.position import MoveEffect, Position
from ...i18n import _, ngettext
from ...words import buttons, move_summary, percent, spaces


def hint_view(position: Position, best_move: str) -> dict[str, Any]:
    """The squares a hinted move covers and what it does, in words, so the page need not read move text."""
    move = Move.from_text(best_move)
    effect = position.effect(move)
    if move.kind == ADVANCE:
        words = _("advance {spaces} for {buttons}").format(spaces=spaces(effect.spaces), buttons=buttons(effect.advance_buttons + effect.income))
    elif move.kind == SPECIAL:
        words = _("place the special patch on {square}").format(square=square_name(*move.cells[0]))
    else:
        words = _("buy patch {patch}").format(patch=move.patch)
    return {
        "best_move_cells": [list(cell) for cell in move.cells],
        "best_move_words": words,
        "best_move_patch": move.patch,
        "best_move_why": _why_it_helps(position, move, effect),
    }


def _why_it_helps(position: Position, move: Move, effect: MoveEffect) -> list[str]:
    """What a hinted move does for the player, in a player's words, from the rules' own numbers."""
    player = effect.player
    reasons: list[str] = []
    if effect.bonus_earned:
        reasons.append(_("completes a {size}x{size} area first: +{points} points").format(size=BONUS_SIZE, points=BONUS_POINTS))
    if move.kind == BUY:
        patch = PATCHES[move.patch]  # type: ignore[index]
        if patch.income:
            left = len(effect.after.income_spaces_ahead(player))
            reasons.append(
                ngettext("adds {income} to your income, paid {n} more time", "adds {income} to your income, paid {n} more times", left).format(
                    income=patch.income, n=left
                )
                if left
                else _("adds {income} to your income").format(income=patch.income)
            )
        covered = ngettext("covers {n} square for {buttons} and {time} time", "covers {n} squares for {buttons} and {time} time", patch.size)
        reasons.append(covered.format(n=patch.size, buttons=buttons(patch.cost), time=patch.time))
    elif move.kind == ADVANCE:
        reasons.append(_("the search prefers keeping your buttons: advancing pays {buttons}").format(buttons=buttons(effect.advance_buttons)))
    if effect.specials_earned:
        reasons.append(_("reaches a special patch first"))
    if effect.income and move.kind != SPECIAL:
        reasons.append(_("collects {buttons} of income on the way").format(buttons=buttons(effect.income)))
    if move.kind == SPECIAL:
        reasons.append(_("the special patch must be placed now; of the empty squares, the search likes this one best"))
    return reasons


def review_view(game: Game, positions: list[dict[str, Any]]) -> dict[str, Any]:
    """The analysed game reviewed: its marked moves (``judgements``), each with what it cost in words and the
    better move's squares for the replay to draw, and each player's accuracy and points lost (``players``)."""
    judged = judge_every_move(
        game,
        [p["win_probability_player0"] for p in positions],
        [p["expected_margin_player0"] for p in positions],
        [p["best_move"] for p in positions],
    )
    views = []
    for judgement in judged:
        if judgement.label is None:
            continue
        before = game.positions[judgement.ply - 1]
        better = Move.from_text(judgement.better)
        views.append(
            {
                "ply": judgement.ply,
                "player": judgement.player,
                "label": judgement.label,
                "by": judgement.by,
                "drop": judgement.drop,
                "points": judgement.points,
                "cost": cost_words(judgement.drop, judgement.points, judgement.by),
                "played": judgement.played,
                "played_summary": move_summary(before, game.moves[judgement.ply - 1]),
                "better": judgement.better,
                "better_summary": move_summary(before, better),
                "better_patch": better.patch,
                "better_cells": [list(cell) for cell in better.cells],
            }
        )
    players = [
        {
            "player": r.player,
            "moves": r.moves,
            "accuracy": r.accuracy,
            "points_lost": r.points_lost,
            "inaccuracies": r.inaccuracies,
            "mistakes": r.mistakes,
            "blunders": r.blunders,
        }
        for r in review(judged)
    ]
    return {"judgements": views, "players": players}


def cost_words(drop: float, points: float, by: str | None) -> str:
    """What a move cost, the loss that classed it first: "7.5 points of the final margin and 2% of the chance to win"."""
    chance, margin = percent(drop), format_decimal(points, "0.0", locale=i18n.locale())
    if by == "points":
        return _("{points} points of the final margin and {chance} of the chance to win").format(points=margin, chance=chance)
    return _("{chance} of the chance to win and {points} points of the final margin").format(points=margin, chance=chance)
