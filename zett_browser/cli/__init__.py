"""Provides the subcommands of ``zett-browser`` (one module each, loaded by name from
``zett_browser.__main__`` only when it runs) and :mod:`.args`, the arguments they share.

No module here imports Textual at import time.
"""
