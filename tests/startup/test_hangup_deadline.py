"""A hang-up ends the process even when the app's own shutdown never returns (review case).

The terminal-vanished test once found the app alive 60 s after its tmux server was killed:
the hang-up had asked the app to exit, but its shutdown waited on the vanished terminal and
never reached the early end that follows it. A hang-up now also starts a deadline: if the
process still runs ``HANGUP_GRACE_S`` later, it ends then (running the command's hang-up
clean-ups), with the hang-up's exit status.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    sys.path.insert(0, {repo!r})
    from zett_browser.startup import lifecycle

    lifecycle.HANGUP_GRACE_S = 0.5

    class Stuck:  # an app whose exit never finishes
        def exit(self):
            print("asked to exit", flush=True)

    async def main():
        lifecycle.install_exit_signals(Stuck())
        lifecycle.on_hangup_exit(lambda: print("cleaned up", flush=True))
        os.kill(os.getpid(), signal.{name})
        await asyncio.sleep(5)
        print("still running", flush=True)

    asyncio.run(main())
    """
)


def _run(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(repo=str(REPO), name=name)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_hang_up_ends_a_stuck_app_after_the_grace() -> None:
    result = _run("SIGHUP")
    assert result.returncode == 128 + signal.SIGHUP, result.stderr
    assert result.stdout.splitlines() == ["asked to exit", "cleaned up"], "ended at the deadline"


def test_sigterm_starts_no_deadline() -> None:
    """SIGTERM comes from someone who can wait: the terminal is still there for the app."""
    result = _run("SIGTERM")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["asked to exit", "still running"]
