"""``zett-browser A B …`` on bad input: one clear line, exit status 2, nothing created, whichever
of the stores is wrong; ``--session`` takes an id or prefix from any of them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import FIXTURES, bad_store, listing, run_cli


def fixture_copy(tmp_path: Path, name: str, as_name: str) -> str:
    target = tmp_path / as_name
    shutil.copy(FIXTURES / f"{name}.sqlite3", target)
    return str(target)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing", "does not exist"),
        ("not sqlite", "is not a SQLite database"),
        ("no tables", "is not a zett-agent store"),
    ],
)
@pytest.mark.parametrize("second", [False, True])
def test_a_bad_store_among_several(tmp_path: Path, case: str, message: str, second: bool) -> None:
    good = fixture_copy(tmp_path, "storage_api", "good.sqlite3")
    bad = bad_store(tmp_path, case)
    before = listing(tmp_path)
    result = run_cli(*((good, bad) if second else (bad, good)), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("zett-browser: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert listing(tmp_path) == before


def test_the_same_store_twice(tmp_path: Path) -> None:
    store = fixture_copy(tmp_path, "storage_api", "s.sqlite3")
    before = listing(tmp_path)
    result = run_cli(store, str(Path(store).parent / "." / "s.sqlite3"), cwd=tmp_path)
    assert result.returncode == 2
    assert "is given twice" in result.stderr and result.stderr.count("\n") == 1
    assert listing(tmp_path) == before


def test_a_session_no_store_holds(tmp_path: Path) -> None:
    first = fixture_copy(tmp_path, "storage_api", "a.sqlite3")
    second = fixture_copy(tmp_path, "agent_run", "b.sqlite3")
    before = listing(tmp_path)
    result = run_cli(first, second, "--session", "zzzz-no-such", cwd=tmp_path)
    assert result.returncode == 2
    assert "no session 'zzzz-no-such' in any of the 2 stores" in result.stderr, result.stderr
    assert listing(tmp_path) == before
    result = run_cli(first, second, "--session", "00000000-0000-4000-8000-000000000000", cwd=tmp_path)
    assert result.returncode == 2 and "in any of the 2 stores" in result.stderr


async def test_a_prefix_names_a_session_of_either_store(tmp_path: Path) -> None:
    from zett_browser.cli.browse_many import resolve_many
    from zett_browser.cli.sessions import SessionChoiceError
    from zett_browser.storage import open_store

    stores = [
        open_store(fixture_copy(tmp_path, "storage_api", "a.sqlite3")),
        open_store(fixture_copy(tmp_path, "agent_run", "b.sqlite3")),
    ]
    # Only the second store holds it.
    assert await resolve_many(stores, "01a2380a-84") == "01a2380a-8411-7587-9925-7a4bf47e62e0"
    # A prefix several sessions start with is named ambiguous, with the candidates.
    with pytest.raises(SessionChoiceError, match="ambiguous"):
        await resolve_many(stores, "0193a5c0")
    # One id prefix in each store: ambiguous across them, both named.
    with pytest.raises(SessionChoiceError, match="ambiguous across the stores: .*8583.*8411"):
        await resolve_many(stores, "01a2380a")
