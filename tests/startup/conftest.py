"""Marks every test here ``startup``: each starts a fresh interpreter (what start-up imports,
how the process ends), so they are kept out of the quick ``unit`` tier (``pytest -m startup``)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.path).startswith(here + "/"):
            item.add_marker(pytest.mark.startup)
