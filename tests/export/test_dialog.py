"""The export dialog (``e``) through Pilot: it writes the file in a worker and says where;
an existing file is kept and the failure shown in the dialog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, RadioButton, Static

from tests.export.helpers import copy_fixture
from tests.support import DELEGATING_PARENT
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.export import ExportDialog, default_path


async def _open_dialog(pilot, app) -> ExportDialog:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("e")
    await settle(pilot)
    assert isinstance(app.screen, ExportDialog)
    return app.screen


async def test_the_dialog_writes_a_subtree_json_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = copy_fixture("storage_api", tmp_path)
    app = make_app(str(store), session=DELEGATING_PARENT, clock=frozen_clock, poll_interval=0)
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await _open_dialog(pilot, app)
        # A name in the current directory.
        assert dialog.query_one("#export-path", Input).value == f"zett-{DELEGATING_PARENT}.md"
        json_button = [b for b in dialog.query(RadioButton) if b.name == "json"][0]
        json_button.value = True
        await settle(pilot)
        assert dialog.query_one("#export-path", Input).value.endswith(".json")
        assert dialog.query_one("#export-reasoning", Checkbox).disabled
        # Checked from the start, as the key table says ("the open session (and its delegated sessions)").
        assert dialog.query_one("#export-subtree", Checkbox).value is True
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        dialog.notify = app.notify  # type: ignore[method-assign]
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    written = tmp_path / f"zett-{DELEGATING_PARENT}.json"
    document = json.loads(written.read_text())
    assert [item["session"]["row"]["id"] for item in document["session"]["messages"] if "session" in item]
    assert notes and f"exported 7 messages in 3 sessions to {written} (" in notes[-1]


async def test_an_existing_file_is_kept_and_the_error_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = copy_fixture("storage_api", tmp_path)
    taken = tmp_path / "taken.md"
    taken.write_text("mine")
    app = make_app(str(store), session=DELEGATING_PARENT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await _open_dialog(pilot, app)
        dialog.query_one("#export-path", Input).value = str(taken)
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)
        status = str(dialog.query_one("#export-status", Static).render())
        assert "exists" in status
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    assert taken.read_text() == "mine"


def test_the_default_name_is_safe_and_free(tmp_path: Path) -> None:
    assert default_path("../../etc/passwd\x1b]0;x", "md", tmp_path) == tmp_path / "zett-etcpasswd0x.md"
    (tmp_path / "zett-abc.md").write_text("")
    assert default_path("abc", "md", tmp_path) == tmp_path / "zett-abc-2.md"
