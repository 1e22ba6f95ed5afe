"""A throwaway Arize Phoenix: its own virtual environment, and a server on loopback.

Phoenix (``arize-phoenix`` from PyPI) is large (~860 MB installed) and pins much of what it
uses, so it never goes into the project's environment: :func:`phoenix_python` builds a venv
under ``~/.cache/zett-browser-tests/arize-phoenix-<version>`` on first use (or
``$ZETT_PHOENIX_VENV``) and reuses it, idempotent and safe for parallel workers like
:mod:`tests.zett_agent_env` (a marker written after the install is verified, an ``fcntl``
lock while building). The first build took 329 s on the 2-core machine under load (cold
pip cache); later runs find the marker at once.

:func:`phoenix_server` starts ``phoenix serve`` on free loopback ports with its working
directory (its SQLite database) in a temporary directory, waits until it answers, and stops
it afterwards. When Phoenix cannot be installed or started the tests are skipped, unless
``ZETT_REQUIRE_SERVERS=1`` (``.ci/run``) makes that a failure.

Run as a module to build the venv and print its interpreter: ``python -m tests.phoenix_env``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.servers import _free_port
from tests.zett_agent_env import _marker_ok, _run, _venv_python

PHOENIX_VERSION = "20.26.1"
_MARKER_NAME = ".zett-browser-tests-ready.json"
#: Under the real home, fixed at import (collection), before any test points HOME elsewhere.
_CACHE_ROOT = Path.home() / ".cache" / "zett-browser-tests"
#: Seconds ``phoenix serve`` may take to answer (migrations and imports: ~30 s on a loaded 2-core machine).
START_TIMEOUT = 180.0


class PhoenixUnavailable(RuntimeError):
    """Phoenix could not be installed or started here."""


def _expected() -> dict[str, str]:
    return {"requirement": f"arize-phoenix=={PHOENIX_VERSION}"}


def phoenix_python() -> Path:
    """The python of a venv with exactly ``arize-phoenix==PHOENIX_VERSION``; built when missing."""
    import fcntl

    override = os.environ.get("ZETT_PHOENIX_VENV")
    directory = Path(override) if override else _CACHE_ROOT / f"arize-phoenix-{PHOENIX_VERSION}"
    directory = directory.expanduser().absolute()
    if _marker_ok(directory, _expected()):
        return _venv_python(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if _marker_ok(directory, _expected()):
                return _venv_python(directory)
            if directory.exists():
                import shutil

                shutil.rmtree(directory)
            env = {key: value for key, value in os.environ.items() if key not in {"VIRTUAL_ENV", "PYTHONPATH"}}
            env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
            _run([sys.executable, "-m", "venv", str(directory)], env=env)
            python = _venv_python(directory)
            _run([str(python), "-m", "pip", "install", "--quiet", f"arize-phoenix=={PHOENIX_VERSION}"], env=env)
            check = f"import importlib.metadata as m; assert m.version('arize-phoenix') == {PHOENIX_VERSION!r}"
            _run([str(python), "-c", check], env=env)
            (directory / _MARKER_NAME).write_text(json.dumps(_expected()), encoding="utf-8")
            return python
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class Phoenix:
    """A running Phoenix: its base URL and a way to read its REST API."""

    url: str

    def get(self, path: str) -> Any:
        """The JSON answer of ``GET {url}{path}``."""
        with urllib.request.urlopen(self.url + path, timeout=30) as response:
            return json.loads(response.read())

    def spans(self, project: str = "default") -> list[dict[str, Any]]:
        """Every span of ``project``, page by page."""
        found: list[dict[str, Any]] = []
        cursor = ""
        while True:
            page = self.get(f"/v1/projects/{project}/spans?limit=1000{cursor}")
            found.extend(page["data"])
            if not page.get("next_cursor"):
                return found
            cursor = f"&cursor={page['next_cursor']}"


def _wait(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PhoenixUnavailable(f"phoenix serve exited {process.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    raise PhoenixUnavailable(f"phoenix serve did not answer in {START_TIMEOUT:.0f} s: {log.read_text()[-2000:]}")


@contextmanager
def phoenix_server() -> Iterator[Phoenix]:
    """A fresh Phoenix on loopback, its database in a temporary directory (removed after)."""
    try:
        python = phoenix_python()
    except (RuntimeError, OSError) as error:
        raise PhoenixUnavailable(f"cannot install arize-phoenix=={PHOENIX_VERSION}: {error}") from error
    with tempfile.TemporaryDirectory(prefix="zett-phoenix-") as directory:
        port = _free_port()
        env = {key: value for key, value in os.environ.items() if not key.startswith(("PHOENIX_", "OTEL_"))}
        env |= {
            "PHOENIX_WORKING_DIR": directory,
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(port),
            "PHOENIX_GRPC_PORT": str(_free_port()),
            "PHOENIX_TELEMETRY_ENABLED": "false",
        }
        log = Path(directory) / "serve.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(python.parent / "phoenix"), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=directory
            )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait(url, process, log)
            yield Phoenix(url)
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    print(phoenix_python())
