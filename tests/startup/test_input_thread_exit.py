"""The process ends even when Textual's input thread is left running (review case).

Found after the tmux tests: an app whose terminal went away while it was already exiting
(its ``q`` pressed, then the tmux server killed) kept spinning at 100 % of a core an hour
later. Textual's ``disable_input`` writes to the terminal before telling its input thread
to stop; the write failed, the error was swallowed, and the thread, reading the closed
terminal forever, kept the interpreter from exiting. The command line now ends the
process once the app has returned and closed the store, if that thread still runs.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys, threading, time
    sys.path.insert(0, {repo!r})
    from zett_browser.startup import lifecycle

    stop = threading.Event()

    def spin():  # what Textual's input thread does on a closed terminal
        while not stop.is_set():
            time.sleep(0.001)

    thread = threading.Thread(target=spin, name=lifecycle.INPUT_THREAD)
    thread.start()
    if sys.argv[1] == "stops":
        threading.Timer(0.1, stop.set).start()
    lifecycle.on_hangup_exit(lambda: print("cleaned up", flush=True))
    lifecycle.end_if_input_left_running(3, wait=0.5)
    print("returned", flush=True)
    """
)


def run(mode: str) -> tuple[int, str, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(repo=str(REPO)), mode], capture_output=True, text=True, timeout=30
    )
    return result.returncode, result.stdout, time.monotonic() - started


def test_a_spinning_input_thread_ends_the_process_with_the_apps_code() -> None:
    code, out, seconds = run("spins")
    assert code == 3
    assert out.splitlines() == ["cleaned up"], "the command's own clean-ups ran; nothing after"
    assert seconds < 10


def test_an_input_thread_that_stops_lets_the_command_return() -> None:
    code, out, _ = run("stops")
    assert code == 0
    assert out.splitlines() == ["returned"]
