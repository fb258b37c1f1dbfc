"""Admission of chat turns: bounded slots, a bounded first-come-first-served queue, then busy."""

from __future__ import annotations

import asyncio

import pytest

from app.errors import ServerBusyError
from app.traffic.admission import TurnAdmission


def _admission(
    refused: list[str] | None = None, queued: list[int] | None = None, **limits: float
) -> TurnAdmission:
    options = {"max_active": 2, "max_waiting": 1, "wait_s": 30.0, "retry_after_s": 7, **limits}
    return TurnAdmission(
        max_active=int(options["max_active"]),
        max_waiting=int(options["max_waiting"]),
        wait_s=options["wait_s"],
        retry_after_s=int(options["retry_after_s"]),
        on_refused=(refused if refused is not None else []).append,
        on_queue_change=(queued if queued is not None else []).append,
    )


def test_slots_then_queue_then_busy_at_once() -> None:
    async def scenario() -> None:
        refused: list[str] = []
        admission = _admission(refused)
        first, second = await admission.enter(), await admission.enter()
        waiter = asyncio.create_task(admission.enter())
        await asyncio.sleep(0)
        assert (admission.active, admission.waiting) == (2, 1) and not waiter.done()
        with pytest.raises(ServerBusyError) as busy:
            await admission.enter()
        assert busy.value.retry_after_s == 7 and "try again" in str(busy.value)
        assert refused == ["busy"]
        first.release()
        third = await waiter  # the freed slot went to the one who waited
        assert (admission.active, admission.waiting) == (2, 0)
        for slot in (second, third):
            slot.release()
        assert admission.active == 0

    asyncio.run(scenario())


def test_waiters_are_served_first_come_first_served() -> None:
    async def scenario() -> None:
        admission = _admission(max_active=1, max_waiting=3)
        held = await admission.enter()
        order: list[int] = []

        async def turn(number: int) -> None:
            slot = await admission.enter()
            order.append(number)
            slot.release()

        waiters = [asyncio.create_task(turn(n)) for n in range(3)]
        await asyncio.sleep(0)
        assert admission.waiting == 3 and order == []
        held.release()
        await asyncio.gather(*waiters)
        assert order == [0, 1, 2] and admission.active == 0

    asyncio.run(scenario())


def test_a_waiter_that_times_out_is_refused_and_leaves_the_queue() -> None:
    async def scenario() -> None:
        refused: list[str] = []
        queued: list[int] = []
        admission = _admission(refused, queued, max_active=1, wait_s=0.05)
        held = await admission.enter()
        with pytest.raises(ServerBusyError):
            await admission.enter()
        assert refused == ["queue_timeout"] and admission.waiting == 0
        assert queued == [1, 0]
        held.release()
        assert admission.active == 0
        again = await admission.enter()  # the slot is free again, not lost to the leaver
        again.release()

    asyncio.run(scenario())


def test_a_shopper_who_leaves_the_queue_takes_no_slot() -> None:
    async def scenario() -> None:
        admission = _admission(max_active=1, max_waiting=2)
        held = await admission.enter()
        leaver = asyncio.create_task(admission.enter())
        stayer = asyncio.create_task(admission.enter())
        await asyncio.sleep(0)
        leaver.cancel()
        await asyncio.sleep(0)
        assert admission.waiting == 1
        held.release()
        slot = await stayer
        assert admission.active == 1
        slot.release()
        assert admission.active == 0

    asyncio.run(scenario())


def test_releasing_twice_frees_one_slot_only() -> None:
    async def scenario() -> None:
        admission = _admission(max_active=2)
        one, two = await admission.enter(), await admission.enter()
        one.release()
        one.release()
        assert admission.active == 1
        two.release()
        assert admission.active == 0

    asyncio.run(scenario())


def test_the_context_manager_gives_the_slot_back_on_error() -> None:
    async def scenario() -> None:
        admission = _admission(max_active=1)
        with pytest.raises(RuntimeError):
            async with admission.slot():
                assert admission.active == 1
                raise RuntimeError("the turn failed")
        assert admission.active == 0

    asyncio.run(scenario())


def test_no_queue_means_busy_as_soon_as_the_slots_are_taken() -> None:
    async def scenario() -> None:
        refused: list[str] = []
        admission = _admission(refused, max_active=1, max_waiting=0)
        held = await admission.enter()
        with pytest.raises(ServerBusyError):
            await admission.enter()
        held.release()
        assert refused == ["busy"] and admission.active == 0

    asyncio.run(scenario())
