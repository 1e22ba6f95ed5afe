"""The query language parser: pure, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zett_browser.index.query import Filter, QueryError, Term, fts_string, parse

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def test_words_phrases_prefixes_or_and_negation() -> None:
    query = parse('deploy "parse config" flow* a OR b -secret -"two words"', now=NOW)
    assert query.groups == (
        (Term("deploy"),),
        (Term("parse config"),),
        (Term("flow", prefix=True),),
        (Term("a"), Term("b")),
    )
    assert query.excluded == (Term("secret"), Term("two words"))
    assert query.filters == ()


def test_identifiers_and_paths_are_one_term_each() -> None:
    query = parse("parse_config src/flow.py --page-size", now=NOW)
    assert [group[0].text for group in query.groups] == ["parse_config", "src/flow.py", "--page-size"]
    assert query.excluded == ()


def test_qualifiers_are_typed() -> None:
    query = parse(
        "kind:Tool tool:bash agent:coder session:abc* type:3 model:gpt-4 tag:env tag:env=prod meta.client:tui "
        "error:true stop:cut_off has:image since:2d before:2026-11-01 tokens:>50k dur:<=30s in:subtree -kind:user",
        now=NOW,
    )
    assert query.filters == (
        Filter("kind", "tool"),
        Filter("tool", "bash"),
        Filter("agent", "coder"),
        Filter("session", "abc*"),
        Filter("type", 3),
        Filter("model", "gpt-4"),
        Filter("tag", ("env", None)),
        Filter("tag", ("env", "prod")),
        Filter("meta", ("client", "tui")),
        Filter("error", True),
        Filter("stop", ("max_output", "context_full")),
        Filter("has", "image"),
        Filter("since", NOW - timedelta(days=2)),
        Filter("before", datetime(2026, 11, 1, tzinfo=UTC)),
        Filter("tokens", (">", 50_000.0)),
        Filter("dur", ("<=", 30.0)),
        Filter("in", "subtree"),
        Filter("kind", "user", negated=True),
    )
    assert query.groups == ()


def test_outcome_is_and_server_tools_qualifiers() -> None:
    query = parse("outcome:Skipped is:steering -is:goal has:server_tools word kind:tool OR other", now=NOW)
    assert query.filters == (
        Filter("outcome", "skipped"),
        Filter("is", "steering"),
        Filter("is", "goal", negated=True),
        Filter("has", "server_tools"),
        Filter("kind", "tool"),
    )
    assert [term.text for term in query.groups[0]] == ["word", "other"]  # OR after a qualifier, as before


def test_words_with_a_colon_that_are_no_qualifier_shape_are_searched_as_text() -> None:
    query = parse('https://example.com std::move 12:30 C:\\dir note: "foo:bar" a:b', now=NOW)
    texts = [group[0].text for group in query.groups]
    assert texts == ["https://example.com", "std::move", "12:30", "C:\\dir", "note:", "foo:bar", "a:b"]


@pytest.mark.parametrize("source", ["foo:bar", "-foo:bar", "word TypeError:boom", "kinds:user"])
def test_an_unknown_qualifier_is_one_line_naming_it(source: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse(source, now=NOW)
    message = str(caught.value)
    name = source.split()[-1].lstrip("-").partition(":")[0]
    assert f"unknown qualifier '{name}:'" in message and "\n" not in message


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("kind:robot", "kind:robot"),
        ('say "hello', "hello"),
        ("OR word", "OR"),
        ("word OR", "OR"),
        ("a OR -b", "-b"),
        ("tokens:lots", "tokens:lots"),
        ("dur:>5parsecs", "dur:>5parsecs"),
        ("since:yesterday", "since:yesterday"),
        ("type:x", "type:x"),
        ("has:wings", "has:wings"),
        ("stop:maybe", "stop:maybe"),
        ("outcome:crashed", "ok|failed|skipped|cancelled|interrupted|aborted"),
        ("is:paused", "steering|resume|goal"),
        ("has:server_tool", "server_tools"),
        ("outcome:skipped OR is:steering", "OR joins words, not the qualifier 'outcome:skipped'"),
        ("tag:a=b=c", None),
        ("meta.bad key:x", None),
        ("---", "---"),
        ('""', '""'),
        ("agent:", "agent:"),
    ],
)
def test_bad_tokens_are_one_line_errors_naming_the_token(source: str, names: str | None) -> None:
    try:
        parse(source, now=NOW)
    except QueryError as error:
        message = str(error)
        assert "\n" not in message
        if names is not None:
            assert names in message
    else:
        assert names is None, f"{source!r} parsed"


def test_fts_strings_are_always_quoted() -> None:
    assert fts_string(Term('say "NEAR" OR x')) == '"say ""NEAR"" OR x"'
    assert fts_string(Term("flo", prefix=True)) == '"flo"*'


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_query_or_a_query_error(source: str) -> None:
    try:
        query = parse(source, now=NOW)
    except QueryError as error:
        assert "\n" not in str(error)
        return
    for group in query.groups:
        for term in group:
            assert any(char.isalnum() for char in term.text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["word", '"a phrase"', "pre*", "OR", "-not", "kind:tool", "tool:x", "tag:k=v", "since:2d", ":", '"', "-"]
        ),
        max_size=8,
    ).map(" ".join)
)
def test_token_soup_never_raises_anything_else(source: str) -> None:
    try:
        parse(source, now=NOW)
    except QueryError:
        pass
