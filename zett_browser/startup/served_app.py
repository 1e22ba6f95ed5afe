"""Provides one app process of ``zett-browser serve`` (``python -m zett_browser.startup.served_app``).

textual-serve starts it once per browser tab (:mod:`zett_browser.cli.serve` builds the
command). It lives apart from ``cli.serve`` because it runs the main command, whose
module loads ``cli.serve`` by name: kept there, the two would import each other.
"""

from __future__ import annotations

import json
import os
import sys

from ..__main__ import main
from ..cli.args import PROG
from ..cli.serve import ARGV_VARIABLE, end_with_server


def run_served() -> int:
    """One served app: ``zett-browser`` with the arguments ``serve`` checked, writing no file."""
    if ARGV_VARIABLE not in os.environ:
        print(f"{PROG}: this module is run by `{PROG} serve`, not by hand", file=sys.stderr)
        return 2
    end_with_server()
    return main([*json.loads(os.environ[ARGV_VARIABLE]), "--served"])


if __name__ == "__main__":
    raise SystemExit(run_served())
