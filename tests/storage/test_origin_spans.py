"""What made each snapshot version is read in ranges (windows close together as one): the same
origins as one window per version, on a store compacted densely and sparsely."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bigstore import COMPACTED_SESSION, build_compacted
from zett_browser.storage import open_store
from zett_browser.storage.origins import GAP, WINDOW, _spans


def test_spans_join_close_windows_and_keep_far_ones_apart() -> None:
    assert _spans([]) == []
    assert _spans([10]) == [(10, 10 + WINDOW)]
    assert _spans([0, 40, 80]) == [(0, 80 + WINDOW)]
    far = 10 + WINDOW + GAP + 1
    assert _spans([10, far]) == [(10, 10 + WINDOW), (far, far + WINDOW)]
    assert _spans([5, 5, 6]) == [(5, 6 + WINDOW)]


@pytest.mark.parametrize("every", [10, 40, 400])
async def test_origins_read_in_ranges_equal_one_window_per_version(tmp_path: Path, every: int) -> None:
    path = tmp_path / "compacted.sqlite3"
    build_compacted(path, messages=2_000, every=every)
    storage = open_store(path)
    try:
        versions = await storage.all_snapshot_versions(COMPACTED_SESSION)
        assert len(versions) == 2_000 // every
        together = await storage.snapshot_origins(COMPACTED_SESSION, versions)
        # Each version alone is one window, read by itself.
        alone = {}
        for meta in versions[-200:]:
            alone.update(await storage.snapshot_origins(COMPACTED_SESSION, [meta]))
    finally:
        await storage.close()
    assert together == alone
    assert len(together) == min(200, len(versions))
    assert any(origin.kind is not None for origin in together.values())
