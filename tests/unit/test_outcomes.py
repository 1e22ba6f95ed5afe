"""What really happened to a tool call: the runtime's fixed texts tell it apart from a failure."""

from __future__ import annotations

import pytest

from zett_browser.model import TextContent
from zett_browser.model.outcomes import Outcome, tool_outcome

INTERRUPTED = (
    "The process stopped while this tool was running, so it may or may not have completed, and whatever "
    "it changes may or may not have happened. Check the current state before running it again."
)


@pytest.mark.parametrize(
    ("success", "content", "expected"),
    [
        (True, "Superseded by a steering message", Outcome.OK),
        (False, "boom", Outcome.FAILED),
        (False, "Superseded by a steering message", Outcome.SKIPPED),
        (False, "Superseded by a steering message, twice", Outcome.FAILED),
        (False, "Request cancelled before tool completion", Outcome.CANCELLED),
        (False, INTERRUPTED, Outcome.INTERRUPTED),
        (False, "Shell command aborted by user: rm -rf build/", Outcome.ABORTED),
        (False, [{"text": "Request cancelled before tool completion"}], Outcome.CANCELLED),
        (False, [TextContent(text="Superseded by a steering message")], Outcome.SKIPPED),
        (False, [], Outcome.FAILED),
        (False, None, Outcome.FAILED),
    ],
)
def test_tool_outcome(success: bool, content: object, expected: Outcome) -> None:
    assert tool_outcome(success, content) is expected


def test_only_a_failure_is_a_failure() -> None:
    assert [o for o in Outcome if o.is_failure] == [Outcome.FAILED]
    assert Outcome.ABORTED.label == "⊘ aborted by user"
