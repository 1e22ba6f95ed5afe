"""The step alignment of ``compare`` (views/compare_align.py) on hand-made step streams."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from zett_browser.model.outcomes import Outcome
from zett_browser.views.compare_align import DELETE, EQUAL, INSERT, Aligner, Row, RowStatus, edit_script
from zett_browser.views.compare_steps import Step, StepKind, digest, normalise


def step(token: str, index: int = 0) -> Step:
    """``u:text`` a user turn, ``m`` a model step (``m:refusal`` a stop), ``t:name:args[:result]`` a call."""
    kind, _, rest = token.partition(":")
    if kind == "u":
        return Step(StepKind.USER, f"user:{rest}", index, index + 1)
    if kind == "m":
        return Step(StepKind.MODEL, f"model:{rest}", index, index + 1, stop=rest or None)
    name, _, more = rest.partition(":")
    arguments, _, result = more.partition(":")
    return Step(
        StepKind.TOOL, f"tool:{name}:{arguments}", index, index + 1,
        tool=name, arguments=arguments, detail=result or "ok", outcome=Outcome.OK,
    )  # fmt: skip


def steps(tokens: str) -> list[Step]:
    return [step(token, index) for index, token in enumerate(tokens.split())]


async def pages(items: list[Step], size: int) -> AsyncIterator[list[Step]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def align(
    a: list[Step], b: list[Step], *, page: int = 3, window: int = 8, first_window: int = 4
) -> tuple[Aligner, list[Row]]:
    aligner = Aligner(window=window, first_window=first_window)

    async def run() -> list[Row]:
        return [row async for rows in aligner.align(pages(a, page), pages(b, page)) for row in rows]

    return aligner, asyncio.run(run())


def shape(rows: list[Row]) -> list[tuple[str, str]]:
    return [(row.status.value, row.reason) for row in rows]


def lcs_length(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


@pytest.mark.parametrize("seed", range(40))
def test_edit_script_is_a_shortest_one(seed: int) -> None:
    """Myers' script: equal pairs really are equal, every element is used once, and the number of
    matches is the longest common subsequence (checked against the textbook table)."""
    rng = random.Random(seed)
    a = [rng.choice("abcd") for _ in range(rng.randint(0, 30))]
    b = [rng.choice("abcd") for _ in range(rng.randint(0, 30))]
    ops = edit_script(a, b)
    assert [i for what, i, _ in ops if what != INSERT] == list(range(len(a)))
    assert [j for what, _, j in ops if what != DELETE] == list(range(len(b)))
    assert all(a[i] == b[j] for what, i, j in ops if what == EQUAL)
    assert sum(what == EQUAL for what, _, _ in ops) == lcs_length(a, b)


def test_edit_script_falls_back_past_its_edit_budget() -> None:
    a, b = list("abcdefgh" * 10), list("hgfedcba" * 10)
    ops = edit_script(a, b, max_d=4)
    assert [i for what, i, _ in ops if what != INSERT] == list(range(len(a)))
    assert all(a[i] == b[j] for what, i, j in ops if what == EQUAL)


def test_identical_runs_never_diverge_across_windows() -> None:
    run = steps(" ".join(["u:go", "m", "t:read:a", "t:read:b", "m"] * 9))
    aligner, rows = align(run, list(run))
    assert [row.status for row in rows] == [RowStatus.SAME] * len(run)
    assert aligner.first is None and aligner.divergences == 0
    assert [row.index for row in rows] == list(range(len(run)))


def test_a_changed_result_is_the_first_divergence() -> None:
    a = steps("u:go m t:read:a:x m t:read:b:y m")
    b = steps("u:go m t:read:a:x m t:read:b:Y m")
    aligner, rows = align(a, b)
    assert shape(rows) == [("same", "")] * 4 + [("changed", "different result"), ("same", "")]
    assert aligner.first is rows[4]


def test_different_arguments_and_tools_are_paired_by_kind() -> None:
    a = steps("u:go m t:read:a m t:grep:q m")
    b = steps("u:go m t:read:b m t:find:q m")
    _, rows = align(a, b)
    assert shape(rows) == [
        ("same", ""), ("same", ""), ("changed", "different arguments"),
        ("same", ""), ("changed", "different tool"), ("same", ""),
    ]  # fmt: skip


def test_fan_out_aligns_by_brief() -> None:
    """Three delegated briefs against two of them: the missing one is A's alone."""
    a = steps("u:go m t:task:x t:task:y t:task:z m")
    b = steps("u:go m t:task:x t:task:z m")
    aligner, rows = align(a, b)
    assert shape(rows) == [("same", "")] * 3 + [("only A", "only in A")] + [("same", "")] * 2
    assert aligner.first is not None and aligner.first.index == 3
    assert aligner.counts[RowStatus.LEFT] == 1


def test_a_run_that_stops_early_says_so() -> None:
    a = steps("u:go m t:read:a m t:read:b m")
    b = steps("u:go m t:read:a m:refusal")
    _, rows = align(a, b)
    assert shape(rows) == [
        ("same", ""), ("same", ""), ("same", ""), ("changed", "different stop"),
        ("only A", "B stopped"), ("only A", "B stopped"),
    ]  # fmt: skip


def test_long_runs_align_in_bounded_windows() -> None:
    """A 2,000-step pair with one changed call and one extra call, 8-step windows: the same rows
    as one window over everything."""
    base = " ".join(f"u:q{n} m t:read:{n} m" for n in range(500))
    a = steps(base)
    b = steps(base.replace("t:read:200 ", "t:read:200x ").replace("t:read:400 ", "t:read:400 t:extra:1 "))
    aligner, windowed = align(a, b, page=50, window=64, first_window=16)
    assert aligner.peak_held <= 2 * (64 + 50)  # two windows and a page each, never the runs
    _, whole = align(a, b, page=5000, window=10_000, first_window=10_000)
    assert shape(windowed) == shape(whole)
    changed = [row for row in windowed if row.diverges]
    assert [(row.status.value, row.reason) for row in changed] == [
        ("changed", "different arguments"), ("only B", "only in B"),
    ]  # fmt: skip
    assert changed[0].left is not None and changed[0].left.arguments == "200"


def test_ids_no_two_runs_share_are_masked() -> None:
    one = 'started {"task_id": "task-1", "session_id": "0193a5c0-0000-7000-8000-0000000e0001"} at 2026-12-07T01:02:03Z'
    two = 'started {"task_id": "task-1", "session_id": "0193a5c0-0000-7000-8000-0000000e0002"} at 2026-12-08T11:22:33Z'
    assert normalise(one) == normalise(two) and digest(one) == digest(two)
    assert digest(one) != digest(one.replace("task-1", "task-2"))
