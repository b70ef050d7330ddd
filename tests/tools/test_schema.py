"""Input validation with jsonschema: readable messages that name the field."""

from __future__ import annotations

import copy

import pytest

from kernel.core.errors import RegistryError, ToolFailure
from kernel.tools.fs import FS_EDIT, FS_READ, FS_TOOLS
from kernel.tools.schema import check_schemas, validate_input, validate_output, validator_for


def message(tool, data) -> str:
    with pytest.raises(ToolFailure) as info:
        validate_input(tool, data)
    return info.value.message


def test_valid_input_passes() -> None:
    validate_input(FS_READ, {"path": "a.txt", "offset": 2, "limit": 10})


def test_missing_required_field_is_named() -> None:
    assert message(FS_READ, {}) == "input is invalid: 'path' is a required property"


def test_unexpected_field_lists_the_allowed_ones() -> None:
    text = message(FS_READ, {"path": "a", "pth": "b"})
    assert "'pth' was unexpected" in text
    assert "allowed: path, offset, limit" in text


def test_wrong_type_names_the_field() -> None:
    assert message(FS_READ, {"path": "a", "offset": "3"}) == "input is invalid at 'offset': '3' is not of type 'integer'"


def test_minimum_and_min_length() -> None:
    assert "at 'offset'" in message(FS_READ, {"path": "a", "offset": 0})
    assert "at 'limit'" in message(FS_READ, {"path": "a", "limit": -1})
    assert "at 'path'" in message(FS_READ, {"path": ""})
    assert "at 'old'" in message(FS_EDIT, {"path": "a", "old": "", "new": "x"})


def test_input_that_is_not_an_object() -> None:
    assert message(FS_READ, None) == "input is invalid: None is not of type 'object'"
    assert message(FS_READ, ["a"]).startswith("input is invalid: ['a'] is not of type 'object'")


def test_several_problems_are_counted_and_long_values_shortened() -> None:
    text = message(FS_READ, {"path": "x" * 5000, "offset": "y" * 5000, "limit": 0})
    assert "other problem" in text
    assert len(text) < 400


def test_output_schemas_describe_the_data() -> None:
    validate_output(FS_READ, {"path": "a", "bytes": 1, "binary": False})
    with pytest.raises(ToolFailure, match="^output is invalid"):
        validate_output(FS_READ, {"path": "a"})


def test_validators_are_cached_per_schema() -> None:
    schema = FS_READ.input_schema
    assert validator_for(schema) is validator_for(copy.deepcopy(dict(schema)))
    assert validator_for(schema) is not validator_for(FS_EDIT.input_schema)


@pytest.mark.parametrize("tool", FS_TOOLS, ids=lambda t: t.name)
def test_builtin_schemas_are_valid_and_closed(tool) -> None:
    check_schemas(tool)
    assert tool.input_schema["additionalProperties"] is False
    assert set(tool.input_schema["required"]) <= set(tool.input_schema["properties"])


def test_a_broken_schema_is_refused_at_registration() -> None:
    from dataclasses import replace

    with pytest.raises(RegistryError) as info:
        check_schemas(replace(FS_READ, input_schema={"type": "objekt"}))
    assert info.value.reason == "schema" and "input_schema" in info.value.detail
    with pytest.raises(RegistryError, match="type.*object"):
        check_schemas(replace(FS_READ, input_schema={"type": "string"}))
    with pytest.raises(RegistryError, match="output_schema"):
        check_schemas(replace(FS_READ, output_schema={"properties": {"a": {"minimum": "one"}}}))
