"""Provides the view logic, free of any UI toolkit: what records, time travel, the
compaction ledger, snapshot diffs, timing and usage say, and the Raw Log's paging, as
pure functions and plain data that the screens and widgets style.

Nothing here imports Textual.
"""
