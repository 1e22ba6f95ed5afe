"""Build the compare tests' session pairs with the real zett-agent 0.2.1 runtime (``drive_pairs.py``).

``generate(python, directory)`` runs the driver with the zett-agent venv's Python, HOME
pointed into ``directory`` (nothing touches ``~/.zett-agent``), and returns the store and
the pairs' session ids. By hand: ``.venv/bin/python -m tests.compare.pairs OUT_DIR``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
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


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def steady(pairs: Pairs, target: Path) -> Path:
    """A copy of the pairs' store made the same every run, for snapshots.

    The runtime's child ids are random and its clock is the wall clock: child ids become
    fixed ones (in order of appearance), times a fixed moment per session, durations a
    fixed value per row.
    """
    shutil.copy(pairs.store, target)
    with sqlite3.connect(target) as connection:
        sessions = [row[0] for row in connection.execute("SELECT id FROM agent_sessions ORDER BY id")]
        found: dict[str, str] = {}
        rows = connection.execute("SELECT id, content, message_json FROM raw_messages ORDER BY session_id, sequence")
        for row_id, content, message_json in rows.fetchall():
            for old in UUID.findall(f"{content or ''} {message_json}"):
                if old not in sessions and old not in found:
                    found[old] = f"01a245fb-0000-7000-8000-{len(found) + 1:012d}"
            fixed = [content, message_json]
            for old, new in found.items():
                fixed = [value.replace(old, new) if value else value for value in fixed]
            connection.execute("UPDATE raw_messages SET content = ?, message_json = ? WHERE id = ?", (*fixed, row_id))
        for rank, session in enumerate(sessions):
            moment = f"2026-12-03 10:{rank:02d}:00.000000"
            connection.execute(
                "UPDATE agent_sessions SET created_at = ?, updated_at = ? WHERE id = ?", (moment, moment, session)
            )
            connection.execute(
                "UPDATE raw_messages SET started_at = ?, completed_at = ?, created_at = ?, updated_at = ?,"
                " duration_ns = 1000000 * (1 + sequence % 3) WHERE session_id = ?",
                (moment, moment, moment, moment, session),
            )
        connection.commit()
    connection.close()
    return target


if __name__ == "__main__":  # pragma: no cover - a manual helper
    from tests import zett_agent_env

    print(generate(zett_agent_env.zett_agent_python(), Path(sys.argv[1]).resolve()))
