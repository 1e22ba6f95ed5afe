"""Cost comes from genai-prices' bundled table, per step, with no network call; unknown models are never guessed."""

from __future__ import annotations

import socket
import sqlite3
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price, data_snapshot

from tests.support import CHECKPOINTED, KITCHEN_SINK
from tests.usage import oracle
from tests.usage.stores import O2, priced_store, set_model, sync_now
from zett_browser.index import pricing
from zett_browser.index.usage import read_usage


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to reach the network fails the test (pricing must read only the bundled table)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    pricing._COSTS.clear()
    pricing._lookup.cache_clear()


def _steps(store: Path, session_id: str) -> list[tuple[str, int, int, int, int, datetime]]:
    db = sqlite3.connect(store)
    try:
        rows = db.execute(
            "SELECT json_extract(message_json, '$[0].data.model'), input_tokens, output_tokens, cache_read_tokens,"
            " cache_write_tokens, started_at FROM raw_messages WHERE session_id = ? AND role = 3",
            (session_id,),
        ).fetchall()
    finally:
        db.close()
    return [(m, i, o, cr, cw, datetime.fromisoformat(t).replace(tzinfo=UTC)) for m, i, o, cr, cw, t in rows]


def test_a_session_costs_the_sum_of_genai_prices_per_step(tmp_path: Path, no_network: None) -> None:
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    expected = Decimal(0)
    for model, i, o, cr, cw, when in _steps(store, CHECKPOINTED):
        usage = Usage(input_tokens=i, output_tokens=o, cache_read_tokens=cr, cache_write_tokens=cw)
        expected += calc_price(usage, model, provider_id="openai", genai_request_timestamp=when).total_price
    got = read_usage(index.path, [CHECKPOINTED])[CHECKPOINTED]
    assert expected > 0 and got.own.cost == expected  # these prices are whole picodollars
    assert got.own.unpriced_steps == 0
    (model_cost,) = got.own_models
    assert (model_cost.provider, model_cost.model, model_cost.cost) == ("openai", "gpt-4o", expected)
    # Nothing replaced the bundled table (UpdatePrices was never started).
    assert data_snapshot._custom_snapshot is None  # type: ignore[attr-defined]


def test_an_unknown_model_keeps_its_tokens_and_has_no_cost(tmp_path: Path, no_network: None) -> None:
    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    got = read_usage(index.path, [O2, KITCHEN_SINK])
    want = oracle.own(store, O2)
    assert got[O2].own.cost is None and got[O2].own.unpriced_steps == want.steps == 6
    assert got[O2].own.tokens.input == want.tokens[0] > 0
    (unknown,) = got[O2].own_models
    assert unknown.model == "not-a-real-model" and unknown.cost is None and unknown.tokens.input > 0
    # A session with priced and unknown steps: the cost of the priced ones, the others counted.
    kitchen = got[KITCHEN_SINK].own
    assert kitchen.cost is not None and kitchen.unpriced_steps == 2  # claude-example-4 is not in the table
    by_model = {(m.provider, m.model): m.cost for m in got[KITCHEN_SINK].own_models}
    mini = by_model[("openai", "gpt-4o-mini")]
    assert by_model[("anthropic", "claude-example-4")] is None and mini is not None and mini > 0


def test_zett_agent_provider_names_map_to_the_same_service_only(no_network: None) -> None:
    when = datetime(2026, 6, 1, tzinfo=UTC)
    direct = calc_price(
        Usage(input_tokens=1000, output_tokens=10), "grok-3", provider_id="x-ai", genai_request_timestamp=when
    )
    assert pricing.step_cost("xai", "grok-3", 1000, 10, 0, 0, when) == pricing.to_picos(direct.total_price)
    # A local or unknown provider is never priced by a look-alike model name.
    assert pricing.step_cost("ollama", "llama3", 1000, 10, 0, 0, when) is None
    assert pricing.step_cost("scripted", "gpt-4o", 1000, 10, 0, 0, when) is None
    # Counts the table rejects (more cache reads than input) are not priced either.
    assert pricing.step_cost("openai", "gpt-4o", 10, 10, 50, 0, when) is None


def test_time_of_day_prices_use_each_steps_own_time(no_network: None) -> None:
    night, day = datetime(2025, 6, 1, 17, 0, tzinfo=UTC), datetime(2025, 6, 1, 3, 0, tzinfo=UTC)
    for when in (night, day):
        usage = Usage(input_tokens=1000, output_tokens=100)
        direct = calc_price(usage, "deepseek-chat", provider_id="deepseek", genai_request_timestamp=when).total_price
        assert pricing.step_cost("deepseek", "deepseek-chat", 1000, 100, 0, 0, when) == pricing.to_picos(direct)
    assert pricing.step_cost("deepseek", "deepseek-chat", 1000, 100, 0, 0, night) != pricing.step_cost(
        "deepseek", "deepseek-chat", 1000, 100, 0, 0, day
    )


def test_the_price_data_date_is_the_bundled_tables(no_network: None) -> None:
    import genai_prices

    shown = pricing.prices_date()
    assert shown.endswith(f"(genai-prices {genai_prices.__version__})")
    assert datetime.fromisoformat(shown.split(" ")[0]).date() <= datetime.now(UTC).date()


def test_the_network_guard_itself_catches_an_update(no_network: None) -> None:
    """The fixture would catch the table's own updater (so the tests above can fail)."""
    from genai_prices import UpdatePrices

    with pytest.raises(AssertionError, match="network access attempted"):
        UpdatePrices().fetch()


def test_picodollars_round_trip() -> None:
    assert pricing.from_picos(pricing.to_picos(Decimal("0.0021375"))) == Decimal("0.0021375")
    assert pricing.to_picos(Decimal("1")) == 10**12


def test_changing_a_model_changes_the_cost(tmp_path: Path) -> None:
    """Guards against a cost that ignores the model: the same tokens cost more on a dearer model."""
    store = priced_store(tmp_path / "store")
    cheap = read_usage(sync_now(store, tmp_path / "a").path, [CHECKPOINTED])[CHECKPOINTED].own.cost
    db = sqlite3.connect(store)
    set_model(db, CHECKPOINTED, "openai", "gpt-4o-mini")
    db.commit()
    db.close()
    other = read_usage(sync_now(store, tmp_path / "b").path, [CHECKPOINTED])[CHECKPOINTED].own.cost
    assert cheap is not None and other is not None and other < cheap


def test_an_index_priced_with_another_table_is_rebuilt(tmp_path: Path) -> None:
    """Costs are computed when rows are indexed: another genai-prices version means new costs."""
    import asyncio

    store = priced_store(tmp_path / "store")
    index = sync_now(store, tmp_path / "index")
    db = sqlite3.connect(index.path)
    recorded = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('prices', 'prices_date')").fetchall())
    assert recorded == {"prices": pricing.table_version(), "prices_date": pricing.prices_date()}
    db.execute("UPDATE meta SET value = '0.0.1' WHERE key = 'prices'")
    db.commit()
    db.close()

    async def again() -> object:
        from zett_browser.index import SideIndex
        from zett_browser.storage import SQLSessionStorage

        side = SideIndex(SQLSessionStorage.open_for_browsing(store), tmp_path / "index")
        try:
            return await side.sync()
        finally:
            await side.storage.close()

    report = asyncio.run(again())
    assert report.rebuilt and report.reason == "the price table changed"  # type: ignore[attr-defined]
    rebuilt = dict(sqlite3.connect(index.path).execute("SELECT key, value FROM meta WHERE key = 'prices'").fetchall())
    assert rebuilt == {"prices": pricing.table_version()}


def test_the_price_table_version_read_beside_the_package_is_importlib_metadatas() -> None:
    """``table_version`` reads genai-prices' dist-info directly (no importlib.metadata on every
    ``search``/``usage``); it must say what importlib.metadata says, and defer to it when unsure."""
    from importlib.metadata import version

    assert pricing._dist_info_version() == version("genai-prices")
    pricing.table_version.cache_clear()
    assert pricing.table_version() == version("genai-prices")


def test_the_price_table_version_defers_to_importlib_metadata_without_one_dist_info(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two dist-info directories (a broken upgrade) or none: importlib.metadata decides."""
    import importlib.util
    from importlib.machinery import ModuleSpec

    package = tmp_path / "genai_prices"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for number in ("1", "2"):
        info = tmp_path / f"genai_prices-0.0.{number}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: genai-prices\nVersion: 0.0.{number}\n\n")
    spec = ModuleSpec("genai_prices", None, origin=str(package / "__init__.py"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    assert pricing._dist_info_version() is None
    (tmp_path / "genai_prices-0.0.2.dist-info" / "METADATA").unlink()
    (tmp_path / "genai_prices-0.0.2.dist-info").rmdir()
    assert pricing._dist_info_version() == "0.0.1"
