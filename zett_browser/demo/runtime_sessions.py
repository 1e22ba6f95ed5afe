"""Provides the demo's runtime sessions: the shop's Black Friday week, as zett-agent's extensions record it.

Five untitled root conversations (the runtime sets no title and no agent name) about making
``POST /checkout`` of the demo's ``shop/api`` safe for Black Friday, oldest first:

1. an audit run as four parallel background tasks (``task_start``): one read with
   ``task_output``, one cancelled, one failed, one whose completion notice is never read; their
   four subagent sessions are children in this same store, so ``o`` opens them;
2. web research through Anthropic's server-side ``web_search`` (replay blocks with results), a
   paused turn the runtime resumed by itself, and an ``ask_user`` question answered in text;
3. plan mode declined, then entered, a draft plan sent back, the Markdown plan approved;
4. the implementation with ``todo_write`` progress, a steering message that supersedes two
   queued edits, a shell command the user aborted and a request cancelled during a tool;
5. stock levels over an MCP server and a runbook cut at the output limit, resumed with the
   runtime's resume notice.

Every request appends the system rows again; every assistant row of a root carries a
``model_request_trace``. All of it is written by :mod:`zett_browser.demo.runtime`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..storage import SQLiteSessionStorage
from .runtime import (
    EXPLORE_TOOLS,
    FAILED_NOTE,
    FINISHED_NOTE,
    RUNNING_NOTE,
    WORKDIR,
    RuntimeConversation,
    shapes,
    task_info,
)
from .runtime_work import implementation, plan_mode, runbook_and_stock, web_research

TASK_TOOLS = ("task_start", "task_list", "task_status", "task_output", "task_cancel", "task")
#: Fixed UUIDv7-shaped ids, as the runtime makes them (48-bit millisecond time first): the
#: shortened ids the tree shows for these untitled sessions differ, as they would in a real store.
AUDIT = "01a22206-ca00-77dd-a51b-bda9c41bb364"
RESEARCH = "01a22274-a700-7dd7-811f-b60b05928ff8"
PLAN = "01a222e2-8400-70ff-9540-3106fefdaa7a"
IMPLEMENT = "01a22350-6100-7669-b45c-3bb842af9238"
RUNBOOK = "01a22651-6c00-7fa0-9430-86352000c3dd"
CHILD_IDS = (
    "01a22206-de50-71f9-b603-db53bfad5c92",
    "01a22206-de64-70f6-97ba-98e6a0f42651",
    "01a22206-de78-75dd-a7f7-fb9c529cb282",
    "01a22206-de8c-711e-a5e9-af3eec0dc5af",
)
#: The four background tasks: id, subagent type, description, prompt, child session.
TASKS = (
    (
        "task-1",
        "explore",
        "Audit auth",
        "List every authentication entry point of the checkout service with file paths, and say how "
        "each one checks the session.",
        CHILD_IDS[0],
    ),
    (
        "task-2",
        "explore",
        "Survey slow queries",
        "Survey every SQL query the checkout path runs and flag the ones no index covers.",
        CHILD_IDS[1],
    ),
    (
        "task-3",
        "reasoning",
        "Weigh caching",
        "Compare a Redis cache with Postgres materialized views for the price lookups at checkout "
        "under 20x normal traffic; recommend one.",
        CHILD_IDS[2],
    ),
    (
        "task-4",
        "explore",
        "Check search index",
        "Check that the product search index agrees with the products table.",
        CHILD_IDS[3],
    ),
)
AUTH_REPORT = (
    "Three entry points, all in `shop/`:\n\n"
    "- `checkout/views.py:31` `require_auth` wraps POST /checkout; it calls `verify_session`.\n"
    "- `auth/session.py:14` `verify_session` checks the signed cookie and its expiry, no revocation list.\n"
    "- `admin/login.py:9` `login` issues the cookie; the admin routes reuse `require_auth`.\n\n"
    "Risk: a revoked session stays valid until its cookie expires (24 h)."
)
CACHE_REPORT = (
    "Recommendation: Redis, 60 s TTL on price lookups. Materialized views refresh too slowly for "
    "flash sales (a full refresh takes ~40 s on prod-sized data) and add write load at the worst "
    "moment. Risk: stale prices for up to a minute; invalidate on price change."
)
INDEX_ERROR = "RuntimeError: the model provider was overloaded (HTTP 529) after 3 retries"


async def _audit(storage: SQLiteSessionStorage, start: datetime) -> None:
    chat = RuntimeConversation(storage, AUDIT, start, tools=TASK_TOOLS)
    await chat.request()
    await chat.user(
        "Black Friday is in two weeks. Before the freeze, audit the checkout service: auth entry "
        "points, slow queries, whether a cache would help, and the search index. In parallel, please."
    )
    starts = tuple(
        chat.call("task_start", description=description, prompt=prompt, subagent_type=kind)
        for _, kind, description, prompt, _ in TASKS
    )
    await chat.step(
        reasoning="Four independent questions: start them as background tasks and keep working.", calls=starts
    )
    started = chat.clock
    for call, (task_id, kind, description, _, child) in zip(starts, TASKS, strict=True):
        await chat.result(call, task_info(task_id, kind, description, "running", child, 0.0, note=RUNNING_NOTE))
    wait = chat.call("task_output", task_id="task-1", wait_seconds=60)
    await chat.step("The auth audit gates the rest; waiting for it first.", calls=(wait,))
    auth = task_info("task-1", "explore", "Audit auth", "completed", CHILD_IDS[0], 15.4, content=AUTH_REPORT)
    await chat.result(wait, auth, seconds=11.5)
    await chat.notice(f"Background task task-4 (explore: Check search index) failed: {INDEX_ERROR}.")
    status = chat.call("task_status", task_id="task-2")
    await chat.step("The index check failed before it started. How far is the query survey?", calls=(status,))
    survey = task_info("task-2", "explore", "Survey slow queries", "running", CHILD_IDS[1], 19.1, note=RUNNING_NOTE)
    await chat.result(status, survey)
    cancel = chat.call("task_cancel", task_id="task-2")
    await chat.step(
        "The survey is crawling every module; the auth report already names the queries that matter, "
        "so I'm stopping it.",
        calls=(cancel,),
    )
    await chat.result(cancel, task_info("task-2", "explore", "Survey slow queries", "cancelled", CHILD_IDS[1], 22.8))
    listing = chat.call("task_list")
    await chat.step(calls=(listing,))
    await chat.result(
        listing,
        [
            {**auth, "content": None, "note": FINISHED_NOTE},
            task_info("task-2", "explore", "Survey slow queries", "cancelled", CHILD_IDS[1], 22.8),
            task_info("task-3", "reasoning", "Weigh caching", "running", CHILD_IDS[2], 26.5, note=RUNNING_NOTE),
            task_info("task-4", "explore", "Check search index", "failed", CHILD_IDS[3], 1.3, error=INDEX_ERROR)
            | {"note": FAILED_NOTE},
        ],
    )
    await chat.step(
        "Where the audit stands:\n\n"
        "- **Auth**: done. Sessions are checked by signature and expiry only; a revoked session "
        "stays valid for up to 24 h.\n"
        "- **Slow queries**: cancelled, the auth report covers the checkout path.\n"
        "- **Search index**: failed (the model provider was overloaded); worth a rerun later.\n"
        "- **Caching**: still running; I'll read it when it lands."
    )
    chat.clock += timedelta(minutes=6)  # the user reads the summary; task-3 finishes meanwhile
    await chat.request()
    await chat.notice(
        "Background task task-3 (reasoning: Weigh caching) finished. Call task_output to read its report."
    )
    await chat.user("Thanks. Next: retries of POST /checkout. Mobile clients double-charge people when they retry.")
    await chat.step(
        "The caching comparison has finished too; I'll read it when we get to performance. Double "
        "charges on retry are an idempotency problem: let's look at what the payment providers do."
    )
    await _children(storage, started)


async def _children(storage: SQLiteSessionStorage, started: datetime) -> None:
    """The four subagent sessions, as the default explore and reasoning profiles write them."""
    known = shapes()["prompts"]
    filesystem = (
        f'# Filesystem environment\nCurrent working directory: "{WORKDIR}".\n'
        "Relative filesystem paths are resolved from this directory. Absolute paths are also allowed."
    )

    def child(index: int) -> RuntimeConversation:
        _, kind, _, _, session = TASKS[index]
        explore = kind == "explore"
        return RuntimeConversation(
            storage,
            session,
            started + timedelta(milliseconds=20 * index),
            parent_session_id=AUDIT,
            tools=EXPLORE_TOOLS if explore else (),
            extra_system=(filesystem,) if explore else (),
            traced=False,
            system_prompt=known[kind],
        )

    auth = child(0)
    await auth.request()
    await auth.user(TASKS[0][3])
    grep = auth.call("grep", pattern=r"def (require_auth|verify_session|login)\b", file_pattern="shop/**/*.py")
    await auth.step(calls=(grep,), reasoning="Find the decorators and session checks first.")
    await auth.result(
        grep,
        "shop/admin/login.py:9:def login(request):\n"
        "shop/auth/session.py:14:def verify_session(token: str) -> Session:\n"
        "shop/checkout/views.py:31:def require_auth(handler):",
    )
    read = auth.call("read_file", path="shop/auth/session.py", start_line=14, line_count=12)
    await auth.step(calls=(read,))
    await auth.result(
        read,
        "def verify_session(token: str) -> Session:\n"
        "    payload = signer.unsign(token, max_age=SESSION_TTL)\n"
        "    session = Session.from_payload(payload)\n"
        "    if session.expires_at < now():\n"
        "        raise Unauthorized('session expired')\n"
        "    return session\n",
    )
    await auth.step(AUTH_REPORT, seconds=6.1)

    survey = child(1)  # cancelled while the model thought about its second step
    await survey.request()
    await survey.user(TASKS[1][3])
    find = survey.call("glob", pattern="shop/**/*.py", max_results=500)
    await survey.step(calls=(find,))
    await survey.result(
        find,
        seconds=6.5,
        content="\n".join(f"shop/{name}.py" for name in ("admin/login", "auth/session", "cart/models")),
    )

    cache = child(2)
    await cache.request()
    await cache.user(TASKS[2][3])
    await cache.step(
        CACHE_REPORT,
        reasoning="Refresh cost of the views versus staleness of a TTL cache at flash-sale load.",
        seconds=48.0,
    )

    index = child(3)  # failed on its first model call: only the system rows and the prompt
    await index.request()
    await index.user(TASKS[3][3])


async def write_runtime_sessions(storage: SQLiteSessionStorage, start: datetime) -> None:
    """Write the five runtime roots (and the audit's four children), starting at ``start``."""
    await _audit(storage, start)
    await web_research(storage, RESEARCH, start + timedelta(hours=2))
    await plan_mode(storage, PLAN, start + timedelta(hours=4))
    await implementation(storage, IMPLEMENT, start + timedelta(hours=6))
    await runbook_and_stock(storage, RUNBOOK, start + timedelta(hours=20))
