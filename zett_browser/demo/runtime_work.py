"""Provides four of the demo's runtime sessions: research, plan mode, the implementation, the runbook.

See :mod:`zett_browser.demo.runtime_sessions` for the story they tell and
:mod:`zett_browser.demo.runtime` for how each row is shaped like zett-agent 0.2.1's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import StopInfo, StopReason
from ..storage import SQLiteSessionStorage
from .runtime import (
    CANCELLED,
    RESUME_CONTINUE,
    SUPERSEDED,
    RuntimeConversation,
    plan_mode_prompt,
    shapes,
    signature,
    todo_result,
    todos,
)

#: What ``AnthropicServerToolExtension()`` declares by default.
SERVER_TOOLS = [
    {"type": "web_search_20260318", "configuration": {"name": "web_search"}},
    {"type": "web_fetch_20260318", "configuration": {"name": "web_fetch"}},
]
FILE_TOOLS = ("read_file", "view_image", "glob", "grep", "write_file", "edit", "delete_file")
PLAN_TOOLS = (*FILE_TOOLS, "bash", "exit_plan_mode")
WORK_TOOLS = (*FILE_TOOLS, "bash", "todo_write")
IETF_DRAFT = "https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/"
SEARCH_RESULTS = (
    ("https://docs.stripe.com/api/idempotent_requests", "Idempotent requests | Stripe API Reference", "3 weeks ago"),
    ("https://docs.adyen.com/development-resources/api-idempotency", "API idempotency | Adyen Docs", None),
    (IETF_DRAFT, "The Idempotency-Key HTTP Header Field", "8 months ago"),
)
DRAFT_PLAN = (
    "# Plan: idempotent POST /checkout\n\n"
    "1. Add an `idempotency_keys` table (key, request hash, response, created_at).\n"
    "2. Wrap `create_checkout` in a middleware that replays a stored response.\n"
    "3. Add tests."
)
PLAN = (
    "# Plan: idempotent POST /checkout\n\n"
    "## Outcome\n"
    "A retried `POST /checkout` with the same `Idempotency-Key` header returns the first response "
    "and never charges twice; keys are kept for 24 hours.\n\n"
    "## Steps\n"
    "1. **Storage**: `migrations/0042_idempotency_keys.sql` adds `idempotency_keys(key PRIMARY KEY, "
    "request_sha256, status, response_json, created_at)`.\n"
    "2. **Middleware**: `shop/checkout/idempotency.py` claims the key before the charge; a repeat "
    "with the same body replays the stored response, a different body gets `422`.\n"
    "3. **Wiring**: apply it to `create_checkout` only (`shop/checkout/views.py:31`).\n"
    "4. **Clean-up**: a nightly job deletes keys older than 24 hours.\n\n"
    "## Validation\n"
    "- `tests/checkout/test_idempotency.py`: replay, conflicting body, concurrent retries.\n"
    "- Run the whole checkout suite.\n\n"
    "## Risks\n"
    "- Two retries racing: the claim must be atomic (`INSERT ... ON CONFLICT DO NOTHING`).\n"
    "- Open question: Postgres or Redis for the keys at peak load?"
)
RUNBOOK = (
    "# Black Friday runbook: checkout\n\n"
    "## Before 06:00\n"
    "1. Scale the checkout pods to 12 (`kubectl scale deploy/checkout --replicas=12`).\n"
    "2. Warm the price cache: `make warm-prices`.\n"
    "3. Check the idempotency keys in Redis expire (`TTL idem:*` shows about 86400).\n\n"
    "## During the sale\n"
    "- Watch the checkout error rate; above 2 % for 5 minutes, page payments.\n"
    "- If the payment provider slows down, retries back off on their own; do **not** restart "
    "the pods, that drops in-flight charges.\n"
    "- Low stock (below 10) on a promoted SKU: tell merchandising so they can pull the banner "
    "before the SKU sells"
)


async def web_research(storage: SQLiteSessionStorage, session_id: str, start: datetime) -> None:
    """Server-side web search with results, a paused turn resumed, and ``ask_user`` answered in text."""
    chat = RuntimeConversation(storage, session_id, start, tools=("ask_user",), server_tools=SERVER_TOOLS)
    await chat.request()
    await chat.user(
        "How should POST /checkout handle retries from flaky mobile clients? Look up what the payment "
        "providers recommend."
    )
    thinking = "Payment providers document this under idempotency; search for their guidance."
    found: list[dict[str, Any]] = []
    for url, title, age in SEARCH_RESULTS:
        result = {"encrypted_content": signature(url), "title": title}
        found.append(result | ({"page_age": age} if age else {}) | {"type": "web_search_result", "url": url})
    answer = (
        "Stripe and Adyen both ask clients to send an **idempotency key** with every payment request "
        "and to retry with the same key: the server stores the first response and replays it for a "
        "repeat, so a retry never charges twice. The IETF draft standardises the header as "
        "`Idempotency-Key`."
    )
    query = {"query": "payment API idempotency key retries"}
    search = (
        {"id": "srvtoolu_01", "input": query, "name": "web_search", "type": "server_tool_use"},
        {"content": found, "tool_use_id": "srvtoolu_01", "type": "web_search_tool_result"},
    )
    blocks = chat.blocks(answer, reasoning=thinking, middle=search)
    await chat.step(answer, reasoning=thinking, blocks=blocks, seconds=9.4)
    # The step ended with ``pause_turn``: the runtime sent the turn again by itself.
    ask = chat.call("ask_user", question="How long should a key be remembered?", options=["24 hours", "7 days"])
    more = " Retention differs: Stripe remembers keys for 24 hours, Adyen for 7 days."
    await chat.step(more, calls=(ask,))
    payload = {"tool_call_id": ask.id, "answer": "24 hours; our mobile app gives up after a day anyway."}
    await chat.result(ask, {"name": "ask_user_response", "payload": payload}, seconds=21.0)
    await chat.step(
        "Then the design is:\n\n"
        "1. The app sends `Idempotency-Key: <uuid>` with every `POST /checkout` and reuses it on retry.\n"
        "2. The server claims the key *before* charging; a repeat with the same body gets the stored "
        "response, a different body gets `422`.\n"
        "3. Keys expire after **24 hours**.\n\n"
        "This touches the API, storage and the app contract, so I'd plan it before changing code."
    )


async def plan_mode(storage: SQLiteSessionStorage, session_id: str, start: datetime) -> None:
    """Plan mode declined, then entered; a draft sent back for more planning; the plan approved."""
    chat = RuntimeConversation(storage, session_id, start, tools=("enter_plan_mode",))
    await chat.request()
    await chat.user(
        "Make POST /checkout idempotent: clients send an Idempotency-Key header and a retry within "
        "24 hours replays the first response."
    )
    enter = chat.call("enter_plan_mode", reason="The change spans the checkout API, storage and the app contract.")
    await chat.step(reasoning="Several layers and money involved: propose plan mode.", calls=(enter,))
    await chat.result(enter, {"entered": False, "message": "The user declined Plan Mode"}, seconds=4.0)
    await chat.step("Understood, no plan mode. I'll start with the storage for the keys.")
    await chat.request()
    await chat.user("On second thought, plan it first. I want to review before you touch checkout.")
    enter = chat.call("enter_plan_mode", reason="You asked to review a plan before checkout changes.")
    await chat.step(calls=(enter,))
    await chat.result(enter, {"entered": True, "message": "Plan Mode is active"}, seconds=2.5)
    for plan, reply in (
        (DRAFT_PLAN, {"exited": False, "message": "The user requested more planning"}),
        (PLAN, {"exited": True, "message": "Plan Mode is inactive"}),
    ):
        await chat.system(plan_mode_prompt(PLAN_TOOLS))
        leave = chat.call("exit_plan_mode", plan=plan)
        await chat.step(calls=(leave,), offered=PLAN_TOOLS, seconds=11.0)
        await chat.result(leave, reply, seconds=30.0)
    await chat.step("Plan approved. I'll implement it in a new request, step by step.")


async def implementation(storage: SQLiteSessionStorage, session_id: str, start: datetime) -> None:
    """todo_write progress, steering that supersedes queued edits, an aborted command, a cancelled request."""
    chat = RuntimeConversation(storage, session_id, start, tools=WORK_TOOLS)
    items = ("Add the idempotency_keys migration", "Add the middleware", "Run the checkout tests")
    await chat.request()
    await chat.user("The plan is approved: implement idempotent POST /checkout.")

    async def progress(done: int, text: str = "") -> None:
        update = chat.call("todo_write", todos=todos(items, done))
        await chat.step(text, calls=(update,))
        await chat.result(update, todo_result(update.arguments["todos"]))

    await progress(0, "Three steps; I'll track them.")
    write = chat.call(
        "write_file",
        path="migrations/0042_idempotency_keys.sql",
        content="CREATE TABLE idempotency_keys (\n    key text PRIMARY KEY,\n    request_sha256 text NOT NULL,\n"
        "    response_json jsonb,\n    created_at timestamptz NOT NULL DEFAULT now()\n);\n",
    )
    await chat.step(calls=(write,))
    await chat.result(write, "Created migrations/0042_idempotency_keys.sql")
    await progress(1)
    edits = tuple(
        chat.call("edit", path=path, edits=[{"old_text": old, "new_text": new}])
        for path, old, new in (
            ("shop/checkout/views.py", "def create_checkout", "@idempotent\ndef create_checkout"),
            ("shop/checkout/idempotency.py", "STORE = None", "STORE = PostgresKeys()"),
            ("shop/settings.py", "MIDDLEWARE = [", "MIDDLEWARE = [\n    'shop.checkout.idempotency',"),
        )
    )
    await chat.step("Wiring the middleware in three places.", calls=edits)
    await chat.result(edits[0], "Replaced 1 occurrence in shop/checkout/views.py")
    for queued in edits[1:]:
        await chat.result(queued, SUPERSEDED, success=False, seconds=0)
    await chat.user(
        "Wait: keep the keys in Redis with a 24-hour TTL, not in Postgres. The table would take a write "
        "per checkout at peak."
    )
    drop = chat.call("delete_file", path="migrations/0042_idempotency_keys.sql")
    await chat.step("Switching to Redis: the migration goes, the keys get `SET NX EX 86400`.", calls=(drop,))
    await chat.result(drop, "Deleted migrations/0042_idempotency_keys.sql")
    store = chat.call(
        "edit",
        path="shop/checkout/idempotency.py",
        edits=[{"old_text": "STORE = None", "new_text": "STORE = RedisKeys(ttl_seconds=86_400)"}],
    )
    await chat.step(calls=(store,))
    await chat.result(store, "Replaced 1 occurrence in shop/checkout/idempotency.py")
    await progress(2)
    test = chat.call("bash", command="pytest tests/checkout -q")
    await chat.step(calls=(test,))
    await chat.result(
        test, "........................                                    [100%]\n24 passed in 3.41s", seconds=4.2
    )
    await progress(3)
    await chat.step(
        "Done: `create_checkout` is idempotent, keys live in Redis for 24 hours, and the 24 checkout "
        "tests pass. The Postgres migration was dropped as you asked."
    )
    await chat.request()
    await chat.user("Ship it: clean the build and cut a release.")
    release = chat.call("bash", command="rm -rf build/ dist/ && make release")
    await chat.step(calls=(release,))
    await chat.result(
        release, f"Shell command aborted by user: {release.arguments['command']}", success=False, seconds=6
    )
    await chat.step("You aborted the command; nothing was deleted and no release was cut.")
    await chat.request()
    await chat.user("Then just run the load test against staging.")
    load = chat.call("bash", command="locust -f load/checkout.py --headless -u 500 -t 10m", timeout_seconds=300)
    health = chat.call("bash", command="curl -s https://staging.shop.example/health")
    await chat.step(calls=(load, health))
    await chat.result(health, '{"status": "ok", "version": "2026.11.3"}', seconds=0.3)
    await chat.result(load, CANCELLED, success=False, seconds=0)
    # The request was cancelled while the load test ran: no assistant row closes it.
    await chat.request()
    await chat.user("Sorry, I stopped that: staging is being redeployed. We'll load-test tomorrow.")
    await chat.step("No problem. The load test was cancelled before it finished, so there are no results yet.")


async def runbook_and_stock(storage: SQLiteSessionStorage, session_id: str, start: datetime) -> None:
    """Stock levels from an MCP server (one call fails), and a runbook cut at the output limit, resumed."""
    parameters = {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}
    mcp = {
        f"inventory__{name}": {
            "name": f"inventory__{name}",
            "description": description,
            "parameters": parameters,
            "deferred": False,
        }
        for name, description in (
            ("stock", "Return the stock level of one SKU."),
            ("reserve", "Reserve stock of one SKU for a promotion."),
        )
    }
    servers = f"{shapes()['prompts']['mcp']}\n- inventory: stdio child process"
    chat = RuntimeConversation(storage, session_id, start, tools=tuple(mcp), extra_tools=mcp, extra_system=(servers,))
    await chat.request()
    await chat.user("Which of the Black Friday SKUs are low on stock? A-100, B-200 and C-300.")
    calls = tuple(chat.call("inventory__stock", sku=sku) for sku in ("A-100", "B-200", "C-300"))
    await chat.step(calls=calls)
    # Parallel results are stored in completion order.
    await chat.result(calls[1], {"result": "SKU B-200: 7 in stock (warehouse A, shelf 2)"}, seconds=0.03)
    await chat.result(calls[0], {"result": "SKU A-100: 420 in stock (warehouse B, shelf 7)"}, seconds=0.04)
    await chat.result(calls[2], "Error executing tool stock", success=False, seconds=0.01)
    await chat.step(
        "- **A-100**: 420, fine.\n- **B-200**: 7, low: reorder before the sale.\n"
        "- **C-300**: the inventory server returned an error; check it by hand."
    )
    await chat.request()
    await chat.user("Write the Black Friday runbook for the on-call engineer.")
    cut = StopInfo(reason=StopReason.MAX_OUTPUT, raw="max_tokens")
    await chat.step(RUNBOOK, stop=cut, output_tokens=300, seconds=9.0)
    await chat.request()  # resume_point(), documented as writing nothing, appends the system rows
    await chat.request()  # and so does resume()
    await chat.notice(RESUME_CONTINUE, resume="continue_response")
    await chat.step(
        " out.\n\n## After the sale\n1. Scale back to 4 pods.\n2. Export the idempotency-key hit rate "
        "for the retro: it shows how many double charges were avoided."
    )
