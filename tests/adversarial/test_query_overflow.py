"""Dates and ages out of ``datetime``'s range in a query: one clear query error, never a crash.

``since:999999d`` reaches back before year 1 and ``since:9999-12-31T23:59:59-05:00`` is past
year 9999 in UTC: both overflowed (``OverflowError``) in the parser, which printed a traceback
in the CLI and ended the app. They are query errors now, like any other bad token.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.adversarial.cli_run import assert_one_line, cli
from tests.support import FIXTURES
from tests.ui.search_helpers import app_on, built, note, search, until, where
from zett_browser.index import QueryError, parse
from zett_browser.screens.main import MainScreen

OUT_OF_RANGE = [
    "since:999999d",
    "since:999999w",
    "before:999999w",
    "since:9999-12-31T23:59:59-05:00",
    "before:0001-01-01T00:00:00+05:00",
    "-since:999999d",
]


@pytest.mark.parametrize("token", OUT_OF_RANGE)
def test_the_parser_names_the_token(token: str) -> None:
    with pytest.raises(QueryError) as raised:
        parse(f"retry {token}")
    message = str(raised.value)
    assert token.lstrip("-") in message and "out of range" in message and "\n" not in message


def test_the_edges_of_the_range_still_parse() -> None:
    assert parse("since:9999-12-31T23:59:59+00:00").filters[0].value.year == 9999  # type: ignore[attr-defined]
    assert parse("since:0001-01-01T05:00:00+05:00").filters[0].value.year == 1  # type: ignore[attr-defined]
    assert parse("since:99999d").filters  # 274 years back


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    return path


@pytest.mark.parametrize("token", ["since:999999d", "since:9999-12-31T23:59:59-05:00", "dur:>1s before:999999w"])
def test_cli_search_is_one_line_and_exit_2(tmp_path: Path, store: Path, token: str) -> None:
    result = cli("search", str(store), f"word {token}", "--index-dir", str(tmp_path / "index"), cwd=tmp_path)
    assert_one_line(result, "out of range")


async def test_the_app_search_and_tree_filter_say_so_and_keep_running(tmp_path: Path, store: Path) -> None:
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(160, 45)) as pilot:
        await built(pilot)
        for token in ("since:999999d", "since:9999-12-31T23:59:59-05:00"):
            view = await search(pilot, f"word {token}")
            assert pilot.app.is_running
            assert token in note(view) and "out of range" in note(view)
            assert where(view) == []
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen))
        await pilot.press("F")  # filter the tree by the last search (the bad one)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert pilot.app.is_running
        messages = [notice.message for notice in pilot.app._notifications]
        assert any("out of range" in message for message in messages), messages


def test_the_search_option_at_start_is_one_line_and_exit_2(tmp_path: Path, store: Path) -> None:
    result = cli(str(store), "--search", "since:999999d", "--index-dir", str(tmp_path / "index"), cwd=tmp_path)
    assert_one_line(result, "--search", "out of range")


@pytest.mark.parametrize("day", ["999999d", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "10000-01-01"])
def test_usage_since_is_a_result_or_one_line(tmp_path: Path, store: Path, day: str) -> None:
    result = cli("usage", str(store), "--since", day, "--index-dir", str(tmp_path / "index"), cwd=tmp_path)
    if result.returncode != 0:
        assert_one_line(result, "--since")
    else:
        assert b"Traceback" not in result.stderr and result.stdout
