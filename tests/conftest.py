"""Shared fixtures: temporary stores only; the user's default store is never touched."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_textual_snapshot  # type: ignore[import-untyped]

from tests import servers
from tests.backends import BACKENDS, Backend, server_backend
from tests.realstore.stores import RealStores, generate
from tests.ui.helpers import SNAP_DIR, SNAPSHOT_DIR_NAME
from zett_browser.storage import SQLSessionStorage

# The throwaway zett-agent venv lives under the real home, fixed before any test patches HOME.
os.environ.setdefault("ZETT_AGENT_VENV", str(Path.home() / ".cache" / "zett-browser-tests" / "zett-agent-0.2.1"))

TESTS = Path(__file__).parent
#: The tiers whose marker is given to one folder's tests only (by that folder's conftest.py).
FOLDER_TIERS = {"unit": TESTS / "unit", "startup": TESTS / "startup"}


def _folder_tier(config: pytest.Config) -> Path | None:
    """The folder of ``pytest -m unit`` or ``pytest -m startup``; None for anything else."""
    return FOLDER_TIERS.get(str(config.option.markexpr))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """A folder tier runs in this process: starting workers costs more than its tests."""
    return 0 if _folder_tier(config) is not None else None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A folder tier collects only its folder: importing every other test module (the app,
    the storage, the servers' drivers) took longer than running the unit tests."""
    folder = _folder_tier(config)
    if folder is not None and collection_path != TESTS and TESTS in collection_path.parents:
        if folder != collection_path and folder not in collection_path.parents:
            return True
    return None


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME at a temporary directory so nothing can reach ~/.zett-agent."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    # Pins, labels and notes go to the user data directory: the temporary home's, whatever the
    # environment says (a test never writes a person's notes file).
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.delenv("ZETT_BROWSER_NOTES", raising=False)
    yield home


@pytest.fixture(autouse=True)
def _no_quiet_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up's background work (index sync, usage labels, orphan check) runs right after
    the first page, as before the quiet gate: ``settle`` waits for workers, not for the
    gate's 0.4 s timer. ``tests/ui/test_first_keys.py`` and ``tests/unit/test_quiet.py``
    test the gate itself."""
    from zett_browser.screens import quiet

    monkeypatch.setattr(quiet, "QUIET_S", 0.0)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.sqlite3"


def _server(dialect: str) -> Iterator[servers.Server]:
    try:
        yield from servers.serve(dialect)
    except servers.ServerUnavailable as reason:
        if servers.required():
            pytest.fail(f"ZETT_REQUIRE_SERVERS=1 but {reason}")
        pytest.skip(str(reason))


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[servers.Server]:
    """A throwaway PostgreSQL cluster on loopback for the whole test run."""
    yield from _server("postgresql")


@pytest.fixture(scope="session")
def mysql_server() -> Iterator[servers.Server]:
    """A throwaway MariaDB/MySQL server on loopback for the whole test run."""
    yield from _server("mysql")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, store_path: Path) -> Iterator[Backend]:
    """A fresh empty store on each backend: a SQLite file, PostgreSQL, MariaDB/MySQL."""
    name: str = request.param
    if name == "sqlite":
        yield Backend(name, path=store_path)
        return
    server: servers.Server = request.getfixturevalue(f"{name}_server")
    database = server.create_database()
    try:
        yield server_backend(name, server, database)
    finally:
        server.drop_database(database)


@pytest.fixture
async def storage(backend: Backend) -> AsyncIterator[SQLSessionStorage]:
    """A writing storage on a fresh store, on every backend."""
    store = backend.writer()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture(scope="session")
def zett_agent_py() -> Path:
    """Python of a throwaway venv with exactly zett-agent 0.2.1 (built from PyPI on first use)."""
    from tests import zett_agent_env

    return zett_agent_env.zett_agent_python()


@pytest.fixture(scope="session")
def real_stores(zett_agent_py: Path, tmp_path_factory: pytest.TempPathFactory) -> RealStores:
    """main.sqlite3 + children.sqlite3 the real zett-agent 0.2.1 runtime wrote, once per run (tests/realstore).

    Here, not in tests/realstore, so the UI tests share the one generated pair.
    """
    return generate(zett_agent_py, tmp_path_factory.mktemp("realstore"))


@pytest.fixture(autouse=True, scope="session")
def _snapshots_name_the_run_directory_canonically() -> Iterator[None]:
    """The header shows a store's resolved path, and each run copies its stores into a directory
    of its own (helpers.SNAP_DIR): an SVG is compared with that directory's name written as
    the accepted snapshots have it. Both names have the same length, so nothing else moves."""
    normalize = pytest_textual_snapshot.normalize_svg

    def normalize_run_directory(svg: str) -> str:
        svg = normalize(svg)
        # Longest first: a narrow header cuts the path, leaving a prefix of the name.
        for length in range(len(SNAP_DIR.name), len("zett-browser-"), -1):
            svg = svg.replace(f"/{SNAP_DIR.name[:length]}", f"/{SNAPSHOT_DIR_NAME[:length]}")
        return svg

    pytest_textual_snapshot.normalize_svg = normalize_run_directory
    try:
        yield
    finally:
        pytest_textual_snapshot.normalize_svg = normalize


@pytest.fixture
def nobody_tmp() -> Iterator[Path]:
    """A temporary directory an unprivileged user can reach (the permission tests drop to
    ``nobody``). Not under pytest's base temporary directory: pytest keeps that at mode 700
    and tightens it again whenever a worker starts, so opening its parents to others raced
    with the other xdist worker."""
    directory = Path(tempfile.mkdtemp(prefix="zett-browser-perm-"))
    directory.chmod(0o711)
    try:
        yield directory
    finally:
        for path in [directory, *directory.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(directory, ignore_errors=True)
