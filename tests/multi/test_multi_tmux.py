"""``zett-browser main.sqlite3 children.sqlite3`` in a real terminal (tmux) at 160×45 and 80×24:
the stores as groups, the async session's children (written to the other store by zett-agent's
default profiles) under their parent and named by their store, ``s`` merging the stores."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.multi.helpers import copies, fingerprint
from tests.realstore.stores import RealStores

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Pane:
    """One tmux server of its own, running the app."""

    def __init__(self, command: str, width: int, height: int, env: dict[str, str]) -> None:
        self.tmux = ["tmux", "-L", f"zett-multi-{uuid.uuid4().hex[:12]}"]
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command],
            check=True,
            env=env,
        )

    def screen(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True).stdout

    def wait_for(self, *texts: str, seconds: float = 20.0) -> str:
        deadline = time.monotonic() + seconds
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{texts} not on screen:\n{screen}")

    def keys(self, *keys: str) -> None:
        for key in keys:
            subprocess.run([*self.tmux, "send-keys", "-t", "t", key], check=True)
            time.sleep(0.15)

    def quit(self) -> None:
        self.keys("q")
        for _ in range(300):  # the index syncs of both stores stop first (a busy machine: seconds)
            time.sleep(0.1)
            if subprocess.run([*self.tmux, "has-session", "-t", "t"], capture_output=True).returncode:
                break
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
def test_two_stores_in_a_real_terminal(real_stores: RealStores, tmp_path: Path, size: tuple[int, int]) -> None:
    main, children = copies(real_stores, tmp_path / "stores")
    before = fingerprint(main.parent)
    # The terminal's size is tmux's: a COLUMNS/LINES a test runner set would override it.
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env["ZETT_BROWSER_INDEX_DIR"] = str(tmp_path / "index")
    command = f"{sys.executable} -m zett_browser {main} {children}"
    pane = Pane(command, *size, env)
    try:
        pane.wait_for("⛁ main.sqlite3", "⛁ children.sqlite3", "no root sessions", "RAW LOG")
        # The tree has the keys: up from the last line to the async session (it counts the five
        # children the other store holds, so it opens), then → opens it.
        pane.keys("End", "Up", "Up", "Right")
        screen = pane.wait_for("[medium] Compar", "reasoning: Trac")
        if size[0] > 100:  # wide enough for the store's name on each child
            for _ in range(5):  # wider (keys pressed while the tree relays out may be dropped)
                pane.keys(*["]"] * 12)
                if pane.screen().count("@children") == 5:
                    break
            screen = pane.wait_for("@children")
            assert screen.count("@children") == 5, screen
        # w: one list by activity, each root naming its store; w again: the groups.
        pane.keys("w")
        deadline = time.monotonic() + 20
        while "⛁" in (screen := pane.screen()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "⛁" not in screen, screen
        if size[0] > 100:
            pane.wait_for("@main.sqlite3")
        pane.keys("w")
        pane.wait_for("⛁ main.sqlite3")
        # Quit once the side indexes are built (quitting during a build is its own case).
        deadline = time.monotonic() + 90
        while "indexing" in pane.screen() and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        pane.quit()
    assert fingerprint(main.parent) == before, "both stores' bytes unchanged, and nothing left beside them"
