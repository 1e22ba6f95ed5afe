"""``zett-browser notes``, ``export --notes`` and the ``pinned:``/``label:``/``note:`` qualifiers, in
subprocesses, on a copy of a fixture store and a real notes file.

Notes are written the way the app writes them (the notes service, keyed by the store's
identity); they survive ``index --rebuild`` and a store opened by another path; the store's
bytes and its directory's listing never change; hostile text stays literal in every output.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.export.helpers import copy_fixture
from tests.support import CHILD, DELEGATING_PARENT, KITCHEN
from zett_browser.notes.identity import of_argument
from zett_browser.notes.service import NotesBook

HOSTILE = "\x1b]8;;http://x\x07click\x1b]8;;\x07 [bold red]x[/] \x1b[2J <script>alert(1)</script> *stars*"


def run(*args: str, notes: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZETT_BROWSER_NOTES": str(notes)}
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", *args], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def fingerprint(store: Path) -> tuple[str, list[str]]:
    return hashlib.sha256(store.read_bytes()).hexdigest(), sorted(p.name for p in store.parent.iterdir())


def store_in(name: str, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return copy_fixture(name, directory)


def write_notes(store: Path, notes: Path) -> None:
    """Pin the parent session, label its child, note and pin one message (as the app does)."""

    async def identity() -> tuple[str, Path | None]:
        return of_argument(str(store))

    async def write() -> None:
        book = NotesBook(notes, identity)
        await book.toggle_pin(DELEGATING_PARENT, None)
        await book.set_labels(CHILD, None, ["good", "needs work"])
        await book.set_note(KITCHEN, 2, HOSTILE)
        await book.toggle_pin(KITCHEN, 2)

    asyncio.run(write())


@pytest.fixture
def marked(tmp_path: Path) -> tuple[Path, Path]:
    store = store_in("storage_api", tmp_path / "store")
    notes = tmp_path / "data" / "notes.sqlite3"
    write_notes(store, notes)
    return store, notes


def test_notes_lists_them_and_json_keeps_the_note_whole(marked: tuple[Path, Path]) -> None:
    store, notes = marked
    before = fingerprint(store)
    result = run("notes", str(store), notes=notes)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"{DELEGATING_PARENT}  session  ★" in lines
    assert f"{CHILD}  session  [good, needs work]" in lines
    kitchen = next(line for line in lines if line.startswith(KITCHEN))
    assert kitchen.startswith(f"{KITCHEN}  #2  ★  ") and "[bold red]x[/]" in kitchen
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    result = run("notes", str(store), "--json", notes=notes)
    found = {(item["session_id"], item["seq"]): item for item in json.loads(result.stdout)}
    assert found[(KITCHEN, 2)]["note"] == HOSTILE and found[(KITCHEN, 2)]["pinned"] is True
    assert "\x1b" not in result.stdout  # escaped in the JSON text
    # Another store has none; the store file itself was never touched.
    other = store_in("agent_run", store.parent.parent / "other")
    assert run("notes", str(other), "--json", notes=notes).stdout.strip() == "[]"
    assert fingerprint(store) == before


def test_the_same_store_by_another_path_has_the_same_notes(marked: tuple[Path, Path], tmp_path: Path) -> None:
    store, notes = marked
    link = tmp_path / "elsewhere.sqlite3"
    link.symlink_to(store)
    result = run("notes", str(link), "--json", notes=notes)
    assert len(json.loads(result.stdout)) == 3


def test_a_notes_file_beside_the_store_is_refused(tmp_path: Path) -> None:
    store = store_in("storage_api", tmp_path / "store")
    before = fingerprint(store)
    result = run("notes", str(store), notes=store.parent / "notes.sqlite3")
    assert result.returncode == 2 and "store's own directory" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert fingerprint(store) == before


def test_rebuilding_the_index_keeps_the_notes_and_the_qualifiers_find_them(
    marked: tuple[Path, Path], tmp_path: Path
) -> None:
    store, notes = marked
    before = fingerprint(store)
    index = tmp_path / "index"
    assert run("index", str(store), "--index-dir", str(index), notes=notes).returncode == 0
    assert run("index", str(store), "--rebuild", "--index-dir", str(index), notes=notes).returncode == 0
    assert len(json.loads(run("notes", str(store), "--json", notes=notes).stdout)) == 3

    def hits(query: str) -> set[tuple[str, int]]:
        result = run("search", str(store), query, "--json", "--limit", "500", "--index-dir", str(index), notes=notes)
        assert result.returncode in (0, 1), result.stderr
        return {(hit["session_id"], hit["sequence"]) for hit in map(json.loads, result.stdout.splitlines())}

    pinned = hits("pinned:true")
    assert {session for session, _ in pinned} == {DELEGATING_PARENT, KITCHEN}
    assert {seq for session, seq in pinned if session == KITCHEN} == {2}  # the message, not its session
    assert {session for session, _ in hits("label:good")} == {CHILD}
    assert {session for session, _ in hits("label:need*")} == {CHILD}
    assert hits('note:"bold red"') == {(KITCHEN, 2)}
    assert hits("label:nothing") == set()
    unpinned = hits("-pinned:true kind:session")
    assert (DELEGATING_PARENT, 0) not in unpinned and unpinned  # the others' session documents
    assert hits("pinned:false kind:session") == unpinned
    assert fingerprint(store) == before


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_export_carries_a_review_and_the_notes_beside_their_messages(marked: tuple[Path, Path], fmt: str) -> None:
    store, notes = marked
    before = fingerprint(store)
    plain = run("export", str(store), "--session", KITCHEN, "--format", fmt, notes=notes)
    result = run("export", str(store), "--session", KITCHEN, "--format", fmt, "--notes", notes=notes)
    assert plain.returncode == 0 and result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out
    assert "click" in out and "click" not in plain.stdout
    if fmt == "md":
        assert "**Review**" in out and "\\[bold red\\]x\\[/\\]" in out and "\\*stars\\*" in out
        assert "> ★ pinned" in out
        # Beside its message: after message #2's heading, before #3's.
        assert out.index("### \\#2") < out.index("> ★ pinned") < out.index("### \\#3")
    elif fmt == "html":
        assert '<section class="review">' in out and '<aside class="review"><div>★ pinned</div>' in out
        assert "<script>" not in out and "&lt;script&gt;" in out
    else:
        review = json.loads(out)["review"]
        assert review[0]["seq"] == 2 and review[0]["note"] == HOSTILE and review[0]["pinned"]
        assert "review" not in json.loads(plain.stdout)
    assert fingerprint(store) == before


def test_a_subtree_export_reviews_every_session_in_it(marked: tuple[Path, Path]) -> None:
    store, notes = marked
    result = run("export", str(store), "--session", DELEGATING_PARENT, "--subtree", "--notes", notes=notes)
    assert result.returncode == 0, result.stderr
    review = result.stdout[result.stdout.index("**Review**") :]
    assert f"session {DELEGATING_PARENT}" in review.splitlines()[2]
    assert "labels: good, needs work" in review


def test_the_search_knows_the_notes_qualifiers_without_loading_the_notes_records() -> None:
    """``index.notes_filter`` keeps its own copy of the qualifier names (so a search without
    them loads no notes module): the copy must be the notes module's list."""
    from zett_browser.index import notes_filter
    from zett_browser.notes import match

    assert notes_filter.NOTE_QUALIFIERS == match.NOTE_QUALIFIERS
