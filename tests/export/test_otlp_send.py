"""``--otlp-endpoint`` against a real HTTP server on loopback that answers as a collector would.

The server decodes each body as an ``ExportTraceServiceRequest`` and answers with scripted
statuses: a 503 (with ``Retry-After``) is tried again, a 400 is an error at once, a
``partial_success`` with rejected spans fails the export, and the headers given arrive.
Also: hostile store text reaches the collector only as attribute data, redacted.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tests.export.hostile_helpers import ESCAPES, EVIL, MARKDOWN
from tests.export.otlp_helpers import PARENT, json_attributes, otlp_json, spans_of
from tests.support import private_fixture
from zett_browser.export import ExportError, ExportOptions
from zett_browser.export.otlp_export import send_session
from zett_browser.export.otlp_send import OtlpSender, http_post, parse_header, traces_url
from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage, open_store

STORE = private_fixture("agent_run.sqlite3")


class Collector:
    """What the server received, and what it answers next (status, extra headers, body)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], ExportTraceServiceRequest]] = []
        self.answers: list[tuple[int, dict[str, str], bytes]] = []
        self.url = ""

    def spans(self) -> int:
        return sum(len(s.spans) for _, _, r in self.requests for rs in r.resource_spans for s in rs.scope_spans)


@pytest.fixture
def collector() -> Iterator[Collector]:
    state = Collector()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the standard library's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            status, headers, answer = state.answers.pop(0) if state.answers else (200, {}, b"")
            if status == 200:
                request = ExportTraceServiceRequest.FromString(body)
                state.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, request))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the standard library's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


async def _send(collector: Collector, *, headers: dict[str, str] | None = None) -> int:
    storage = open_store(STORE)
    try:
        options = ExportOptions(format="otlp", subtree=True)
        report = await send_session(storage, PARENT, options, collector.url, headers or {})
    finally:
        await storage.close()
    return report.spans


async def test_spans_arrive_with_headers_and_a_retry_after_503(collector: Collector) -> None:
    collector.answers = [(503, {"Retry-After": "0"}, b"busy")]
    sent = await _send(collector, headers={"authorization": "Bearer t0ken", "x-tenant": "a b"})
    assert sent == collector.spans() == len(await spans_of(STORE, PARENT))
    path, headers, request = collector.requests[0]
    assert path == "/v1/traces" and headers["content-type"] == "application/x-protobuf"
    assert headers["authorization"] == "Bearer t0ken" and headers["x-tenant"] == "a b"
    names = {span.name for rs in request.resource_spans for s in rs.scope_spans for span in s.spans}
    assert {"invoke_agent counter", "execute_tool task", "chat child-1"} <= names


async def test_batches_of_the_given_size(collector: Collector) -> None:
    spans = await spans_of(STORE, PARENT)
    sender = OtlpSender(traces_url(collector.url), http_post(traces_url(collector.url), {}), batch=5)
    for span in spans:
        sender(span)
    sender.finish()
    assert [len(r.resource_spans[0].scope_spans[0].spans) for _, _, r in collector.requests] == [5, 5, 5, 1]
    assert sender.sent == len(spans) == 16


async def test_a_refusal_is_one_line_and_no_retry(collector: Collector) -> None:
    collector.answers = [(400, {}, b"bad request: \x1b[2J no")]
    with pytest.raises(ExportError, match="answered 400") as caught:
        await _send(collector)
    assert "bad request" in str(caught.value)
    assert collector.requests == [] and collector.answers == []


async def test_rejected_spans_fail_the_export(collector: Collector) -> None:
    partial = ExportTracePartialSuccess(rejected_spans=3, error_message="too old")
    collector.answers = [(200, {}, ExportTraceServiceResponse(partial_success=partial).SerializeToString())]
    with pytest.raises(ExportError, match="rejected 3 spans: too old"):
        await _send(collector)


def test_an_unreachable_collector_is_tried_again_then_reported(collector: Collector) -> None:
    pauses: list[float] = []
    url = "http://127.0.0.1:9/v1/traces"  # discard port: nothing listens
    sender = OtlpSender(url, http_post(url, {}, timeout=2), sleep=pauses.append)
    spans = asyncio.run(spans_of(STORE, PARENT))
    sender(spans[0])
    with pytest.raises(ExportError, match="cannot reach"):
        sender.finish()
    assert pauses == [0.5, 1.0, 2.0, 4.0, 8.0]


def test_endpoints_and_headers() -> None:
    assert traces_url("http://h:4318") == "http://h:4318/v1/traces"
    assert traces_url("https://h/otel/v1/traces") == "https://h/otel/v1/traces"
    assert parse_header("authorization=Bearer a=b") == ("authorization", "Bearer a=b")
    for bad in ("ftp://h", "h:4318", "file:///x"):
        with pytest.raises(ExportError):
            traces_url(bad)
    for bad in ("novalue", "bad name=x", "x=a\r\nInjected: 1"):
        with pytest.raises(ExportError):
            parse_header(bad)


SECRET = "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0"


async def _hostile_store(path: Path) -> Path:
    storage = SQLiteSessionStorage(path)
    try:
        await storage.create_session(session_id="h", title="<b>title</b>" + ESCAPES, agent_name="[bold]agent[/]")
        await storage.append("h", "r1", UserMessage(content=EVIL + "\n" + MARKDOWN + ESCAPES + " key " + SECRET))
        call = ToolCall("c<1>", "read_<file>" + ESCAPES, {"path": EVIL, "token": SECRET})
        await storage.append(
            "h", "r1", AssistantMessage(content=MARKDOWN + "\u202e", reasoning=EVIL, tool_calls=(call,))
        )
        await storage.append("h", "r1", ToolMessage(tool_call_id="c<1>", name="read_<file>", content=ESCAPES + SECRET))
    finally:
        await storage.close()
    return path


async def test_hostile_text_is_attribute_data_only_and_redacted(tmp_path: Path) -> None:
    store = await _hostile_store(tmp_path / "hostile.sqlite3")
    from tests.export.helpers import export_text

    text, report = await export_text(store, "h", format="otlp", otlp_content=True, redact=True)
    assert text.isascii() and "\x1b" not in text and SECRET not in text  # escapes are \\u001b in the JSON
    assert report.redacted >= 3
    document = json.loads(text)
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    names = sorted(span["name"] for span in spans)
    assert names == ["chat", "execute_tool read_<file>" + ESCAPES, "invoke_agent [bold]agent[/]"]
    found = {span["name"].split(" ")[0]: json_attributes(span) for span in spans}
    inputs = json.loads(found["chat"]["gen_ai.input.messages"])
    assert inputs[0]["parts"][0]["content"] == EVIL + "\n" + MARKDOWN + ESCAPES + " key [REDACTED]"
    assert found["invoke_agent"]["zett.session.title"] == "<b>title</b>" + ESCAPES
    assert found["execute_tool"]["gen_ai.tool.call.result"] == ESCAPES + "[REDACTED]"
    assert json.loads(found["execute_tool"]["gen_ai.tool.call.arguments"]) == {"path": EVIL, "token": "[REDACTED]"}
    # Keys and structure are the export's own: no store text became a key or a field.
    own = {"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano", "endTimeUnixNano", "attributes"}
    assert {key for span in spans for key in span} <= own | {"status"}
    assert all(
        key.startswith(
            ("gen_ai.", "zett.", "llm.", "session.", "input.", "output.", "openinference.", "agent.", "tool.")
        )
        for f in found.values()
        for key in f
    )
    # Without --otlp-content no message text leaves the store at all.
    plain = await otlp_json(store, "h")
    assert "alert(1)" not in json.dumps(plain) and "Fake heading" not in json.dumps(plain)


def test_command_line_refuses_mixed_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zett_browser.cli.export import main_export

    base = [str(STORE), "--session", PARENT]
    cases = {
        ("--otlp-header", "a=b"): "--otlp-header goes with --otlp-endpoint",
        ("--otlp-endpoint", "http://127.0.0.1:9", "--format", "md"): "does not go with it",
        ("--otlp-endpoint", "http://127.0.0.1:9", "--output", str(tmp_path / "x")): "--output and --force",
        ("--format", "md", "--otlp-content"): "--otlp-content goes with --format otlp",
        ("--format", "otlp", "--no-usage"): "OTLP spans carry no content",
        ("--otlp-endpoint", "gopher://h"): "is not an http:// or https:// URL",
    }
    for extra, message in cases.items():
        assert main_export([*base, *extra]) == 2
        assert message in capsys.readouterr().err


def test_command_line_sends_and_says_a_refusal_in_one_clean_line(
    collector: Collector, capsys: pytest.CaptureFixture[str]
) -> None:
    from zett_browser.cli.export import main_export

    command = [str(STORE), "--session", PARENT, "--subtree", "--otlp-endpoint", collector.url, "--otlp-header", "k=v"]
    assert main_export(command) == 0
    assert "sent 16 spans (26 messages)" in capsys.readouterr().err
    assert collector.requests[0][1]["k"] == "v"
    collector.answers = [(401, {}, b"no \x1b]52;c;ZXZpbA==\x07 entry\n" + b"x" * 5000)]
    assert main_export(command) == 2
    error = capsys.readouterr().err
    assert "answered 401" in error and "\x1b" not in error and error.count("\n") == 1 and len(error) < 400
