"""A lone surrogate in one message (``"\\ud800"`` in its JSON) no longer stops the whole index.

Decoded from JSON, the text holds a character with no UTF-8 form; sqlite3 refused the batch
(``UnicodeEncodeError``), so the sync failed and search and usage found nothing anywhere in
the store. The index writes it as U+FFFD, the character the app shows for it.
"""

from __future__ import annotations

from pathlib import Path

from tests.adversarial.hostile import CHILD, HOSTILE_CHILD, PARENT, hostile_store
from tests.index.helpers import find
from tests.usage.stores import sync_now
from zett_browser.index.files import index_stats
from zett_browser.index.usage import read_usage


def test_the_store_indexes_searches_and_totals(tmp_path: Path) -> None:
    store = hostile_store(tmp_path)
    index = sync_now(store, tmp_path / "index")
    assert index_stats(index.path)["messages"] == 21 + 5  # every row of both sessions
    hits = find(index, "bom done")  # the words around the surrogate, in the hostile rows
    assert {(hit.session_id, hit.sequence) for hit in hits} == {(HOSTILE_CHILD, 2), (HOSTILE_CHILD, 4)}
    assert any("\ufffd" in hit.snippet for hit in hits)
    assert find(index, "kind:assistant")  # and the rest of the store
    usage = read_usage(index.path, [PARENT, HOSTILE_CHILD])
    assert set(usage) == {PARENT, HOSTILE_CHILD} and usage[PARENT].subtree.messages == 26
    assert CHILD not in usage
