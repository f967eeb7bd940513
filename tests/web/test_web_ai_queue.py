"""The AI's moves queue fairly: by client, then games being played, then age."""

from __future__ import annotations

import asyncio

from quiltmaker.web.ai.queue import MoveQueue


def run_in_order(jobs: list[tuple[str, bool]], slots: int = 1) -> list[int]:
    """Fill the slots with blockers, queue ``jobs`` (client, urgent) behind them, release them; the order the jobs ran in."""

    async def main() -> list[int]:
        queue = MoveQueue(slots)
        release = asyncio.Event()
        ran: list[int] = []

        async def blocker() -> None:
            await release.wait()

        async def job(index: int) -> None:
            ran.append(index)
            await asyncio.sleep(0)

        blockers = [asyncio.create_task(queue.run(f"blocker-{i}", lambda: True, blocker)) for i in range(slots)]
        await asyncio.sleep(0)
        tasks = []
        for index, (client, urgent) in enumerate(jobs):
            tasks.append(asyncio.create_task(queue.run(client, lambda urgent=urgent: urgent, lambda index=index: job(index))))
            await asyncio.sleep(0)
        assert len(queue.waiting) == len(jobs), "all wait behind the blocker"
        release.set()
        await asyncio.gather(*blockers, *tasks)
        assert not queue.running and not queue.waiting and not queue.last_started
        return ran

    return asyncio.run(main())


def test_one_client_with_many_games_does_not_make_another_wait_for_all_of_them() -> None:
    # Client "flood" queued four moves before "player" queued one: "player" runs second, not fifth.
    order = run_in_order([("flood", True), ("flood", True), ("flood", True), ("flood", True), ("player", True)], slots=2)
    assert order.index(4) == 1, order  # the flood's first move, then the player's, then the rest of the flood


def test_with_one_worker_too_the_clients_take_turns() -> None:
    """Issue 26's attack: with the default single AI worker, one client's twelve moves made another's wait for all
    of them (a finished move left every client at 0 running, so the pick fell back to arrival order)."""
    order = run_in_order([("flood", True)] * 12 + [("player", True)], slots=1)
    assert order.index(12) == 1, order  # the flood's first move, then the player's
    alternating = run_in_order([("a", True), ("a", True), ("a", True), ("b", True), ("b", True)], slots=1)
    assert alternating == [0, 3, 1, 4, 2], alternating


def test_the_queue_forgets_a_client_with_nothing_left() -> None:
    order = run_in_order([("a", True), ("b", True)], slots=1)
    assert order == [0, 1]  # (run_in_order also checks that nothing is left running or waiting)


def test_a_game_being_played_goes_before_an_abandoned_one() -> None:
    order = run_in_order([("a", False), ("b", False), ("c", True)])
    assert order == [2, 0, 1]


def test_otherwise_first_come_first_served() -> None:
    assert run_in_order([("a", True), ("b", True), ("c", True)]) == [0, 1, 2]


def test_a_cancelled_wait_gives_its_turn_on() -> None:
    async def main() -> list[str]:
        queue = MoveQueue(1)
        release = asyncio.Event()
        ran: list[str] = []

        async def hold() -> None:
            await release.wait()

        async def mark(name: str) -> None:
            ran.append(name)

        holder = asyncio.create_task(queue.run("x", lambda: True, hold))
        await asyncio.sleep(0)
        gone = asyncio.create_task(queue.run("y", lambda: True, lambda: mark("gone")))
        kept = asyncio.create_task(queue.run("z", lambda: True, lambda: mark("kept")))
        await asyncio.sleep(0)
        gone.cancel()
        release.set()
        await asyncio.gather(holder, kept, return_exceptions=True)
        assert not queue.running and not queue.waiting and not queue.last_started
        return ran

    assert asyncio.run(main()) == ["kept"]
