"""Provides the cost of one model step from genai-prices' bundled price table.

Only the table that ships inside the ``genai-prices`` package is read: its
``UpdatePrices`` (which downloads a newer table) is never started, so pricing makes no
network call (a test blocks sockets and checks). A step is priced with its own token
counts and its own start time (prices can be tiered by request size and change over
time), so a session's cost is the sum of its steps' costs.

zett-agent names some providers differently from the table (``xai`` is ``x-ai``, ``kimi``
is ``moonshotai``, ``glm`` is ``zai``, ``*-anthropic`` is the same service through its
Anthropic-style API); those names are mapped, nothing else. A provider or model the
table does not know gives no price (``None``): the step counts as unpriced, never as a
guess. Costs are kept as whole picodollars (10⁻¹² USD): integers add up exactly in SQL.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from decimal import Decimal

from .prices_version import _dist_info_version as _dist_info_version  # tests read both here
from .prices_version import table_version as table_version

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any

#: zett-agent provider name -> genai-prices provider id (same service, another name).
ALIASES = {
    "xai": "x-ai",
    "kimi": "moonshotai",
    "kimi-anthropic": "moonshotai",
    "glm": "zai",
    "glm-anthropic": "zai",
    "deepseek-anthropic": "deepseek",
    "minimax-anthropic": "minimax",
}
#: Picodollars per dollar.
PICO = 10**12


def provider_id(provider: str) -> str:
    """The price table's id of a zett-agent provider name."""
    name = provider.strip().lower()
    return ALIASES.get(name, name)


def to_picos(price: Decimal) -> int:
    """A dollar amount as whole picodollars (rounded half to even)."""
    return int((price * PICO).to_integral_value())


def from_picos(picos: int) -> Decimal:
    """Whole picodollars as a dollar amount."""
    return Decimal(picos).scaleb(-12)


def step_cost(
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cache_read: int,
    cache_write: int,
    when: datetime | None,
) -> int | None:
    """Picodollars of one step started at ``when`` (None: the table does not know the provider or model).

    ``when`` picks the prices in force then (None: now). Results are cached by UTC day,
    or by the exact time for a model with time-of-day prices (so a cached price is always
    the one the exact time gives): most steps repeat a few (model, counts, day) combinations.
    """
    table_id = provider_id(provider)
    by_time_of_day = _lookup(table_id, model)
    if by_time_of_day is None:
        return None
    moment = when.astimezone(UTC) if when is not None else datetime.now(UTC)
    key: tuple[object, ...] = (table_id, model, input_tokens, output_tokens, cache_read, cache_write)
    key += (moment,) if by_time_of_day else (moment.date(),)
    if key not in _COSTS:
        if len(_COSTS) >= CACHE_SIZE:
            _COSTS.clear()
        _COSTS[key] = _calculate(table_id, model, input_tokens, output_tokens, cache_read, cache_write, moment)
    return _COSTS[key]


#: Step costs already computed (see :func:`step_cost`), emptied when it reaches CACHE_SIZE.
_COSTS: dict[tuple[object, ...], int | None] = {}
CACHE_SIZE = 100_000


def _calculate(
    provider: str, model: str, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int, when: datetime
) -> int | None:
    from genai_prices import Usage, calc_price

    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )
    try:
        calculation = calc_price(usage, model, provider_id=provider, genai_request_timestamp=when)
    except (LookupError, ValueError):  # e.g. more cache reads than input: not priced, never guessed
        return None
    return to_picos(calculation.total_price)


@functools.lru_cache(maxsize=4096)
def _lookup(provider: str, model: str) -> bool | None:
    """None: the table lacks this provider or model; else whether its prices depend on the time of day."""
    from genai_prices import data_snapshot, types

    try:
        _, info = data_snapshot.get_snapshot().find_provider_model(model, None, provider, None)
    except LookupError:
        return None
    prices = info.prices if isinstance(info.prices, list) else []
    return any(isinstance(price.constraint, types.TimeOfDateConstraint) for price in prices)


def table_meta() -> dict[str, str]:
    """What an index records of the table its costs come from (a changed table rebuilds it)."""
    return {"prices": table_version(), "prices_date": prices_date()}


@functools.cache
def prices_date() -> str:
    """The date of the bundled price data: its newest dated price, and the package version.

    The package records no build date; the newest ``start_date`` of a price in its table
    that is not in the future is the latest change it knows of (the table also lists
    announced price changes ahead of time).
    """
    from genai_prices import __version__, data

    today = datetime.now(UTC).date()
    newest = max((found for found in _dates(data.providers) if found <= today), default=None)
    return f"{newest.isoformat() if newest else 'undated'} (genai-prices {__version__})"


def _dates(value: Any, depth: int = 0) -> list[date]:
    """Every ``start_date`` inside the table's dataclasses."""
    import dataclasses  # here: only the price table's walk needs it (a subcommand's start does not)

    if depth > 12:
        return []
    if isinstance(value, list):
        return [found for item in value for found in _dates(item, depth + 1)]
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return []
    found: list[date] = []
    for item in dataclasses.fields(value):
        child = getattr(value, item.name, None)
        if item.name == "start_date" and isinstance(child, date):
            found.append(child)
        elif isinstance(child, list) or dataclasses.is_dataclass(child):
            found.extend(_dates(child, depth + 1))
    return found
