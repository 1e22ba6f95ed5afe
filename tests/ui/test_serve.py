"""``zett-browser serve``: the app in a web page, checked in a real headless Chromium (issue 14).

The real console script serves a copy of the zett-agent-written ``agent_run`` store whose
title, ids and content carry escapes and markup (the hostile store of the untrusted-text
suite); Debian's Chromium, driven by Selenium, opens the page. The terminal's text is read
from the page's own terminal (``tests/served.py`` says how), keys are typed into it, and
the DOM and the page's requests are checked. The command line's checks (one line, exit
status 2; the warning off loopback) run without a browser.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.hostile import CONTENT, PARENT, hostile_store
from tests.adversarial.large import set_json_content
from tests.served import chromium, missing, press, screen_text, serving, wait_for
from tests.support import listing
from zett_browser.__main__ import main
from zett_browser.cli.serve import build_serve_parser, child_argv, is_loopback, page_url

SCRIPT = Path(sys.executable).parent / "zett-browser"
#: The untrusted-text suite's hostile content (its lone surrogate cannot go in a TEXT column).
HOSTILE_TEXT = CONTENT.replace("\ud800", "")


@pytest.fixture
def browser_ready() -> None:
    reason = missing()
    if reason is not None:
        if os.environ.get("ZETT_REQUIRE_SERVERS") == "1":
            pytest.fail(f"ZETT_REQUIRE_SERVERS=1 but {reason}")
        pytest.skip(reason)


def clipboard(driver: Any) -> str:
    script = "const done = arguments[0]; navigator.clipboard.readText().then(done, () => done(''));"
    return str(driver.execute_async_script(script))


def served_store(tmp_path: Path) -> Path:
    """The hostile store, with hostile content in the root session the page opens first."""
    directory = tmp_path / "store"
    directory.mkdir()
    path = hostile_store(directory)
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (PARENT, 3), HOSTILE_TEXT)
    return path


def test_the_served_page_shows_the_app_answers_keys_and_keeps_hostile_text_literal(
    tmp_path: Path, browser_ready: None
) -> None:
    store = served_store(tmp_path)
    before = (hashlib.sha256(store.read_bytes()).hexdigest(), listing(store.parent))
    # Tall enough that the hostile #3 shows under the two system rows (their headers wrap in the pane).
    with serving(store, "--no-index") as url, chromium(tmp_path / "profile", (1400, 1100)) as driver:
        driver.get(url)
        screen = wait_for(lambda: "RAW LOG" in screen_text(driver) and screen_text(driver), 45, "the Raw Log")
        screen = wait_for(lambda: "clear␛[2J link" in screen_text(driver) and screen_text(driver), 15, "the page")
        assert "#1 system" in screen and "#3 user" in screen, "a Raw Log page"
        assert "Title ␛]0;PWNED␇" in screen, "the tree shows the session, its title's escape literal"
        assert "␛]8;;http://evil.example/␇click" in screen, "a link escape shows as text"
        assert "desrever\\u202c [@click=app" in screen, "markup and a bidi override show as text"
        assert "\x1b" not in screen and "\x9b" not in screen

        press(driver, "?")  # keys reach the app: the help opens...
        wait_for(lambda: "expand a node and load its delegated" in screen_text(driver), 15, "the key help")
        press(driver, "\ue00c")  # ...and escape closes it
        wait_for(lambda: "expand a node and load its delegated" not in screen_text(driver), 15, "the help to close")
        allowed = ["clipboardReadWrite", "clipboardSanitizedWrite"]  # what a user grants when asked
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": url.rstrip("/"), "permissions": allowed})
        press(driver, ":")  # jump to #3, the hostile message...
        time.sleep(1)  # the field takes the focus
        press(driver, "3\ue007")
        time.sleep(1)
        press(driver, "Y")  # ...and copy it (OSC 52 to the page's terminal)
        wait_for(lambda: "Copied message #3" in screen_text(driver), 15, "the copy notice")
        copied = wait_for(lambda: "#3 user" in (text := clipboard(driver)) and text, 15, "the copied message")
        assert copied.startswith("#3 user") and "clear␛[2J link ␛]8;;http://evil.example/␇click" in copied
        assert "\x1b" not in copied and "\x9b" not in copied, "the cleaned text, not the store's escapes"
        press(driver, "v")  # no terminal to hand over in a web page: a notice, not a hang
        wait_for(lambda: "needs a terminal" in screen_text(driver), 15, "the pager's notice")

        dom = driver.execute_script("return document.documentElement.outerHTML")
        for word in ("PWN", "evil.example", "@click", "desrever"):
            assert word not in dom, f"store text {word!r} became part of the page's DOM"
        assert driver.execute_script("return document.querySelectorAll('a, iframe, img').length") == 0
        scripts = driver.execute_script("return [...document.scripts].map(s => s.src || 'inline')")
        assert scripts == [url + "static/js/textual.js", "inline"], scripts
        assert "PWN" not in driver.title and "Title" not in driver.title, "the window title is not the store's"
        sources = driver.execute_script(
            "return [...document.querySelectorAll('[href],[src]')].map(e => e.href || e.src)"
        )
        assert sources and all(source.startswith(url) for source in sources), sources
        requested = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert requested and all(name.startswith(url) for name in requested), "nothing from another host"
    after = (hashlib.sha256(store.read_bytes()).hexdigest(), listing(store.parent))
    assert after == before, "the store and its directory are unchanged"


def test_a_store_that_cannot_be_browsed_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing_store = tmp_path / "nope.sqlite3"
    assert main(["serve", str(missing_store)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("zett-browser: No store at") and "nope.sqlite3" in error
    assert list(tmp_path.iterdir()) == []
    store = served_store(tmp_path)
    assert main(["serve", str(store), "--session", "no-such-session"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("zett-browser: no session 'no-such-session' in")
    for bad in (["--port", "70000"], ["--public-url", 'http://x/"><script>'], ["--public-url", "ftp://x"]):
        with pytest.raises(SystemExit) as exit_:
            main(["serve", *bad])
        assert exit_.value.code == 2
        assert capsys.readouterr().err.count("\n") == 1, bad


def test_off_loopback_it_warns_and_a_port_it_cannot_take_is_one_line(tmp_path: Path) -> None:
    store = served_store(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run(
            [str(SCRIPT), "serve", str(store), "--port", str(port), "--no-index"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert busy.returncode == 2
    assert busy.stderr.count("\n") == 1 and busy.stderr.startswith(
        f"zett-browser serve: cannot listen on 127.0.0.1:{port}"
    )
    assert "WARNING" not in busy.stderr
    # 192.0.2.1 is a documentation address no machine has: the warning, then the bind fails.
    away = subprocess.run(
        [str(SCRIPT), "serve", str(store), "--host", "192.0.2.1", "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert away.returncode == 2
    warning, failure = away.stderr.splitlines()
    assert "WARNING" in warning and "gets the token in its URL and can read the whole history" in warning
    assert failure.startswith("zett-browser serve: cannot listen on 192.0.2.1")


def test_loopback_and_the_served_apps_arguments() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.5", "example.org", ""):
        assert not is_loopback(host), host
    assert page_url("::1", 8000) == "http://[::1]:8000" and page_url("127.0.0.1", 80) == "http://127.0.0.1:80"
    args = build_serve_parser().parse_args(["postgresql://u:secret@h/db", "--no-index", "--page-size", "20"])
    assert child_argv(args) == ["postgresql://u:secret@h/db", "--page-size", "20", "--no-index"]
    assert child_argv(build_serve_parser().parse_args([])) == ["--page-size", "50"]
    assert build_serve_parser().parse_args(["--public-url", "https://h.example:8443/"]).public_url == (
        "https://h.example:8443"
    )
    with_session = build_serve_parser().parse_args(["s.sqlite3", "--session", "abc"])
    assert child_argv(with_session) == ["s.sqlite3", "--session", "abc", "--page-size", "50"]
