"""``--session`` takes a unique id prefix everywhere; an ambiguous or unknown one is one line, exit 2.

The store is written by the project's own writer (tests/ui/label_helpers.py): four sessions
share the prefix ``01a237b7``, as UUIDv7 children of one minute do.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from tests.ui.label_helpers import BOSS, KIDS, write_brief_store
from zett_browser.__main__ import run_command
from zett_browser.storage import open_store
from zett_browser.storage.prefix import upper_bound


@pytest.fixture
def brief(tmp_path: Path) -> Path:
    return asyncio.run(write_brief_store(tmp_path / "brief.sqlite3"))


async def test_the_storage_finds_ids_by_prefix_with_a_bounded_range(tmp_path: Path) -> None:
    path = await write_brief_store(tmp_path / "brief.sqlite3")
    storage = open_store(str(path))
    try:
        assert (await storage.sessions_with_prefix("01a237b7-14")).session_id == KIDS[0]
        assert (await storage.sessions_with_prefix(KIDS[1])).session_id == KIDS[1]
        many = await storage.sessions_with_prefix("01a237b7", limit=2)
        assert many.candidates == (BOSS, KIDS[0]) and many.more and many.session_id is None
        assert (await storage.sessions_with_prefix("01a237b7")).candidates == (BOSS, *KIDS)
        assert (await storage.sessions_with_prefix("01a237b8")).candidates == ()
        assert (await storage.sessions_with_prefix("")).candidates == ()
        # LIKE wildcards are plain characters in a range query.
        assert (await storage.sessions_with_prefix("01a237b_")).candidates == ()
    finally:
        await storage.close()


def test_the_upper_bound_ends_every_string_with_the_prefix() -> None:
    assert upper_bound("01a2") == "01a3"
    assert upper_bound("a\U0010ffff") == "b"
    assert upper_bound("\U0010ffff") is None


def test_the_range_query_uses_the_primary_key_index(brief: Path) -> None:
    import sqlite3

    with sqlite3.connect(brief) as connection:
        plan = connection.execute(
            "explain query plan select id from agent_sessions where id >= ? and id < ? order by id limit 9",
            ("01a2", "01a3"),
        ).fetchall()
    connection.close()
    assert any("USING" in str(row[-1]) and "INDEX" in str(row[-1]) for row in plan), plan
    assert not any(str(row[-1]).startswith("SCAN agent_sessions") and "INDEX" not in str(row[-1]) for row in plan)


@pytest.mark.parametrize("command", ["context", "export", "usage"])
def test_a_unique_prefix_names_the_session(brief: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [command, str(brief), "--session", "01a237b7-0"]
    if command == "usage":
        argv += ["--index-dir", str(brief.parent / "index")]
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert BOSS in out or "Get the glossary reviewed" in out or "Context after #6" in out, out


@pytest.mark.parametrize("command", ["", "context", "export", "usage"])
def test_an_ambiguous_prefix_lists_the_candidates_on_one_line(
    brief: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*([command] if command else []), str(brief), "--session", "01a237b7"]
    assert run_command(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "ambiguous" in lines[0] and "4 sessions" in lines[0]
    for typed in ("01a237b7-0…", "01a237b7-14…", "01a237b7-1a…", "01a237b7-2…"):
        assert typed in lines[0]
    assert captured.out == ""


@pytest.mark.parametrize("command", ["", "context", "export", "usage"])
def test_a_prefix_that_names_nothing_is_one_line(brief: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*([command] if command else []), str(brief), "--session", "ffff\x1b[2J"]
    assert run_command(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no session" in err and "\x1b" not in err, err


def test_search_names_an_unknown_qualifier_and_exits_2(brief: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = str(brief.parent / "index")
    assert run_command(["search", str(brief), "glossary foo:bar", "--index-dir", index]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        "zett-browser: unknown qualifier 'foo:' (to search the text, quote it: \"foo:bar\")"
    ]
    assert captured.out == ""
    # Words with a colon that are no qualifier's shape are text; quoted, so is foo:bar.
    assert run_command(["search", str(brief), 'glossary http://x "foo:bar"', "--index-dir", index]) == 1
    assert run_command(["search", str(brief), "glossary 12:30", "--index-dir", index]) == 1
    assert "0 hits" in capsys.readouterr().err


def test_usage_by_session_nests_children_under_their_parent_with_labels(
    brief: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["usage", str(brief), "--by", "session", "--index-dir", str(brief.parent / "index")]
    assert run_command(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    first = [re.split(r"\s{2,}(?=\d)", line)[0] for line in lines[1:8]]
    assert first[0] == "01a237b7-0… Get the glossary reviewed three times"
    # The three children asked the same read apart, indented under the parent.
    kids = sorted(first[1:4])
    assert kids == [
        "  ↳ 01a237b7-14… reviewer: Review the glossary entry",
        "  ↳ 01a237b7-1a… reviewer: Review the glossary entry",
        "  ↳ 01a237b7-2… reviewer: Review the glossary entry",
    ]
    assert all(line.startswith("01a237b6-000") for line in first[4:7])
    assert lines[8].startswith("total")
    assert run_command([*argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["key"] for row in document["rows"]][:1] == [BOSS]
    assert {row["label"] for row in document["rows"][1:4]} == {kid.strip() for kid in kids}
