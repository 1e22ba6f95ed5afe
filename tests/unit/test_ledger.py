"""The ledger's rows, the context curve and the summary diff, against values computed by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zett_browser.model.compaction import CurveColumn, LedgerFacts, SnapshotMeta, UsageStep
from zett_browser.views.ledger import baseline, duration_text, ledger_row, ledger_rows, plot, plot_columns, row_cells
from zett_browser.views.snapdiff import dropped_terms, side_by_side, terms

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def meta(version: int, boundary: int, minutes: float | None) -> SnapshotMeta:
    created = T0 + timedelta(minutes=minutes) if minutes is not None else None
    return SnapshotMeta(f"id{version}", "s", version, boundary, created, 100)


def step(sequence: int, tokens: int, cached: int | None) -> UsageStep:
    return UsageStep(sequence, tokens, cached, T0 + timedelta(minutes=sequence))


def test_a_row_holds_the_covered_range_the_ratio_and_the_cache_drop() -> None:
    facts = LedgerFacts(
        2, covered_rows=4, covered_chars=400, summary_chars=80, after=step(10, 800, 0), before=step(8, 1100, 650)
    )
    row = ledger_row(meta(2, 8, 8.5), meta(1, 4, 4.5), facts)
    assert row.since_previous == timedelta(minutes=4)
    assert (row.covered_rows, row.covered_tokens, row.summary_tokens) == (4, 100, 20)
    assert row.ratio == 5.0
    assert (row.input_after, row.cache_drop) == (800, 650)
    assert row_cells(row) == ["v2", "#8", "4m 00s", "4", "100", "20", "5.0×", "800", "650"]


def test_unknown_values_stay_unknown_rather_than_zero() -> None:
    facts = LedgerFacts(1, covered_rows=3, covered_chars=12, summary_chars=None, after=step(5, 900, None), before=None)
    row = ledger_row(meta(1, 3, None), None, facts)
    assert row.since_previous is None and row.ratio is None and row.summary_tokens is None
    assert row.cache_drop is None and row.input_after == 900
    assert row_cells(row)[2] == "–" and row_cells(row)[6] == "–" and row_cells(row)[8] == "–"


def test_rows_chain_each_version_to_the_one_before() -> None:
    versions = [meta(1, 4, 4.5), meta(2, 8, 6.5)]
    facts = [LedgerFacts(v.version, 4, 40, 10, None, None) for v in versions]
    rows = ledger_rows(versions, facts)
    assert [r.since_previous for r in rows] == [None, timedelta(minutes=2)]


def test_durations_read_short() -> None:
    assert [duration_text(timedelta(seconds=s)) for s in (0, 45, 725, 3 * 3600 + 120, 2 * 86400 + 4 * 3600)] == [
        "0s",
        "45s",
        "12m 05s",
        "3h 02m",
        "2d 04h",
    ]


def test_the_curve_scales_peaks_in_eighths_and_marks_the_boundaries() -> None:
    # Steps at 2, 4, 6, 8, 10 of a 10-message log in 5 columns: one step a column.
    peaks = [1000, 1500, 700, 1100, 800]
    columns = [CurveColumn(c, 2 * c + 2, 2 * c + 2, 1, p, p) for c, p in enumerate(peaks)]
    curve = plot(columns, [4, 8], width=5, height=1, first=1, last=10)
    # round(peak * 8 / 1500): 5.3 -> 5, 8, 3.7 -> 4, 5.9 -> 6, 4.3 -> 4
    assert curve.rows == ["▅█▄▆▄"]
    assert curve.marks == " │ │ " and curve.top == 1500
    two_rows = plot(columns, [4, 8], width=5, height=2, first=1, last=10)
    # 16 eighths at the top: 1000 -> 10.7 -> 11 (full + 3), 1500 -> 16, 700 -> 7.5 -> 7 (lower only),
    # 1100 -> 11.7 -> 12 (full + 4), 800 -> 8.5 -> 9 (full + 1).
    assert two_rows.rows == ["▃█ ▄▁", "██▇██"]


def test_several_boundaries_in_one_column_are_marked_heavier_and_empty_columns_stay_blank() -> None:
    columns = [CurveColumn(0, 1, 1, 1, 100, 100)]
    curve = plot(columns, [1, 2, 9], width=3, height=1, first=1, last=9)
    assert curve.rows == ["█  "] and curve.marks == "┃ │" and curve.peaks == [100, None, None]


def test_side_by_side_pairs_lines_and_marks_changed_words() -> None:
    lines = side_by_side("Reviewed login.\nAll fixed.", "Reviewed billing.\nAll fixed.\nNew line.")
    assert [(line.tag, line.left, line.right) for line in lines] == [
        ("replace", "Reviewed login.", "Reviewed billing."),
        ("equal", "All fixed.", "All fixed."),
        ("insert", None, "New line."),
    ]
    assert lines[0].left_changed == ((9, 15),) and lines[0].right_changed == ((9, 17),)


def test_terms_finds_identifiers_numbers_and_paths() -> None:
    identifiers, numbers, paths = terms(
        "Fixed src/login.py:12 in auth.retry_policy (maxRetries=3) after 1,500 ms, 0.5s"
    )
    assert paths == ["src/login.py"]
    assert identifiers == ["auth.retry_policy", "maxRetries"]
    assert numbers == ["12", "3", "1,500", "0.5s"]


def test_what_compaction_dropped_is_what_the_newer_summary_lacks() -> None:
    absorbed = "ran pytest -k test_login in src/app/main.py: 3 failed, 1,204 passed"
    dropped = dropped_terms(absorbed, "Old: retry_count=5 in billing.job", "New: fixed src/app/main.py, 3 failed")
    assert dropped.identifiers == ["retry_count", "billing.job", "test_login"]
    assert dropped.numbers == ["5", "1,204"]
    assert dropped.paths == []
    assert dropped.total == 5


def test_a_short_log_gets_one_column_a_message_drawn_wider() -> None:
    assert plot_columns(140, 1, 21) == (21, 6)
    assert plot_columns(140, 1, 100_000) == (140, 1)
    columns = [CurveColumn(0, 1, 1, 1, 100, 100), CurveColumn(1, 2, 2, 1, 50, 50)]
    curve = plot(columns, [2], width=2, height=1, first=1, last=2, repeat=3)
    assert curve.rows == ["███▄▄▄"] and curve.marks == "   │  "


def test_a_curve_of_high_peaks_starts_its_axis_under_the_lowest() -> None:
    # The review's sawtooth: 1,640–2,306 drawn from 0 filled 5 to 8 eighths of one row: flat.
    peaks = [1640, 2306, 1700, 2250, 1650]
    columns = [CurveColumn(c, c + 1, c + 1, 1, p, p) for c, p in enumerate(peaks)]
    curve = plot(columns, [], width=5, height=1, first=1, last=5)
    assert curve.base == 1500 and curve.top == 2306
    # (peak - 1500) * 8 / 806: 1.4 -> 1, 8, 1.98 -> 2, 7.4 -> 7, 1.49 -> 1
    assert curve.rows == ["▁█▂▇▁"]
    assert baseline([700, 1500]) == 0  # a peak in the lower half: from 0
    assert baseline([900, 900]) == 0  # flat: nothing to stretch
    assert baseline([98_000, 100_000]) == 97_000
