"""Provides the commands of ``zett-browser`` (one module each, loaded by name from
``zett_browser.__main__`` only when it runs: :mod:`.browse` the browser itself, :mod:`.demo`,
index and search, export, context, usage, serve) and :mod:`.args`, the arguments they share.

No module here imports Textual at import time.
"""
