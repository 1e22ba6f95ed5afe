"""Provides the one key map: every key, what it does, where, and whether the footer shows it.

Keys used to be described in five places (bindings, footer, help, palette, README) and
they disagreed. Now this table is the only description: screens and widgets build their
``BINDINGS`` from it, the help screen its rows, the command palette its commands, and a
unit test compares the manual's key table (docs/using.md) with :func:`readme_rows`.

A :class:`Row` is one line of the help and of the manual's key table (``n p``: next / previous
page); its :class:`Key` entries are the bindings behind it. A row without keys documents
keys a widget binds itself (the tree's arrows, Textual's tab and ``ctrl+p``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding, BindingType

#: Who binds a key: the app, the main screen, the Raw Log pane, the tree (its own keys),
#: the live demo (bound when it runs), the inspector, the detail view, the search view
#: and its list of hits, or Textual itself.
Scope = Literal[
    "app",
    "main",
    "rawlog",
    "tree",
    "live",
    "inspector",
    "versions",
    "ledger",
    "detail",
    "search",
    "hits",
    "textual",
    "export",
    "context",
    "timing",
    "timingview",
    "usage",
]


@dataclass(frozen=True, slots=True)
class Key:
    """One binding: Textual key names (comma-separated), its action and its titles."""

    keys: str
    action: str
    title: str
    scope: Scope
    footer: bool = False
    #: The command palette's title when it differs from the footer's short one.
    command: str | None = None
    palette: bool = True


@dataclass(frozen=True, slots=True)
class Row:
    """One line of help: the keys as shown (the key table's markdown), where, what they do."""

    label: str
    where: str
    text: str
    keys: tuple[Key, ...] = ()


def _k(keys: str, action: str, title: str, scope: Scope, **kw: object) -> Key:
    return Key(keys, action, title, scope, **kw)  # type: ignore[arg-type]


KEYMAP: tuple[Row, ...] = (
    Row("`↑` `↓`, `enter`", "tree", "move; open the session (or load `more…`); enter never folds a node"),
    Row("`→`", "tree", "expand a node and load its delegated sessions; on an open node, go to its first child"),
    Row("`←`", "tree", "collapse a node; on a closed node or a leaf, go to its parent"),
    Row("`space`", "tree", "expand or collapse"),
    Row(
        "`j` `k` / `↑` `↓`",
        "Raw Log",
        "next / previous message",
        (
            _k("down,j", "cursor(1)", "Next msg", "rawlog", command="Next message"),
            _k("up,k", "cursor(-1)", "Prev msg", "rawlog", command="Previous message"),
        ),
    ),
    Row(
        "`n` `p`",
        "anywhere",
        "next / previous page",
        (
            _k("n", "page('next')", "Next page", "main", footer=True),
            _k("p", "page('prev')", "Prev page", "main", footer=True, command="Previous page"),
        ),
    ),
    Row(
        "`g` `G`",
        "anywhere",
        "first page / last page, the cursor on the session's last message",
        (
            _k("g", "page('first')", "First", "main", command="First page"),
            _k("G", "page('last')", "Last", "main", command="Last page"),
        ),
    ),
    Row(
        "`:`",
        "anywhere",
        "jump to a sequence number: type it in the `: jump to #` field of the status row, "
        "`enter` jumps (the message lands a quarter down the Raw Log, which has the keys), `escape` cancels",
        (
            _k("colon", "jump", "Jump to #", "main", footer=True, command="Jump to sequence"),
            _k("escape", "cancel_jump", "Cancel jump", "main", palette=False),
        ),
    ),
    Row(
        "`r`",
        "Raw Log",
        "show or hide the message's reasoning",
        (_k("r", "toggle_reasoning", "Reasoning", "rawlog", command="Toggle reasoning"),),
    ),
    Row(
        "`enter`",
        "Raw Log",
        "show the whole message (a message of 10,000 characters or more shows a 2,000-character "
        "preview in the Raw Log)",
        (_k("enter", "open_record", "Show all", "rawlog", command="Show the whole message"),),
    ),
    Row(
        "`c`",
        "Raw Log",
        "jump from a tool call to its result and back",
        (_k("c", "jump_call", "Call↔result", "rawlog", command="Tool call ↔ result"),),
    ),
    Row(
        "`o`",
        "Raw Log",
        "open the delegated session of a `task`/`task_start` call or result, a `task_list` or a completion notice"
        " (a choice when several; reveals it in the tree)",
        (_k("o", "open_child", "Open child", "rawlog", command="Open delegated session"),),
    ),
    Row(
        "`x`",
        "Raw Log",
        "time travel: the model's context when it produced this message (summary first), "
        "its size per category and the step's measured input_tokens",
        (_k("x", "time_travel", "Context", "rawlog", command="Model context at this message"),),
    ),
    Row(
        "marks",
        "Raw Log",
        "`[not replayed]`: include_in_messages is false, load() never gives the row back; "
        "dim: covered by the snapshot in force at the cursor's step",
    ),
    Row(
        "`i`",
        "anywhere",
        "show or hide the inspector; `enter` on a version jumps to its boundary",
        (_k("i", "toggle_inspector", "Inspector", "main", footer=True, command="Toggle inspector"),),
    ),
    Row(
        "`m`",
        "anywhere",
        "toggle Raw Log / model view (latest summary + tail; it opens with the summary on screen)",
        (_k("m", "toggle_model_view", "Raw/Model", "main", footer=True, command="Toggle model view"),),
    ),
    Row(
        "`t`",
        "anywhere",
        "show or hide the tree",
        (_k("t", "toggle_tree", "Tree", "main", command="Toggle tree"),),
    ),
    Row(
        "`[` `]`",
        "anywhere",
        "make the tree narrower / wider",
        (
            _k("left_square_bracket", "resize_tree(-4)", "Narrower tree", "main"),
            _k("right_square_bracket", "resize_tree(4)", "Wider tree", "main"),
        ),
    ),
    Row(
        "`b`",
        "anywhere",
        "back to the parent session",
        (_k("b", "back", "Back", "main", footer=True, command="Back to parent"),),
    ),
    Row(
        "`f`",
        "anywhere",
        "follow: keep the Raw Log at the newest message while an agent writes",
        (_k("f", "toggle_follow", "Follow", "main", footer=True, command="Toggle follow"),),
    ),
    Row(
        "`y`",
        "anywhere",
        "copy the open session's full id (shown in the header) to the clipboard (OSC 52), if safe to paste",
        (_k("y", "copy_id", "Copy id", "main", command="Copy session id"),),
    ),
    Row(
        "`Y` `v` `E`",
        "anywhere",
        "the Raw Log's current message, whole: `Y` copies it (OSC 52, up to 100 KB), `v` opens it in "
        "`$PAGER` (`less`), `E` in `$EDITOR` (`vi`, `nano`; read-only)",
        (
            _k("Y", "take('copy')", "Copy msg", "main", command="Copy the message's text"),
            _k("v", "take('pager')", "Pager", "main", command="Open the message in the pager"),
            _k("E", "take('editor')", "Editor", "main", command="Open the message in the editor"),
        ),
    ),
    Row(
        "`e`",
        "anywhere",
        "export the open session (and its delegated sessions) to a Markdown, HTML or JSON file (`escape` closes)",
        (
            _k("e", "export", "Export", "main", command="Export the session to a file"),
            _k("escape", "close", "Close", "export", palette=False),
        ),
    ),
    Row(
        "`/`",
        "anywhere",
        "search the whole history (the search view below; the query syntax is at the end of this help)",
        (_k("slash", "search", "Search", "main", command="Search the history"),),
    ),
    Row(
        "`.` `,`",
        "anywhere",
        "next / previous hit of the last search in the open session",
        (
            _k("full_stop", "hit(1)", "Next hit", "main", command="Next search hit"),
            _k("comma", "hit(-1)", "Prev hit", "main", command="Previous search hit"),
        ),
    ),
    Row("`tab`", "anywhere", "move focus between panes"),
    Row("`ctrl+p`", "anywhere", "command palette with every action"),
    Row(
        "`?`",
        "anywhere",
        "key help",
        (
            _k("question_mark", "help", "Help", "main", footer=True, command="Key help"),
            _k("question_mark", "help", "Help", "app", palette=False),
        ),
    ),
    Row("`q`", "anywhere", "quit", (_k("q", "quit", "Quit", "app", footer=True, palette=False),)),
    Row(
        "`s`",
        "inspector",
        "open the highlighted version's summary whole (the pane previews a huge one)",
        (_k("s", "open_summary", "Whole summary", "inspector", palette=False),),
    ),
    Row(
        "`↑` `↓` `pgup` `pgdn` `home` `end`",
        "inspector",
        "move through the snapshot versions (and the ledger's rows); `enter` jumps to the boundary",
        (
            _k("down,j", "cursor(1)", "Next version", "versions", palette=False),
            _k("up,k", "cursor(-1)", "Prev version", "versions", palette=False),
            _k("pagedown", "page(1)", "Page down", "versions", palette=False),
            _k("pageup", "page(-1)", "Page up", "versions", palette=False),
            _k("home", "edge(-1)", "First version", "versions", palette=False),
            _k("end", "edge(1)", "Last version", "versions", palette=False),
            _k("enter", "choose", "Boundary", "versions", palette=False),
        ),
    ),
    Row(
        "`space`",
        "inspector",
        "mark the highlighted version (again: unmark) as the other side of `D`",
        (_k("space", "mark", "Mark", "versions", footer=True, palette=False),),
    ),
    Row(
        "`D`",
        "inspector",
        "diff the marked version (default: the previous) with the highlighted one, and what compaction dropped",
        (_k("D", "diff", "Diff", "versions", footer=True, palette=False),),
    ),
    Row(
        "`L`",
        "anywhere",
        "the open session's compaction ledger (one row per version) and its context curve",
        (_k("L", "ledger", "Ledger", "main", command="Compaction ledger"),),
    ),
    Row(
        "`escape` `q`",
        "ledger, diff",
        "close the ledger or the diff",
        (
            _k("escape", "close", "Close", "ledger", footer=True, palette=False),
            _k("q", "close", "Close", "ledger", palette=False),
        ),
    ),
    Row(
        "`/`",
        "detail view",
        "find in the whole message (`enter`: next match, `escape`: close the field)",
        (_k("slash", "find", "Find", "detail", footer=True, palette=False),),
    ),
    Row(
        "`n` `p`",
        "detail view",
        "next / previous part of a huge message (shown 50 KB at a time; `pagedown` past a part's end goes on)",
        (
            _k("n", "next_part", "Next part", "detail", footer=True, palette=False),
            _k("p", "previous_part", "Prev part", "detail", footer=True, palette=False),
        ),
    ),
    Row(
        "`g` `G`, `home` `end`",
        "detail view",
        "top / bottom of the whole message",
        (
            _k("g", "top", "Top", "detail", footer=True, palette=False),
            _k("G", "bottom", "Bottom", "detail", footer=True, palette=False),
        ),
    ),
    Row(
        "`Y` `v` `E`",
        "detail view",
        "the same for the message shown: every part of it, copied or opened whole",
        (
            _k("Y", "take('copy')", "Copy", "detail", palette=False),
            _k("v", "take('pager')", "Pager", "detail", palette=False),
            _k("E", "take('editor')", "Editor", "detail", palette=False),
        ),
    ),
    Row(
        "`escape` `q`",
        "detail view",
        "close",
        (
            _k("escape", "close", "Close", "detail", footer=True, palette=False),
            _k("q", "dismiss", "Close", "detail", palette=False),
        ),
    ),
    Row(
        "`enter`",
        "search view",
        "in the query field: search; on a hit: open its session with the cursor on that message",
        (_k("enter", "choose", "Open", "hits", footer=True, palette=False),),
    ),
    Row(
        "`↑` `↓` `pgup` `pgdn`",
        "search view",
        "move through the hits; `home` `end`: first / last (more are read as you scroll)",
        (
            _k("down,j", "cursor(1)", "Next hit", "hits", palette=False),
            _k("up,k", "cursor(-1)", "Prev hit", "hits", palette=False),
            _k("pagedown", "page(1)", "Page down", "hits", palette=False),
            _k("pageup", "page(-1)", "Page up", "hits", palette=False),
            _k("home", "edge(-1)", "First hit", "hits", palette=False),
            _k("end", "edge(1)", "Last hit", "hits", palette=False),
        ),
    ),
    Row(
        "`F`",
        "anywhere",
        "filter the tree by the last search: only matching sessions and their ancestors (`esc` in the tree clears)",
        (_k("F", "filter_tree", "Filter tree", "main", command="Filter the tree by the last search"),),
    ),
    Row(
        "`/`",
        "search view",
        "back to the query field",
        (_k("slash", "edit", "Edit query", "search", footer=True, palette=False),),
    ),
    Row(
        "`?`",
        "search view",
        "the query syntax and every key (from the hits; in the query field `?` is typed)",
        (_k("question_mark", "help", "Syntax", "search", footer=True, palette=False),),
    ),
    Row(
        "`escape`",
        "search view",
        "close the search view, back to where you were",
        (_k("escape", "close", "Close", "search", footer=True, palette=False),),
    ),
    Row(
        "`n` `p` `g`",
        "context view",
        "next / previous / first page of the context (the summary comes first)",
        (
            _k("n", "page('next')", "Next page", "context", footer=True, palette=False),
            _k("p", "page('prev')", "Prev page", "context", footer=True, palette=False),
            _k("g", "page('first')", "First", "context", palette=False),
        ),
    ),
    Row(
        "`w`",
        "context view",
        "write the context as a JSON list of zett-agent message envelopes (exactly as stored) to "
        "`zett-context-<session>-at-<N>.json` in the current directory",
        (_k("w", "write_json", "Write JSON", "context", footer=True, palette=False),),
    ),
    Row(
        "`escape` `q`",
        "context view",
        "close, back to the Raw Log",
        (
            _k("escape", "close", "Close", "context", footer=True, palette=False),
            _k("q", "close", "Close", "context", palette=False),
        ),
    ),
    Row(
        "`T`",
        "anywhere",
        "timing view of the open session: each step's thinking / writing / waiting / tool time, "
        "delegated children where they ran, stalls",
        (_k("T", "timing", "Timing", "main", command="Timing view of the session"),),
    ),
    Row(
        "`S`",
        "anywhere",
        "sort the tree: activity / subtree cost / subtree tokens / time / failures (with the side index)",
        (_k("S", "sort_tree", "Sort tree", "main", command="Cycle the tree's sort order"),),
    ),
    Row(
        "`u`",
        "anywhere",
        "usage details of the session selected in the tree: own and subtree totals, cost by model",
        (_k("u", "usage_details", "Usage", "main", command="Usage and cost details"),),
    ),
    Row(
        "`↑` `↓` `enter`",
        "timing view",
        "move; on a step: show it in the Raw Log; on a child: open that session",
        (
            _k("down,j", "cursor(1)", "Next line", "timingview", palette=False),
            _k("up,k", "cursor(-1)", "Previous line", "timingview", palette=False),
            _k("enter", "choose", "Open", "timingview", palette=False),
        ),
    ),
    Row(
        "`n` `p` `g` `G`",
        "timing view",
        "next / previous / first / last page of steps",
        (
            _k("n", "page('next')", "Next page", "timing", footer=True, palette=False),
            _k("p", "page('prev')", "Prev page", "timing", footer=True, palette=False),
            _k("g", "page('first')", "First", "timing", palette=False),
            _k("G", "page('last')", "Last", "timing", palette=False),
        ),
    ),
    Row(
        "`escape` `q`",
        "timing view, usage details",
        "close",
        (
            _k("escape", "close", "Close", "timing", footer=True, palette=False),
            _k("q", "close", "Close", "timing", palette=False),
            _k("escape", "close", "Close", "usage", footer=True, palette=False),
            _k("q", "close", "Close", "usage", palette=False),
        ),
    ),
    Row(
        "`y`",
        "usage details",
        "copy the session's full id",
        (_k("y", "copy_id", "Copy id", "usage", footer=True, palette=False),),
    ),
    Row("`s`", "live demo", "pause / resume the writer", (_k("s", "live_pause", "Pause/Play", "live", footer=True),)),
    Row(
        "`+` `-`",
        "live demo",
        "faster / slower",
        (
            _k("plus", "live_speed(2.0)", "Faster", "live", footer=True),
            _k("minus", "live_speed(0.5)", "Slower", "live", footer=True),
        ),
    ),
)


def keys(scope: Scope) -> list[Key]:
    """Every key of one scope, in the table's order."""
    return [key for row in KEYMAP for key in row.keys if key.scope == scope]


def bindings(scope: Scope) -> list[BindingType]:
    """The ``BINDINGS`` of a screen or widget, built from the table."""
    return [Binding(key.keys, key.action, key.title, show=key.footer) for key in keys(scope)]


def commands(*scopes: Scope) -> list[tuple[Key, str]]:
    """The command palette's entries of some scopes: each key with its row's help text."""
    return [(key, _plain(row.text)) for row in KEYMAP for key in row.keys if key.scope in scopes and key.palette]


#: How a Textual key name is shown to the user (others show as named).
_SHOWN = {
    "down": "↓",
    "up": "↑",
    "left": "←",
    "right": "→",
    "colon": ":",
    "slash": "/",
    "full_stop": ".",
    "comma": ",",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}


def key_names(keys: str) -> str:
    """A binding's keys as typed (``"down,j"`` → ``"↓ j"``): the command palette shows them."""
    return " ".join(_SHOWN.get(name, name) for name in keys.split(","))


def help_rows() -> list[tuple[str, str, str]]:
    """The help screen's rows: (keys, where, what), without the key table's markdown quotes."""
    return [(_plain(row.label), row.where, _plain(row.text)) for row in KEYMAP]


def readme_rows() -> list[tuple[str, str, str]]:
    """The key table rows of docs/using.md (once README's), exactly as the markdown writes them."""
    return [(row.label, row.where, row.text) for row in KEYMAP]


def _plain(markdown: str) -> str:
    return markdown.replace("`", "")
