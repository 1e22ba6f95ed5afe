"""How a session's last request ended (issue 24, "Session state"), on what the real runtime wrote.

The finished stores hold every case resumed to its end; the moments in between (cut off,
interrupted, killed during a tool, cancelled) are the same store with the rows after that
moment removed: what the store held when the process stopped there.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot

from tests.realstore.stores import RealStores
from tests.ui.helpers import SNAP_DIR, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.model.session_state import StateKind, classify
from zett_browser.storage import open_store
from zett_browser.widgets.session_tree import SessionTree
from zett_browser.widgets.status import Breadcrumb

CASE = "0193a5c0-0000-7000-8000-0000000e00{:02d}"


def cut(real_stores: RealStores, tmp_path: Path, case: int, through: int) -> Path:
    """A copy of main.sqlite3 whose session ``case`` ends at ``through`` (later rows removed)."""
    path = tmp_path / f"cut-{case}-{through}.sqlite3"
    shutil.copy(real_stores.main, path)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM raw_messages WHERE session_id = ? AND sequence > ?", (CASE.format(case), through))
    return path


async def states(path: Path, *cases: int) -> dict[int, tuple[StateKind, str]]:
    store = open_store(path)
    try:
        found = await store.last_rows([CASE.format(case) for case in cases])
    finally:
        await store.close()
    return {
        case: (classify(found[CASE.format(case)]).kind, classify(found[CASE.format(case)]).detail) for case in cases
    }


async def test_every_finished_case_and_the_refusal(real_stores: RealStores) -> None:
    found = await states(real_stores.main, *range(1, 16))
    assert found[9] == (StateKind.REFUSED, "cyber; withheld delete_everything")
    # Cut off, interrupted, killed and cancelled were all resumed to an answer.
    assert {case for case, (kind, _) in found.items() if kind is not StateKind.FINISHED} == {9}


@pytest.mark.parametrize(
    ("case", "through", "kind", "detail"),
    [
        (10, 3, StateKind.CUT_OFF, ""),  # max_output, before resume_point()
        (10, 5, StateKind.CUT_OFF, ""),  # the resume checks appended only system rows
        (10, 6, StateKind.WAITING, ""),  # the resume notice, not answered yet
        (11, 4, StateKind.INTERRUPTED, "Connection reset by peer; withheld shout"),
        (12, 4, StateKind.TOOLS_UNANSWERED, "migrate_database, shout"),  # killed during the tool
        (12, 8, StateKind.TOOLS_UNANSWERED, "migrate_database, shout"),  # + two resume checks
        (12, 9, StateKind.TOOLS_UNANSWERED, "shout"),  # one call answered by resume()
        (12, 10, StateKind.RESULTS_UNSEEN, ""),  # both answered, the model not called yet
        (13, 5, StateKind.TOOLS_UNANSWERED, "long_build"),  # shout done, long_build running
        (13, 6, StateKind.CANCELLED, ""),  # the request was cancelled
        (3, 28, StateKind.FINISHED, ""),  # compact() wrote only system rows
    ],
)
async def test_state_at_each_moment(
    real_stores: RealStores, tmp_path: Path, case: int, through: int, kind: StateKind, detail: str
) -> None:
    found = await states(cut(real_stores, tmp_path, case, through), case)
    assert found[case] == (kind, detail)


async def test_children_in_another_store(real_stores: RealStores) -> None:
    """The cancelled and the failed child hold only the prompt: the model never answered."""
    with closing(sqlite3.connect(real_stores.children)) as db:
        ids = [row[0] for row in db.execute("SELECT id FROM agent_sessions")]
    store = open_store(real_stores.children)
    try:
        found = await store.last_rows(ids)
    finally:
        await store.close()
    kinds = sorted(classify(found[session_id]).kind for session_id in ids)
    assert kinds == sorted([StateKind.FINISHED] * 3 + [StateKind.WAITING] * 2)


async def test_tree_badges_and_header(real_stores: RealStores, tmp_path: Path) -> None:
    path = cut(real_stores, tmp_path, 12, 4)
    app = make_app(str(path), session=CASE.format(9), poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        labels = {
            node.data.session_id: str(node.label) for node in tree.root.children if isinstance(node.data, SessionNode)
        }
        assert "⊘ refused" in labels[CASE.format(9)]
        assert "‖ tools unanswered" in labels[CASE.format(12)]
        # Finished sessions stay calm: no badge.
        assert not any(mark in labels[CASE.format(10)] for mark in ("⚠", "‖", "⊘", "↯"))
        crumb = str(app.screen.query_one(Breadcrumb).render())
        assert crumb.startswith("⊘ refused  Refusal with withheld tool calls")
        assert "cyber; withheld delete_everything" in crumb


async def test_untitled_children_store_labels_from_prompts(real_stores: RealStores) -> None:
    """children.sqlite3 opened alone: every child is an orphan, labelled by its prompt, never an id."""
    with closing(sqlite3.connect(real_stores.children)) as db:
        ids = [row[0] for row in db.execute("SELECT id FROM agent_sessions")]
    app = make_app(str(real_stores.children), poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert tree.orphans is not None
        tree.orphans.expand()
        await settle(pilot)
        labels = [str(node.label) for node in tree.orphans.children]
        assert len(labels) == 5, labels
        assert not any(session_id[:8] in label for label in labels for session_id in ids), labels
        assert any(label.startswith("… awaiting reply [slow] Survey every module.") for label in labels)
        before = labels
        # A filter reads the tree again: the labels stay as they were.
        tree.apply_filter(set(ids), set(ids), "all")
        await settle(pilot)
        assert tree.orphans is not None
        after = [str(node.label) for node in tree.orphans.children]
        assert sorted(after) == sorted(before)


def snapshot_store(real_stores: RealStores) -> Path:
    """children.sqlite3 at a fixed path with fixed times, ordered by prompt (its ids are random)."""
    path = SNAP_DIR / "real_children.sqlite3"
    for leftover in SNAP_DIR.glob("real_children.sqlite3*"):
        leftover.unlink()
    shutil.copy(real_stores.children, path)
    with closing(sqlite3.connect(path)) as db, db:
        prompts = db.execute(
            "SELECT s.id, (SELECT content FROM raw_messages r WHERE r.session_id = s.id AND r.role = 2"
            " ORDER BY r.sequence LIMIT 1) FROM agent_sessions s"
        ).fetchall()
        for minute, (session_id, _prompt) in enumerate(sorted(prompts, key=lambda row: str(row[1]))):
            stamp = f"2026-12-03 11:{10 + minute:02d}:00.000000"
            db.execute(
                "UPDATE agent_sessions SET created_at = ?, updated_at = ? WHERE id = ?", (stamp, stamp, session_id)
            )
    return path


async def _expand_orphans(pilot: Pilot[None]) -> None:
    await settle(pilot)
    tree = pilot.app.screen.query_one(SessionTree)
    assert tree.orphans is not None
    tree.orphans.expand()
    await settle(pilot)


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
def test_snapshot_untitled_children_with_states(
    real_stores: RealStores, snap_compare: Any, size: tuple[int, int]
) -> None:
    """children.sqlite3 alone: orphans labelled by their prompts; the two never answered say so."""
    app = make_app(str(snapshot_store(real_stores)), clock=frozen_clock, poll_interval=0)
    assert snap_compare(app, terminal_size=size, run_before=_expand_orphans)


async def test_hostile_stop_words_show_literally(real_stores: RealStores, tmp_path: Path) -> None:
    """The stop's category and message come from a provider: the breadcrumb cleans them."""
    path = tmp_path / "hostile.sqlite3"
    shutil.copy(real_stores.main, path)
    hostile = "\x1b]8;;http://evil\x07link\x1b]8;;\x07 [bold red]x[/] \x1b[2J"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "UPDATE raw_messages SET message_json = json_set(message_json, '$[0].data.stop.category', ?)"
            " WHERE session_id = ? AND sequence = 4",
            (hostile, CASE.format(9)),
        )
    app = make_app(str(path), session=CASE.format(9), poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        crumb = app.screen.query_one(Breadcrumb).render()
        assert isinstance(crumb, Text)
        assert str(crumb).startswith("⊘ refused  ") and "[bold red]x[/]" in str(crumb)
        assert not any(mark in str(crumb) for mark in ("\x1b", "\x07"))
        assert not any(span.style and "link" in str(span.style) for span in crumb.spans)
