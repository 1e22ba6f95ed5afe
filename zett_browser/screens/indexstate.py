"""Provides :class:`IndexState`: what the screens know of the side index.

Shared by the index's part of the main screen (:mod:`.indexing`, which pushes the search
view) and the search view (:mod:`.search`); apart from both so neither imports the other
for it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IndexState:
    """What the screens know of the index: built yet, and how far a build is."""

    building: bool = False
    done: int = 0
    total: int = 0
    built: bool = False
    #: Syncs finished so far (a search started before one ended may have missed it).
    syncs: int = 0

    def partial_note(self) -> str:
        """What the search view says while results may be incomplete."""
        if self.building and self.total:
            percent = min(99, self.done * 100 // max(self.total, 1))
            return f"index {percent}% built: results may be missing"
        return "index not complete: results may be missing"
