"""The stores the real zett-agent 0.2.1 runtime wrote with every extension (issue 24).

The ``real_stores`` fixture lives in ``tests/conftest.py`` (the UI tests use it too); it
generates the pair once per test run (``stores.generate``).
"""
