"""``Y`` ``v`` ``E``: the current message to the clipboard, ``$PAGER`` and ``$EDITOR`` (issue 14).

Two levels. Through Pilot: what is copied (the one renderer's whole text), the size limit,
and the notices (a missing program; no terminal to suspend to). In a real terminal (the
``zett-browser`` console script in a private tmux server): the bytes the app writes hold
the OSC 52 sequence with the base64 of the cleaned text and none of the store's own escapes,
and the pager and editor really run, get the whole text, and leave no file behind.
"""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.adversarial.hostile import HOSTILE_CHILD, INJECTED, hostile_store
from tests.adversarial.large import MAIN, TOOL_RESULT, copy_agent_run, huge_text, set_json_content
from tests.support import listing
from tests.ui.detail_helpers import open_detail
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import ZettBrowserApp, make_app
from zett_browser.screens.outside import COPY_LIMIT, command_for
from zett_browser.storage import open_store
from zett_browser.views.formatting import full_text
from zett_browser.widgets.rawlog import RawLogView


def notices(app: ZettBrowserApp) -> list[str]:
    return [note.message for note in app._notifications]


async def test_y_copies_the_whole_text_of_the_current_message(tmp_path: Path) -> None:
    app = make_app(str(hostile_store(tmp_path)), session=HOSTILE_CHILD, seq=4, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 4
        await pilot.press("Y")
        await settle(pilot)
        assert app.clipboard == full_text(view.current)
        assert "\x1b" not in app.clipboard and "␛]52;c;UFdORUQ=␇" in app.clipboard  # cleaned, literal
        assert any(note.startswith("Copied message #4") for note in notices(app))


async def test_y_in_the_detail_view_copies_every_part(tmp_path: Path) -> None:
    path = copy_agent_run(tmp_path)
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (MAIN, TOOL_RESULT), "x\n" * 40_000)
    app = make_app(str(path), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await open_detail(pilot)
        await pilot.press("G", "Y")  # on the last part: still the whole text
        await settle(pilot)
        assert app.clipboard == detail.body and detail.body.count("x\n") == 40_000


async def test_a_message_past_the_limit_is_not_copied_cut(tmp_path: Path) -> None:
    path = copy_agent_run(tmp_path)
    text = huge_text(COPY_LIMIT + 1000, "END")
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (MAIN, TOOL_RESULT), text)
    app = make_app(str(path), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("Y")
        await settle(pilot)
        assert app.clipboard == ""
        assert any("too big to copy" in note and "100.0 KB" in note for note in notices(app))


async def test_a_missing_pager_or_editor_is_a_clear_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER", "/nonexistent/pager -x")
    monkeypatch.setenv("EDITOR", "no-such-editor-here")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    app = make_app(str(copy_agent_run(tmp_path)), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v", "E")
        await settle(pilot)
        assert "Cannot open the pager: $PAGER (/nonexistent/pager) was not found" in notices(app)
        assert "Cannot open the editor: $EDITOR (no-such-editor-here) was not found" in notices(app)
    assert list((tmp_path / "tmp").iterdir()) == []


async def test_without_a_terminal_to_suspend_to_the_pager_is_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pilot's headless driver cannot suspend, like the web page of ``serve``."""
    monkeypatch.setenv("PAGER", "cat")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    app = make_app(str(copy_agent_run(tmp_path)), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await open_detail(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert app.screen is detail
        assert "The pager needs a terminal: not available in this web page" in notices(app)
    assert list((tmp_path / "tmp").iterdir()) == [], "the temporary file is removed"


def test_command_for_splits_the_variable_and_falls_back_to_defaults() -> None:
    assert command_for("pager", {"PAGER": "less -S"}) == ["less", "-S"]
    assert command_for("editor", {"EDITOR": "code --wait"}) == ["code", "--wait"]
    default = command_for("pager", {})
    assert default is not None and default[0] in ("less", "more")


# ---------------------------------------------------------------- the real console script in tmux


@pytest.fixture
def tmux() -> Iterator[Callable[..., str]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"zb-outside-{uuid.uuid4().hex[:8]}"
    base = ["tmux", "-L", name, "-f", "/dev/null"]  # a private server, no user config

    def run(*args: str) -> str:
        result = subprocess.run([*base, *args], capture_output=True, timeout=10, check=False)
        return result.stdout.decode("utf-8", "replace")

    yield run
    run("kill-server")


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def recorder(path: Path, out: Path) -> Path:
    """A pager/editor that records the file it was given: its text, path and mode."""
    path.write_text(f'#!/bin/sh\ncp "$1" "{out}.txt"\nstat -c %a "$1" > "{out}.mode"\necho "$1" > "{out}.path"\n')
    path.chmod(0o755)
    return path


def expected_text(store: Path) -> str:
    async def read() -> str:
        storage = open_store(str(store))
        try:
            (record,) = await storage.raw_page(HOSTILE_CHILD, after_sequence=3, limit=1)
            return full_text(record)
        finally:
            await storage.close()

    return asyncio.run(read())


def test_in_a_real_terminal_copy_pager_and_editor_work_and_leave_nothing(
    tmp_path: Path, tmux: Callable[..., str]
) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    store = hostile_store(store_dir)
    before = (listing(store_dir), store.read_bytes())
    (tmp_path / "session-id").write_text(HOSTILE_CHILD, encoding="utf-8")
    pager, editor = recorder(tmp_path / "pager.sh", tmp_path / "pager"), recorder(tmp_path / "ed.sh", tmp_path / "ed")
    script = Path(sys.executable).parent / "zett-browser"
    launcher, go, capture = tmp_path / "run.sh", tmp_path / "go", tmp_path / "bytes.out"
    launcher.write_text(
        f'while [ ! -e "{go}" ]; do sleep 0.05; done\nunset COLUMNS LINES\n'
        f'PAGER="{pager}" EDITOR="{editor}" "{script}" "{store}" --no-index --seq 4 '
        f'--session "$(cat "{tmp_path / "session-id"}")"\nsleep 30\n'
    )
    tmux("new-session", "-d", "-s", "app", "-x", "160", "-y", "45", f"sh {launcher}")
    tmux("pipe-pane", "-o", "-t", "app", f"cat >> {capture}")
    go.touch()

    def screen() -> str:
        return tmux("capture-pane", "-p", "-t", "app")

    try:
        assert wait_for(lambda: "RAW LOG" in screen(), 30), screen()
        time.sleep(1.0)
        tmux("send-keys", "-t", "app", "Y")
        assert wait_for(lambda: "Copied message #4" in screen(), 10), screen()
        tmux("send-keys", "-t", "app", "v")
        assert wait_for(lambda: (tmp_path / "pager.path").exists(), 10), screen()
        assert wait_for(lambda: "RAW LOG" in screen(), 10), "the app is restored after the pager"
        tmux("send-keys", "-t", "app", "E")
        assert wait_for(lambda: (tmp_path / "ed.path").exists(), 10), screen()
        assert wait_for(lambda: "RAW LOG" in screen(), 10), "the app is restored after the editor"
        tmux("send-keys", "-t", "app", "q")
        wait_for(lambda: "RAW LOG" not in screen(), 10)
    finally:
        tmux("pipe-pane", "-t", "app")

    text = expected_text(store)
    written = capture.read_bytes().decode("utf-8", "replace")
    osc52 = "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\x07"
    assert osc52 in written, "the app's own clipboard sequence reaches the terminal whole"
    assert written.count("\x1b]52;") == 1, "and it is the only one"
    for sequence in INJECTED:
        assert sequence not in written, repr(sequence)
    for who, mode in (("pager", "600"), ("ed", "400")):
        assert (tmp_path / f"{who}.txt").read_text(encoding="utf-8") == text + "\n", who
        assert (tmp_path / f"{who}.mode").read_text().strip() == mode, who
        given = Path((tmp_path / f"{who}.path").read_text().strip())
        assert given.parent == Path(tempfile.gettempdir()) and not given.exists(), "temporary, removed"
    assert (listing(store_dir), store.read_bytes()) == before, "the store and its directory are unchanged"
