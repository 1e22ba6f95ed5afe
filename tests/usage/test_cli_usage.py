"""``zett-browser usage``: tables and JSON by day, session, agent and model, --since, --session, errors."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support import CHECKPOINTED, DELEGATING_PARENT, listing
from tests.usage import oracle
from tests.usage.stores import priced_store, session_ids
from zett_browser.cli.usage import main_usage, money
from zett_browser.index.pricing import prices_date


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return priced_store(tmp_path / "store")


def usage(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str, str]:
    status = main_usage([*args, "--index-dir", str(tmp_path / "index")])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _everything(store: Path) -> oracle.Expected:
    total = oracle.Expected()
    for session_id in session_ids(store):
        total.add(oracle.own(store, session_id))
    return total


def test_json_by_day_adds_up_to_the_independent_totals(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = usage(capsys, tmp_path, str(store), "--json")
    assert status == 0, err
    document = json.loads(out)
    want = _everything(store)
    total = document["total"]
    assert document["by"] == "day" and document["prices_date"] == prices_date()
    assert (total["messages"], total["steps"], total["problems"]) == (want.messages, want.steps, want.problems)
    assert list(total["tokens"].values()) == want.tokens
    assert total["unpriced_steps"] == want.unpriced_steps
    assert abs(Decimal(total["cost_usd"]) - want.cost) <= Decimal("1e-12") * want.priced_steps
    days = [row["key"] for row in document["rows"]]
    assert days == sorted(days) and "" in days  # the row whose start time is unreadable has no day
    assert sum(row["messages"] for row in document["rows"]) == want.messages


@pytest.mark.parametrize("by", ["day", "session", "agent", "model"])
def test_every_grouping_prints_an_aligned_table_with_a_total(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], by: str
) -> None:
    status, out, err = usage(capsys, tmp_path, str(store), "--by", by)
    assert status == 0, err
    lines = out.splitlines()
    header, *rows, total, footer = lines
    assert header.startswith(by) and header.rstrip().endswith("cost")
    assert total.startswith("total") and f"{_everything(store).messages:,}" in total
    assert len({len(line) for line in [header, *rows, total]}) == 1  # aligned columns
    assert footer.startswith(f"prices: genai-prices data of {prices_date()}")
    assert "unknown" in out and "$" in out
    if by == "model":
        assert any(row.startswith("openai/gpt-4o ") for row in rows)
        assert any(row.startswith("scripted/not-a-real-model") and row.rstrip().endswith("unknown") for row in rows)
    if by == "agent":
        assert any(row.startswith("deeper ") for row in rows)
    assert "indexing" in err  # the sync's progress goes to stderr


def test_since_keeps_only_later_days(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = usage(capsys, tmp_path, str(store), "--since", "2026-01-01", "--json")
    assert status == 0
    document = json.loads(out)
    assert document["since"] == "2026-01-01"
    assert [row["key"] for row in document["rows"]] == ["2026-12-02"]
    db = sqlite3.connect(store)
    later = db.execute(
        "SELECT count(*) FROM raw_messages WHERE substr(started_at, 1, 2) = '20' AND started_at >= '2026-01-01'"
    ).fetchone()[0]
    db.close()
    assert document["total"]["messages"] == later
    status, out, _ = usage(capsys, tmp_path, str(store), "--since", "2030-01-01")
    assert status == 0 and out.startswith("no usage recorded since 2030-01-01")


def test_one_session_reports_own_and_subtree(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = usage(capsys, tmp_path, str(store), "--session", DELEGATING_PARENT, "--json")
    assert status == 0, err
    document = json.loads(out)
    own, tree = oracle.own(store, DELEGATING_PARENT), oracle.subtree(store, DELEGATING_PARENT)
    assert document["own"]["messages"] == own.messages and document["subtree"]["messages"] == tree.messages
    assert document["subtree"]["children"] == tree.children == 4
    assert abs(Decimal(document["subtree"]["cost_usd"]) - tree.cost) <= Decimal("1e-11")
    assert document["own"]["cost_usd"] is None  # its own step's model is not in the table
    assert {m["model"] for m in document["models"]} >= {"gpt-4o", "claude-sonnet-4-5"}
    status, out, _ = usage(capsys, tmp_path, str(store), "--session", CHECKPOINTED)
    assert status == 0
    assert out.splitlines()[0] == f"session {CHECKPOINTED}"
    assert any(line.startswith("own ") for line in out.splitlines())
    assert "subtree by model" in out and "openai/gpt-4o" in out and "3 compactions" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "last tuesday"], "--since wants a day"),
        (["--session", "no-such-session"], "no session 'no-such-session'"),
        (["--session", CHECKPOINTED, "--since", "2025-01-01"], "--since does not apply to --session"),
        (["--by", "week"], "invalid choice"),
    ],
)
def test_errors_are_one_line_and_exit_2(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    try:
        status, out, err = usage(capsys, tmp_path, str(store), *args)
    except SystemExit as stopped:  # a usage error from the parser
        status, captured = int(stopped.code or 0), capsys.readouterr()
        out, err = captured.out, captured.err
    assert status == 2 and out == ""
    *progress, last = err.split("\n")[:-1]  # one line after the sync's progress line, if it ran
    assert all(line.startswith("\rindexing") for line in progress) and err.endswith("\n")
    assert message in last and last.startswith("zett-browser")


def test_the_real_command_reads_without_touching_the_store(store: Path, tmp_path: Path) -> None:
    files = listing(store.parent)
    env = dict(os.environ, ZETT_BROWSER_INDEX_DIR=str(tmp_path / "index"))
    done = subprocess.run(
        [sys.executable, "-m", "zett_browser", "usage", str(store), "--by", "model"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "openai/gpt-4o" in done.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "zett_browser", "usage", str(tmp_path / "missing.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and missing.stdout == ""
    assert listing(store.parent) == files


def test_money_says_unknown_where_nothing_could_be_priced() -> None:
    assert money(None, 3) == "unknown"
    assert money(None, 0) == "-"
    assert money(Decimal("1.5"), 0) == "$1.5000"
    assert money(Decimal("0.0021375"), 2) == "$0.002138 + unknown"


def test_while_another_process_syncs_the_report_says_it_may_be_incomplete(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from zett_browser.index import SideIndex
    from zett_browser.index.db import SyncLock
    from zett_browser.storage import SQLSessionStorage

    index = SideIndex(SQLSessionStorage.open_for_browsing(store), tmp_path / "index")
    (tmp_path / "index").mkdir()
    lock = SyncLock(index.path)
    assert lock.acquire()
    try:
        status, out, err = usage(capsys, tmp_path, str(store))
    finally:
        lock.release()
    assert status == 0 and out.startswith("no usage recorded")
    assert "another process is updating the index; figures may be incomplete" in err
    status, out, err = usage(capsys, tmp_path, str(store))
    assert status == 0 and out.startswith("day") and "incomplete" not in err
