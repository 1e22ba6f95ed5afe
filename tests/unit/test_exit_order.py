"""The command line checks for a left-running input thread only after the command's own
clean-ups (``tests/startup/test_input_thread_exit.py`` runs that check in a fresh interpreter)."""

from __future__ import annotations

import pytest


def test_the_check_comes_after_every_clean_up_of_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked inside ``run_app``, the early end skipped what the command does after the
    app returned: the live demo's fold of its WAL into its store (-wal/-shm left beside it)."""
    from zett_browser import __main__ as cli

    order: list[str] = []

    def command(argv: list[str] | None) -> int:
        try:
            order.append("app returned")
            return 5
        finally:
            order.append("command cleaned up")

    monkeypatch.setattr(cli, "run_command", command)
    monkeypatch.setattr(cli, "end_if_input_left_running", lambda code: order.append(f"checked {code}"))
    assert cli.main(["anything"]) == 5
    assert order == ["app returned", "command cleaned up", "checked 5"]
