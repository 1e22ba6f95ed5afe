"""The detail view reaches all of a 1 MB tool result: top, bottom and find across every part.

Issue 14: "reaching the end of a 1 MB output takes hundreds of page-downs". The store is a
copy of the zett-agent-written ``agent_run`` fixture whose tool result is made 1 MB long
with the stdlib ``sqlite3`` module; the keys are pressed through the real app.
"""

from __future__ import annotations

from pathlib import Path

from tests.adversarial.large import MAIN, TOOL_RESULT, copy_agent_run, huge_text, set_json_content
from tests.ui.detail_helpers import open_detail
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.detail import PART, MessageDetail, PartArea


def one_megabyte_result(tmp_path: Path) -> tuple[Path, str]:
    text = huge_text(1_000_000, "THE END")
    middle = len(text) // 2
    middle = text.index("\n", middle) + 1
    # A word in the middle part, twice with nothing between, and once more near the end.
    text = text[:middle] + "NEEDLENEEDLE\n" + text[middle:-20] + "NEEDLE\n" + text[-20:]
    path = copy_agent_run(tmp_path)
    set_json_content(path, "raw_messages", "session_id = ? and sequence = ?", (MAIN, TOOL_RESULT), text)
    return path, text


def offset_of_selection(detail: MessageDetail) -> int:
    area = detail.query_one(PartArea)
    row, column = area.selection.start
    text = area.text
    line_start = 0
    for _ in range(row):
        line_start = text.index("\n", line_start) + 1
    return detail.starts[detail.part] + line_start + column


async def test_top_bottom_and_find_cover_the_whole_1_mb_result(tmp_path: Path) -> None:
    path, text = one_megabyte_result(tmp_path)
    app = make_app(str(path), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await open_detail(pilot)
        area = detail.query_one(PartArea)
        assert len(detail.starts) >= 1_000_000 // PART, "the megabyte is shown in parts"
        assert text.replace("\t", "    ") in detail.body

        await pilot.press("G")  # one key, not hundreds of page-downs
        await pilot.pause()
        assert detail.part == len(detail.starts) - 1
        assert area.cursor_location[0] == area.document.line_count - 1
        assert "THE END" in area.text.splitlines()[-3:]
        await pilot.press("g")
        await pilot.pause()
        assert detail.part == 0 and area.cursor_location == (0, 0)

        needles = [i for i in range(len(detail.body)) if detail.body.startswith("NEEDLE", i)]
        assert len(needles) == 3 and needles[1] == needles[0] + 6
        await pilot.press("slash", *"needle", "enter")
        await settle(pilot)
        assert 0 < detail.part < len(detail.starts) - 1, "the middle part"
        assert area.selected_text == "NEEDLE" and offset_of_selection(detail) == needles[0]
        await pilot.press("enter")  # the next match starts right where the first ends
        await settle(pilot)
        assert offset_of_selection(detail) == needles[1], "a match right after the last one is not skipped"
        await pilot.press("enter")
        await settle(pilot)
        assert detail.part == len(detail.starts) - 1 and offset_of_selection(detail) == needles[2]
        await pilot.press("enter")  # wraps around to the first
        await settle(pilot)
        assert offset_of_selection(detail) == needles[0]


async def test_find_from_the_top_finds_a_match_at_the_very_first_character(tmp_path: Path) -> None:
    app = make_app(str(copy_agent_run(tmp_path)), session=MAIN, seq=TOOL_RESULT, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await open_detail(pilot)
        first_word = detail.body.split()[0]  # the header's "#6"
        assert detail.body.count(first_word) == 1
        await pilot.press("slash", *first_word, "enter")
        await settle(pilot)
        assert offset_of_selection(detail) == 0 and detail.query_one(PartArea).selected_text == first_word
