"""``zett-browser serve`` against the web: the review's attacks, in real headless Chromium.

Loopback is no boundary against a browser: any page the user visits could open
``ws://127.0.0.1:PORT/ws``, read the rendered history and drive the app (its export dialog
wrote a file at a path of the page's choice). Each test here is one of those attacks, run
against the real console script: a page from another origin (served from another local
port) that tries the websocket, with and without the token; a DNS-rebinding page (a name
Chromium resolves to 127.0.0.1); requests without the token; a served client trying every
key that writes a file; more pages than the cap; a 20000 x 20000 terminal; and ``serve``
stopped by SIGINT, SIGTERM and SIGHUP with a page open. Raw HTTP and websocket checks use
aiohttp's client; the store is the zett-agent-written fixture (WAL mode: browsing it makes
``-wal``/``-shm`` files, which must be gone afterwards).
"""

from __future__ import annotations

import asyncio
import http.client
import http.server
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.served import Served, chromium, free_port, missing, press, screen_text, serve_process, wait_for
from tests.support import AGENT_RUN_ROOT, FIXTURES, listing

SCRIPT = Path(sys.executable).parent / "zett-browser"
NOTICE = "serve: writing files is disabled in a served page"


@pytest.fixture
def browser_ready() -> None:
    reason = missing()
    if reason is not None:
        if os.environ.get("ZETT_REQUIRE_SERVERS") == "1":
            pytest.fail(f"ZETT_REQUIRE_SERVERS=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A copy of the zett-agent-written store (WAL mode), alone in its directory."""
    directory = tmp_path / "store"
    directory.mkdir()
    path = directory / "sessions.sqlite3"
    shutil.copyfile(FIXTURES / "agent_run.sqlite3", path)
    return path


def token_of(served: Served) -> str:
    """The path segment the printed URL carries ('' when it carries none)."""
    return served.url.removeprefix(served.origin + "/").strip("/")


def children(pid: int) -> list[int]:
    """Every process descended from ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        for child, parent in parents.items():
            if parent == current:
                found.append(child)
                frontier.append(child)
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def get(served: Served, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """One plain HTTP GET to the server (any Host header), its status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host="Host" in (headers or {}))
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


async def screen_bytes(ws: aiohttp.ClientWebSocketResponse, seconds: float, enough: int = 0) -> bytes:
    """What the app sends within ``seconds`` (or as soon as ``enough`` bytes came)."""
    data = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (enough and len(data) >= enough):
        try:
            message = await asyncio.wait_for(ws.receive(), max(0.05, deadline - time.monotonic()))
        except TimeoutError:
            break
        if message.type == aiohttp.WSMsgType.BINARY:
            data += message.data
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            break
    return data


def websocket_url(served: Served, query: str = "width=100&height=30") -> str:
    return served.url.replace("http://", "ws://", 1) + "ws?" + query


@contextmanager
def hostile_site(page: str) -> Iterator[str]:
    """Another origin: ``page`` served at ``http://127.0.0.1:OTHER/``; yields that URL."""
    body = page.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib signature
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


#: The attacker's page: open each websocket, type the keys that opened the export dialog
#: and wrote a file, and record whether it opened and how many bytes of screen it read.
ATTACK = """<!DOCTYPE html><html><body><script>
window.results = {};
function attempt(name, url) {
  return new Promise((done) => {
    const record = {opened: false, bytes: 0, code: null};
    window.results[name] = record;
    let ws;
    try { ws = new WebSocket(url); } catch (error) { record.error = String(error); done(); return; }
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      record.opened = true;
      ws.send(JSON.stringify(["stdin", "e"]));
      ws.send(JSON.stringify(["stdin", "x"]));
      ws.send(JSON.stringify(["stdin", "w"]));
    };
    ws.onmessage = (event) => { record.bytes += event.data.byteLength || event.data.length || 0; };
    ws.onclose = (event) => { record.code = event.code; done(); };
    setTimeout(() => { try { ws.close(); } catch (error) {} done(); }, 8000);
  });
}
window.attack = (urls) => Promise.all(Object.entries(urls).map(([name, url]) => attempt(name, url)));
</script></body></html>"""


def test_a_page_from_another_origin_cannot_connect_even_knowing_the_token(
    tmp_path: Path, store: Path, browser_ready: None
) -> None:
    before = listing(store.parent)
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    with (
        serve_process(store, "--no-index", cwd=workdir) as served,
        hostile_site(ATTACK) as evil,
        chromium(tmp_path / "profile") as driver,
    ):
        driver.get(evil)
        token = token_of(served)
        base = f"ws://127.0.0.1:{served.port}"
        urls = {
            "plain": f"{base}/ws",  # textual-serve's own websocket, no token
            "leaked": f"{base}/{token}/ws" if token else f"{base}/ws",  # the real URL, token and all
            "localhost": f"ws://localhost:{served.port}/{token}/ws",
        }
        driver.set_script_timeout(30)
        script = "const done = arguments[1]; window.attack(arguments[0]).then(() => done(window.results));"
        results = driver.execute_async_script(script, urls)
        for name, record in results.items():
            assert not record["opened"] and record["bytes"] == 0, (name, record)
        assert children(served.process.pid) == [], "no app process was started for the other origin"
        assert "refused" in served.output() or token == "", served.output()
    assert list(workdir.iterdir()) == [], "nothing written where serve runs"
    assert listing(store.parent) == before


def test_a_dns_rebinding_page_is_refused(tmp_path: Path, store: Path, browser_ready: None) -> None:
    """A name the attacker controls, resolved to 127.0.0.1: the page's origin is that name."""
    with (
        serve_process(store, "--no-index") as served,
        chromium(tmp_path / "profile", rules="MAP rebound.test 127.0.0.1, ") as driver,
    ):
        rebound = served.url.replace("127.0.0.1", "rebound.test", 1)
        driver.get(rebound)
        time.sleep(3)  # a page that was served would connect and draw by now
        source = driver.page_source
        assert "textual-terminal" not in source and screen_text(driver) == ""
        assert "not the served one" in source
        assert children(served.process.pid) == []
        # The same by hand: the right token under a foreign Host, and under a foreign Origin.
        path = "/" + token_of(served) + "/"
        assert get(served, path, {"Host": f"rebound.test:{served.port}"})[0] == 403
        assert get(served, path, {"Host": f"127.0.0.1:{served.port}", "Origin": "http://evil.example"})[0] == 403


async def test_without_the_token_nothing_is_served(tmp_path: Path, store: Path, browser_ready: None) -> None:
    with serve_process(store, "--no-index") as served, chromium(tmp_path / "profile") as driver:
        driver.get(served.origin + "/")  # the address without the token, in the browser
        time.sleep(2)
        assert "Not found" in driver.page_source and "textual-terminal" not in driver.page_source
        assert screen_text(driver) == ""
        token = token_of(served)
        assert len(token) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", token), served.url
        host = {"Host": f"127.0.0.1:{served.port}"}
        for path in ("/", "/ws", "/static/js/textual.js", "/download/x", "/favicon.ico", "/x" + token + "/"):
            status, body = get(served, path, host)
            assert status == 404, (path, status)
            assert token not in body
        assert get(served, "/" + token[:-1] + "/", host)[0] == 404, "a token one character short"
        origin = {"Origin": served.origin}
        async with aiohttp.ClientSession() as session:
            for url in (f"ws://127.0.0.1:{served.port}/ws", f"ws://127.0.0.1:{served.port}/nottoken/ws"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(url + "?width=80&height=24", headers=origin)
                assert refused.value.status == 404
            # With the token but no Origin (no browser page sends none): refused too.
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(websocket_url(served))
            assert refused.value.status == 403
        assert children(served.process.pid) == []


async def test_with_the_token_the_page_and_its_websocket_work(store: Path) -> None:
    with serve_process(store, "--no-index") as served:
        token = token_of(served)
        assert token, "the printed URL carries the token"
        status, page = get(served, "/" + token + "/", {"Host": f"127.0.0.1:{served.port}"})
        assert status == 200
        assert f'data-session-websocket-url="ws://127.0.0.1:{served.port}/{token}/ws"' in page
        assert "fonts.googleapis" not in page
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(websocket_url(served), headers={"Origin": served.origin}) as ws,
        ):
            drawn = await screen_bytes(ws, 30, enough=20_000)
            assert b"RAW LOG" in drawn or len(drawn) >= 20_000


def test_no_key_a_served_page_sends_writes_a_file(tmp_path: Path, store: Path, browser_ready: None) -> None:
    """The export dialog (its path field took any path), the context's ``w``, the pager."""
    workdir, temporary = tmp_path / "cwd", tmp_path / "tmp"
    workdir.mkdir()
    temporary.mkdir()
    before = listing(store.parent)
    environment = {**os.environ, "TMPDIR": str(temporary)}
    with (
        serve_process(store, "--no-index", cwd=workdir, env=environment) as served,
        chromium(tmp_path / "profile") as driver,
    ):
        driver.get(served.url)
        wait_for(lambda: "RAW LOG" in screen_text(driver), 45, "the Raw Log")
        time.sleep(1)
        press(driver, "e")
        export = wait_for(
            lambda: ("Output file" in (text := screen_text(driver)) or NOTICE in text) and text, 15, "the answer to e"
        )
        if "Output file" in export:  # the dialog, whose path field takes any path: closed again
            press(driver, "\ue00c")
            time.sleep(1)
        press(driver, ":")  # to message #3 (the Raw Log takes the focus)...
        time.sleep(1)
        press(driver, "3\ue007")
        time.sleep(1)
        press(driver, "x")  # ...its context...
        wait_for(lambda: "Write JSON" in screen_text(driver), 20, "the context view")
        time.sleep(1)
        press(driver, "w")  # ...written as JSON where serve runs
        context = wait_for(
            lambda: (NOTICE in (text := screen_text(driver)) or "Wrote the context" in text) and text, 15, "w's answer"
        )
        press(driver, "\ue00c")
        time.sleep(1)
        press(driver, "v")
        wait_for(lambda: "needs a terminal" in screen_text(driver), 15, "the pager's notice")
        time.sleep(1)
    written = sorted(path.name for path in workdir.iterdir())
    assert written == [], f"the page wrote files where serve runs: {written}"
    assert NOTICE in export and NOTICE in context, "each writer says why it writes nothing"
    assert list(temporary.iterdir()) == [], "no temporary file either"
    assert listing(store.parent) == before


async def test_pages_beyond_the_cap_get_no_app(store: Path) -> None:
    with serve_process(store, "--no-index", "--max-sessions", "1") as served:
        origin = {"Origin": served.origin}
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(websocket_url(served), headers=origin)
            assert len(await screen_bytes(first, 30, enough=5_000)) >= 5_000
            apps = children(served.process.pid)
            assert len(apps) == 1
            second = await session.ws_connect(websocket_url(served), headers=origin)
            told = await screen_bytes(second, 10)
            assert b"1 pages are open already" in told and b"--max-sessions 1" in told
            assert second.closed or (await second.receive()).type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
            )
            assert second.close_code == 1013
            status, body = get(served, "/" + token_of(served) + "/", {"Host": f"127.0.0.1:{served.port}"})
            assert status == 503 and "--max-sessions 1" in body
            assert children(served.process.pid) == apps, "no second app process"
            await first.close()
            wait_for(lambda: not any(alive(pid) for pid in apps), 20, "the first page's app to end")
            third = await session.ws_connect(websocket_url(served), headers=origin)
            assert len(await screen_bytes(third, 30, enough=5_000)) >= 5_000, "a slot freed is a slot"
            await third.close()


def limit_memory() -> None:
    """At most 3 GB of address space for serve and its apps (the unfixed app took 4 GB)."""
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


async def test_a_huge_terminal_is_clamped(store: Path) -> None:
    with serve_process(store, "--no-index", preexec=limit_memory) as served:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(
                websocket_url(served, "width=20000&height=20000"), headers={"Origin": served.origin}, max_msg_size=0
            ) as ws,
        ):
            first = await screen_bytes(ws, 40, enough=20_000)
            await ws.send_str(json.dumps(["resize", {"width": 20000, "height": 20000}]))
            later = await screen_bytes(ws, 8)
            await ws.send_str(json.dumps(["resize", {"width": "9" * 400, "height": -5}]))
            await ws.send_str(json.dumps(["resize", "not a size"]))
            await ws.send_str("not json")
            await ws.send_str(json.dumps(["ping", "still here"]))
            pong = await asyncio.wait_for(ws.receive(), 20)
            while pong.type == aiohttp.WSMsgType.BINARY:
                pong = await asyncio.wait_for(ws.receive(), 20)
            assert pong.type == aiohttp.WSMsgType.TEXT and json.loads(pong.data) == ["pong", "still here"]
            places = [(int(row), int(column)) for row, column in re.findall(rb"\x1b\[(\d+);(\d+)H", first + later)]
            assert places, "the app drew its screen"
            assert max(row for row, _ in places) <= 200 and max(column for _, column in places) <= 500
            (app,) = children(served.process.pid)
            status = Path(f"/proc/{app}/status").read_text()
            resident = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]
            assert resident < 600_000, f"the app holds {resident} kB"


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda n: n.name)
async def test_serve_stopped_by_a_signal_leaves_no_app_and_no_sidecar(store: Path, number: signal.Signals) -> None:
    """Two pages open, the first one's app hung (SIGSTOP: it answers nothing, not even quit)."""
    with serve_process(store, "--no-index") as served:
        async with aiohttp.ClientSession() as session:
            hung = await session.ws_connect(websocket_url(served), headers={"Origin": served.origin})
            assert len(await screen_bytes(hung, 30, enough=20_000)) >= 20_000
            stopped = children(served.process.pid)
            wait_for(lambda: len(listing(store.parent)) > 1, 15, "the app's -wal/-shm files (a WAL store)")
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            ws = await session.ws_connect(websocket_url(served), headers={"Origin": served.origin})
            assert len(await screen_bytes(ws, 30, enough=20_000)) >= 20_000
            apps = children(served.process.pid)
            assert len(apps) > len(stopped), "each page's app runs"
            os.kill(served.process.pid, number)  # serve alone: not its group
            deadline = time.monotonic() + 25
            while served.process.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert served.process.poll() is not None, "serve ended"
        wait_for(lambda: not any(alive(pid) for pid in apps), 5, "every app process to be gone")
        assert [pid for pid in apps if alive(pid)] == []
        assert sorted(listing(store.parent)) == ["sessions.sqlite3"], "no -wal/-shm left beside the store"


async def test_serve_killed_outright_still_leaves_no_app_and_no_sidecar(store: Path) -> None:
    """SIGKILL cannot be handled: each app learns of it from Linux (SIGTERM) and closes its store."""
    with serve_process(store, "--no-index") as served:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(websocket_url(served), headers={"Origin": served.origin})
            assert len(await screen_bytes(ws, 30, enough=20_000)) >= 20_000
            apps = children(served.process.pid)
            assert apps
            wait_for(lambda: len(listing(store.parent)) > 1, 15, "the app's -wal/-shm files (a WAL store)")
            served.process.kill()
            served.process.wait(10)
        wait_for(lambda: not any(alive(pid) for pid in apps), 15, "every app process to be gone")
        wait_for(lambda: sorted(listing(store.parent)) == ["sessions.sqlite3"], 5, "no -wal/-shm beside the store")


def test_off_loopback_the_token_is_still_needed(store: Path) -> None:
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    with serve_process(store, "--no-index", "--host", "0.0.0.0", "--public-url", public, port=port) as served:
        assert served.url.startswith(public + "/") and token_of(served)
        assert get(served, "/")[0] == 404
        assert get(served, "/static/js/textual.js")[0] == 404
        assert get(served, "/" + token_of(served) + "/")[0] == 200
        assert get(served, "/" + token_of(served) + "/", {"Host": f"192.0.2.7:{port}"})[0] == 403
    unnamed = subprocess.run(
        [str(SCRIPT), "serve", str(store), "--host", "0.0.0.0", "--port", str(free_port()), "--no-index"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert unnamed.returncode == 2
    assert unnamed.stderr.count("\n") == 1 and "--host 0.0.0.0 needs --public-url" in unnamed.stderr


async def test_the_served_app_offers_no_writer(tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (Pilot), the app ``serve`` runs (``--served``): ``e``, ``x`` then ``w``, and the
    palette's screenshot each say why they write nothing, and nothing is written."""
    from tests.ui.helpers import frozen_clock, settle
    from zett_browser.app import make_app
    from zett_browser.cli.browse import SERVED_NO_WRITES, build_parser
    from zett_browser.screens.context import ContextScreen
    from zett_browser.widgets.rawlog import RawLogView

    assert SERVED_NO_WRITES == NOTICE and build_parser().parse_args(["--served"]).served
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    before = listing(store.parent)
    app = make_app(str(store), session=AGENT_RUN_ROOT, seq=17, clock=frozen_clock, poll_interval=0, no_writes=NOTICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert not any(type(screen).__name__ == "ExportDialog" for screen in app.screen_stack)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Screenshot" not in titles and "Quit" in titles
        assert app.deliver_screenshot() is None
        app.screen.query_one(RawLogView).focus()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        await pilot.pause(0.5)
        await pilot.press("w")
        await settle(pilot)
        await pilot.pause(0.5)
        assert [note.message for note in app._notifications].count(NOTICE) == 3, list(app._notifications)
    assert list(workdir.iterdir()) == []
    assert listing(store.parent) == before


def test_the_served_addresses_and_the_size_clamp() -> None:
    from zett_browser.cli.serve import served_addresses
    from zett_browser.cli.serve_server import MAX_HEIGHT, MAX_WIDTH, clamp

    hosts, origins = served_addresses("127.0.0.1", 8000, None)
    assert hosts == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert origins == {"http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"}
    hosts, origins = served_addresses("0.0.0.0", 8000, "https://Zett.Example")
    assert hosts == {"zett.example:443", "zett.example"}, "0.0.0.0 is no name a browser sends"
    assert origins == {"https://zett.example:443", "https://zett.example"}
    hosts, origins = served_addresses("192.0.2.5", 80, None)
    assert hosts == {"192.0.2.5:80", "192.0.2.5"} and "http://192.0.2.5" in origins
    assert "rebound.test:8000" not in served_addresses("::1", 8000, None)[0]
    assert (MAX_WIDTH, MAX_HEIGHT) == (500, 200)
    for value, expected in ((20000, 500), ("20000", 500), (-5, 1), (0, 1), (True, 80), (None, 80), ("x", 80)):
        assert clamp(value, 80, MAX_WIDTH) == expected, value
    assert clamp(1.5e9, 24, MAX_HEIGHT) == 24 and clamp([1], 24, MAX_HEIGHT) == 24


def test_a_taken_port_is_one_error_before_anything_is_announced(store: Path) -> None:
    """Review case: ``serve`` on a port in use printed "serving … on URL" and then failed."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(SCRIPT), "serve", str(store), "--port", str(port), "--no-index"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2, done.stderr
    assert "serving" not in done.stdout + done.stderr and "read-only on" not in done.stdout
    assert done.stderr.strip().startswith(f"zett-browser serve: cannot listen on 127.0.0.1:{port}: ")
    assert "Address already in use" in done.stderr
    # The same port, free again, serves (bound before the announcement, on every address of the host).
    with serve_process(store, "--no-index", port=port) as served:
        assert get(served, "/" + token_of(served) + "/")[0] == 200
