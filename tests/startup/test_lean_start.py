"""Start-up loads only what the first screen needs (issue 16).

Each check runs a fresh interpreter: ``sys.modules`` after importing the CLI entry and the
app module must hold no SQLAlchemy ORM, no Rich Markdown (the renderer loads it with the
first Markdown message), no server driver and no side index. Wanting one of them later
still works (the ORM loads on first use of a name only it gives).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
#: What the first screen never needs, by module name prefix.
HEAVY = (
    "sqlalchemy.orm",
    "sqlalchemy.ext.asyncio.session",
    "rich.markdown",
    "markdown_it",
    "asyncpg",
    "aiomysql",
    "psycopg",
    "zett_browser.index",
    "zett_browser.index.search_service",
    "zett_browser.demo.live",
)


def loaded_after(code: str) -> set[str]:
    """The module names loaded once ``code`` has run in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.startswith(HEAVY))


#: Not needed before the first paint of a SQLite store either: the start-up reader reads it
#: with the stdlib driver, and the storage loads after the first paint (zett_browser.startup.launch).
BEFORE_PAINT = ("sqlalchemy", "aiosqlite", "pydantic", "pydantic_core", "zett_browser.export")


def test_the_cli_entry_and_the_app_import_nothing_heavy() -> None:
    modules = loaded_after("import zett_browser.__main__, zett_browser.app")
    assert heavy(modules) == []
    assert sorted(name for name in modules if name.startswith(BEFORE_PAINT)) == []
    assert "textual.app" in modules, "the check sees the app's own imports"


def test_opening_a_store_and_a_first_read_import_no_orm() -> None:
    code = (
        "import asyncio\n"
        "from zett_browser.storage import open_store\n"
        "store = open_store('tests/fixtures/agent_run.sqlite3')\n"
        "async def main():\n"
        "    assert (await store.list_roots(limit=5)).items\n"
        "    await store.raw_bounds((await store.list_roots(limit=1)).items[0].session_id)\n"
        "    await store.close()\n"
        "asyncio.run(main())"
    )
    assert heavy(loaded_after(code)) == []


def test_names_only_the_full_asyncio_package_gives_still_import() -> None:
    code = (
        "import zett_browser.storage\n"
        "from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, AsyncConnection\n"
        "assert AsyncSession.__name__ == 'AsyncSession' and async_sessionmaker and AsyncConnection"
    )
    assert "sqlalchemy.orm" in loaded_after(code)


def test_the_side_index_is_imported_at_its_first_use(tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "store.sqlite3"
    shutil.copy(ROOT / "tests" / "fixtures" / "agent_run.sqlite3", store)
    built = (
        "import asyncio, sys\n"
        "from zett_browser.app import make_app\n"
        f"app = make_app({str(store)!r}, index=True, index_dir=__import__('pathlib').Path({str(tmp_path)!r}))\n"
        "assert app.warm is not None\n"
        "app.warm.thread.join()\n"
        "assert 'zett_browser.index' not in sys.modules, 'imported before use'\n"
        "assert app.options.search.syntax  # the query help: the index is imported now\n"
        "asyncio.run(app.storage.close())"
    )
    assert "zett_browser.index" in loaded_after(built)


def test_browsing_a_store_zett_agent_wrote_does_not_load_pydantic(tmp_path: Path) -> None:
    """The storage decodes rows with the standard library first (exactly, or it declines);
    pydantic (~90 ms to import with the message models) loads only for a row it declines."""
    import shutil

    from tests.support import AGENT_RUN_ROOT, FIXTURES

    store = tmp_path / "agent_run.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", store)
    script = f"""
import asyncio, sys
from zett_browser.storage import open_store

async def browse():
    storage = open_store({str(store)!r})
    try:
        roots = await storage.list_roots(limit=100)
        assert roots.items
        page = await storage.raw_page({AGENT_RUN_ROOT!r}, after_sequence=None, limit=50)
        assert len(page) > 5 and not any(record.problems for record in page)
        await storage.raw_page_before({AGENT_RUN_ROOT!r}, limit=50)
        await storage.get_node({AGENT_RUN_ROOT!r})
        await storage.snapshot_version({AGENT_RUN_ROOT!r})
        await storage.warm_up()
    finally:
        await storage.close()

asyncio.run(browse())
print(sorted(name for name in sys.modules if name.split(".")[0] == "pydantic"))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "[]", result.stdout


def test_the_start_up_stand_ins_and_the_shared_cli_pieces_import_no_toolkit_and_no_storage() -> None:
    """The typed stand-ins (``LazyStore``, ``WarmStore``, the lazy search, usage and exporter)
    and ``cli.args`` (imported by every subcommand) are imported before Textual and the
    storage: their types come from ``model/`` and their services load at first use. The one
    storage modules they may load are stdlib only: ``storage/handout.py`` (what the warm start
    and the start-up reader share) and ``storage/sqlitefile.py`` with its ``errors`` (which
    file a STORE argument names), with the storage package's lazy ``__init__``."""
    modules = loaded_after(
        "import zett_browser.startup.launch, zett_browser.startup.warmstart, zett_browser.startup.lazysearch, "
        "zett_browser.cli.args"
    )
    assert "zett_browser.startup.lazysearch" in modules, "the check sees the modules"
    early = ("textual", "sqlalchemy", "aiosqlite", "pydantic", "zett_browser.storage", "zett_browser.screens")
    light = {
        "zett_browser.storage",
        "zett_browser.storage.handout",
        "zett_browser.storage.sqlitefile",
        "zett_browser.storage.errors",
    }
    assert sorted(name for name in modules if name.startswith(early) and name not in light) == []
    assert heavy(modules) == []
