"""Provides the rows of the key map (:mod:`zett_browser.keymap`) for the inspector and the
views opened over the main screen (detail, search, export, context, timing, usage, ledger, compare)
and the live demo: split from the main screen's rows only to keep each module short."""

from __future__ import annotations

from .keytypes import Row, bind

VIEW_ROWS: tuple[Row, ...] = (
    Row(
        "`s`",
        "inspector",
        "open the highlighted version's summary whole (the pane previews a huge one)",
        (bind("s", "open_summary", "Whole summary", "inspector", palette=False),),
    ),
    Row(
        "`↑` `↓` `pgup` `pgdn` `home` `end`",
        "inspector",
        "move through the snapshot versions (and the ledger's rows); `enter` jumps to the boundary",
        (
            bind("down,j", "cursor(1)", "Next version", "versions", palette=False),
            bind("up,k", "cursor(-1)", "Prev version", "versions", palette=False),
            bind("pagedown", "page(1)", "Page down", "versions", palette=False),
            bind("pageup", "page(-1)", "Page up", "versions", palette=False),
            bind("home", "edge(-1)", "First version", "versions", palette=False),
            bind("end", "edge(1)", "Last version", "versions", palette=False),
            bind("enter", "choose", "Boundary", "versions", palette=False),
        ),
    ),
    Row(
        "`space`",
        "inspector",
        "mark the highlighted version (again: unmark) as the other side of `D`",
        (bind("space", "mark", "Mark", "versions", footer=True, palette=False),),
    ),
    Row(
        "`D`",
        "inspector",
        "diff the marked version (default: the previous) with the highlighted one, and what compaction dropped",
        (bind("D", "diff", "Diff", "versions", footer=True, palette=False),),
    ),
    Row(
        "`L`",
        "anywhere",
        "the open session's compaction ledger (one row per version) and its context curve",
        (bind("L", "ledger", "Ledger", "main", command="Compaction ledger"),),
    ),
    Row(
        "`escape` `q`",
        "ledger, diff",
        "close the ledger or the diff",
        (
            bind("escape", "close", "Close", "ledger", footer=True, palette=False),
            bind("q", "close", "Close", "ledger", palette=False),
        ),
    ),
    Row(
        "`/`",
        "detail view",
        "find in the whole message (`enter`: next match, `escape`: close the field)",
        (bind("slash", "find", "Find", "detail", footer=True, palette=False),),
    ),
    Row(
        "`n` `p`",
        "detail view",
        "next / previous part of a huge message (shown 50 KB at a time; `pagedown` past a part's end goes on)",
        (
            bind("n", "next_part", "Next part", "detail", footer=True, palette=False),
            bind("p", "previous_part", "Prev part", "detail", footer=True, palette=False),
        ),
    ),
    Row(
        "`g` `G`, `home` `end`",
        "detail view",
        "top / bottom of the whole message",
        (
            bind("g", "top", "Top", "detail", footer=True, palette=False),
            bind("G", "bottom", "Bottom", "detail", footer=True, palette=False),
        ),
    ),
    Row(
        "`Y` `v` `E`",
        "detail view",
        "the same for the message shown: every part of it, copied or opened whole",
        (
            bind("Y", "take('copy')", "Copy", "detail", palette=False),
            bind("v", "take('pager')", "Pager", "detail", palette=False),
            bind("E", "take('editor')", "Editor", "detail", palette=False),
        ),
    ),
    Row(
        "`escape` `q`",
        "detail view",
        "close",
        (
            bind("escape", "close", "Close", "detail", footer=True, palette=False),
            bind("q", "dismiss", "Close", "detail", palette=False),
        ),
    ),
    Row(
        "`enter`",
        "search view",
        "in the query field: search; on a hit: open its session with the cursor on that message",
        (bind("enter", "choose", "Open", "hits", footer=True, palette=False),),
    ),
    Row(
        "`↑` `↓` `pgup` `pgdn`",
        "search view",
        "move through the hits; `home` `end`: first / last (more are read as you scroll)",
        (
            bind("down,j", "cursor(1)", "Next hit", "hits", palette=False),
            bind("up,k", "cursor(-1)", "Prev hit", "hits", palette=False),
            bind("pagedown", "page(1)", "Page down", "hits", palette=False),
            bind("pageup", "page(-1)", "Page up", "hits", palette=False),
            bind("home", "edge(-1)", "First hit", "hits", palette=False),
            bind("end", "edge(1)", "Last hit", "hits", palette=False),
        ),
    ),
    Row(
        "`F`",
        "anywhere",
        "filter the tree by the last search: only matching sessions and their ancestors (`esc` in the tree clears)",
        (bind("F", "filter_tree", "Filter tree", "main", command="Filter the tree by the last search"),),
    ),
    Row(
        "`/`",
        "search view",
        "back to the query field",
        (bind("slash", "edit", "Edit query", "search", footer=True, palette=False),),
    ),
    Row(
        "`?`",
        "search view",
        "the query syntax and every key (from the hits; in the query field `?` is typed)",
        (bind("question_mark", "help", "Syntax", "search", footer=True, palette=False),),
    ),
    Row(
        "`escape`",
        "search view",
        "close the search view, back to where you were",
        (bind("escape", "close", "Close", "search", footer=True, palette=False),),
    ),
    Row(
        "`n` `p` `g`",
        "context view",
        "next / previous / first page of the context (the summary comes first)",
        (
            bind("n", "page('next')", "Next page", "context", footer=True, palette=False),
            bind("p", "page('prev')", "Prev page", "context", footer=True, palette=False),
            bind("g", "page('first')", "First", "context", palette=False),
        ),
    ),
    Row(
        "`w`",
        "context view",
        "write the context as a JSON list of zett-agent message envelopes (exactly as stored) to "
        "`zett-context-<session>-at-<N>.json` in the current directory",
        (bind("w", "write_json", "Write JSON", "context", footer=True, palette=False),),
    ),
    Row(
        "`escape` `q`",
        "context view",
        "close, back to the Raw Log",
        (
            bind("escape", "close", "Close", "context", footer=True, palette=False),
            bind("q", "close", "Close", "context", palette=False),
        ),
    ),
    Row(
        "`T`",
        "anywhere",
        "timing view of the open session: each step's thinking / writing / waiting / tool time, "
        "delegated children where they ran, stalls",
        (bind("T", "timing", "Timing", "main", command="Timing view of the session"),),
    ),
    Row(
        "`S`",
        "anywhere",
        "sort the tree: activity / subtree cost / subtree tokens / time / failures (with the side index)",
        (bind("S", "sort_tree", "Sort tree", "main", command="Cycle the tree's sort order"),),
    ),
    Row(
        "`u`",
        "anywhere",
        "usage details of the session selected in the tree: own and subtree totals, cost by model",
        (bind("u", "usage_details", "Usage", "main", command="Usage and cost details"),),
    ),
    Row(
        "`↑` `↓` `enter`",
        "timing view",
        "move; on a step: show it in the Raw Log; on a child: open that session",
        (
            bind("down,j", "cursor(1)", "Next line", "timingview", palette=False),
            bind("up,k", "cursor(-1)", "Previous line", "timingview", palette=False),
            bind("enter", "choose", "Open", "timingview", palette=False),
        ),
    ),
    Row(
        "`n` `p` `g` `G`",
        "timing view",
        "next / previous / first / last page of steps",
        (
            bind("n", "page('next')", "Next page", "timing", footer=True, palette=False),
            bind("p", "page('prev')", "Prev page", "timing", footer=True, palette=False),
            bind("g", "page('first')", "First", "timing", palette=False),
            bind("G", "page('last')", "Last", "timing", palette=False),
        ),
    ),
    Row(
        "`escape` `q`",
        "timing view, usage details",
        "close",
        (
            bind("escape", "close", "Close", "timing", footer=True, palette=False),
            bind("q", "close", "Close", "timing", palette=False),
            bind("escape", "close", "Close", "usage", footer=True, palette=False),
            bind("q", "close", "Close", "usage", palette=False),
        ),
    ),
    Row(
        "`y`",
        "usage details",
        "copy the session's full id",
        (bind("y", "copy_id", "Copy id", "usage", footer=True, palette=False),),
    ),
    Row(
        "`=`",
        "anywhere",
        "compare two sessions: `=` marks the session under the tree's cursor (or the open one), `=` on "
        "another opens both side by side, aligned step by step (`=` on the marked one unmarks it)",
        (bind("equals_sign", "compare", "Compare", "main", command="Compare two sessions (mark, then compare)"),),
    ),
    Row(
        "`↑` `↓` `pgup` `pgdn` `home` `end`",
        "compare view",
        "move through the aligned steps (run A left, run B right)",
        (
            bind("down,j", "cursor(1)", "Next row", "compareview", palette=False),
            bind("up,k", "cursor(-1)", "Previous row", "compareview", palette=False),
            bind("pagedown", "page(1)", "Page down", "compareview", palette=False),
            bind("pageup", "page(-1)", "Page up", "compareview", palette=False),
            bind("home,g", "edge(-1)", "First row", "compareview", palette=False),
            bind("end,G", "edge(1)", "Last row", "compareview", palette=False),
        ),
    ),
    Row(
        "`enter`",
        "compare view",
        "on a row where both runs delegated (`task`/`task_start` calls with the same brief): compare the two "
        "delegated sessions (`escape` comes back)",
        (bind("enter", "children", "Compare children", "compareview", palette=False),),
    ),
    Row(
        "`n` `N`",
        "compare view",
        "next / previous divergence: a row where a stretch of differences starts (the first is highlighted)",
        (
            bind("n", "divergence(1)", "Next diff", "compareview", footer=True, palette=False),
            bind("N", "divergence(-1)", "Prev diff", "compareview", footer=True, palette=False),
        ),
    ),
    Row(
        "`escape` `q`",
        "compare view",
        "back to the tree",
        (
            bind("escape", "close", "Back", "compare", footer=True, palette=False),
            bind("q", "close", "Back", "compare", palette=False),
        ),
    ),
    Row("`s`", "live demo", "pause / resume the writer", (bind("s", "live_pause", "Pause/Play", "live", footer=True),)),
    Row(
        "`+` `-`",
        "live demo",
        "faster / slower",
        (
            bind("plus", "live_speed(2.0)", "Faster", "live", footer=True),
            bind("minus", "live_speed(0.5)", "Slower", "live", footer=True),
        ),
    ),
)
