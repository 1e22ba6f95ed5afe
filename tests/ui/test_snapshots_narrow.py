"""SVG snapshots at 80×24 (frozen clock, fixed store paths): the narrow layout.

The conventions (clock, paths, keys after the workers settle) are those of test_snapshots.py.
"""

from __future__ import annotations

from typing import Any

from tests.ui.helpers import CHILD, LONG, frozen_clock, run_keys, store_copy
from zett_browser.app import make_app

NARROW = (80, 24)


def test_narrow_main_screen(snap_compare: Any) -> None:
    """Tree and Raw Log; the inspector hidden; `?` and `q` in the footer."""
    app = make_app(str(store_copy("storage_api")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=NARROW, run_before=run_keys())


def test_narrow_inspector_over_the_raw_log(snap_compare: Any) -> None:
    """`i` shows the inspector over the right of the Raw Log."""
    app = make_app(str(store_copy("storage_api")), session=LONG, clock=frozen_clock)
    assert snap_compare(app, terminal_size=NARROW, run_before=run_keys("i"))


def test_narrow_model_view(snap_compare: Any) -> None:
    """The model's context of a compacted session."""
    app = make_app(str(store_copy("storage_api")), session=LONG, clock=frozen_clock)
    assert snap_compare(app, terminal_size=NARROW, run_before=run_keys("m"))


def test_narrow_child_session(snap_compare: Any) -> None:
    """A delegated session: breadcrumb, and the tree opened down to it."""
    app = make_app(str(store_copy("storage_api")), session=CHILD, clock=frozen_clock)
    assert snap_compare(app, terminal_size=NARROW, run_before=run_keys())


def test_narrow_help(snap_compare: Any) -> None:
    """Key help at 80×24."""
    app = make_app(str(store_copy("storage_api")), clock=frozen_clock)
    assert snap_compare(app, terminal_size=NARROW, run_before=run_keys("question_mark"))
