"""Damaged and odd envelopes: the stdlib decoder is exact or declines, never wrong.

Real envelopes (from the zett-agent-written fixtures, and typed messages with every field
filled in, encoded by the codec) are mutated field by field (wrong type, bool for a bool's
neighbour types, numeric strings, null, missing, unknown keys at every level, bytes as
plain strings, bad base64...), at the envelope level, in the raw text (BOM, truncation,
surrogates, deep nesting, huge numbers) and by a seeded random mutator. For every case
``decode_fast`` must return ``None`` or a value identical to ``decode_reference``'s
(``check_exact`` compares types, ``unknown_fields`` and key order too).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.damage import FIXTURE_NAMES, copy_fixture, deep_json
from tests.storage.exactness import check_exact, stored_payloads
from zett_browser.model.messages import (
    AgentMessage,
    AssistantMessage,
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    ImageDetail,
    ImageUrlSource,
    StopInfo,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from zett_browser.storage.codec import decode_reference, encode_messages
from zett_browser.storage.fastdecode import MAX_DEPTH, decode_fast
from zett_browser.storage.rows import BadText

#: Messages with every optional field set, so each field gets mutated somewhere.
FULL_MESSAGES = [
    SystemMessage(content="be brief", attributes={"origin": "cli"}, persist=False, include_in_messages=True),
    UserMessage(
        content=[
            TextContent("look"),
            ImageContent(ImageUrlSource("https://example.com/a.png"), ImageDetail.HIGH, "a chart"),
            ImageContent(ImageBytesSource(b"\x89PNG", "image/png")),
        ]
    ),
    AssistantMessage(
        content="calling",
        reasoning="think",
        tool_calls=(ToolCall("c1", "grep", {"pattern": "x", "n": 3}, None), ToolCall("c2", "ls", {}, "bad args")),
        provider="anthropic",
        model="m",
        replay_blocks=({"type": "thinking", "signature": "abc"},),
        stop=StopInfo(StopReason.REFUSAL, "refusal", "cyber", "declined", "other-model", {"k": [1, 2.5]}),
    ),
    ToolMessage(tool_call_id="c1", name="grep", content=[TextContent("found")], success=False),
    ToolMessage(tool_call_id="c2", name="ls", content="a\nb"),
    AgentMessage(content="nudge", attributes={"blob": b"\x00\x01"}),
    CompactedMessage(content="summary so far"),
]

#: Values put in place of each field (JSON-able; the bytes form and bad base64 included).
REPLACEMENTS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    10**30,
    "5",
    "true",
    "",
    " ",
    "x",
    "end_turn",
    "REFUSAL",
    "auto",
    "high",
    "https://example.com/i.png",
    "data:image/png;base64,AA==",
    "ftp://x",
    "image/png",
    "\ud800",
    [],
    [1],
    ["x"],
    [{"text": "t"}],
    [None],
    {},
    {"x": 1},
    {"text": "t"},
    {"source": {"url": "https://example.com/i.png"}},
    {"text": "t", "source": {"url": "https://example.com/i.png"}},
    {"reason": "end_turn"},
    {"id": "a", "name": "b"},
    {"__kcs_bytes__": "aGk="},
    {"__kcs_bytes__": ""},
    {"__kcs_bytes__": "!!"},
    {"__kcs_bytes__": "aGk=", "x": 1},
    {"unknown_fields": {"a": 1}},
    "aGk=",
]


def _fixture_payloads(directory: Path) -> list[str]:
    payloads: list[str] = []
    for name in FIXTURE_NAMES:
        payloads += stored_payloads(copy_fixture(name, directory, filename=f"{name}.sqlite3"))
    return payloads


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((key, _shape(item)) for key, item in value.items()))
    if isinstance(value, list):
        return tuple(sorted({_shape(item) for item in value}, key=repr))
    return type(value).__name__


def base_payloads(directory: Path) -> list[str]:
    """One fixture payload per distinct JSON shape, and the fully filled messages."""
    seen: dict[Any, str] = {}
    for payload in _fixture_payloads(directory):
        seen.setdefault(_shape(json.loads(payload)), payload)
    return list(seen.values()) + [encode_messages([message]) for message in FULL_MESSAGES]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths of every value below the envelope's data, containers included."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield (*path, key)
        yield from _paths(child, (*path, key))


def _parent(tree: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        tree = tree[key]
    return tree


def _dump(tree: Any) -> str:
    return json.dumps(tree, ensure_ascii=False)


def field_mutations(payload: str) -> Iterator[tuple[str, str]]:
    """(label, mutated payload): each value replaced or removed, an unknown key at each object."""
    tree = json.loads(payload)
    for path in _paths(tree):
        for replacement in REPLACEMENTS:
            mutated = copy.deepcopy(tree)
            _parent(mutated, path)[path[-1]] = copy.deepcopy(replacement)
            yield f"{path} = {replacement!r}", _dump(mutated)
        mutated = copy.deepcopy(tree)
        del _parent(mutated, path)[path[-1]]
        yield f"del {path}", _dump(mutated)
    for path in [(), *_paths(tree)]:
        mutated = copy.deepcopy(tree)
        target = _parent(mutated, (*path, None))
        if isinstance(target, dict):
            target["zz_newer_field"] = {"nested": [1, "two"]}
            yield f"extra key at {path}", _dump(mutated)


def test_field_mutations_are_exact_or_declined(tmp_path: Path) -> None:
    decoded = declined = 0
    for payload in base_payloads(tmp_path):
        for _label, mutated in field_mutations(payload):
            if check_exact(mutated):
                decoded += 1
            else:
                declined += 1
    assert decoded > 500 and declined > 500, (decoded, declined)


def test_an_unknown_key_at_any_level_is_still_decoded(tmp_path: Path) -> None:
    """Unknown keys (a newer zett-agent's) are kept exactly, not a reason to fall back."""
    cases = 0
    for payload in base_payloads(tmp_path):
        for label, mutated in field_mutations(payload):
            if label.startswith("extra key at"):
                reference = decode_reference(mutated)
                assert isinstance(reference, UnreadableMessage) or check_exact(mutated), (label, mutated)
                cases += 1
    assert cases > 100


def test_unknown_fields_land_where_the_reference_puts_them() -> None:
    payload = encode_messages([FULL_MESSAGES[2]])
    tree = json.loads(payload)
    tree[0]["data"]["new_top"] = 1
    tree[0]["data"]["tool_calls"][1]["new_call"] = {"__kcs_bytes__": "aGk="}
    tree[0]["data"]["stop"]["new_stop"] = [1]
    tree[0]["zz_envelope"] = True
    message = decode_fast(json.dumps(tree))
    assert isinstance(message, AssistantMessage) and message.stop is not None
    assert message.unknown_fields == {"new_top": 1}
    assert message.tool_calls[1].unknown_fields == {"new_call": b"hi"}
    assert message.stop.unknown_fields == {"new_stop": [1]}
    assert check_exact(json.dumps(tree))


ENVELOPES: dict[str, object] = {
    "not text": None,
    "bytes": b'[{"kind": 1, "data": {"content": "x"}}]',
    "number": 5,
    "empty": "",
    "object": '{"kind": 1, "data": {"content": "x"}}',
    "empty list": "[]",
    "two items": '[{"kind": 1, "data": {"content": "x"}}, {"kind": 1, "data": {"content": "y"}}]',
    "item is a list": '[[1, {"content": "x"}]]',
    "item is bytes": '[{"__kcs_bytes__": "aGk="}]',
    "no kind": '[{"data": {"content": "x"}}]',
    "no data": '[{"kind": 1}]',
    "data null": '[{"kind": 1, "data": null}]',
    "data list": '[{"kind": 1, "data": ["x"]}]',
    "data bytes": '[{"kind": 1, "data": {"__kcs_bytes__": "aGk="}}]',
    "kind string": '[{"kind": "1", "data": {"content": "x"}}]',
    "kind float": '[{"kind": 1.0, "data": {"content": "x"}}]',
    "kind bool": '[{"kind": true, "data": {"content": "x"}}]',
    "kind unknown": '[{"kind": 99, "data": {"content": "x"}}]',
    "kind zero": '[{"kind": 0, "data": {"content": "x"}}]',
    "kind negative": '[{"kind": -1, "data": {"content": "x"}}]',
    "kind huge": '[{"kind": 1' + "0" * 40 + ', "data": {"content": "x"}}]',
    "extra item key": '[{"kind": 1, "data": {"content": "x"}, "v": 2}]',
    "BOM": '\ufeff[{"kind": 1, "data": {"content": "x"}}]',
    "whitespace": ' \n[{"kind": 1, "data": {"content": "x"}}]\t',
    "trailing garbage": '[{"kind": 1, "data": {"content": "x"}}]x',
    "truncated": '[{"kind": 1, "data": {"content": "x"}',
    "NaN": '[{"kind": 1, "data": {"content": "x", "attributes": {"n": NaN, "i": -Infinity}}}]',
    "NaN for bool": '[{"kind": 1, "data": {"content": "x", "persist": NaN}}]',
    "huge int": '[{"kind": 1, "data": {"content": "x", "attributes": {"n": ' + "9" * 4000 + "}}}]",
    "too huge int": '[{"kind": 1, "data": {"content": "x", "attributes": {"n": ' + "9" * 5000 + "}}}]",
    "lone surrogate": '[{"kind": 1, "data": {"content": "a\\ud800b"}}]',
    "surrogate key": '[{"kind": 1, "data": {"content": "x", "\\udc80": 1}}]',
    "surrogate key in a dict field": '[{"kind": 1, "data": {"content": "x", "attributes": {"\\udc80": 1}}}]',
    "surrogate key in a mapping": '[{"kind": 3, "data": {"stop": {"reason": "other", "detail": {"\\udc80": 1}}}}]',
    "surrogate key in a part": '[{"kind": 2, "data": {"content": [{"text": "t", "\\ud800x": 1}]}}]',
    "non-ascii key": '[{"kind": 1, "data": {"content": "x", "ключ": 1}}]',
    "raw surrogate": '[{"kind": 1, "data": {"content": "a\ud800b"}}]',
    "escaped pair": '[{"kind": 1, "data": {"content": "\\ud83d\\ude00"}}]',
    "NUL and ESC": '[{"kind": 1, "data": {"content": "a\\u0000\\u001b[2J"}}]',
    "duplicate key": '[{"kind": 1, "data": {"content": "x", "content": "y"}}]',
    "bytes non-ascii": '[{"kind": 1, "data": {"content": "x", "attributes": {"b": {"__kcs_bytes__": "é"}}}}]',
    "bytes not a string": '[{"kind": 1, "data": {"content": "x", "attributes": {"b": {"__kcs_bytes__": 5}}}}]',
    "bytes null": '[{"kind": 1, "data": {"content": "x", "attributes": {"b": {"__kcs_bytes__": null}}}}]',
    "image as plain string": (
        '[{"kind": 2, "data": {"content": [{"source": {"data": "aGk=", "media_type": "image/png"}}]}}]'
    ),
    "image bad base64": (
        '[{"kind": 2, "data": {"content": [{"source": {"data": {"__kcs_bytes__": "a"}, "media_type": "image/png"}}]}}]'
    ),
    "image empty bytes": (
        '[{"kind": 2, "data": {"content": [{"source": {"data": {"__kcs_bytes__": ""}, "media_type": "image/png"}}]}}]'
    ),
    "image bad url": '[{"kind": 2, "data": {"content": [{"source": {"url": "javascript:x"}}]}}]',
    "checkpoint in text": BadText('[{"kind": 5, "data": {"content": "sum\ufffd"}}]'),
}


@pytest.mark.parametrize("name", list(ENVELOPES))
def test_odd_envelopes_are_exact_or_declined(name: str) -> None:
    payload = ENVELOPES[name]
    check_exact(payload)


def test_damaged_rows_are_declined_never_unreadable() -> None:
    """A row the reference cannot read is left to it (it explains why); never a wrong message."""
    for name, payload in ENVELOPES.items():
        result = decode_fast(payload)
        assert not isinstance(result, UnreadableMessage), name
        if result is not None:
            assert not isinstance(decode_reference(payload), UnreadableMessage), name


@pytest.mark.parametrize("value", ["5", "null", "[]", "{}"])
def test_the_reference_reads_a_bytes_value_that_is_not_text_as_unreadable(value: str) -> None:
    """It raised TypeError from its JSON hook and took the page down; now it explains the row."""
    payload = '[{"kind": 1, "data": {"content": "x", "attributes": {"b": {"__kcs_bytes__": ' + value + "}}}}]"
    message = decode_reference(payload)
    assert isinstance(message, UnreadableMessage) and "not valid JSON" in message.error
    assert decode_fast(payload) is None


def _nested(depth: int) -> str:
    return '[{"kind": 1, "data": {"content": "x", "attributes": {"d": ' + "[" * depth + "]" * depth + "}}}]"


@pytest.mark.parametrize("depth", [10, MAX_DEPTH - 5, MAX_DEPTH + 1, 900, 5_000, 100_000])
def test_deep_nesting_is_exact_or_declined(depth: int) -> None:
    payload = _nested(depth)
    assert check_exact(payload) == (depth < MAX_DEPTH - 3)
    assert decode_fast('[{"kind": 1, "data": {"content": "x", "attributes": ' + deep_json(depth) + "}}]") is None


def _random_value(rng: random.Random) -> Any:
    pick = rng.randrange(8)
    if pick == 0:
        return rng.choice(REPLACEMENTS)
    if pick == 1:
        return rng.randint(-(10**20), 10**20)
    if pick == 2:
        return rng.random() * rng.choice([1, 1e300, -1e-300])
    if pick == 3:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(6)))
    if pick == 4:
        return [_random_value(rng) for _ in range(rng.randrange(3))] if rng.random() < 0.5 else []
    if pick == 5:
        return {rng.choice(["text", "source", "url", "data", "reason", "id", "name", "k"]): _random_value(rng)}
    return rng.choice([None, True, False, 0, "", {}])


def _mutate_tree(tree: Any, rng: random.Random) -> None:
    paths = list(_paths(tree))
    path = rng.choice(paths)
    parent = _parent(tree, path)
    action = rng.randrange(5)
    if action == 0 and isinstance(parent, dict):
        del parent[path[-1]]
    elif action == 1 and isinstance(parent, dict):
        parent[rng.choice(["zz", "unknown_fields", "role", "text", "source", "url"])] = _random_value(rng)
    elif action == 2:
        parent[path[-1]] = [parent[path[-1]]]
    elif action == 3 and isinstance(parent[path[-1]], str):
        parent[path[-1]] = parent[path[-1]].upper() if rng.random() < 0.5 else parent[path[-1]] + " "
    else:
        parent[path[-1]] = _random_value(rng)


def _mutate_text(payload: str, rng: random.Random) -> str:
    at = rng.randrange(len(payload))
    return rng.choice(
        [payload[:at] + payload[at + 1 :], payload[:at] + rng.choice('"{}[],:\\0e-') + payload[at:], payload[:at]]
    )


def test_random_mutations_are_exact_or_declined(tmp_path: Path) -> None:
    rng = random.Random(16)
    bases = [json.loads(payload) for payload in base_payloads(tmp_path)]
    decoded = 0
    for _ in range(4_000):
        tree = copy.deepcopy(rng.choice(bases))
        for _ in range(rng.randint(1, 3)):
            _mutate_tree(tree, rng)
        payload = json.dumps(tree, ensure_ascii=rng.random() < 0.3)
        if rng.random() < 0.1:
            payload = _mutate_text(payload, rng)
        decoded += check_exact(payload)
    assert decoded > 400
