"""The app's usage service reads the search service's side index: one index, one sync."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support import DELEGATING_PARENT, ORPHAN
from tests.usage import oracle
from tests.usage.stores import priced_store
from zett_browser.app import make_app
from zett_browser.index.pricing import prices_date
from zett_browser.index.search_service import IndexSearch
from zett_browser.index.usage_service import IndexUsage
from zett_browser.model.usage import TreeSort
from zett_browser.model.usage_service import UsageService
from zett_browser.startup.lazysearch import LazySearch, LazyUsage


async def test_make_app_shares_one_index_between_search_and_usage(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    app = make_app(str(store), index=True, index_dir=tmp_path / "index", poll_interval=0)
    service, search = app.options.usage, app.options.search
    assert isinstance(service, LazyUsage) and isinstance(search, LazySearch)
    real, real_search = service.service(), search.service()
    assert isinstance(real, IndexUsage) and isinstance(real_search, IndexSearch)
    assert real.index is real_search.index  # the same SideIndex: no second sync
    checked: UsageService = service  # the Protocol the UI sees
    assert checked.prices_date.startswith("genai-prices ")  # not built yet: the version only
    assert await service.usage([DELEGATING_PARENT]) == {}  # nothing indexed yet: left out, no error
    assert not await service.complete()
    async with app.run_test(size=(100, 30)) as pilot:
        deadline = time.monotonic() + 30
        while not await service.complete():
            assert time.monotonic() < deadline, "the app's sync never finished"
            await pilot.pause(0.05)
        assert service.prices_date == prices_date()  # as recorded by the build
        found = await service.usage([DELEGATING_PARENT, "missing"])
        assert set(found) == {DELEGATING_PARENT}
        assert found[DELEGATING_PARENT].subtree.messages == oracle.subtree(store, DELEGATING_PARENT).messages
        by_cost = await service.ordered_children(None, TreeSort.COST, 0, 3)
        costs = [oracle.subtree(store, sid).cost for sid in by_cost]
        assert costs == sorted(costs, reverse=True) and len(by_cost) == 3
        assert await service.ordered_orphans(TreeSort.ACTIVITY, 0, 5) == [ORPHAN]


def test_without_the_index_there_is_no_usage_service(tmp_path: Path) -> None:
    store = priced_store(tmp_path / "store")
    assert make_app(str(store), index=False).options.usage is None
