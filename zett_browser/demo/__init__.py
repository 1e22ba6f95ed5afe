"""Provides the demo store (:mod:`.store`) and the live compaction demo (:mod:`.live`)."""
