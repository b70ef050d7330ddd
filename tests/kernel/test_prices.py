"""The price table in Settings: strict validation, shipped defaults, money in words."""

from __future__ import annotations

import json
import math

import pytest

from kernel.prices import DEFAULT_PRICES, cost_of, money, price_of
from kernel.providers.catalog import CATALOG
from kernel.settings import Settings, SettingsStore
from kernel.settings_schema import check_settings


def test_every_default_model_has_a_shipped_price():
    settings = Settings()
    for name, info in CATALOG.items():
        assert price_of(settings.prices, name, info.default_model) is not None
    assert cost_of(settings.prices, "anthropic", "claude-sonnet-4-5", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cost_of(settings.prices, "anthropic", "claude-sonnet-4-5", 1_000_000, 0, 1_000_000) == pytest.approx(0.3)
    assert cost_of(settings.prices, "anthropic", "some-new-model", 10, 10) is None  # never a made-up price


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


def test_money_in_words():
    assert [money(x) for x in (0, 0.004, 0.42, 1234.5)] == ["$0.00", "<$0.01", "$0.42", "$1,234.50"]
