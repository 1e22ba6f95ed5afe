"""Imports SQLAlchemy's asyncio engine without SQLAlchemy's ORM.

``sqlalchemy.ext.asyncio``'s package module imports ``AsyncSession``, which imports the
whole ORM (~50 ms at start-up, a quarter of a bare Textual app's first paint); the
storage layer uses only the Core engine, connection and result classes. :func:`load`
runs before any storage module imports ``sqlalchemy.ext.asyncio``: it registers the
package without running its ``__init__``, imports the engine and result modules, and
puts their public names on the package, so ``from sqlalchemy.ext.asyncio import
AsyncConnection`` costs no ORM. Any other name (``AsyncSession``...) runs the real
``__init__`` on first use, so code elsewhere that wants the ORM still gets it.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

PACKAGE = "sqlalchemy.ext.asyncio"
#: The cheap submodules and the names they give the package.
CHEAP = {
    "engine": (
        "AsyncConnection",
        "AsyncEngine",
        "AsyncTransaction",
        "async_engine_from_config",
        "create_async_engine",
        "create_async_pool_from_url",
    ),
    "result": ("AsyncMappingResult", "AsyncResult", "AsyncScalarResult", "AsyncTupleResult"),
}


def load() -> None:
    """Make ``sqlalchemy.ext.asyncio`` importable with only its engine (idempotent)."""
    if PACKAGE in sys.modules:
        return
    import sqlalchemy.ext  # the parent package: plain, cheap

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None:
        return  # an unusual SQLAlchemy: import it the ordinary way
    package = importlib.util.module_from_spec(spec)
    state = {"complete": False}

    def complete(name: str) -> Any:
        """The package's real ``__init__``, run once when a name it alone gives is asked for."""
        if state["complete"] or name.startswith("__"):
            raise AttributeError(name)
        state["complete"] = True
        assert spec.loader is not None
        spec.loader.exec_module(package)
        return getattr(package, name)

    sys.modules[PACKAGE] = package
    sqlalchemy.ext.asyncio = package  # type: ignore[attr-defined]
    try:
        for submodule, names in CHEAP.items():
            module: ModuleType = importlib.import_module(f"{PACKAGE}.{submodule}")
            for name in names:
                setattr(package, name, getattr(module, name))
        # Only now: while the submodules import, ``from . import exc`` must find the module.
        package.__getattr__ = complete  # type: ignore[method-assign]
    except Exception:  # noqa: BLE001 - a layout we do not know: fall back to the real package
        del sys.modules[PACKAGE]
        importlib.import_module(PACKAGE)


load()  # importing this module is what the storage package does first
