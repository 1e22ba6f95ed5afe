"""Where the Raw Log puts its cursor's message (widgets/placement.py): the rule on its own."""

from __future__ import annotations

from zett_browser.widgets.placement import Placement


def test_a_page_just_shown_shows_its_summary_when_the_message_fits_under_it() -> None:
    placement = Placement()
    placement.land(upper=False)
    assert placement.target(30, 34, 0, 40, preface=True, first=False) == (0, False)
    # Too far down for both: the usual rule (scroll just enough).
    assert placement.target(60, 64, 0, 40, preface=True, first=False) == (24, True)
    # The first record always goes with its summary, however tall.
    assert placement.target(30, 90, 0, 40, preface=True, first=True) == (0, False)


def test_a_jump_lands_a_quarter_down_the_view() -> None:
    placement = Placement()
    placement.land(upper=True)
    assert placement.target(200, 204, 0, 40, preface=False, first=False) == (190, False)
    assert placement.target(5, 9, 0, 40, preface=False, first=False) == (0, False)


def test_once_placed_the_view_moves_only_as_far_as_it_must() -> None:
    placement = Placement()
    placement.land(upper=True)
    placement.placed()
    assert placement.target(10, 12, 0, 40, preface=True, first=False) is None  # in view
    assert placement.target(45, 47, 10, 40, preface=False, first=False) is None
    assert placement.target(55, 57, 10, 40, preface=False, first=False) == (17, True)  # below: bottom row
    assert placement.target(5, 7, 10, 40, preface=False, first=False) == (5, True)  # above: top row
    assert placement.target(20, 80, 10, 40, preface=False, first=False) == (20, True)  # taller than the view
