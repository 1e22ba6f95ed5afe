"""Dump everything a session store exposes through the storage API, as deterministic JSON.

Runs unchanged under either implementation of the same API::

    python dump_store.py zett_agent   STORE_PATH [--out FILE]   # the real zett-agent runtime
    python dump_store.py zett_browser STORE_PATH [--out FILE]   # zett-browser's reader

It imports ``SQLiteSessionStorage`` and ``decode_messages`` from ``<impl>.storage`` and works on a
copy of the store in a temporary directory, because zett-agent's first call creates missing
tables and indexes (and adds a missing ``session_type`` column) in the file it opens.

Serialization is generic so both sides dump identically: a dataclass becomes
``{"__type__": class name, field: value, ...}`` in ``dataclasses.fields`` order, a pydantic model
the same in ``model_fields`` order, datetime -> isoformat, bytes -> ``{"__bytes__": base64}``,
Enum -> its value, tuple/list -> list, Mapping -> dict with sorted keys. Fields named
``unknown_fields`` or ``problems`` (zett-browser's extra diagnostics) are left out when empty.
A few read-only properties are added after the fields (``_PROPERTIES``).

This file must stay standalone: the zett-agent venv runs it without zett-browser installed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import dataclasses
import datetime
import enum
import importlib
import json
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: zett-browser's extra fields; omitted when empty so both implementations dump alike.
_OPTIONAL_EXTRA_FIELDS = frozenset({"unknown_fields", "problems"})
#: Read-only properties included after the fields of these classes.
_PROPERTIES: dict[str, tuple[str, ...]] = {
    "RawMessageRecord": ("total_tokens", "cache_hit_rate"),
    "SessionView": ("messages",),
}
#: Session id that no store contains: exercises the "unknown session" paths.
UNKNOWN_SESSION_ID = "00000000-0000-7000-8000-000000000000"


def to_jsonable(value: Any) -> Any:
    """Turn one API value into plain JSON data, the same way for both implementations."""
    if value is None or isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"__bytes__": base64.b64encode(bytes(value)).decode("ascii")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [field.name for field in dataclasses.fields(value)]
        return _object(value, names)
    model_fields = getattr(type(value), "model_fields", None)
    if isinstance(model_fields, Mapping):  # pydantic v2 BaseModel
        return _object(value, list(model_fields))
    if isinstance(value, Mapping):
        keys = list(value)
        if all(isinstance(key, str) for key in keys):
            keys.sort()
        return {str(key): to_jsonable(value[key]) for key in keys}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    raise TypeError(f"Cannot dump value of type {type(value).__module__}.{type(value).__qualname__}")


def _object(value: Any, names: list[str]) -> dict[str, Any]:
    type_name = type(value).__name__
    result: dict[str, Any] = {"__type__": type_name}
    for name in names:
        field_value = getattr(value, name)
        if name in _OPTIONAL_EXTRA_FIELDS and not field_value:
            continue
        result[name] = to_jsonable(field_value)
    for name in _PROPERTIES.get(type_name, ()):
        result[name] = to_jsonable(getattr(value, name))
    return result


def _copy_store(source: Path, directory: Path) -> Path:
    """Copy the store and any write-ahead log next to it; the original is never opened."""
    target = directory / source.name
    shutil.copyfile(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return target


def _server_snapshot_rows(url: str) -> list[dict[str, Any]]:
    """Every stored snapshot version on a server store, through a synchronous driver."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_driver_name() == "aiomysql":
        parsed = parsed.set(drivername=f"{parsed.get_backend_name()}+pymysql")
    engine = create_engine(parsed)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT id, session_id, version, compacted_through_sequence, message_json, created_at, updated_at "
                    "FROM session_snapshots ORDER BY session_id, version"
                )
            ).mappings()
            return [
                {key: to_jsonable(value) if key.endswith("_at") else value for key, value in row.items()}
                for row in rows
            ]
    finally:
        engine.dispose()


def _raw_snapshot_rows(path: Path) -> list[dict[str, Any]]:
    """Every stored snapshot version, straight from the table (``load`` shows only the latest)."""
    connection = sqlite3.connect(path)
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "session_snapshots" not in tables:
            return []
        rows = connection.execute(
            "SELECT id, session_id, version, compacted_through_sequence, message_json, created_at, updated_at "
            "FROM session_snapshots ORDER BY session_id, version"
        ).fetchall()
    finally:
        connection.close()
    columns = ("id", "session_id", "version", "compacted_through_sequence", "message_json", "created_at", "updated_at")
    return [dict(zip(columns, row, strict=True)) for row in rows]


async def _session_dump(storage: Any, session_id: str) -> dict[str, Any]:
    view = await storage.load(session_id)
    raw = await storage.list_raw_messages(session_id, limit=10_000)
    count = await storage.count_messages(session_id)
    last = raw[-1].sequence if raw else 0
    # Pagination and range queries: only the sequences, the records are dumped in full above.
    pages = {
        "limit_50_offsets": [
            [record.sequence for record in await storage.list_raw_messages(session_id, limit=50, offset=offset)]
            for offset in range(0, max(count, 1), 50)
        ],
        "after_2_through_5": [
            record.sequence
            for record in await storage.list_raw_messages(session_id, after_sequence=2, through_sequence=5)
        ],
        "after_last_minus_3_limit_2_offset_1": [
            record.sequence
            for record in await storage.list_raw_messages(
                session_id, after_sequence=max(last - 3, 0), limit=2, offset=1
            )
        ],
    }
    return {
        "get_session": to_jsonable(await storage.get_session(session_id)),
        "count_messages": count,
        "list_raw_messages": to_jsonable(raw),
        "pages": pages,
        "load": to_jsonable(view),
    }


async def dump(impl: str, store: Path | str) -> dict[str, Any]:
    """Dump a store through ``impl``: a SQLite file (a copy of it is opened) or a server URL.

    zett-browser opens a server store for browsing (read-only sessions); zett-agent
    opens it as it always does.
    """
    module = importlib.import_module(f"{impl}.storage")
    decode_messages = module.decode_messages
    server = isinstance(store, str) and "://" in store
    with tempfile.TemporaryDirectory(prefix="zett-dump-") as directory:
        if server:
            copy = None
            if impl == "zett_browser":
                storage = module.SQLSessionStorage(store, read_only=True)
            else:
                storage = module.SQLSessionStorage(store)
        else:
            copy = _copy_store(Path(store), Path(directory))
            storage = module.SQLiteSessionStorage(copy)
        try:
            summaries = await storage.list_sessions(limit=10_000)
            session_ids = [summary.session_id for summary in summaries]
            sessions = {session_id: await _session_dump(storage, session_id) for session_id in session_ids}
            known = set(session_ids)
            missing = sorted(
                {summary.parent_session_id for summary in summaries if summary.parent_session_id} - known
            ) + [UNKNOWN_SESSION_ID]
            missing_sessions = {
                session_id: {
                    "get_session": to_jsonable(await storage.get_session(session_id)),
                    "count_messages": await storage.count_messages(session_id),
                    "list_raw_messages": to_jsonable(await storage.list_raw_messages(session_id)),
                    "load": to_jsonable(await storage.load(session_id)),
                }
                for session_id in missing
            }
            session_types = sorted({summary.session_type for summary in summaries})
            queries = {
                "list_sessions_limit_3_pages": [
                    [summary.session_id for summary in await storage.list_sessions(limit=3, offset=offset)]
                    for offset in range(0, max(len(summaries), 1), 3)
                ],
                "list_sessions_by_type": {
                    str(code): [summary.session_id for summary in await storage.list_sessions(session_types=[code])]
                    for code in session_types
                },
                "list_sessions_default_page": [summary.session_id for summary in await storage.list_sessions()],
            }
        finally:
            await storage.close()
        snapshots = [
            {
                **{key: value for key, value in row.items() if key != "message_json"},
                "messages": to_jsonable(decode_messages(row["message_json"])),
            }
            for row in (_raw_snapshot_rows(copy) if copy is not None else _server_snapshot_rows(str(store)))
        ]
    return {
        "list_sessions": to_jsonable(summaries),
        "sessions": sessions,
        "missing_sessions": missing_sessions,
        "queries": queries,
        "snapshot_versions": snapshots,
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("impl", choices=("zett_agent", "zett_browser"))
    parser.add_argument("store", help="a SQLite file, or a server URL")
    parser.add_argument("--out", type=Path, help="write the JSON here instead of stdout")
    args = parser.parse_args(argv)
    if args.impl == "zett_browser":
        # Running this file by path puts tests/compat first on sys.path, not the repository.
        repository = Path(__file__).resolve().parents[2]
        if str(repository) not in sys.path:
            sys.path.append(str(repository))
    if "://" not in args.store and not Path(args.store).is_file():
        parser.error(f"no such store: {args.store}")
    text = render(asyncio.run(dump(args.impl, args.store)))
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
