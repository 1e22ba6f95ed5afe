# mypy: disable-error-code="import-not-found,untyped-decorator,misc,no-any-return"
# (zett-agent is installed only in its side venv: its classes are Any to mypy here)
"""Write pairs of sessions for the compare tests with the REAL zett-agent 0.2.1 runtime, offline.

Run inside the zett-agent venv (``tests/zett_agent_env.py``), never with the project's
interpreter::

    <zett-agent venv>/bin/python drive_pairs.py OUT_DIR

Writes ``OUT_DIR/pairs.sqlite3`` (the parents) and ``OUT_DIR/children.sqlite3`` (the
delegated children of zett-agent's default subagent profiles, written to
``~/.zett-agent/sessions.sqlite3`` under ``OUT_DIR/home``), and ``OUT_DIR/pairs.json``:
``{name: [session A, session B]}``. Every row is written by the runtime and
``SQLiteSessionExtension``; the models are the scripted ones of
``tests/realstore/drive_runtime.py``. The pairs (the same script each time):

- ``result``: one tool result changed (``lookup('beta')`` answers otherwise in B);
- ``compaction``: A compacted (by ``Agent.compact()`` after its second request, then in
  its requests by ``CompactionExtension``), B never;
- ``fanout``: A delegates three ``task`` briefs in one step, B two of them;
- ``stop``: B's model is cut off (``max_tokens``) where A's calls ``lookup('gamma')``: B's run
  ends there.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import sys
from contextlib import aclosing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "realstore"))

import drive_runtime as runtime  # noqa: E402 - sets HOME under OUT_DIR before zett-agent loads
from drive_runtime import ScriptedModel, Step  # noqa: E402
from zett_agent.agent import Agent, AgentRunConfig  # noqa: E402
from zett_agent.extensions.compaction import CompactionExtension  # noqa: E402
from zett_agent.extensions.sqlite import SQLiteSessionExtension  # noqa: E402
from zett_agent.extensions.subagent import SubAgentExtension  # noqa: E402
from zett_agent.storage import SQLiteSessionStorage  # noqa: E402
from zett_agent.tools import tool  # noqa: E402

OUT = runtime.OUT
PAIRS = OUT / "pairs.sqlite3"
CHILDREN = OUT / "children.sqlite3"


def sid(n: int) -> str:
    """Fixed, UUIDv7-shaped session ids (``...-0000000c00NN``)."""
    return f"0193a5c0-0000-7000-8000-0000000c{n:04d}"


#: pair -> (session A, session B)
IDS: dict[str, tuple[str, str]] = {
    "result": (sid(1), sid(2)),
    "compaction": (sid(3), sid(4)),
    "fanout": (sid(5), sid(6)),
    "stop": (sid(7), sid(8)),
}

VALUES = {"alpha": "alpha = 1", "beta": "beta = 2", "gamma": "gamma = 3"}
CHANGED = {"beta": "beta = 20 (changed upstream)"}


def lookup_tool(values: dict[str, str]) -> Any:
    @tool
    def lookup(key: str) -> str:
        """Look a key up in the scripted table.

        Args:
            key: The key to read.


        Guidelines:

            - Scripted test tool of the compare pairs.
        """
        return values.get(key, f"{key}: not found")

    return lookup


async def run(
    session: str,
    model: Any,
    prompts: list[str],
    *,
    tools: tuple[Any, ...] = (),
    extensions: tuple[Any, ...] = (),
    title: str,
    compact_after: tuple[int, ...] = (),
) -> None:
    """Drive one session through ``prompts``, calling ``Agent.compact()`` after the ones named."""
    persistence = SQLiteSessionExtension(PAIRS)
    agent = await Agent.create(
        model,
        config=AgentRunConfig(session_id=session),
        system_prompt=runtime.SYSTEM_PROMPT,
        tools=tools,
        extensions=[persistence, *extensions],
    )
    try:
        for number, prompt in enumerate(prompts):
            async with aclosing(agent.stream(prompt, config=AgentRunConfig(session_id=session))) as events:
                async for _event in events:
                    pass
            if number in compact_after:
                async with aclosing(agent.compact(config=AgentRunConfig(session_id=session))) as events:
                    async for _event in events:
                        pass
    finally:
        await persistence.storage.update_session(session, title=title, agent_name="compare-pairs")
        await persistence.close()


def result_script() -> list[Step]:
    return [
        Step(calls=(("lookup", {"key": "alpha"}),)),
        Step(calls=(("lookup", {"key": "beta"}),)),
        Step(text="alpha and beta looked up."),
        Step(calls=(("lookup", {"key": "gamma"}),)),
        Step(text="gamma looked up."),
    ]


async def pair_result() -> None:
    prompts = ["Look up alpha, then beta.", "And gamma?"]
    a, b = IDS["result"]
    await run(a, ScriptedModel("ra", result_script()), prompts, tools=(lookup_tool(VALUES),), title="lookup A")
    changed = {**VALUES, **CHANGED}
    await run(b, ScriptedModel("rb", result_script()), prompts, tools=(lookup_tool(changed),), title="lookup B")


async def pair_stop() -> None:
    prompts = ["Look up alpha, then beta.", "And gamma?"]
    a, b = IDS["stop"]
    tools = (lookup_tool(VALUES),)
    await run(a, ScriptedModel("sa", result_script()), prompts, tools=tools, title="finished")
    cut = [*result_script()[:3], Step(text="Let me thi", finish="max_tokens")]
    await run(b, ScriptedModel("sb", cut), prompts, tools=tools, title="cut off")


def compaction_script() -> list[Step]:
    steps = [Step(calls=(("lookup", {"key": "alpha"}),)), Step(text="alpha is 1. " * 6)]
    return steps + [Step(text=f"Answer {n}: " + "blue light scatters more. " * 6) for n in range(3)]


async def pair_compaction() -> None:
    long = "Explain, at length, why the sky is blue; repeat the question twice. " * 3
    prompts = ["Look up alpha.", long, long, long]
    a, b = IDS["compaction"]
    summarizer = runtime.Summarizer()
    compaction = CompactionExtension(
        summarizer, max_tokens=120, keep_recent_tokens=20, count_tokens=runtime.count_tokens
    )
    tools = (lookup_tool(VALUES),)
    model = ScriptedModel("ca", compaction_script())
    await run(a, model, prompts, tools=tools, extensions=(compaction,), title="compacted", compact_after=(1,))
    await run(b, ScriptedModel("cb", compaction_script()), prompts, tools=tools, title="never compacted")


BRIEFS = {
    "x": {"description": "Audit auth", "prompt": "List auth entry points.", "subagent_type": "reasoning"},
    "y": {"description": "Survey caches", "prompt": "Survey every cache.", "subagent_type": "reasoning"},
    "z": {"description": "Trace config", "prompt": "Trace config loading.", "subagent_type": "reasoning"},
}


def fanout_script(briefs: str) -> list[Step]:
    return [
        Step(calls=tuple(("task", BRIEFS[name]) for name in briefs)),
        Step(text="The delegated work is done."),
    ]


async def pair_fanout() -> None:
    prepared = SQLiteSessionStorage(runtime.DEFAULT_CHILD_STORE)  # see drive_runtime.case_async_tasks
    await prepared.list_sessions(limit=1)
    await prepared.close()
    a, b = IDS["fanout"]
    prompt = ["Investigate auth, caches and config."]
    for session, briefs, title in ((a, "xyz", "fan-out of three"), (b, "xz", "fan-out of two")):
        model = ScriptedModel(session[-2:], fanout_script(briefs), child=runtime.default_profile_child)
        await run(session, model, prompt, extensions=(SubAgentExtension(),), title=title)


async def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    runtime.HOME.mkdir(parents=True, exist_ok=True)
    for pair in (pair_result, pair_compaction, pair_fanout, pair_stop):
        await asyncio.wait_for(pair(), 120)
    for path in (PAIRS, runtime.DEFAULT_CHILD_STORE):
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
    for suffix in ("", "-wal", "-shm"):
        source = Path(str(runtime.DEFAULT_CHILD_STORE) + suffix)
        if source.exists():
            shutil.move(source, Path(str(CHILDREN) + suffix))
    (OUT / "pairs.json").write_text(json.dumps(IDS, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
