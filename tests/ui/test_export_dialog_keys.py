"""Issue 25, the export dialog by keyboard: a focused checkbox keeps its box and label, checked
and unchecked differ by more than colour, and ``enter`` in the path field exports (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import DELEGATING_PARENT
from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.screens.export import ExportDialog
from zett_browser.widgets.tick import Choice, Tick


async def open_dialog(tmp_path: Path, pilot: object, app: object) -> ExportDialog:
    await settle(pilot)  # type: ignore[arg-type]
    await pilot.press("e")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ExportDialog)
    return screen


def shown(widget: Tick | Choice) -> str:
    return str(widget.render()).rstrip()


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
async def test_a_focused_checkbox_keeps_its_box_and_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(store_copy("storage_api", tmp_path)), session=DELEGATING_PARENT, clock=frozen_clock)
    async with app.run_test(size=size) as pilot:
        dialog = await open_dialog(tmp_path, pilot, app)
        subtree = dialog.query_one("#export-subtree", Tick)
        for _ in range(3):  # from the formats, by keyboard
            if app.focused is not subtree:
                await pilot.press("tab")
        assert app.focused is subtree
        await settle(pilot)
        assert subtree.region.height == 1 and subtree.content_region.height == 1, "no border eats the line"
        assert shown(subtree) == "▐✓▌ Delegated sessions too (nested where they were delegated)"
        await pilot.press("space")
        assert not subtree.value and shown(subtree).startswith("▐ ▌ Delegated sessions")
        reasoning = dialog.query_one("#export-reasoning", Tick)
        assert shown(reasoning).startswith("▐✓▌ Reasoning")
        assert shown(dialog.query_one("#export-redact", Tick)).startswith("▐ ▌ Redact")
        formats = {choice.name: shown(choice) for choice in dialog.query(Choice)}
        assert formats["md"].startswith("▐●▌") and formats["html"].startswith("▐ ▌"), formats


async def test_enter_in_the_path_field_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(store_copy("storage_api", tmp_path)), session=DELEGATING_PARENT, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(tmp_path, pilot, app)
        dialog.query_one("#export-path").focus()
        await pilot.press("end", *"-by-enter", "enter")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    assert (tmp_path / f"zett-{DELEGATING_PARENT}.md-by-enter").read_text().startswith("#")
