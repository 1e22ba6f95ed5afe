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

from textual.binding import Binding, BindingType

from .keytypes import Key as Key
from .keytypes import Row, Scope, bind
from .keyviews import VIEW_ROWS

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
            bind("down,j", "cursor(1)", "Next msg", "rawlog", command="Next message"),
            bind("up,k", "cursor(-1)", "Prev msg", "rawlog", command="Previous message"),
        ),
    ),
    Row(
        "`n` `p`",
        "anywhere",
        "next / previous page",
        (
            bind("n", "page('next')", "Next page", "main", footer=True),
            bind("p", "page('prev')", "Prev page", "main", footer=True, command="Previous page"),
        ),
    ),
    Row(
        "`g` `G`",
        "anywhere",
        "first page / last page, the cursor on the session's last message",
        (
            bind("g", "page('first')", "First", "main", command="First page"),
            bind("G", "page('last')", "Last", "main", command="Last page"),
        ),
    ),
    Row(
        "`:`",
        "anywhere",
        "jump to a sequence number: type it in the `: jump to #` field of the status row, "
        "`enter` jumps (the message lands a quarter down the Raw Log, which has the keys), `escape` cancels",
        (
            bind("colon", "jump", "Jump to #", "main", footer=True, command="Jump to sequence"),
            bind("escape", "cancel_jump", "Cancel jump", "main", palette=False),
        ),
    ),
    Row(
        "`r`",
        "Raw Log",
        "show or hide the message's reasoning",
        (bind("r", "toggle_reasoning", "Reasoning", "rawlog", command="Toggle reasoning"),),
    ),
    Row(
        "`enter`",
        "Raw Log",
        "show the whole message (a message of 10,000 characters or more shows a 2,000-character "
        "preview in the Raw Log)",
        (bind("enter", "open_record", "Show all", "rawlog", command="Show the whole message"),),
    ),
    Row(
        "`c`",
        "Raw Log",
        "jump from a tool call to its result and back",
        (bind("c", "jump_call", "Call↔result", "rawlog", command="Tool call ↔ result"),),
    ),
    Row(
        "`o`",
        "Raw Log",
        "open the delegated session of a `task`/`task_start` call or result, a `task_list` or a completion notice"
        " (a choice when several; reveals it in the tree)",
        (bind("o", "open_child", "Open child", "rawlog", command="Open delegated session"),),
    ),
    Row(
        "`x`",
        "Raw Log",
        "time travel: the model's context when it produced this message (summary first), "
        "its size per category and the step's measured input_tokens",
        (bind("x", "time_travel", "Context", "rawlog", command="Model context at this message"),),
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
        (bind("i", "toggle_inspector", "Inspector", "main", footer=True, command="Toggle inspector"),),
    ),
    Row(
        "`m`",
        "anywhere",
        "toggle Raw Log / model view (latest summary + tail; it opens with the summary on screen)",
        (bind("m", "toggle_model_view", "Raw/Model", "main", footer=True, command="Toggle model view"),),
    ),
    Row(
        "`t`",
        "anywhere",
        "show or hide the tree",
        (bind("t", "toggle_tree", "Tree", "main", command="Toggle tree"),),
    ),
    Row(
        "`w`",
        "anywhere",
        "with several stores open (`zett-browser A B …`): group the tree by where sessions are stored, or "
        "merge the stores' sessions into one list by activity",
        (bind("w", "group_stores", "Group stores", "main", command="Group or merge the open stores"),),
    ),
    Row(
        "`[` `]`",
        "anywhere",
        "make the tree narrower / wider",
        (
            bind("left_square_bracket", "resize_tree(-4)", "Narrower tree", "main"),
            bind("right_square_bracket", "resize_tree(4)", "Wider tree", "main"),
        ),
    ),
    Row(
        "`b`",
        "anywhere",
        "back to the parent session",
        (bind("b", "back", "Back", "main", footer=True, command="Back to parent"),),
    ),
    Row(
        "`f`",
        "anywhere",
        "follow: keep the Raw Log at the newest message while an agent writes",
        (bind("f", "toggle_follow", "Follow", "main", footer=True, command="Toggle follow"),),
    ),
    Row(
        "`y`",
        "anywhere",
        "copy the open session's full id (shown in the header) to the clipboard (OSC 52), if safe to paste",
        (bind("y", "copy_id", "Copy id", "main", command="Copy session id"),),
    ),
    Row(
        "`Y` `v` `E`",
        "anywhere",
        "the Raw Log's current message, whole: `Y` copies it (OSC 52, up to 100 KB), `v` opens it in "
        "`$PAGER` (`less`), `E` in `$EDITOR` (`vi`, `nano`; read-only)",
        (
            bind("Y", "take('copy')", "Copy msg", "main", command="Copy the message's text"),
            bind("v", "take('pager')", "Pager", "main", command="Open the message in the pager"),
            bind("E", "take('editor')", "Editor", "main", command="Open the message in the editor"),
        ),
    ),
    Row(
        "`e`",
        "anywhere",
        "export the open session (and its delegated sessions) to a Markdown, HTML or JSON file (`escape` closes)",
        (
            bind("e", "export", "Export", "main", command="Export the session to a file"),
            bind("escape", "close", "Close", "export", palette=False),
        ),
    ),
    Row(
        "`/`",
        "anywhere",
        "search the whole history (the search view below; the query syntax is at the end of this help)",
        (bind("slash", "search", "Search", "main", command="Search the history"),),
    ),
    Row(
        "`.` `,`",
        "anywhere",
        "next / previous hit of the last search in the open session",
        (
            bind("full_stop", "hit(1)", "Next hit", "main", command="Next search hit"),
            bind("comma", "hit(-1)", "Prev hit", "main", command="Previous search hit"),
        ),
    ),
    Row(
        "`*`",
        "anywhere",
        "pin or unpin the session under the tree's cursor (when the tree has the focus) or the Raw Log's message"
        " (kept in the notes file, never in the store; see docs/notes.md)",
        (bind("asterisk", "pin", "Pin", "main", command="Pin or unpin"),),
    ),
    Row(
        "`l` `a`",
        "anywhere",
        "labels (`good`, `regression`, any text, comma-separated) / a note on the same session or message;"
        " `enter` saves, `escape` cancels, an empty line removes them",
        (
            bind("l", "label", "Label", "main", command="Label the session or message"),
            bind("a", "note", "Note", "main", command="Write a note on the session or message"),
        ),
    ),
    Row("`tab`", "anywhere", "move focus between panes"),
    Row("`ctrl+p`", "anywhere", "command palette with every action"),
    Row(
        "`?`",
        "anywhere",
        "key help",
        (
            bind("question_mark", "help", "Help", "main", footer=True, command="Key help"),
            bind("question_mark", "help", "Help", "app", palette=False),
        ),
    ),
    Row("`q`", "anywhere", "quit", (bind("q", "quit", "Quit", "app", footer=True, palette=False),)),
    *VIEW_ROWS,
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
    "equals_sign": "=",
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
