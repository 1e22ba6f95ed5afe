"""Exports of damaged stores (copies of the zett-agent-written fixtures, damaged with the stdlib):
every row is written exactly once, the bad one marked, no ESC reaches the file, a parent
cycle ends, the store is unchanged; a restore refuses what it cannot reproduce in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial import damage
from tests.adversarial.damage import DAMAGES
from tests.export.helpers import export_text
from tests.support import CHILD, DELEGATING_PARENT, GRANDCHILD, KITCHEN
from zett_browser.export.restore import RestoreError, restore


def _ids(session: dict[str, Any], found: list[str]) -> None:
    for item in session["messages"]:
        if "session" in item:
            _ids(item["session"], found)
        else:
            found.append(item["id"])


@pytest.mark.parametrize("case", sorted(DAMAGES))
@pytest.mark.parametrize("fmt", ["md", "html", "json"])
async def test_a_damaged_store_exports_every_row_once(tmp_path: Path, case: str, fmt: str) -> None:
    session, harm = DAMAGES[case]
    store = damage.copy_fixture("storage_api", tmp_path)
    harm(store)
    before = damage.sha256(store), sorted(p.name for p in tmp_path.iterdir())
    text, report = await export_text(store, session, format=fmt, subtree=True)
    _sessions, truth = damage.truth(store)
    expected = sum(
        len(truth[s]) for s in ([session] if case != "parent cycle" else [DELEGATING_PARENT, CHILD, GRANDCHILD])
    )
    assert report.messages == expected
    assert "\x1b" not in text
    if fmt == "json":
        found: list[str] = []
        _ids(json.loads(text)["session"], found)
        assert len(found) == len(set(found)) == expected
    assert (damage.sha256(store), sorted(p.name for p in tmp_path.iterdir())) == before


async def test_restore_names_a_row_it_cannot_write_back(tmp_path: Path) -> None:
    store = damage.copy_fixture("storage_api", tmp_path)
    damage.bad_message_value(store, KITCHEN, 2, "message_json", "{not json")
    text, _ = await export_text(store, KITCHEN, format="json")
    with pytest.raises(RestoreError, match=r"#2: its message cannot be decoded"):
        await restore(json.loads(text), str(tmp_path / "restored.sqlite3"))
