"""Provides the installed price table's version, read without importing the table or pricing.

An index records the genai-prices version its costs came from (a newer table rebuilds
it); ``search`` and ``usage`` compare it on every run, so reading it must cost next to
nothing: no :mod:`importlib.metadata` (~25 ms of imports), no :mod:`glob`, no decimal.
:mod:`.pricing` re-exports :func:`table_version`.
"""

from __future__ import annotations

import functools
import os


@functools.cache
def table_version() -> str:
    """The installed genai-prices version (read from its metadata: no import of the table).

    The one ``genai_prices-*.dist-info`` beside the package is read directly (what
    :mod:`importlib.metadata` would find there); anything else asks :mod:`importlib.metadata`.
    """
    found = _dist_info_version()
    if found is not None:
        return found
    from importlib.metadata import version

    return version("genai-prices")


def _dist_info_version() -> str | None:
    """The ``Version:`` of the only genai-prices dist-info next to the importable package, or None."""
    from importlib.util import find_spec

    try:
        spec = find_spec("genai_prices")
        if spec is None or spec.origin is None:
            return None
        site = os.path.dirname(os.path.dirname(spec.origin))
        with os.scandir(site) as entries:
            infos = [
                entry.path
                for entry in entries
                if entry.name.startswith("genai_prices-") and entry.name.endswith(".dist-info")
            ]
        if len(infos) != 1:
            return None
        with open(os.path.join(infos[0], "METADATA"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip() or None
                if not line.strip():
                    return None  # the headers ended without one
    except (OSError, ValueError, ImportError):
        return None
    return None


__all__ = ["table_version"]
