"""Checking tool input against its descriptor's JSON Schema, with the real ``jsonschema``.

Input comes from a model, so a failure is a ``ToolFailure`` the model reads:
one short sentence naming the offending field (the best match among the
errors, with a count of the rest), never a traceback or a page of schema. The
schemas themselves are checked once, when a tool is registered, so a broken
descriptor fails at start-up rather than on the first call. Validators are
built once per distinct schema (keyed by its canonical JSON, since schemas
are unhashable mappings) and reused.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from typing import TYPE_CHECKING

from ..core.errors import RegistryError, ToolFailure
from .descriptor import ToolDescriptor

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError, ValidationError

# ``jsonschema`` (pure Python, ~50 ms to import) is only loaded when something is wrong:
# valid input and valid schemas are judged by jsonschema-rs; the readable messages come
# from jsonschema.

_MESSAGE_MAX = 240


def _plain(value: Any) -> Any:
    """``value`` with every Mapping a dict and every sequence a list (for json.dumps)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _key(schema: Mapping[str, Any]) -> str:
    return json.dumps(_plain(schema), sort_keys=True, separators=(",", ":"))


_CACHE_MAX = 512
_validators: dict[str, Draft202012Validator] = {}


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """The (cached) Draft 2020-12 validator for ``schema``."""
    key = _key(schema)
    validator = _validators.get(key)
    if validator is None:
        if len(_validators) >= _CACHE_MAX:
            _validators.clear()
        # Built from the schema as written (not the sorted key) so messages list properties in their order.
        from jsonschema import Draft202012Validator

        validator = Draft202012Validator(_plain(schema), format_checker=Draft202012Validator.FORMAT_CHECKER)
        _validators[key] = validator
    return validator


def _shorten(text: str, limit: int = _MESSAGE_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field(error: ValidationError) -> str:
    return "/".join(str(part) for part in error.absolute_path)


def describe(error: ValidationError, others: int = 0) -> str:
    """One readable sentence for a validation error (and how many more there were)."""
    message = _shorten(error.message)
    if error.validator == "additionalProperties" and isinstance(error.schema, Mapping):
        allowed = ", ".join(error.schema.get("properties", {})) or "none"
        message += f"; allowed: {allowed}"
    where = _field(error)
    text = f"input is invalid at '{where}': {message}" if where else f"input is invalid: {message}"
    if others:
        text += f" (and {others} other problem{'s' if others > 1 else ''})"
    return text


# The fast path: jsonschema-rs answers "valid?" in well under a microsecond, against
# the hundred or more microseconds of the pure-Python validator; only input that
# fails is run through ``jsonschema`` for its readable messages. Keyed by the schema
# object's identity (descriptors are frozen and long-lived), holding it so the id stays valid.
_fast: dict[int, tuple[Mapping[str, Any], Any]] = {}


def _fast_validator(schema: Mapping[str, Any]) -> Any:
    hit = _fast.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    import jsonschema_rs

    validator = jsonschema_rs.validator_for(_plain(schema), validate_formats=True)
    _fast[id(schema)] = (schema, validator)
    return validator


def check(schema: Mapping[str, Any], data: Any, what: str = "input") -> None:
    """Validate ``data`` against ``schema``; ToolFailure naming the offending field."""
    try:
        if _fast_validator(schema).is_valid(_plain(data) if not isinstance(data, dict) else data):
            return
    except Exception:  # noqa: BLE001 - anything jsonschema-rs cannot take (a surrogate key, an odd type): jsonschema judges
        pass
    from jsonschema.exceptions import best_match

    errors = list(validator_for(schema).iter_errors(data))
    if not errors:
        return
    worst = best_match(errors)
    message = describe(worst, len(errors) - 1)
    if what != "input":
        message = what + message[len("input"):]
    raise ToolFailure(message)


def validate_input(descriptor: ToolDescriptor, data: Any) -> None:
    """Check a call's input against the tool's ``input_schema`` (ToolFailure when it does not fit)."""
    check(descriptor.input_schema, data)


def validate_output(descriptor: ToolDescriptor, data: Any) -> None:
    """Check a ``ToolOutput.data`` against the tool's ``output_schema`` (a tool bug if it fails)."""
    check(descriptor.output_schema, data, what="output")


def _check_schema(schema: dict[str, Any]) -> None:
    """Raise jsonschema's SchemaError when ``schema`` is not a valid 2020-12 schema (fast when it is)."""
    import jsonschema_rs

    if jsonschema_rs.meta.is_valid(schema):
        return
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)


def _schema_error() -> type[SchemaError]:
    from jsonschema.exceptions import SchemaError

    return SchemaError


def check_schemas(descriptor: ToolDescriptor) -> None:
    """Registry-time check: both schemas are valid 2020-12 schemas and the input is an object."""
    for label, schema in (("input_schema", descriptor.input_schema), ("output_schema", descriptor.output_schema)):
        if not isinstance(schema, Mapping):
            raise RegistryError(descriptor.name, "schema", f"{label} must be a JSON object")
        try:
            _key(schema)
            _check_schema(_plain(schema))
        except _schema_error() as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            raise RegistryError(descriptor.name, "schema",
                                f"{label} is not a valid JSON Schema at {where}: {_shorten(exc.message)}") from exc
        except (TypeError, ValueError) as exc:
            raise RegistryError(descriptor.name, "schema", f"{label} is not JSON: {exc}") from exc
    if descriptor.input_schema.get("type") != "object":
        raise RegistryError(descriptor.name, "schema",
                            'input_schema must have "type": "object" (tool input is always an object)')
