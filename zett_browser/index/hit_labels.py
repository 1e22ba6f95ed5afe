"""Provides search hits named by the one labelling rule (``views.labels``), read from the store.

The side index knows a session's title and agent only; real zett-agent sessions have
neither, so a hit would show its id. A page's hits are named as the tree names them: the
title, what the parent asked, the first prompt, the agent, the short id, and a tag in
front where two sessions of the page would read the same. Reads are batched per page
(one read for the page's nodes, one label read per parent) and decoration: when
the store cannot be read, the hits keep the index's names.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.frozen import replace
from ..views.labels import label_all
from .search import Hit

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Protocol

    from ..model.records import SessionNode

    class LabelReads(Protocol):
        """What naming a hit reads: the storage, or the command line's stdlib reader
        (:class:`zett_browser.storage.quicklabels.QuickLabels`)."""

        async def get_node(self, session_id: str) -> SessionNode | None: ...

        async def get_nodes(self, session_ids: Sequence[str]) -> list[SessionNode]: ...

        async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]: ...


#: Distinct sessions named per call (a page of hits holds fewer).
MAX_SESSIONS = 200


async def session_labels(storage: LabelReads, session_ids: Sequence[str]) -> dict[str, str]:
    """The label of each session in ``session_ids`` that is in the store (at most ``MAX_SESSIONS``)."""
    wanted = list(dict.fromkeys(session_ids))[:MAX_SESSIONS]
    if not wanted:
        return {}
    found = await storage.get_nodes(wanted)
    if len(found) < len(wanted):  # an id read back otherwise (text that was not UTF-8): one by one
        import asyncio  # here: the command line's stdlib path names hits without an event loop

        read = {node.session_id for node in found}
        alone = await asyncio.gather(*(storage.get_node(s) for s in wanted if s not in read))
        found += [node for node in alone if node is not None]
    return await named_nodes(storage, found)


async def named_nodes(storage: LabelReads, nodes: Sequence[SessionNode]) -> dict[str, str]:
    """The label of each of ``nodes``: the untitled ones get what their parent asked (read
    per parent), then the labelling rule names them all."""
    by_parent: dict[str | None, list[SessionNode]] = {}
    for node in nodes:
        if not node.title:
            by_parent.setdefault(node.parent_session_id, []).append(node)
    hints: dict[str, str] = {}
    for parent_id, group in by_parent.items():
        hints.update(await storage.child_labels(parent_id, group))
    named = [replace(node, label_hint=hints.get(node.session_id, node.label_hint)) for node in nodes]
    return label_all(named)


async def labelled_hits(storage: LabelReads, hits: list[Hit]) -> list[Hit]:
    """``hits`` with each session's label (unchanged when the store cannot be read)."""
    try:
        labels = await session_labels(storage, [hit.session_id for hit in hits])
    except Exception:  # noqa: BLE001 - a label is decoration: the index's name still shows
        return hits
    return relabelled(hits, labels)


def relabelled(hits: list[Hit], labels: dict[str, str]) -> list[Hit]:
    """``hits`` with the label of each session ``labels`` names."""
    return [replace(hit, label=labels[hit.session_id]) if hit.session_id in labels else hit for hit in hits]


__all__ = ["MAX_SESSIONS", "labelled_hits", "named_nodes", "relabelled", "session_labels"]
