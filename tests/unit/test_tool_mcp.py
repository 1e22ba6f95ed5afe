"""MCP ``server__tool`` calls and results read decoded, by name only (views/tool_mcp.py, views/tools.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.tool_helpers import CONTROLS, HOSTILE, call_text, generic_call, result_text
from zett_browser.views import tools
from zett_browser.views.blocks import HUGE, FormatOptions, block
from zett_browser.views.tool_mcp import base64_size, split_name


def test_names_split_into_server_and_tool() -> None:
    assert split_name("inventory__lookup") == ("inventory", "lookup")
    assert split_name("docs__search__v2") == ("docs", "search__v2")
    for name in ("lookup", "__init__", "server__", "__tool", "a_b"):
        assert split_name(name) is None


def test_the_call_names_server_and_tool_above_its_arguments() -> None:
    assert call_text("inventory__lookup", {"sku": "A-100"}) == (
        '→ call inventory__lookup  c1\nMCP inventory › lookup\n{\n  "sku": "A-100"\n}'
    )
    assert call_text("plain_tool", {"sku": "A-100"}) == generic_call("plain_tool", {"sku": "A-100"})


def test_structured_output_is_decoded() -> None:
    text = result_text("inventory__lookup", '{"result": "SKU A-100: 42 in stock (warehouse B, shelf 7)"}')
    assert text == "MCP inventory › lookup\nSKU A-100: 42 in stock (warehouse B, shelf 7)"
    assert result_text("inventory__count", '{"result": 42}') == "MCP inventory › count\n42"
    assert result_text("inventory__stock", '{"sku": "A", "count": 4}') == (
        'MCP inventory › stock\n{\n  "sku": "A",\n  "count": 4\n}'
    )


def test_content_parts_are_decoded() -> None:
    parts = [
        {"type": "text", "text": "first\nsecond"},
        {"type": "image", "data": "QUJD" * 10, "mimeType": "image/png"},
        {"type": "audio", "data": "QUI=", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
        {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "bee"}},
        {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "QUJD", "mimeType": "application/zip"}},
        {"type": "hologram", "depth": 3},
    ]
    assert result_text("docs__fetch", json.dumps(parts)) == "\n".join(
        [
            "MCP docs › fetch",
            "first\nsecond",
            "[image: image/png, 30 B]",
            "[audio: audio/wav, 2 B]",
            "[link: a.txt — file:///a.txt]",
            "resource file:///b.txt:",
            "bee",
            "[resource: file:///c.bin, application/zip, 3 B]",
            '{"depth": 3, "type": "hologram"}',
        ]
    )
    assert result_text("docs__fetch", "[]") == "MCP docs › fetch\n(no content)"


def test_errors_stay_text() -> None:
    assert result_text("inventory__broken", "Error executing tool broken", success=False) == (
        "MCP inventory › broken\nError executing tool broken"
    )
    skipped = "Superseded by a steering message"
    assert result_text("inventory__broken", skipped, success=False) == skipped


@pytest.mark.parametrize("content", ["plain text answer", "[1, 2]", '[{"text": "no type"}]', "{bad", "42"])
def test_a_namespaced_tool_with_another_result_shape_shows_as_stored(content: str) -> None:
    assert result_text("my__tool", content) == content


def test_base64_sizes_are_counted_not_decoded() -> None:
    assert [base64_size(s) for s in ("", "QQ==", "QUI=", "QUJD", "x")] == [0, 1, 2, 3, 0]


def test_hostile_strings_are_cleaned() -> None:
    name = "srv\x1b[2J__tool[@click=app.quit]"
    parts = [{"type": "text", "text": HOSTILE}, {"type": "resource_link", "uri": HOSTILE}]
    texts = [
        call_text(name, {"q": HOSTILE}),
        result_text(name, json.dumps(parts)),
        result_text(name, json.dumps({"result": HOSTILE})),
        result_text(name, HOSTILE, success=False),
    ]
    for text in texts:
        assert not any(c in text for c in CONTROLS), text
        assert "[bold red]x[/]" in text


def test_huge_results_are_bounded() -> None:
    text = result_text("a__b", json.dumps({"result": "y" * (HUGE * 5)}))
    assert "press enter to show all" in text and len(text) < 3000
    assert "y" * (HUGE * 5) in result_text(
        "a__b", json.dumps({"result": "y" * (HUGE * 5)}), options=FormatOptions(True, True)
    )
    megabytes = json.dumps({"result": "z" * 2_000_000})
    assert result_text("a__b", megabytes).startswith('{"result": "zzz')  # never parsed: the generic preview


def test_exact_names_win_over_patterns_and_renderer_bugs_fall_back() -> None:
    def broken(*_: Any) -> None:
        raise RuntimeError("renderer bug")

    tools.RESULTS["x__exact"] = lambda message, options: [block("exact", "body")]
    tools.CALLS["x__bug"] = broken
    try:
        assert result_text("x__exact", '{"result": 1}') == "exact"
        assert call_text("x__bug", {"a": 1}) == generic_call("x__bug", {"a": 1})
    finally:
        del tools.RESULTS["x__exact"], tools.CALLS["x__bug"]
