"""UI test set-up: snapshots name this run's store directory as the accepted ones do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import pytest_textual_snapshot  # type: ignore[import-untyped]

from tests.ui.helpers import SNAP_DIR, SNAPSHOT_DIR_NAME


@pytest.fixture(autouse=True, scope="session")
def _snapshots_name_the_run_directory_canonically() -> Iterator[None]:
    """The header shows a store's resolved path, and each run copies its stores into a directory
    of its own (helpers.SNAP_DIR): an SVG is compared with that directory's name written as
    the accepted snapshots have it. Both names have the same length, so nothing else moves."""
    normalize = pytest_textual_snapshot.normalize_svg

    def normalize_run_directory(svg: str) -> str:
        svg = normalize(svg)
        # Longest first: a narrow header cuts the path, leaving a prefix of the name.
        for length in range(len(SNAP_DIR.name), len("zett-browser-"), -1):
            svg = svg.replace(f"/{SNAP_DIR.name[:length]}", f"/{SNAPSHOT_DIR_NAME[:length]}")
        return svg

    pytest_textual_snapshot.normalize_svg = normalize_run_directory
    try:
        yield
    finally:
        pytest_textual_snapshot.normalize_svg = normalize
