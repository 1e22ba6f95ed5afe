"""The stdlib decoder gives exactly the reference decoder's messages on real stores.

Every envelope in the stores real zett-agent 0.2.1 wrote (the fixtures), in the demo store
and in the benchmark generators' stores must decode to a value identical to
``decode_reference``'s, in what ``==`` compares and in what it ignores
(``unknown_fields``, tuple vs list, enum members, dict key order), and none may be
declined: the first screen relies on never needing pydantic for a healthy store.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bigstore import build, build_compacted, build_heavy
from tests.storage.exactness import check_exact, difference, fixture_payloads, stored_payloads
from tests.support import FIXTURES
from zett_browser.demo.store import build_demo_store
from zett_browser.model.messages import (
    AssistantMessage,
    CompactedMessage,
    StopInfo,
    StopReason,
    TextContent,
    ToolCall,
    UserMessage,
)
from zett_browser.storage import codec, fastdecode
from zett_browser.storage.fastdecode import decode_fast

ROOT = Path(__file__).parents[2]


def _assert_all_exact(payloads: list[str]) -> None:
    declined = [payload for payload in payloads if not check_exact(payload)]
    assert declined == [], f"{len(declined)} of {len(payloads)} declined, e.g. {declined[0]!r:.400}"


def test_the_comparison_sees_what_equality_ignores() -> None:
    """The helper must catch what ``==`` misses, or the exactness tests could not fail."""
    base = AssistantMessage(tool_calls=(ToolCall(id="a", name="n"),))
    assert difference(base, AssistantMessage(tool_calls=(ToolCall(id="a", name="n"),))) is None
    as_list = AssistantMessage(tool_calls=[ToolCall(id="a", name="n")])  # type: ignore[arg-type]
    assert difference(base, as_list)
    extra = AssistantMessage(tool_calls=(ToolCall(id="a", name="n", unknown_fields={"x": 1}),))
    assert base == extra and difference(base, extra)
    enum = AssistantMessage(stop=StopInfo(reason=StopReason.REFUSAL))
    plain = AssistantMessage(stop=StopInfo(reason="refusal"))  # type: ignore[arg-type]
    assert enum == plain and difference(enum, plain)
    ordered = UserMessage(content="x", attributes={"a": 1, "b": 2})
    assert ordered == UserMessage(content="x", attributes={"b": 2, "a": 1})
    assert difference(ordered, UserMessage(content="x", attributes={"b": 2, "a": 1}))
    assert difference(UserMessage(content=[TextContent("t")]), UserMessage(content=(TextContent("t"),)))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.sqlite3")), ids=lambda path: path.stem)
def test_every_envelope_zett_agent_wrote_decodes_exactly(path: Path, tmp_path: Path) -> None:
    payloads = fixture_payloads(path, tmp_path)
    _assert_all_exact(payloads)


def test_the_fixtures_hold_every_kind_and_shape(tmp_path: Path) -> None:
    """The fixture run above covers what matters: every kind, and tool calls."""
    payloads = [payload for path in FIXTURES.glob("*.sqlite3") for payload in fixture_payloads(path, tmp_path)]
    messages = [decode_fast(payload) for payload in payloads]
    kinds = {type(message).__name__ for message in messages}
    assert kinds >= {"SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage", "CompactedMessage"}
    assert any(isinstance(message, AssistantMessage) and message.tool_calls for message in messages)


async def test_every_envelope_of_the_demo_store_decodes_exactly(tmp_path: Path) -> None:
    path = await build_demo_store(tmp_path / "demo.sqlite3")
    payloads = stored_payloads(path)
    assert len(payloads) > 50
    _assert_all_exact(payloads)
    kinds = {type(decode_fast(payload)).__name__ for payload in payloads}
    assert {"AgentMessage", "CompactedMessage", "ToolMessage"} <= kinds


def test_every_envelope_of_the_benchmark_stores_decodes_exactly(tmp_path: Path) -> None:
    build(tmp_path / "bench.sqlite3", messages=1_500, sessions=12, big=400, fanout=3)
    build_compacted(tmp_path / "compacted.sqlite3", messages=400)
    build_heavy(tmp_path / "heavy.sqlite3", messages=5)
    for name in ("bench", "compacted", "heavy"):
        payloads = stored_payloads(tmp_path / f"{name}.sqlite3")
        _assert_all_exact(payloads)
        if name != "heavy":
            assert any(isinstance(decode_fast(payload), CompactedMessage) for payload in payloads)


FIELD_TYPES = {
    "str": fastdecode._str,
    "str | None": fastdecode._opt_str,
    "bool": fastdecode._bool,
    "bytes": fastdecode._bytes,
    "dict[str, Any]": fastdecode._dict_any,
    "Mapping[str, Any]": fastdecode._dict_any,
    "UserContent": fastdecode._user_content,
    "ImageSource": fastdecode._image_source,
    "ImageDetail": fastdecode._image_detail,
    "StopReason": fastdecode._stop_reason,
    "StopInfo | None": fastdecode._stop,
    "tuple[ToolCall, ...]": fastdecode._tool_calls,
    "tuple[Mapping[str, Any], ...]": fastdecode._replay_blocks,
}


def test_the_field_tables_match_the_dataclasses() -> None:
    """A field added, removed, made required or retyped in the model fails here first."""
    tables = {**fastdecode.MESSAGE_FIELDS, **fastdecode.NESTED_FIELDS}
    assert set(fastdecode.MESSAGE_FIELDS) == set(codec.MESSAGE_TYPES.values())
    for cls, table in tables.items():
        fields = [item for item in dataclasses.fields(cls) if item.name != "unknown_fields"]
        assert sorted(name for name, _, _ in table) == sorted(item.name for item in fields), cls
        readers = {name: (reader, required) for name, reader, required in table}
        for item in fields:
            required = item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
            assert readers[item.name] == (FIELD_TYPES[str(item.type)], required), (cls, item.name)


def test_the_bytes_key_is_the_codecs() -> None:
    assert fastdecode.BYTES_KEY == codec.BYTES_KEY


IMPORT_CHECK = """
import importlib.util, sys, zett_browser.model
before = set(sys.modules)
spec = importlib.util.spec_from_file_location("zett_browser.storage.fastdecode", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
assert module.decode_fast('[{"kind": 1, "data": {"content": "x"}}]').content == "x"
new = sorted(set(sys.modules) - before)
bad = [name for name in new if name.split(".")[0] in ("pydantic", "pydantic_core", "sqlalchemy", "textual", "rich")]
bad += [name for name in new if name.startswith("zett_browser.") and not name.startswith("zett_browser.model")]
sys.exit(f"loaded {bad}" if bad != [spec.name] else 0)
"""


def test_importing_it_loads_no_pydantic_sqlalchemy_or_textual() -> None:
    """Loaded as a file after the model, so the storage package's own imports do not count."""
    command = [sys.executable, "-c", IMPORT_CHECK, str(fastdecode.__file__)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + result.stdout
