"""The price table in Settings: strict validation, shipped defaults, money in words."""

from __future__ import annotations

import json
import math

import pytest

from kernel.accounting.prices import DEFAULT_PRICES, cost_of, money, price_of
from kernel.providers.catalog import CATALOG
from kernel.config.settings import Settings, SettingsStore
from kernel.config.schema import check_settings


def test_every_default_model_has_a_shipped_price():
    settings = Settings()
    for name, info in CATALOG.items():
        assert price_of(settings.prices, name, info.default_model) is not None
    assert cost_of(settings.prices, "anthropic", "claude-sonnet-4-5", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cost_of(settings.prices, "anthropic", "claude-sonnet-4-5", 1_000_000, 0, 1_000_000) == pytest.approx(0.3)
    assert cost_of(settings.prices, "anthropic", "some-new-model", 10, 10) is None  # never a made-up price
    # 1M input of which 200k were written to the cache: 800k at 3, 200k at 3.75 (Anthropic: 1.25 x input)
    assert cost_of(settings.prices, "anthropic", "claude-sonnet-4-5", 1_000_000, 0, 0, 200_000) == pytest.approx(3.15)
    assert cost_of(settings.prices, "openai", "gpt-5", 1_000_000, 0, 0, 1) is None  # OpenAI names no write price
    assert cost_of(settings.prices, "openai", "gpt-5", 1_000_000, 0) == pytest.approx(1.25)


@pytest.mark.parametrize("bad", [
    "cheap", [], {"anthropic": "x"}, {"anthropic": {"m": {"input": 1, "output": 2}}},
    {"anthropic": {"m": {"input": 1, "output": 2, "cached_input": 0.1, "extra": 1}}},
    {"anthropic": {"m": {"input": "1", "output": 2, "cached_input": 0.1}}},
    {"anthropic": {"m": {"input": True, "output": 2, "cached_input": 0.1}}},
    {"anthropic": {"m": {"input": -1, "output": 2, "cached_input": 0.1}}},
    {"anthropic": {"m": {"input": math.nan, "output": 2, "cached_input": 0.1}}},
    {"anthropic": {"m": {"input": 1e9, "output": 2, "cached_input": 0.1}}},
    {"anthropic": {"has space": {"input": 1, "output": 2, "cached_input": 0.1}}},
    {"nobody": {"m": {"input": 1, "output": 2, "cached_input": 0.1}}},
    {"openai": {"m": {"input": 1, "output": 2, "cached_input": 0.1, "cache_write": None}}},
    {"openai": {"m": {"input": 1, "output": 2, "cached_input": 0.1, "cache_write": "1.25"}}},
    {"openai": {"m": {"input": 1, "output": 2, "cached_input": 0.1, "cache_write": -0.5}}},
    {"openai": {"m": {"input": 1, "output": 2, "cached_input": 0.1, "cache_write": math.inf}}},
])
def test_hostile_price_tables_are_refused_with_the_field_named(bad):
    checked = check_settings({"prices": bad})
    assert checked.errors and checked.errors[0].field is not None and checked.errors[0].field.startswith("prices")
    assert Settings.from_checked(checked).prices.get("nobody") is None


def test_prices_round_trip_through_settings_json(tmp_path):
    store = SettingsStore(tmp_path)
    prices = {**DEFAULT_PRICES, "openai-chat": {"llama3.1:8b": {"input": 0, "output": 0, "cached_input": 0}}}
    store.save(Settings(workspace=str(tmp_path), prices=prices))
    loaded = store.load()
    assert loaded.prices["openai-chat"]["llama3.1:8b"] == {"input": 0.0, "output": 0.0, "cached_input": 0.0}
    assert json.loads(store.settings_path.read_text())["prices"]["anthropic"]["claude-sonnet-4-5"]["output"] == 15.0


def test_a_table_saved_before_the_cache_write_column_loses_nothing(tmp_path):
    store = SettingsStore(tmp_path)
    old = {"anthropic": {"claude-sonnet-4-5": {"input": 3, "output": 15, "cached_input": 0.3},
                         "claude-haiku-4-5": {"input": 1, "output": 5, "cached_input": 0.1}},
           "openai": {"gpt-5": {"input": 1.25, "output": 10, "cached_input": 0.125}}}
    store.settings_path.write_text(json.dumps({"workspace": str(tmp_path), "prices": old}))
    loaded = store.load()
    assert loaded.prices["anthropic"] == {  # Anthropic's 5-minute cache writes: 1.25 x input, every model
        "claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3, "cache_write": 3.75},
        "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "cached_input": 0.1, "cache_write": 1.25}}
    assert loaded.prices["openai"] == {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}}  # unknown
    store.save(loaded)
    saved = json.loads(store.settings_path.read_text())["prices"]
    assert saved["anthropic"]["claude-haiku-4-5"]["cache_write"] == 1.25 and "cache_write" not in saved["openai"]["gpt-5"]
    assert store.load() == loaded


def test_a_bad_cache_write_price_is_said_in_words():
    checked = check_settings({"prices": {"openai": {"m": {"input": 1, "output": 2, "cached_input": 0.1,
                                                          "cache_write": "lots"}}}})
    [error] = checked.errors
    assert error.field == "prices.openai" and "optionally cache_write" in str(error) and "from 0 to 10000" in str(error)


def test_money_in_words():
    assert [money(x) for x in (0, 0.004, 0.42, 1234.5)] == ["$0.00", "<$0.01", "$0.42", "$1,234.50"]
