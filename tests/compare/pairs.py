"""Build the compare tests' session pairs with the real zett-agent 0.2.1 runtime (``drive_pairs.py``).

``generate(python, directory)`` runs the driver with the zett-agent venv's Python, HOME
pointed into ``directory`` (nothing touches ``~/.zett-agent``), and returns the store and
the pairs' session ids. By hand: ``.venv/bin/python -m tests.compare.pairs OUT_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DRIVER = Path(__file__).parent / "drive_pairs.py"


@dataclass(frozen=True)
class Pairs:
    """What the driver wrote: the parents' store, the children's store and the pairs' ids."""

    store: Path
    children: Path
    ids: dict[str, tuple[str, str]]


def generate(python: Path, directory: Path) -> Pairs:
    """Run the driver into ``directory`` and check it succeeded."""
    home = directory / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [str(python), str(DRIVER), str(directory)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=directory,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    ids = json.loads((directory / "pairs.json").read_text(encoding="utf-8"))
    return Pairs(directory / "pairs.sqlite3", directory / "children.sqlite3", {k: tuple(v) for k, v in ids.items()})


if __name__ == "__main__":  # pragma: no cover - a manual helper
    from tests import zett_agent_env

    print(generate(zett_agent_env.zett_agent_python(), Path(sys.argv[1]).resolve()))
