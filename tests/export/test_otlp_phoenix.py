"""``--otlp-endpoint`` into a real Arize Phoenix, read back through Phoenix's REST API.

Phoenix runs from its own venv (:mod:`tests.phoenix_env`), on loopback, with its database in
a temporary directory. The delegated, compacted session of the fixture store (written by
real zett-agent) is sent through the command line; then every span must be in Phoenix with
its parent, its kind, its token counts, and the trace grouped in the exported session.
Without Phoenix the test is skipped, unless ``ZETT_REQUIRE_SERVERS=1`` (``.ci/run``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests import servers
from tests.export.otlp_helpers import CHILD, PARENT, attributes, spans_of
from tests.phoenix_env import Phoenix, PhoenixUnavailable, phoenix_server
from tests.support import private_fixture

STORE = private_fixture("agent_run.sqlite3")


@pytest.fixture(scope="module")
def phoenix() -> Iterator[Phoenix]:
    try:
        with phoenix_server() as running:
            yield running
    except PhoenixUnavailable as error:
        if servers.required():
            raise
        pytest.skip(str(error))


def _send(url: str) -> None:
    command = [sys.executable, "-m", "zett_browser", "export", str(STORE), "--session", PARENT, "--subtree"]
    result = subprocess.run([*command, "--otlp-endpoint", url], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "sent 16 spans" in result.stderr


def _arrived(phoenix: Phoenix, count: int) -> list[dict[str, Any]]:
    """Phoenix inserts in the background: wait until ``count`` spans are there."""
    deadline = time.monotonic() + 60
    while True:
        spans = phoenix.spans()
        if len(spans) >= count or time.monotonic() > deadline:
            return spans
        time.sleep(0.3)


# The first run builds Phoenix's venv (~6 min on a loaded 2-core machine) inside the fixture.
@pytest.mark.timeout(1800)
async def test_every_span_parent_token_count_and_the_session_arrive(phoenix: Phoenix) -> None:
    expected = await spans_of(STORE, PARENT)
    _send(phoenix.url)
    spans = _arrived(phoenix, len(expected))
    assert len(spans) == len(expected) == 16
    found = {span["context"]["span_id"]: span for span in spans}
    for span in expected:
        stored = found[span.span_id.hex()]
        assert stored["context"]["trace_id"] == span.trace_id.hex()
        assert stored["parent_id"] == (span.parent_id.hex() if span.parent_id else None)
        assert stored["name"] == span.name
        kind = attributes(span)["openinference.span.kind"]
        assert stored["span_kind"] == kind
        if kind == "LLM":
            for key in ("llm.token_count.prompt", "llm.token_count.completion", "gen_ai.usage.input_tokens"):
                assert _attribute(stored, key) == attributes(span)[key], key
            assert (
                _attribute(stored, "gen_ai.conversation.compacted") == attributes(span)["gen_ai.conversation.compacted"]
            )
        if span.error is not None:
            assert stored["status_code"] == "ERROR"
    # The delegated session's agent span sits under the task call's tool span.
    child = next(s for s in spans if s["span_kind"] == "AGENT" and _attribute(s, "gen_ai.conversation.id") == CHILD)
    assert found[child["parent_id"]]["name"] == "execute_tool task"
    # One session, the exported one, holding the trace, with the summed token counts.
    session = phoenix.get(f"/v1/sessions/{PARENT}")["data"]
    assert [trace["trace_id"] for trace in session["traces"]] == [expected[0].trace_id.hex()]
    prompt = sum(int(str(attributes(s).get("llm.token_count.prompt", 0))) for s in expected)
    assert session["token_count_prompt"] == prompt > 0
    # Sending again changes nothing: the ids are derived, Phoenix keeps each span once.
    _send(phoenix.url)
    time.sleep(2)
    assert len(phoenix.spans()) == len(expected)


def _attribute(span: dict[str, Any], dotted: str) -> Any:
    """An attribute of a span as Phoenix's REST API returns it (flat or nested by the dots)."""
    values = span["attributes"]
    if dotted in values:
        return values[dotted]
    for part in dotted.split("."):
        values = values[part]
    return values
