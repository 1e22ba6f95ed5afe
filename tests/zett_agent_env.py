"""A throwaway virtual environment holding the real ``zett-agent`` runtime.

The compatibility tests and the fixture generator run zett-agent itself (never a copy of its
code) in a separate interpreter, so that zett-browser's own environment does not have to
install zett-agent and its provider SDKs.

``zett_agent_python()`` returns the ``python`` of a virtual environment that has exactly
``zett-agent[postgres,mysql]==0.2.1`` installed with pip, creating it when it is missing. The environment lives
in ``$ZETT_AGENT_VENV`` when that is set, else in
``~/.cache/zett-browser-tests/zett-agent-0.2.1``.

* Idempotent: a marker file is written only after the install has been verified, so a
  half-built environment (interrupted install, wrong version) is deleted and rebuilt.
* Safe for parallel pytest workers: building happens under an exclusive ``fcntl`` lock on a
  file next to the environment; other workers wait and then find the marker.

Run it as a script to build the environment and print its interpreter::

    python tests/zett_agent_env.py            # zett-agent 0.2.1
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ZETT_AGENT_VERSION = "0.2.1"
_MARKER_NAME = ".zett-browser-tests-ready.json"
_CACHE_ROOT = Path("~/.cache/zett-browser-tests")


def default_venv_dir(version: str = ZETT_AGENT_VERSION) -> Path:
    """Where the environment for ``version`` lives when no explicit path is given."""
    return (_CACHE_ROOT / f"zett-agent-{version}").expanduser()


def _venv_python(venv_dir: Path) -> Path:
    if os.name == "nt":  # pragma: no cover - the tests run on POSIX (fcntl)
        return venv_dir / "Scripts" / "python.exe"
    return venv_dir / "bin" / "python"


def _expected_marker(version: str) -> dict[str, str]:
    # Deliberately not the creating interpreter's path: pytest in the project venv and a
    # plain ``python3`` running make_fixtures.py must share one environment.
    return {"requirement": f"zett-agent[postgres,mysql]=={version}"}


def _marker_ok(venv_dir: Path, expected: dict[str, str]) -> bool:
    marker = venv_dir / _MARKER_NAME
    try:
        recorded = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == expected and _venv_python(venv_dir).exists()


def _run(command: list[str], *, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"command failed ({result.returncode}): {' '.join(command)}\n"
            f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
        )


def ensure_zett_agent_venv(
    version: str = ZETT_AGENT_VERSION,
    venv_dir: Path | str | None = None,
    *,
    base_python: Path | str | None = None,
) -> Path:
    """Return the python of a venv with exactly ``zett-agent==version``; build it if needed.

    Args:
        version: zett-agent release to install from PyPI.
        venv_dir: Environment directory; defaults to ``default_venv_dir(version)``.
        base_python: Interpreter that creates the venv; defaults to ``sys.executable``. An
            older zett-agent release may need a newer Python than the one running this.
    """
    directory = Path(venv_dir).expanduser() if venv_dir is not None else default_venv_dir(version)
    directory = directory.absolute()
    creator = str(base_python) if base_python is not None else sys.executable
    expected = _expected_marker(version)
    if _marker_ok(directory, expected):
        return _venv_python(directory)

    directory.parent.mkdir(parents=True, exist_ok=True)
    lock_path = directory.parent / f".{directory.name}.lock"
    with open(lock_path, "a+") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            # Another worker may have finished while this one waited for the lock.
            if _marker_ok(directory, expected):
                return _venv_python(directory)
            if directory.exists():
                shutil.rmtree(directory)
            # The venv must not inherit this process's virtualenv or user site.
            env = {
                key: value
                for key, value in os.environ.items()
                if key not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
            }
            env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
            env["PIP_NO_INPUT"] = "1"
            _run([creator, "-m", "venv", str(directory)], env=env)
            python = _venv_python(directory)
            _run([str(python), "-m", "pip", "install", "--quiet", f"zett-agent[postgres,mysql]=={version}"], env=env)
            check = (
                "import importlib.metadata as m, sys\n"
                "import zett_agent.storage, sqlalchemy, aiosqlite, greenlet, psycopg, aiomysql\n"
                f"v = m.version('zett-agent')\n"
                f"sys.exit(0 if v == {version!r} else f'zett-agent {{v}} installed, wanted {version}')\n"
            )
            _run([str(python), "-c", check], env=env)
            (directory / _MARKER_NAME).write_text(json.dumps(expected), encoding="utf-8")
            return python
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def zett_agent_python() -> Path:
    """Return the python of the throwaway venv with exactly ``zett-agent==0.2.1`` installed.

    The venv is ``$ZETT_AGENT_VENV`` when set, else ``~/.cache/zett-browser-tests/zett-agent-0.2.1``.
    It is created on first use (this needs PyPI) and reused afterwards.
    """
    override = os.environ.get("ZETT_AGENT_VENV")
    return ensure_zett_agent_venv(ZETT_AGENT_VERSION, Path(override) if override else None)


if __name__ == "__main__":
    print(zett_agent_python())
