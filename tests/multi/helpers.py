"""Shared helpers of the several-stores tests: copies of the real runtime's two stores."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from tests.realstore.stores import RealStores

#: The case whose background and foreground children the default profiles wrote to the other store.
ASYNC = "0193a5c0-0000-7000-8000-0000000e0001"
#: The case whose evaluator children are in the parent's own store.
GOAL = "0193a5c0-0000-7000-8000-0000000e0008"


def copies(real: RealStores, directory: Path) -> tuple[Path, Path]:
    """Copies of main.sqlite3 and children.sqlite3 (the generated ones stay untouched)."""
    directory.mkdir(parents=True, exist_ok=True)
    main = directory / "main.sqlite3"
    children = directory / "children.sqlite3"
    shutil.copy(real.main, main)
    shutil.copy(real.children, children)
    return main, children


def fingerprint(directory: Path) -> dict[str, str]:
    """Every file of ``directory`` and a hash of its bytes."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
        if path.is_file()
    }
