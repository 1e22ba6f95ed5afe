"""The key map is the one description of the keys: the manual's key table (docs/using.md),
bindings, help and palette agree."""

from __future__ import annotations

import os
import re
from pathlib import Path

from zett_browser import keymap
from zett_browser.app import ZettBrowserApp
from zett_browser.screens.compare import CompareScreen
from zett_browser.screens.context import ContextScreen
from zett_browser.screens.detail import MessageDetail
from zett_browser.screens.export import ExportDialog
from zett_browser.screens.help import help_text
from zett_browser.screens.ledger import LedgerScreen
from zett_browser.screens.main import MainScreen
from zett_browser.screens.search import SearchScreen
from zett_browser.screens.timing import TimingScreen
from zett_browser.screens.usage_details import UsageDetails
from zett_browser.widgets.compare import CompareView
from zett_browser.widgets.hits import HitList
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.timing import TimingView
from zett_browser.widgets.versions import VersionList

KEY_TABLE_DOC = Path(__file__).parents[2] / "docs" / "using.md"


def docs_key_table() -> list[tuple[str, str, str]]:
    """The rows of docs/using.md's table whose header is ``| key | where | what it does |``."""
    lines = KEY_TABLE_DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\|\s*key\s*\|\s*where\s*\|", line))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_docs_key_table_is_the_key_map() -> None:
    assert docs_key_table() == keymap.readme_rows()


def test_bindings_come_from_the_map() -> None:
    def actions(bindings: object) -> list[tuple[str, str]]:
        return [(b.key, b.action) for b in bindings]  # type: ignore[attr-defined]

    assert actions(MainScreen.BINDINGS) == [(k.keys, k.action) for k in keymap.keys("main")]
    assert actions(RawLogView.BINDINGS) == [(k.keys, k.action) for k in keymap.keys("rawlog")]
    assert actions(ZettBrowserApp.BINDINGS) == [(k.keys, k.action) for k in keymap.keys("app")]


def test_every_bound_action_exists_where_it_is_bound() -> None:
    owners = {
        "main": MainScreen,
        "rawlog": RawLogView,
        "app": ZettBrowserApp,
        "live": ZettBrowserApp,
        "inspector": Inspector,
        "detail": MessageDetail,
        "export": ExportDialog,
        "search": SearchScreen,
        "hits": HitList,
        "context": ContextScreen,
        "versions": VersionList,
        "ledger": LedgerScreen,
        "timing": TimingScreen,
        "timingview": TimingView,
        "usage": UsageDetails,
        "compare": CompareScreen,
        "compareview": CompareView,
    }
    for row in keymap.KEYMAP:
        for key in row.keys:
            name = "action_" + key.action.split("(")[0]
            assert hasattr(owners[key.scope], name), (key.scope, key.action)


def test_palette_has_every_raw_log_action() -> None:
    actions = {key.action for key, _ in keymap.commands("main", "rawlog")}
    for action in ("toggle_reasoning", "open_record", "jump_call", "open_child", "toggle_follow"):
        assert action in actions
    assert {"resize_tree(-4)", "resize_tree(4)", "page('next')", "toggle_model_view"} <= actions


def test_help_lists_every_row_of_the_map() -> None:
    from rich.console import Console

    console = Console(width=200, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(help_text())
    text = console.export_text()
    for label, _where, what in keymap.help_rows():
        assert label in text and what in text, label
    assert "`" not in text


def test_footer_keys_stay_few() -> None:
    """The footer of an 80-column terminal has room for about ten keys."""
    shown = [key for row in keymap.KEYMAP for key in row.keys if key.footer and key.scope in ("main", "app")]
    assert len({key.keys for key in shown}) <= 10
