"""Provides the labels of search hits' sessions read through the stdlib driver, for the command line.

zett-agent's runtime gives no session a title, so ``zett-browser search`` names almost
every hit by what its parent asked or its first prompt (:mod:`.labels`). Opening the SQL
storage for that costs more than the search itself (SQLAlchemy's import), so the command
line reads the same rows here: the nodes through :class:`.quickread.QuickReader`'s
generated statements, and the three label queries of :mod:`.labels` written out for
SQLite with the same conditions (``LIKE … ESCAPE '/'`` as SQLAlchemy's ``autoescape``
renders it). Their rows go through the same decoding and assembly (:mod:`.asked`), so
both paths give the same labels (a test compares them on real stores).

As in :mod:`.labels`, a query that fails gives no label, never an error. Anything the
node reads decline (:class:`.quickread.Declined`) goes back to the caller, which then
opens the storage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model.nodes import SessionNode
from .asked import (
    ASSISTANT,
    CALL_WINDOW,
    FIRST_USER_WITHIN,
    MAX_JSON_CHARS,
    PREVIEW_CHARS,
    TOOL,
    USER,
    add_arguments,
    add_link,
    asked_labels,
    first_prompts,
    requests,
)
from .quickread import Declined, QuickReader

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from .asked import Arguments, Links, Requests

    T = TypeVar("T")
#: Host parameters per statement: SQLite 3.32+ allows 32,766; older builds 999.
MAX_PARAMETERS = 900


def _like(value: str) -> str:
    """``value`` escaped as SQLAlchemy's ``contains(…, autoescape=True)`` escapes it (``/``)."""
    return value.replace("/", "//").replace("%", "/%").replace("_", "/_")


class QuickLabels:
    """``get_node``, ``get_nodes`` and ``child_labels`` of an open :class:`.quickread.QuickReader`'s store.

    Coroutines of the storage's signatures that never suspend (what
    :func:`zett_browser.index.hit_labels.labelled_hits` awaits).
    """

    def __init__(self, context: QuickReader) -> None:
        self._context = context

    async def get_node(self, session_id: str) -> SessionNode | None:
        return await self._context.get_node(session_id)

    async def get_nodes(self, session_ids: Sequence[str]) -> list[SessionNode]:
        """Each node alone, through the storage's own generated statement (a few per page)."""
        found = [await self._context.get_node(session_id) for session_id in dict.fromkeys(session_ids)]
        return [node for node in found if node is not None]

    async def child_labels(self, parent_id: str | None, nodes: Sequence[SessionNode]) -> dict[str, str]:
        """As :func:`.labels.child_labels`, on the same rows."""
        wanted = [node.session_id for node in nodes if not node.title]
        if not wanted:
            return {}
        asked: Requests = {}
        if parent_id is not None:
            asked = self._best_effort(lambda: self._task_requests(parent_id, wanted))
        missing = [session_id for session_id in wanted if not asked.get(session_id, ("", "", None, None))[0]]
        prompts: dict[str, str] = {}
        if missing:
            prompts = self._best_effort(lambda: self._first_user_messages(missing))
        return asked_labels(wanted, asked, prompts)

    @staticmethod
    def _best_effort(work: Callable[[], dict[str, T]]) -> dict[str, T]:
        try:
            return work()
        except Declined:
            raise
        except Exception:  # noqa: BLE001 - a label is decoration, as in .labels
            return {}

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        if len(params) > MAX_PARAMETERS:
            raise Declined("more parameters than every SQLite build takes")  # the storage reads these
        return self._context.query(sql, params)

    def _first_user_messages(self, session_ids: list[str]) -> dict[str, str]:
        marks = ", ".join("?" * len(session_ids))
        sql = (
            "SELECT raw_messages.session_id, CAST(substr(raw_messages.content, ?, ?) AS BLOB) AS anon_1"
            f" FROM raw_messages WHERE raw_messages.session_id IN ({marks})"  # noqa: S608 - only marks
            " AND raw_messages.sequence <= ? AND raw_messages.role = ?"
            " ORDER BY raw_messages.session_id, raw_messages.sequence"
        )
        return first_prompts(self._rows(sql, [1, PREVIEW_CHARS, *session_ids, FIRST_USER_WITHIN, USER]))

    def _task_requests(self, parent_id: str, session_ids: list[str]) -> Requests:
        likes = " OR ".join("(raw_messages.content LIKE '%' || ? || '%' ESCAPE '/')" for _ in session_ids)
        sql = (
            "SELECT raw_messages.sequence, raw_messages.message_json FROM raw_messages"
            " WHERE raw_messages.session_id = ? AND raw_messages.role = ? AND raw_messages.tool_name = ?"
            f" AND ({likes}) AND length(raw_messages.message_json) <= ?"  # noqa: S608 - only marks
            " ORDER BY raw_messages.sequence"
        )
        params = [parent_id, TOOL, "task", *map(_like, session_ids), MAX_JSON_CHARS]
        wanted = set(session_ids)
        links: Links = {}
        for sequence, message_json in self._rows(sql, params):
            add_link(links, wanted, sequence, message_json)
        if not links:
            return {}
        window = "(raw_messages.session_id = ? AND raw_messages.role = ? AND raw_messages.sequence BETWEEN ? AND ?)"
        sql = (
            "SELECT raw_messages.sequence, raw_messages.message_json FROM raw_messages"
            f" WHERE ({' OR '.join(window for _ in links)})"  # noqa: S608 - only marks
            " AND length(raw_messages.message_json) <= ?"
        )
        params = [
            value
            for _child, _type, sequence in links.values()
            for value in (parent_id, ASSISTANT, sequence - CALL_WINDOW, sequence - 1)
        ]
        arguments: Arguments = {}
        for call_sequence, message_json in self._rows(sql, [*params, MAX_JSON_CHARS]):
            add_arguments(arguments, links, call_sequence, message_json)
        return requests(links, arguments)


__all__ = ["QuickLabels"]
