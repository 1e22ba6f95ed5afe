"""Provides the MCP tools that find sessions: list, search with the query language, overview.

Each tool is a plain coroutine over :class:`~.stores.Stores` returning a JSON-ready dict
(the server module only registers them). Sessions are named by the one labelling rule
(:mod:`zett_browser.views.labels`), lists are keyset pages as the tree reads them
(``storage.list_roots`` / ``list_children``), and searches run the full query language
(:mod:`zett_browser.index.query`) on the side index through the app's search service.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..index.query import QueryError, parse
from ..index.usage import index_prices_date, read_usage
from ..model import SessionCursor, SessionNode
from ..model.frozen import replace
from ..model.session_state import classify
from ..storage import SQLSessionStorage
from ..views.labels import label_all
from ..views.usage_json import session_json
from . import shapes
from .bounds import char_budget, cursor_int, cursor_text, line, make_cursor, page_size, read_cursor, reference
from .stores import Store, Stores, ToolProblem

#: Children and snapshot versions an overview lists (the rest: list_sessions, its cursor).
OVERVIEW_ITEMS = 20


async def label_nodes(storage: SQLSessionStorage, nodes: Sequence[SessionNode]) -> dict[str, str]:
    """Each node's label by the tree's rule: untitled ones named by what their parent asked."""
    by_parent: dict[str | None, list[SessionNode]] = {}
    for node in nodes:
        if not node.title:
            by_parent.setdefault(node.parent_session_id, []).append(node)
    hints: dict[str, str] = {}
    for parent_id, group in by_parent.items():
        try:
            hints.update(await storage.child_labels(parent_id, group))
        except Exception:  # noqa: BLE001 - a label is decoration: the node's own name still shows
            continue
    return label_all([replace(node, label_hint=hints.get(node.session_id, node.label_hint)) for node in nodes])


def _session_cursor(kind: str, cursor: SessionCursor, parent: str | None) -> str:
    return make_cursor(
        kind, at=cursor.at, id=cursor.session_id, key=cursor.key, null=cursor.null_key, parent=parent or ""
    )


def _read_session_cursor(token: str, kind: str, parent: str | None) -> SessionCursor:
    fields = read_cursor(token, kind, ("at", "id", "key", "null", "parent"))
    if not isinstance(fields["at"], datetime) or not isinstance(fields["null"], bool):
        raise ToolProblem("not a cursor of this server")
    if cursor_text(fields, "parent") != (parent or ""):
        raise ToolProblem("this cursor continues another list: pass the same parent as for its first page")
    return SessionCursor(fields["at"], cursor_text(fields, "id"), fields["key"], fields["null"])


async def _node_list(store: Store, nodes: Sequence[SessionNode]) -> list[dict[str, Any]]:
    labels = await label_nodes(store.storage, nodes)
    return [shapes.node(node, labels.get(node.session_id)) for node in nodes]


async def list_sessions(
    stores: Stores,
    *,
    store: int | None = None,
    parent: str | None = None,
    query: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Root sessions (newest activity first), a session's children, or the sessions a query matches."""
    size = page_size(limit)
    if query is not None and query.strip():
        return await _matching(stores, query, store=store, parent=parent, cursor=cursor, limit=size)
    chosen = stores.pick(store)
    parent_id = None
    if parent is not None and parent.strip():
        chosen, parent_id = await stores.find_session(parent, store)
    kind = "children" if parent_id is not None else "roots"
    after = _read_session_cursor(cursor, kind, parent_id) if cursor else None
    if parent_id is None:
        page = await chosen.storage.list_roots(limit=size, cursor=after)
    else:
        page = await chosen.storage.list_children(parent_id, limit=size, cursor=after)
    return {
        "store": chosen.number,
        "parent_session_id": parent_id,
        "order": "children in creation order" if parent_id else "roots, newest activity first",
        "sessions": await _node_list(chosen, page.items),
        "next_cursor": _session_cursor(kind, page.next_cursor, parent_id) if page.next_cursor else None,
    }


async def _matching(
    stores: Stores, query: str, *, store: int | None, parent: str | None, cursor: str | None, limit: int
) -> dict[str, Any]:
    """Sessions a query matches (index), newest id first (zett-agent's ids are time-ordered)."""
    chosen = stores.pick(store)
    within = None
    if parent is not None and parent.strip():
        chosen, within = await stores.find_session(parent, store)
    check_query(query)
    _path, complete = await chosen.synced_index()
    matched = await chosen.search.sessions_matching(query, within)
    ordered = sorted(matched.matching, reverse=True)
    offset = 0
    if cursor:
        fields = read_cursor(cursor, "matching", ("offset", "query", "within"))
        if fields["query"] != query or fields["within"] != (within or ""):
            raise ToolProblem("this cursor continues another search: pass the same query and parent")
        offset = cursor_int(fields, "offset")
    wanted = ordered[offset : offset + limit]
    found = await asyncio.gather(*(chosen.storage.get_node(session_id) for session_id in wanted))
    nodes = [node for node in found if node is not None]
    more = offset + limit < len(ordered)
    return {
        "store": chosen.number,
        "query": line(query, 2000),
        "order": "newest session id first",
        "total": len(ordered),
        "index_partial": matched.partial or not complete,
        "sessions": await _node_list(chosen, nodes),
        "next_cursor": make_cursor("matching", offset=offset + limit, query=query, within=within or "")
        if more
        else None,
    }


def check_query(query: str) -> None:
    """Raise :class:`ToolProblem` (the parser's one line) for a query that does not parse."""
    try:
        parse(query)
    except QueryError as error:
        raise ToolProblem(f"bad query: {line(error)}") from None


async def search_messages(
    stores: Stores,
    *,
    query: str,
    store: int | None = None,
    session: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Messages (and snapshot summaries, session titles) matching a query, newest indexed first."""
    check_query(query)
    chosen = stores.pick(store)
    within = None
    if session is not None and session.strip():
        chosen, within = await stores.find_session(session, store)
    after = None
    if cursor:
        fields = read_cursor(cursor, "hits", ("after", "query", "session"))
        if fields["query"] != query or fields["session"] != (within or ""):
            raise ToolProblem("this cursor continues another search: pass the same query and session")
        after = cursor_int(fields, "after")
    await chosen.synced_index()
    page = await chosen.search.search(query, after=after, session=within, limit=page_size(limit))
    hits = [
        {
            **({"session_ref": ref} if (ref := reference(hit.session_id)) is not None else {}),
            "session_id": line(hit.session_id),
            "label": line(hit.label),
            "agent": None if hit.agent is None else line(hit.agent),
            "sequence": hit.sequence,
            "kind": line(hit.kind),
            "time": shapes.when(hit.time),
            "snippet": line(hit.snippet, 1000),
            "match_spans": [list(span) for span in hit.spans],
        }
        for hit in page.hits
    ]
    return {
        "store": chosen.number,
        "query": line(query, 2000),
        "hits": hits,
        "index_partial": page.partial,
        "next_cursor": make_cursor("hits", after=page.next_cursor, query=query, session=within or "")
        if page.next_cursor is not None
        else None,
    }


async def session_overview(
    stores: Stores, *, session: str, store: int | None = None, max_chars: int | None = None
) -> dict[str, Any]:
    """One session: its label, parents, how its last request ended, usage, children, snapshots."""
    chosen, session_id = await stores.find_session(session, store)
    storage = chosen.storage
    node = await storage.get_node(session_id)
    if node is None:
        raise ToolProblem(f"no session {line(repr(session), 80)} in {chosen.name}")
    ancestors = await storage.ancestors(session_id)
    children = await storage.list_children(session_id, limit=OVERVIEW_ITEMS)
    labels = await label_nodes(storage, [*ancestors, node])
    last = await storage.last_rows([session_id])
    versions = await storage.snapshot_versions(
        session_id, after_version=max(0, node.snapshot_count - OVERVIEW_ITEMS) or None, limit=OVERVIEW_ITEMS
    )
    latest = await storage.snapshot_version(session_id) if node.snapshot_count else None
    overview: dict[str, Any] = {
        "store": chosen.number,
        "session": shapes.node(node, labels.get(session_id)),
        "ancestors": [shapes.node(item, labels.get(item.session_id)) for item in ancestors],
        "state": shapes.state(classify(last.get(session_id, []))),
        "children": await _node_list(chosen, children.items),
        "children_next_cursor": _session_cursor("children", children.next_cursor, session_id)
        if children.next_cursor
        else None,
        "snapshot_versions": [shapes.snapshot_meta(meta) for meta in versions],
        "latest_snapshot": shapes.snapshot(latest, char_budget(max_chars)) if latest is not None else None,
    }
    overview["usage"] = await usage_of(chosen, session_id)
    return overview


async def usage_of(store: Store, session_id: str) -> dict[str, Any] | None:
    """The session's usage from the side index (None when not indexed yet)."""
    path, complete = await store.synced_index()
    found = await asyncio.to_thread(read_usage, path, [session_id])
    if session_id not in found:
        return None
    prices = await asyncio.to_thread(index_prices_date, path)
    usage = session_json(found[session_id], prices or "unknown")
    usage["session_id"] = line(usage["session_id"])
    usage["index_partial"] = not complete
    for models in (usage["models"], usage["own_models"]):
        for model in models:
            model["provider"] = None if model["provider"] is None else line(model["provider"])
            model["model"] = None if model["model"] is None else line(model["model"])
    return usage


__all__ = ["check_query", "label_nodes", "usage_of", "list_sessions", "search_messages", "session_overview"]
