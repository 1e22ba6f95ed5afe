"""Provides how the app starts and stops: the fast launch of a SQLite store, the warm
start's first reads, services imported when first used, the garbage-collection pacer,
graceful exit on signals, and one process of ``zett-browser serve``.
"""
