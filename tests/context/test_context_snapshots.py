"""SVG snapshots of the context view (fixed sizes, frozen clock, the real agent-run store)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import AGENT_RUN_ROOT
from tests.ui.helpers import frozen_clock, run_keys, store_copy
from zett_browser.app import make_app


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
def test_context_view(snap_compare: Any, size: tuple[int, int]) -> None:
    """``x`` on #17: snapshot v2's summary, #14–#16, the size table and the measured 330."""
    app = make_app(str(store_copy("agent_run")), session=AGENT_RUN_ROOT, seq=17, clock=frozen_clock)
    assert snap_compare(app, terminal_size=size, run_before=run_keys("x"))


def test_raw_log_marks_rows_the_model_did_not_get(snap_compare: Any) -> None:
    """Cursor on #15: #1–#11 dimmed (v2 was in force), system rows marked ``[not replayed]``."""
    app = make_app(str(store_copy("agent_run")), session=AGENT_RUN_ROOT, seq=15, clock=frozen_clock)
    # --seq lands #15 a quarter down the view (issue 25): up to #9 and back shows #9–#11 too.
    assert snap_compare(app, terminal_size=(160, 60), run_before=run_keys(*"kkkkkk", *"jjjjjj"))
