"""Fast tests: pure functions, no database, no app (``pytest -m unit``)."""
