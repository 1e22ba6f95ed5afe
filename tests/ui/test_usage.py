"""The usage UI through the real app: tree totals and sort, the details panel, delegation cards,
the timing view's keys, and what ``--no-index`` leaves as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from tests.ui.helpers import HOSTILE, frozen_clock, settle
from tests.ui.usage_helpers import CHILD, ROOT, priced_store, usage_shown
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.screens.main import MainScreen
from zett_browser.screens.timing import TimingScreen
from zett_browser.screens.usage_details import UsageDetails
from zett_browser.views.usage_text import compact_count
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


def label_of(app: object, session_id: str) -> str:
    tree = app.screen.query_one(SessionTree)  # type: ignore[attr-defined]
    node = tree.find(session_id)
    assert node is not None, session_id
    label = node.label
    return label.plain if isinstance(label, Text) else str(label)


def tokens_of(path: Path, *sessions: str) -> int:
    """Input plus output tokens of these sessions, summed straight from the store."""
    with sqlite3.connect(path) as connection:
        marks = ",".join("?" for _ in sessions)
        (total,) = connection.execute(
            f"select sum(coalesce(input_tokens,0) + coalesce(output_tokens,0)) from raw_messages "
            f"where session_id in ({marks})",
            sessions,
        ).fetchone()
    connection.close()
    return int(total)


def shown_text(app: object) -> str:
    view = app.screen.query_one(RawLogView)  # type: ignore[attr-defined]
    return "\n".join(strip.text for strip in view.rendered_lines())


async def test_tree_shows_subtree_tokens_and_cost(tmp_path: Path) -> None:
    """The root's label carries its subtree's tokens (parent + child, summed from the store
    here) and a cost marked ``+?`` because the child's model has no price."""
    store = priced_store(tmp_path)
    app = make_app(str(store), clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0)
    async with app.run_test(size=(200, 40)) as pilot:
        await usage_shown(pilot)
        root = label_of(app, ROOT)
        assert f"{compact_count(tokens_of(store, ROOT, CHILD))} tok $" in root
        assert "+?" in root


async def test_sort_cycles_through_every_order_and_names_it(tmp_path: Path) -> None:
    store = priced_store(tmp_path)
    app = make_app(str(store), clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0)
    async with app.run_test(size=(160, 40)) as pilot:
        await usage_shown(pilot)
        tree = app.screen.query_one(SessionTree)
        titles = []
        for _ in range(5):
            await pilot.press("S")
            await settle(pilot)
            titles.append(tree.root.label.plain if tree.show_root else "")  # type: ignore[union-attr]
            assert tree.find(ROOT) is not None  # the level is read again, in that order
        assert titles == [
            "Sorted by subtree cost (S: next order)",
            "Sorted by subtree tokens (S: next order)",
            "Sorted by time (S: next order)",
            "Sorted by failures (S: next order)",
            "",
        ]


async def test_details_panel_own_vs_subtree_and_cost_by_model(tmp_path: Path) -> None:
    store = priced_store(tmp_path)
    app = make_app(str(store), clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0)
    async with app.run_test(size=(160, 60)) as pilot:
        await usage_shown(pilot)
        app.screen.query_one(SessionTree).focus()
        await pilot.press("u")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, UsageDetails)
        console_text = _plain(app, screen)
        assert ROOT in console_text and "— (a root)" in console_text
        assert "anthropic/claude-sonnet-4-20250514" in console_text
        assert "scripted/child-1" in console_text and "cost unknown" in console_text
        assert "prices: genai-prices data of" in console_text
        await pilot.press("y")
        assert app.clipboard == ROOT
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


def _plain(app: object, screen: UsageDetails) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for widget in screen.query(Static):
        console.print(widget.content)
    return console.export_text()


async def test_delegation_card_under_the_task_call(tmp_path: Path) -> None:
    store = priced_store(tmp_path)
    app = make_app(
        str(store), session=ROOT, seq=7, clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0
    )
    async with app.run_test(size=(300, 45)) as pilot:
        await usage_shown(pilot)
        await settle(pilot)
        text = shown_text(app)
        assert "↳ delegated to researcher: Verify the word count" in text
        assert "asked: Count the words in 'the quick brown fox' with count_words and report." in text
        assert "✓ succeeded · subtree" in text and "o opens it" in text
        assert "returned: count_words returned 4: the text has 4 words." in text
        view = app.screen.query_one(RawLogView)
        view.focus()
        assert view.current is not None and view.current.sequence == 7
        await pilot.press("o")
        await settle(pilot)
        assert app.screen.open.node.session_id == CHILD  # type: ignore[attr-defined]


async def write_hostile_delegation(path: Path) -> None:
    from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

    joined = " | ".join(HOSTILE)
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    await storage.append("boss", "r", UserMessage(content="go"), title="boss")
    call = ToolCall("c1", "task", {"description": joined, "prompt": joined, "subagent_type": "[@click=app.quit]"})
    await storage.append("boss", "r", AssistantMessage(content="", tool_calls=(call,)))
    await storage.append("kid", "r2", UserMessage(content=joined), parent_session_id="boss")
    result = json.dumps({"session_id": "kid", "content": joined})
    await storage.append("boss", "r", ToolMessage(tool_call_id="c1", name="task", content=result, success=True))
    await storage.close()


async def test_hostile_task_text_stays_literal(tmp_path: Path) -> None:
    """Markup, ANSI and OSC in what the child was asked and returned show as text, never act."""
    store = tmp_path / "hostile.sqlite3"
    await write_hostile_delegation(store)
    app = make_app(str(store), session="boss", clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(400, 60)) as pilot:
        await settle(pilot)
        text = shown_text(app)
        assert "↳ delegated to [@click=app.quit]: [bold red]styled?[/]" in text
        assert "returned: [bold red]styled?[/] | [@click=app.quit]click me[/]" in text
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
        assert "o opens it" in text and "✓ succeeded" in text  # no usage without the index


async def test_without_the_index_the_tree_is_as_before(tmp_path: Path) -> None:
    store = priced_store(tmp_path)
    app = make_app(str(store), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        assert " tok " not in label_of(app, ROOT)
        await pilot.press("S")
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and not app.screen.query_one(SessionTree).show_root
        await pilot.press("T")  # the timing view reads the store: it works without the index
        await settle(pilot)
        assert isinstance(app.screen, TimingScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_timing_view_enter_shows_the_step_and_opens_a_child(tmp_path: Path) -> None:
    store = priced_store(tmp_path)
    app = make_app(str(store), session=ROOT, clock=frozen_clock, poll_interval=0, page_size=5)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        await pilot.press("down", "down", "down", "enter")  # step #9 (after #4, #7 and the child)
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 9
        await pilot.press("T")
        await settle(pilot)
        await pilot.press("down", "down", "enter")  # the child under #7
        await settle(pilot)
        assert app.screen.open.node.session_id == CHILD  # type: ignore[attr-defined]


async def test_card_finds_a_result_on_the_next_page(tmp_path: Path) -> None:
    """The page ends at the ``task`` call (#7); its result (#8) is read past the page edge."""
    store = priced_store(tmp_path)
    app = make_app(str(store), session=ROOT, page_size=7, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(300, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert [record.sequence for record in view.records][-1] == 7
        text = shown_text(app)
        assert "✓ succeeded" in text and "returned: count_words returned 4" in text


def subtree_tokens(path: Path) -> dict[str, int]:
    """Input plus output tokens of each session with all its descendants, straight from the store."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            """with recursive tree(top, id) as (
                   select id, id from agent_sessions
                   union select tree.top, s.id from agent_sessions s join tree on s.parent_session_id = tree.id)
               select tree.top, coalesce(sum(coalesce(r.input_tokens,0) + coalesce(r.output_tokens,0)), 0)
               from tree left join raw_messages r on r.session_id = tree.id group by tree.top"""
        ).fetchall()
    connection.close()
    return {session: int(total) for session, total in rows}


async def test_sort_by_tokens_orders_the_roots_by_subtree_tokens(tmp_path: Path) -> None:
    from tests.ui.helpers import store_copy

    store = store_copy("storage_api", tmp_path)
    app = make_app(str(store), clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0)
    async with app.run_test(size=(160, 40)) as pilot:
        await usage_shown(pilot)
        await pilot.press("S", "S")  # activity -> cost -> tokens
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert tree.root.label.plain.startswith("Sorted by subtree tokens")  # type: ignore[union-attr]
        shown = [node.data.session_id for node in tree.root.children if isinstance(node.data, SessionNode)]
        totals = subtree_tokens(store)
        values = [totals[session] for session in shown]
        assert len(shown) >= 5 and values == sorted(values, reverse=True) and values[0] > 0


async def test_timing_view_flags_a_stall(tmp_path: Path) -> None:
    """Five minutes between the child's return and the next step: one stall line, measured."""
    store = priced_store(tmp_path)
    with sqlite3.connect(store) as connection:
        for column in ("started_at", "completed_at"):
            connection.execute(
                f"update raw_messages set {column} = strftime('%Y-%m-%d %H:%M:%f', {column}, '+300 seconds') "
                "where session_id = ? and sequence >= 9",
                (ROOT,),
            )
    connection.close()
    app = make_app(str(store), session=ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        from zett_browser.views.timing import Stall
        from zett_browser.widgets.timing import TimingView

        lines = app.screen.query_one(TimingView).lines
        stalls = [line for line in lines if isinstance(line, Stall)]
        assert len(stalls) == 1 and stalls[0].before_sequence == 9
        assert 299 * 10**9 < stalls[0].gap_ns < 301 * 10**9


async def test_timing_pages_cut_inside_steps_keep_every_step_whole(tmp_path: Path, monkeypatch: object) -> None:
    """Pages of two rows with a one-row look-ahead: walking ``n`` to the end shows every step once,
    each with all of its tool results (a step's results run on past the page edge)."""
    import zett_browser.screens.timing as timing_screen
    from zett_browser.views.timing import Step, layout
    from zett_browser.widgets.timing import TimingView

    monkeypatch.setattr(timing_screen, "CONTEXT", 1)  # type: ignore[attr-defined]
    store = priced_store(tmp_path)
    app = make_app(str(store), session=ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.open is not None
        whole = [line for line in layout(await main.store.timing_page(ROOT), []) if isinstance(line, Step)]
        app.push_screen(TimingScreen(main.store, main.open.node, main.reader, page=2))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimingScreen)
        seen: list[Step] = []
        for _ in range(30):
            seen.extend(line for line in screen.query_one(TimingView).lines if isinstance(line, Step))
            if not screen.more_after:
                break
            await pilot.press("n")
            await settle(pilot)
        assert [(step.sequence, step.tools, step.tool_ns) for step in seen] == [
            (step.sequence, step.tools, step.tool_ns) for step in whole
        ]
        assert [step.sequence for step in seen] == [4, 7, 9, 11, 15, 17, 21]


async def test_the_timing_title_never_names_a_session_by_its_id_twice(tmp_path: Path) -> None:
    """Review case (issue 25): ``Timing · root-2 — root-2`` for a session with no other name."""
    from zett_browser.model.frozen import replace

    store = priced_store(tmp_path)
    app = make_app(str(store), session=ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.open is not None
        node = main.open.node
        app.push_screen(TimingScreen(main.store, node, main.reader))
        await settle(pilot)
        assert app.screen.sub_title == node.session_id and node.session_id not in str(app.screen.title)
        app.pop_screen()
        await settle(pilot)
        bare = replace(node, title=None, agent_name=None, label_hint=None)
        app.push_screen(TimingScreen(main.store, bare, main.reader))
        await settle(pilot)
        assert app.screen.sub_title == "" and str(app.screen.title).startswith("Timing · ")
