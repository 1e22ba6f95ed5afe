"""Print what REAL zett-agent 0.2.1's ``load()`` returns now, as JSON envelopes.

Run inside the zett-agent venv: ``<venv>/bin/python load_now.py STORE SESSION_ID``.
Used on stores the tests damaged by hand (zett-agent itself would refuse to write them).
"""

from __future__ import annotations

import asyncio
import sys

from zett_agent.storage import SQLiteSessionStorage, encode_messages


async def main(path: str, session_id: str) -> None:
    storage = SQLiteSessionStorage(path)
    try:
        view = await storage.load(session_id)
        print(encode_messages(view.messages))
    finally:
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
