"""The real runtime's plan-mode and ask_user sessions in the Raw Log: a Pilot test and snapshots (issue 24).

The store is a still copy (``tool_helpers.still_copy``) of the one the real zett-agent 0.2.1
runtime wrote: its messages as written, its times and ids fixed so a snapshot holds still.
The snapshots run without the side index: its usage labels arrive whenever the build ends, and
the tree's widest label moved the scrollbar's thumb under load.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.realstore.stores import RealStores
from tests.ui.helpers import frozen_clock, run_keys, settle
from tests.ui.tool_helpers import ASK, PLAN, still_copy
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def keys_then_whole_page(*keys: str) -> Any:
    """``run_keys``, then the whole page wrapped and the tree's horizontal scrollbar hidden:
    under load the picture caught the tree's thumb one eighth longer or shorter."""
    before = run_keys(*keys)

    async def run_before(pilot: Pilot[None]) -> None:
        await before(pilot)
        pilot.app.screen.query_one(RawLogView).rendered_lines()
        # The tree's width follows labels that land whenever their reads end; its horizontal
        # scrollbar is no part of what these snapshots show (the Raw Log).
        pilot.app.screen.query_one(SessionTree).styles.overflow_x = "hidden"
        await settle(pilot)

    return run_before


async def test_plan_mode_session_reads_as_decisions_and_a_plan(real_stores: RealStores) -> None:
    path = still_copy(real_stores.main, PLAN, "plan-pilot")
    app = make_app(str(path), session=PLAN, seq=13, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        await pilot.press("j", "j", "j", "j")
        await settle(pilot)
        text = "\n".join(strip.text for strip in view.rendered_lines())
        assert "✗ plan mode declined by the user" in text and "▶ plan mode entered" in text
        assert "plan for the user to approve:" in text and "1 Update storage." in text  # the Markdown, rendered
        plans = text[text.index("#13 assistant") : text.index("#14 tool")]  # system rows quote the tool's snippet
        assert "# Plan" not in plans and '{"plan"' not in plans and "\\n" not in plans
        assert "✗ plan sent back: The user requested more planning" in text
        assert "✓ plan approved — plan mode left" in text
        assert '"exited"' not in text and '"entered"' not in text


def test_plan_mode_snapshot(real_stores: RealStores, snap_compare: Any) -> None:
    """Session …e0005 from #13: the plan as Markdown, sent back, sent again, approved."""
    app = make_app(
        str(still_copy(real_stores.main, PLAN, "plan-160")),
        session=PLAN,
        seq=13,
        clock=frozen_clock,
        poll_interval=0,
        index=False,
    )
    assert snap_compare(app, terminal_size=(160, 45), run_before=keys_then_whole_page("j", "j", "j", "j"))


def test_ask_user_snapshot_at_80_columns(real_stores: RealStores, snap_compare: Any) -> None:
    """Session …e0004 at 80×24: the question with its options, then the answer."""
    app = make_app(
        str(still_copy(real_stores.main, ASK, "ask-80")),
        session=ASK,
        seq=4,
        clock=frozen_clock,
        poll_interval=0,
        index=False,
    )
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys_then_whole_page("j", "j"))
