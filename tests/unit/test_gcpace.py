"""The collection pacer: CPython's automatic full collections are held off while the app
runs and done from the app's own timer, between its steps (issue 16: a full collection
started inside a frame was the longest UI block of the busy follow run)."""

from __future__ import annotations

import gc

from zett_browser.startup.gcpace import FULL_AFTER, CollectionPacer


def young_collections(count: int) -> None:
    """Run ``count`` generation 1 collections."""
    for _ in range(count):
        gc.collect(1)


def test_it_holds_full_collections_off_and_gives_the_thresholds_back() -> None:
    before = gc.get_threshold()
    pacer = CollectionPacer()
    pacer.start()
    try:
        young, middle, full = gc.get_threshold()
        assert (young, middle) == before[:2] and full > 1_000_000
        gc.collect()  # a clean start: no generation 1 collection counted
        young_collections(FULL_AFTER - 1)
        assert not pacer.collect_if_due(), "not due yet"
        young_collections(1)
        gc.disable()
        try:
            assert not pacer.collect_if_due(), "never while the collector is held off"
        finally:
            gc.enable()
        assert pacer.collect_if_due() and pacer.collections == 1
        assert gc.get_count()[2] == 0
    finally:
        pacer.stop()
    assert gc.get_threshold() == before
    pacer.stop()  # twice is harmless
    assert gc.get_threshold() == before


class Cycle:
    """An object in a reference cycle with itself: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_survivors_are_frozen_and_a_thaw_finds_cyclic_garbage_among_them() -> None:
    """What a paced collection found alive is frozen, so the next one walks only what is new
    (the follow run's longest stall); cyclic garbage among the frozen objects is freed at the
    next thaw, THAW_S later, and stop() leaves nothing frozen by the pacer."""
    import weakref

    from zett_browser.startup.gcpace import THAW_S

    now = [0.0]
    pacer = CollectionPacer(clock=lambda: now[0])
    pacer.start()
    try:
        gc.collect()
        cycle = Cycle()
        gone = weakref.ref(cycle)
        young_collections(FULL_AFTER)
        assert pacer.collect_if_due() and pacer.thaws == 0
        assert gc.get_freeze_count() > 0, "the survivors were frozen"
        del cycle
        young_collections(FULL_AFTER)
        assert pacer.collect_if_due() and pacer.thaws == 0
        assert gone() is not None, "frozen cyclic garbage waits for a thaw"
        now[0] += THAW_S
        young_collections(FULL_AFTER)
        assert pacer.collect_if_due() and pacer.thaws == 1
        assert gone() is None, "the thaw found it"
    finally:
        pacer.stop()
    assert gc.get_freeze_count() == 0
