"""Untrusted text never reaches the terminal as escapes, markup or links (issue 10).

A copy of the zett-agent-written ``agent_run`` store is damaged with the stdlib ``sqlite3``
module: the delegated session's id, the parent's title and agent name, message content
and a tool name carry OSC 0 (window title), OSC 52 (clipboard), OSC 8 (link), a clear
screen, an 8-bit CSI, Textual markup and bidi overrides. The real ``zett-browser``
console script runs in tmux; the raw bytes it writes are captured with ``pipe-pane``.
A Pilot test checks every rendered line of the same store for raw control characters.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.adversarial.hostile import HOSTILE_CHILD, INJECTED, hostile_store
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView

# ---------------------------------------------------------------- every rendered line (Pilot)


async def test_no_raw_control_character_reaches_a_render(tmp_path: Path) -> None:
    app = make_app(str(hostile_store(tmp_path)), session=HOSTILE_CHILD, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert [record.sequence for record in view.records] == [1, 2, 3, 4, 5]
        view.focus()
        await pilot.press("down", "down", "down", "enter")  # the tool result, whole
        await settle(pilot)
        assert type(app.screen).__name__ == "MessageDetail"
        screenshot = app.export_screenshot()
        shown = app.screen.query_one("#detail-body").text  # type: ignore[attr-defined]
        assert "␛]52;c;UFdORUQ=␇" in shown and "\\u009b31m" in shown and "\ufffd" in shown
        await pilot.press("escape")
        await settle(pilot)
        lines = [strip.text for strip in view.rendered_lines()]
        screenshot += app.export_screenshot()
        width = view.scrollable_content_region.width
        assert all(strip.cell_length <= width for strip in view.rendered_lines()), "no row overflows"
    text = "\n".join(lines)
    assert "␛[2J" in text and "[@click=app.quit]quit[/]" in text and "\\u2066iso\\u2069" in text
    for line in lines:
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000 for c in line), line
    for char in ("\x1b", "\x9b", "\x07", "\u202e", "\u2066", "\ufeff"):
        assert char not in screenshot


def test_a_lone_surrogate_keeps_its_row_width() -> None:
    from zett_browser.widgets.safe import plain

    text = plain("ab\ud800cd")
    assert text.plain == "ab\ufffdcd" and cell_len(text.plain) == 5


# ---------------------------------------------------------------- the real console script in tmux


@pytest.fixture
def tmux() -> Iterator[Callable[..., str]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"zb-untrusted-{uuid.uuid4().hex[:8]}"
    # A private server (its own socket, no user config): nothing shared with other tmux use.
    base = ["tmux", "-L", name, "-f", "/dev/null"]

    def run(*args: str) -> str:
        result = subprocess.run([*base, *args], capture_output=True, timeout=10, check=False)
        return result.stdout.decode("utf-8", "replace")

    yield lambda *args: run(*(arg.replace("NAME", name) for arg in args))
    run("kill-server")


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_the_real_app_in_tmux_writes_no_injected_sequence(tmp_path: Path, tmux: Callable[..., str]) -> None:
    store = hostile_store(tmp_path)
    (tmp_path / "session-id").write_text(HOSTILE_CHILD, encoding="utf-8")
    script = Path(sys.executable).parent / "zett-browser"
    launcher = tmp_path / "run.sh"
    go = tmp_path / "go"
    # The app starts once the pane has its size and its output is piped to the capture file.
    launcher.write_text(
        f'while [ ! -e "{go}" ]; do sleep 0.05; done\n'
        "unset COLUMNS LINES\n"  # pytest's plugins set 80x24; the app must see the pane's size
        f'"{script}" "{store}" --session "$(cat "{tmp_path / "session-id"}")"\nsleep 30\n'
    )
    capture = tmp_path / "bytes.out"
    tmux("new-session", "-d", "-s", "NAME", "-x", "160", "-y", "45", f"sh {launcher}")
    tmux("set-option", "-t", "NAME", "window-size", "manual")
    tmux("resize-window", "-t", "NAME", "-x", "160", "-y", "45")
    tmux("pipe-pane", "-o", "-t", "NAME", f"cat >> {capture}")
    title_before = tmux("display", "-p", "-t", "NAME", "#{pane_title}")
    go.touch()
    try:
        assert wait_for(lambda: "RAW LOG" in tmux("capture-pane", "-p", "-t", "NAME"), 30), tmux(
            "capture-pane", "-p", "-t", "NAME"
        )
        time.sleep(1.0)  # the page and the inspector painted
        screen = tmux("capture-pane", "-p", "-t", "NAME")
        title = tmux("display", "-p", "-t", "NAME", "#{pane_title}")
        tmux("send-keys", "-t", "NAME", "q")
        wait_for(lambda: "RAW LOG" not in tmux("capture-pane", "-p", "-t", "NAME"), 10)
    finally:
        tmux("pipe-pane", "-t", "NAME")
    written = capture.read_bytes().decode("utf-8", "replace")
    assert "PWN" not in title and title == title_before
    assert written, "pipe-pane captured what the app wrote"
    for sequence in INJECTED:
        assert sequence not in written, repr(sequence)
    assert "␛]0;PWN␇" in screen  # the child's id, in the breadcrumb
    assert "␛]0;PWNED␇" in screen  # the parent's title, in the tree and breadcrumb
    assert "␛[2J" in screen and "[@click=app.quit]quit[/]" in screen  # content as text
