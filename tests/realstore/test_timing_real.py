"""The timing view on the real-runtime store: results zett-agent answered itself, by outcome.

Skipped (session …e0007), interrupted (…e0012) and cancelled (…e0013) results are told
from the ``content`` column's first characters; the step's line names them, and skipped or
interrupted ones take no part in its tool span.
"""

from __future__ import annotations

from tests.realstore.stores import RealStores
from zett_browser.storage import SQLSessionStorage
from zett_browser.views.timing import Step, layout
from zett_browser.widgets.timing import _step_text

CASE = "0193a5c0-0000-7000-8000-0000000e00{:02d}".format


async def _steps(real_stores: RealStores, session_id: str) -> list[Step]:
    storage = SQLSessionStorage.open_for_browsing(real_stores.main)
    try:
        rows = await storage.timing_page(session_id)
    finally:
        await storage.close()
    return [line for line in layout(rows, []) if isinstance(line, Step)]


async def test_each_step_names_the_results_the_runtime_answered_itself(real_stores: RealStores) -> None:
    expected = {7: (4, (("skipped", 2),)), 12: (4, (("interrupted", 2),)), 13: (4, (("cancelled", 1),))}
    for number, (sequence, outcomes) in expected.items():
        steps = {step.sequence: step for step in await _steps(real_stores, CASE(number))}
        step = steps[sequence]
        assert step.outcomes == outcomes, number
        assert all(other.outcomes == () for other in steps.values() if other is not step), number
        name, count = outcomes[0]
        assert f"({count} {name})" in _step_text(step, 160).plain
    interrupted = {step.sequence: step for step in await _steps(real_stores, CASE(12))}[4]
    assert interrupted.tool_ns == 0 and interrupted.tools == 2  # written on resume: no tool time
    aborted = {step.sequence: step for step in await _steps(real_stores, CASE(15))}[4]
    assert aborted.outcomes == (("aborted", 1),) and aborted.tool_ns > 0  # the wait for the user
