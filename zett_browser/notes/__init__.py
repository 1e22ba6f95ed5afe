"""Provides pins, labels and notes on sessions and messages, kept in one notes file apart from the store.

:mod:`.db` is the file (its place, plain tables and their reads and writes), :mod:`.service`
the app's :class:`~zett_browser.model.notes.NotesService` over it, :mod:`.match` what the
search's ``pinned:``, ``label:`` and ``note:`` select, :mod:`.identity` the store's key
(the side index's identity, so notes follow the store and survive an index rebuild).
No Textual here.
"""
