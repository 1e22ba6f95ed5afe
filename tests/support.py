"""Small helpers shared by the tests."""

from __future__ import annotations

import os
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def listing(directory: Path) -> dict[str, int]:
    """Names and sizes of the files in a directory."""
    return {entry.name: entry.stat().st_size for entry in directory.iterdir()}


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
