"""The one labelling rule (views/labels.py): names, colliding siblings, short ids, hostile text."""

from __future__ import annotations

from datetime import UTC, datetime

from zett_browser.model import SessionNode
from zett_browser.text import clean
from zett_browser.views.labels import (
    Sibling,
    base_label,
    distinguish,
    label_all,
    short_id,
    tagged,
    unique_prefixes,
)

T0 = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
HOSTILE = ["[bold red]x[/]", "\x1b]8;;http://evil\x07link\x1b]8;;\x07", "\x1b[2J", "[@click=app.quit]q"]
KIDS = [
    "01a237b7-1443-7aaa-8000-00000000000a",
    "01a237b7-1a01-7bbb-8000-00000000000b",
    "01a237b7-2f77-7ccc-8000-00000000000c",
]


def node(session_id: str, *, title: str | None = None, hint: str | None = None) -> SessionNode:
    return SessionNode(session_id, "boss", 0, title, None, T0, T0, 3, 0, 0, label_hint=hint)


def test_the_name_is_title_then_what_was_asked_then_agent_then_short_id() -> None:
    assert base_label("s", "Title", "asked", "agent") == "Title"
    assert base_label("s", None, "reviewer: Review it", "agent") == "reviewer: Review it"
    assert base_label("s", "  ", None, "agent") == "agent"
    assert base_label(KIDS[0], None, None, None) == "01a237b7…"
    assert base_label("conversation-2026-12-01-alpha", None) == "conversation-2026-12-01-alpha"


def test_non_uuid_ids_are_not_cut_at_eight_when_there_is_room() -> None:
    assert short_id("session-number-twelve") == "session-number-twelve"
    assert short_id("x" * 60, 20) == "x" * 19 + "…"
    assert short_id(KIDS[1]) == "01a237b7…"


def test_three_children_given_the_same_brief_are_told_apart_by_the_calls_seq() -> None:
    name = "reviewer: Review the glossary entry"
    siblings = [Sibling(kid, name, seq) for kid, seq in zip(KIDS, (5, 6, 7), strict=True)]
    assert distinguish(siblings) == {KIDS[0]: "#5", KIDS[1]: "#6", KIDS[2]: "#7"}


def test_without_call_seqs_the_shortest_unique_id_prefix_tells_them_apart() -> None:
    nodes = [node(kid, hint="reviewer: Review the glossary entry") for kid in KIDS]
    labels = label_all(nodes)
    assert labels == {
        KIDS[0]: "01a237b7-14… reviewer: Review the glossary entry",
        KIDS[1]: "01a237b7-1a… reviewer: Review the glossary entry",
        KIDS[2]: "01a237b7-2… reviewer: Review the glossary entry",
    }
    assert len(set(labels.values())) == 3


def test_names_that_differ_only_past_what_a_pane_shows_collide() -> None:
    roots = [node(kid, hint=f"Explain glossary term number 0 of conversation number {n}") for n, kid in enumerate(KIDS)]
    labels = label_all(roots)
    assert all(labels[kid].startswith(kid[:10]) for kid in KIDS)
    different = [node(KIDS[0], hint="Explain WAL"), node(KIDS[1], hint="Explain FTS")]
    assert label_all(different) == {KIDS[0]: "Explain WAL", KIDS[1]: "Explain FTS"}


def test_untitled_siblings_without_anything_show_a_longer_id_prefix_once() -> None:
    labels = label_all([node(kid) for kid in KIDS])
    assert labels == {KIDS[0]: "01a237b7-14…", KIDS[1]: "01a237b7-1a…", KIDS[2]: "01a237b7-2…"}
    assert tagged("kid-1", "kid-1") == "kid-1"


def test_a_unique_prefix_is_a_prefix_that_names_one_id() -> None:
    prefixes = unique_prefixes([*KIDS, "short"])
    for kid in KIDS:
        bare = prefixes[kid].rstrip("…")
        assert kid.startswith(bare)
        assert [other for other in KIDS if other.startswith(bare)] == [kid]
    assert prefixes["short"] == "short"


def test_the_same_ids_get_the_same_start_time_tag_only_when_nothing_else_differs() -> None:
    long_a, long_b = "p" * 50 + "a", "p" * 50 + "b"
    tags = distinguish([Sibling(long_a, "same", None, T0), Sibling(long_b, "same", None, T0.replace(minute=31))])
    assert tags == {long_a: "09:30:00", long_b: "09:31:00"}


def test_hostile_strings_come_out_clean_and_on_one_line() -> None:
    for bad in HOSTILE:
        for label in label_all([node(KIDS[0], hint=bad + "\nsecond"), node(KIDS[1], title=bad)]).values():
            assert "\x1b" not in label and "\x07" not in label and "\n" not in label
            assert clean(label) == label
    weird = "\x1b[2Jid-" + "z" * 5
    assert "\x1b" not in base_label(weird, None)


def test_parallel_calls_of_one_message_are_told_apart_by_their_place_in_it() -> None:
    from zett_browser.views.labels import Sibling, distinguish

    same = "reviewer: Review the glossary entry"
    parallel = [Sibling(f"01a237b7-{n}", same, 2, None, n) for n in (1, 2, 3)]
    assert distinguish(parallel) == {"01a237b7-1": "#2.1", "01a237b7-2": "#2.2", "01a237b7-3": "#2.3"}
    # One of them asked later, alone in its message: its own #seq is enough.
    mixed = [*parallel[:2], Sibling("01a237b7-9", same, 7, None, 1)]
    assert distinguish(mixed) == {"01a237b7-1": "#2.1", "01a237b7-2": "#2.2", "01a237b7-9": "#7"}
    # Separate messages: #seq alone.
    apart = [Sibling("a", same, 3, None, 1), Sibling("b", same, 9, None, 1)]
    assert distinguish(apart) == {"a": "#3", "b": "#9"}
