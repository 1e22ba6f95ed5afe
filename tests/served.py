"""The real ``zett-browser serve`` in a real headless Chromium: shared by the serve test and
the serve screenshot in docs/serve.md (``screenshots/make_screenshots.py``).

The page draws the terminal on a canvas (xterm.js), so its text is not in the DOM. An init
script, run before the page's own, catches the page's terminal object when textual-serve's
client assigns it (a setter on ``Object.prototype`` for the one name ``terminal``, which
then becomes an ordinary property): the screen's text is read from that terminal's buffer,
exactly what the canvas shows. Keys are typed into the terminal's own input element.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  enumerable: false,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && value.rows) { window.__zbTerminal = value; }
  },
});
"""

SCREEN_TEXT = """
const t = window.__zbTerminal;
if (!t) { return null; }
const buffer = t.buffer.active;
const rows = [];
for (let y = 0; y < t.rows; y++) {
  const line = buffer.getLine(buffer.viewportY + y);
  rows.push(line ? line.translateToString(true) : "");
}
return rows.join("\\n");
"""


#: Why the browser test cannot run, or None when it can.
def missing() -> str | None:
    try:
        import selenium  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (pip install -e '.[test]')"
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install chromium chromium-driver)"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


class Served:
    """A running ``zett-browser serve``: its process, its port, the URL it printed, its output."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port
        self.url = ""
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace")
            self.lines.append(line)
            found = PRINTED_URL.search(line)
            if found and not self.url:
                self.url = found.group(1).rstrip("/") + "/"

    def output(self) -> str:
        return "".join(self.lines)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


#: The line ``serve`` prints once it listens: ``zett-browser: serving STORE read-only on URL (...)``.
PRINTED_URL = re.compile(r"read-only on (http://\S+) \(")


@contextmanager
def serve_process(
    store: Path,
    *extra: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    port: int | None = None,
    preexec: Callable[[], None] | None = None,
) -> Iterator[Served]:
    """``zett-browser serve STORE`` on ``port`` (default a free one), once it printed its URL."""
    port = port or free_port()
    script = Path(sys.executable).parent / "zett-browser"
    process = subprocess.Popen(
        [str(script), "serve", str(store), "--port", str(port), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # our own group: whatever is left of it is stopped below
        cwd=cwd,
        env=env,
        preexec_fn=preexec,
    )
    served = Served(process, port)
    try:

        def listening() -> bool:
            assert process.poll() is None, served.output()
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0 and bool(served.url)

        wait_for(listening, 30, "the server to listen and print its URL")
        yield served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        try:
            os.killpg(process.pid, signal.SIGKILL)  # any app process of ours still running
        except ProcessLookupError:
            pass


@contextmanager
def serving(store: Path, *extra: str) -> Iterator[str]:
    """``zett-browser serve STORE`` on a free loopback port; yields the page's URL (its token in it)."""
    with serve_process(store, *extra) as served:
        yield served.url


@contextmanager
def chromium(profile: Path, size: tuple[int, int] = (1400, 900), rules: str = "") -> Iterator[Any]:
    """Headless Debian Chromium through Selenium, kept off every host but loopback (``rules``:
    host-resolver rules tried first, e.g. ``MAP rebound.test 127.0.0.1, ``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in (
        "--headless=new",
        "--no-sandbox",  # as root (CI) Chromium refuses to start sandboxed
        "--disable-dev-shm-usage",
        f"--window-size={size[0]},{size[1]}",
        f"--user-data-dir={profile}",
        f"--host-resolver-rules={rules}MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_TERMINAL})
        yield driver
    finally:
        driver.quit()


def screen_text(driver: Any) -> str:
    """The terminal's visible rows, as text."""
    return str(driver.execute_script(SCREEN_TEXT) or "")


def press(driver: Any, keys: str) -> None:
    """Type ``keys`` into the page's terminal (its own input element: real key events)."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(keys)
