"""Route settings are hostile input like the rest of settings.json: each bad value is refused with a sentence
naming the field, and the rest of the file is kept (issue 25)."""

from __future__ import annotations

import pytest

from kernel.config.schema import check_settings
from kernel.config.settings import Settings


@pytest.mark.parametrize("data, field", [
    ({"fallbacks": {"anthropic": "openai:gpt-5"}}, "fallbacks.anthropic"),        # not a list
    ({"fallbacks": {"anthropic": ["gpt-5"]}}, "fallbacks.anthropic"),             # no provider
    ({"fallbacks": {"anthropic": ["openai:gpt 5"]}}, "fallbacks.anthropic"),      # a space in the model
    ({"fallbacks": {"anthropic": ["openai:m"] * 9}}, "fallbacks.anthropic"),      # more than eight
    ({"fallbacks": {"nope": []}}, "fallbacks.nope"),                              # not a provider
    ({"fallback_price_ceiling": 0}, "fallback_price_ceiling"),
    ({"fallback_price_ceiling": "1"}, "fallback_price_ceiling"),
    ({"fallback_any_vendor": 1}, "fallback_any_vendor"),
    ({"utility_model": "haiku"}, "utility_model"),
    ({"utility_model": ["anthropic:haiku"]}, "utility_model"),
])
def test_a_bad_route_setting_is_refused_with_its_field(data: dict, field: str) -> None:
    checked = check_settings({**data, "default_budget": 5000})
    assert [e.field for e in checked.errors] == [field]
    assert checked.values["default_budget"] == 5000  # the rest is kept
    assert checked.values.get("fallbacks", {}) == {}  # a provider's bad entry is left out, the mapping kept


def test_good_route_settings_are_read() -> None:
    checked = check_settings({"fallbacks": {"anthropic": ["anthropic:claude-haiku-4-5", "openai-chat:local"]},
                              "fallback_any_vendor": True, "fallback_price_ceiling": 2.5,
                              "utility_model": "gemini:gemini-2.5-flash"})
    assert checked.errors == ()
    settings = Settings.from_checked(checked)
    assert settings.fallbacks_for("anthropic") == ("anthropic:claude-haiku-4-5", "openai-chat:local")
    assert (settings.fallback_any_vendor, settings.fallback_price_ceiling, settings.utility_model) == (
        True, 2.5, "gemini:gemini-2.5-flash")
    assert Settings.from_checked(check_settings(settings.to_json())) == settings  # saved and read back alike
