"""The clock's rules (quiltmaker.web.round.clocks): time controls, time spent, increments, deadlines, the start."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from quiltmaker.core.errors import QuiltmakerError
from quiltmaker.web.round.clocks import PRESETS, TimeControl, clock_at

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_every_preset_parses_back_to_its_own_name_and_reads_in_words() -> None:
    for name in PRESETS:
        assert TimeControl.parse(name).short == name
    assert TimeControl.parse("10+5").words == "10 minutes + 5 seconds a move"
    assert TimeControl.parse("1+0").words == "1 minute + 0 seconds a move"
    assert TimeControl.parse("0.25+1").words == "15 seconds + 1 second a move"
    assert TimeControl.parse("2d").words == "2 days a move"
    assert TimeControl.from_json(TimeControl.parse("15+10").to_json()) == TimeControl.parse("15+10")


@pytest.mark.parametrize("text", ["", "10", "10+", "+5", "0.2+0", "181+0", "10+61", "4d", "0d", "10+5 ", "1e3+0", "-1+0"])
def test_a_control_out_of_bounds_or_malformed_is_refused_with_words(text: str) -> None:
    with pytest.raises(QuiltmakerError):
        TimeControl.parse(text)


def test_no_clock_runs_until_each_side_has_moved() -> None:
    control = TimeControl.parse("1+2")
    before = clock_at(control, [0, 0], [at(30), at(50)], 0, at(100))  # one side moved twice, slowly
    assert before.running is None and not before.started and before.remaining == (60, 60) and before.deadline is None
    started = clock_at(control, [0, 0, 1], [at(30), at(50), at(80)], 0, at(90))
    assert started.started and started.running == 0
    assert started.remaining == (50, 60)  # ten seconds since the move that started the clocks, nothing before
    assert started.deadline == at(140)


def test_each_move_spends_its_time_and_earns_the_increment_several_moves_in_a_row_too() -> None:
    control = TimeControl.parse("1+2")
    movers = [0, 1, 1, 1, 0]
    times = [at(0), at(1), at(11), at(16), at(46)]
    clock = clock_at(control, movers, times, 1, at(50))
    # Seat 1: 60 + 2 - 10 + 2 - 5 = 49 before this turn, 4 s into it; seat 0: 60 + 2 - 30 = 32.
    assert clock.remaining == (32, 45) and clock.running == 1 and clock.deadline == at(46 + 49)
    assert clock.flagged is None
    assert clock_at(control, movers, times, 1, at(95)).flagged == 1
    assert clock_at(control, movers, times, 1, at(94.999)).flagged is None


def test_a_game_over_stops_both_clocks_where_they_stood() -> None:
    control = TimeControl.parse("1+0")
    clock = clock_at(control, [0, 1, 0], [at(0), at(5), at(25)], None, at(1000))
    assert clock.running is None and clock.deadline is None and clock.remaining == (40, 60) and clock.flagged is None


def test_correspondence_gives_its_days_to_every_move_and_time_does_not_build_up() -> None:
    control = TimeControl.parse("2d")
    day = 86400
    clock = clock_at(control, [0, 1, 1], [at(0), at(day), at(day + 60)], 0, at(2 * day))
    assert clock.running == 0 and clock.deadline == at(3 * day + 60)
    assert clock.remaining == (day + 60, 2 * day)
    assert clock_at(control, [0, 1, 1], [at(0), at(day), at(day + 60)], 0, at(3 * day + 60)).flagged == 0
    unstarted = clock_at(control, [0], [at(0)], 1, at(30 * day))
    assert unstarted.running is None and unstarted.flagged is None
